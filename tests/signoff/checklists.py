"""Checklist templates for tests: the real InferenceX history when present, else our own."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from tests.conftest import INFERENCEX

HISTORY = INFERENCEX / "checklist-history"
CHECKLIST_PATH = "docs/PR_REVIEW_CHECKLIST.md"

# A self-written three-version history, used when the real one is absent.
OWN_V1 = """# Review checklist

## Template

As a PR reviewer and CODEOWNER, I have reviewed this and have:

- [ ] Verified that the code quality does not get any worse.
- [ ] Verified that this PR has passed PR validation.
- [ ] If any of the above criteria cannot reasonably be satisfied, I have provided additional reasoning below.

Signed: `FILL_IN_GITHUB_USERNAME`

## Example
"""
OWN_V2 = OWN_V1.replace(
    "- [ ] Verified that this PR has passed PR validation.\n",
    "- [ ] Verified that this PR has passed PR validation. Please link to the workflow run.\n"
    "- [ ] Verified that this PR passes evals.\n",
)
OWN_V3 = """# Review checklist

## Template
```
As a PR reviewer and CODEOWNER, I have reviewed this and have:
- [ ] Verified that the code quality does not get any worse.
- [ ] Verified that this PR has passed PR validation. Please link to the workflow run.
- [ ] Verified that this PR passes evals.
- [ ] Verified against the current [MODELS.md](https://example.invalid/MODELS.md) that no deprecated model is submitted.
- [ ] Verified that every single-node recipe is documented upstream:
  - [ ] I linked the upstream PR and verified that it is **MERGED**.
- [ ] If any of the above criteria cannot reasonably be satisfied, I have provided additional reasoning below.

### Additional detail section:
- insert any additional info here

Signed: `FILL_IN_GITHUB_USERNAME`
```
"""


def versions_on_disk() -> list[tuple[str, str]]:
    """(label, text) of every template version, oldest first."""
    if HISTORY.is_dir():
        files = sorted(p for p in HISTORY.glob("*.md") if p.name != "README.md")
        return [(re.sub(r"^\d+-", "", p.stem), p.read_text(encoding="utf-8")) for p in files]
    return [("own-v1", OWN_V1), ("own-v2", OWN_V2), ("own-v3", OWN_V3)]


def real_history() -> bool:
    return HISTORY.is_dir()


def build_history_repo(path: Path) -> dict[str, str]:
    """A git repository whose checklist has every version committed in order; label -> sha."""
    path.mkdir(parents=True, exist_ok=True)
    run = lambda *a: subprocess.run(  # noqa: E731
        ["git", *a], cwd=path, check=True, capture_output=True, text=True
    ).stdout.strip()
    run("init", "-q", "-b", "main")
    shas: dict[str, str] = {}
    target = path / CHECKLIST_PATH
    target.parent.mkdir(parents=True, exist_ok=True)
    for label, text in versions_on_disk():
        target.write_text(text, encoding="utf-8")
        run("add", CHECKLIST_PATH)
        run("commit", "-q", "--allow-empty", "-m", f"checklist {label}")
        shas[label] = run("rev-parse", "HEAD")
    return shas


def template_block(text: str) -> str:
    """The template block's text (header to Signed:) of a checklist file."""
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("As a PR reviewer"))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("Signed:"))
    return "\n".join(lines[start : end + 1])


def signoff_from(text: str, login: str, *, check: bool = True) -> str:
    block = template_block(text)
    if check:
        block = block.replace("[ ]", "[x]")
    return block.replace("`FILL_IN_GITHUB_USERNAME`", login)
