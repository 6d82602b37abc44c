"""`changelog-tools signoff explain`: the installed command, on real files and a real git
repository (the checklist and its versions from the default branch), with no token and no
network."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from changelog_tools.signoff.checklist import HEADER
from tests.conftest import commit_files, git, run_cli

EXAMPLE = Path(__file__).resolve().parents[2] / "changelog_tools" / "examples" / "inferencex-mini"
OLD = """# Checklist

```
As a PR reviewer and CODEOWNER, I have reviewed this and have:
- [ ] Verified the entry.
- [ ] Verified the sweep.

Signed: `FILL_IN_GITHUB_USERNAME`
```
"""
NEW = OLD.replace("- [ ] Verified the sweep.", "- [ ] Verified the sweep.\n- [ ] Verified evals.")
CONFIG = "repository: example-org/x\nchangelog: perf-changelog.yaml\n"
# Tokens must not matter: the command makes no request.
NO_NETWORK = {"GH_TOKEN": "", "GITHUB_TOKEN": "", "HTTPS_PROXY": "http://127.0.0.1:9"}


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str, str]:
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    old = commit_files(
        path,
        {".changelog-tools.yaml": CONFIG, "docs/PR_REVIEW_CHECKLIST.md": OLD},
        "checklist: two items",
    )
    new = commit_files(path, {"docs/PR_REVIEW_CHECKLIST.md": NEW}, "checklist: evals")
    return path, old, new


def body(*items: str, signed: str = "`amd-a`", before: str = "") -> str:
    lines = "\n".join(f"- [x] {i}" for i in items)
    return f"{before}{HEADER}\n{lines}\n\nSigned: {signed}\n"


def test_a_current_signoff_signs_off_and_an_old_copy_names_its_version(
    repo: tuple[Path, str, str], tmp_path: Path
) -> None:
    path, old, new = repo
    (tmp_path / "good.md").write_text(
        body("Verified the entry.", "Verified the sweep.", "Verified evals.")
    )
    (tmp_path / "old.md").write_text(
        body("Verified the entry.", "Verified the sweep.", before="> quoted\n\n")
    )
    proc = run_cli(
        "signoff", "explain", str(tmp_path / "good.md"), str(tmp_path / "old.md"),
        "--format", "json", cwd=path, env=NO_NETWORK,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    good, stale = json.loads(proc.stdout)["comments"]
    assert good["file"].endswith("good.md") and good["signs-off"] is True
    assert good["checklist-version"]["commit"] == new and good["checklist-version"]["exact"]
    assert [i["state"] for i in good["items"]] == ["ok", "ok", "ok"]
    assert good["signed"] == "`amd-a`" and good["header-line"] == 1
    assert stale["signs-off"] is False and stale["why-not"] == ["checklist: missing 3"]
    assert stale["checklist-version"]["commit"] == old
    assert stale["checklist"] == f"docs/PR_REVIEW_CHECKLIST.md on main at {new[:9]}"
    assert stale["ignored"] == [
        {"line": 1, "why": "quoted", "detail": "in a quote", "text": "quoted"}
    ]


def test_text_output_names_every_ignored_part_and_reads_stdin(repo: tuple[Path, str, str]) -> None:
    path, _, _ = repo
    text = body(
        "Verified the entry.", "~~Verified the sweep.~~", "Verified evals.",
        before=f"> {HEADER}\n\n<!-- draft -->\n\n",
    )  # fmt: skip
    proc = run_cli("signoff", "explain", "--author", "bob", cwd=path, input=text, env=NO_NETWORK)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.splitlines()
    assert out[0] == "-: does not sign off"
    assert "  why not: checklist: missing 2" in out
    assert "  why not: `Signed: `amd-a`` is not the comment's author @bob" in out
    assert "  header: line 5" in out
    assert "  item 2 missing: Verified the sweep." in out
    assert "  header ignored: line 1, quoted" in out
    assert any(ln.startswith("  ignored: line 3, hidden (in an HTML comment)") for ln in out)
    assert "  ignored: line 7, struck (struck through): 'Verified the sweep.'" in out


def test_without_a_checklist_it_still_reports_what_is_visible(tmp_path: Path) -> None:
    (tmp_path / ".changelog-tools.yaml").write_text(CONFIG)
    (tmp_path / "c.md").write_text(body("anything", before="```\nx\n```\n\n"))
    proc = run_cli("signoff", "explain", "c.md", "--format", "json", cwd=tmp_path, env=NO_NETWORK)
    assert proc.returncode == 0, proc.stderr
    [result] = json.loads(proc.stdout)["comments"]
    assert result["checklist"] is None and "no review checklist" in result["checklist-note"]
    assert result["signs-off"] is True  # a sign-off, filled in; nothing to compare it with
    assert result["items"] == [{"path": "1", "state": "checked", "line": 6, "signoff": "anything"}]
    assert result["ignored"][0]["why"] == "code"


def test_the_bundled_example_reads_its_checklist_from_the_files(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLE, tmp_path / "example")
    template = (EXAMPLE / "docs" / "PR_REVIEW_CHECKLIST.md").read_text()
    block = template.split("```\n", 2)[1].replace("- [ ]", "- [x]")
    block = block.replace("FILL_IN_GITHUB_USERNAME", "amd-a")
    (tmp_path / "s.md").write_text(block)
    proc = run_cli("signoff", "explain", str(tmp_path / "s.md"), cwd=tmp_path / "example")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"{tmp_path / 's.md'}: signs off\n")
    assert "in the working tree (not from git: no versions)" in proc.stdout


def test_an_unreadable_file_is_a_usage_error(tmp_path: Path) -> None:
    proc = run_cli("signoff", "explain", "missing.md", cwd=tmp_path)
    assert proc.returncode == 2
    assert "missing.md" in proc.stderr and "Traceback" not in proc.stderr


def test_a_folder_that_is_no_repository_is_read_as_files_with_one_version(tmp_path: Path) -> None:
    # docs/signoff.md shows explain in a clone (tests/docs runs those examples); a plain copy of
    # the example has no git history, so its checklist is the working tree's, with no versions
    import os
    import subprocess
    import sys

    shutil.copytree(EXAMPLE, tmp_path / "example")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    proc = subprocess.run(
        ["changelog-tools", "signoff", "explain", "review-comments/signoff.md"],
        cwd=tmp_path / "example",
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "review-comments/signoff.md: signs off"
    assert (
        "  checklist: docs/PR_REVIEW_CHECKLIST.md in the working tree (not from git: no versions)"
        in lines
    )


def test_a_comments_control_and_invisible_characters_are_shown_as_escapes(
    repo: tuple[Path, str, str],
) -> None:
    # A comment is anyone's text: a terminal escape in `Signed:` could redraw the line, and a
    # zero-width space makes two names look alike; both are shown, never obeyed.
    path, _, _ = repo
    items = ("Verified the entry.", "Verified the sweep.", "Verified evals.")
    forged = body(*items, signed="`evil\b\b\b\bamd-a\x1b]0;pwn\x07\u009b2J`")
    proc = run_cli(
        "signoff", "explain", "--author", "amd-a", cwd=path, input=forged, env=NO_NETWORK
    )
    assert proc.returncode == 0, proc.stderr
    assert not any(ch in proc.stdout for ch in "\b\x1b\x07\u009b")
    assert "  Signed: `evil\\x08\\x08\\x08\\x08amd-a\\x1b]0;pwn\\x07\\x9b2J`" in proc.stdout
    # format characters are dropped before comparing, as in item texts: this one signs
    spaced = body(*items, signed="`amd\u200b-a`")
    proc = run_cli(
        "signoff", "explain", "--author", "amd-a", cwd=path, input=spaced, env=NO_NETWORK
    )
    lines = proc.stdout.splitlines()
    assert lines[0] == "-: signs off"
    assert "  Signed: `amd\\u200b-a`" in lines


def test_json_carries_the_schema_version_and_the_command(repo: tuple[Path, str, str]) -> None:
    path, _, _ = repo
    proc = run_cli(
        "signoff", "explain", "--format", "json", cwd=path, input="hello\n", env=NO_NETWORK
    )
    doc = json.loads(proc.stdout)
    assert list(doc)[:2] == ["schema-version", "command"] and doc["command"] == "signoff explain"
    assert [c["signs-off"] for c in doc["comments"]] == [False]
