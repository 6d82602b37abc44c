"""docs/migrating-from-inferencex.md, followed: its `.changelog-tools.yaml` added to a repository
that had none, entries appended with `new` and checked with `check --pr N` by the installed
command, gives no warning; and it names every InferenceX file that refers to what it deletes.

Run on an InferenceX-shaped twin built from the bundled example (always) and on a git repository
made from the real InferenceX snapshot (when it is present)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

import changelog_tools
from tests.conftest import INFERENCEX, REPO_ROOT, git, run_cli

GUIDE = REPO_ROOT / "docs" / "migrating-from-inferencex.md"
EXAMPLE = Path(changelog_tools.__file__).parent / "examples" / "inferencex-mini"


def guide_config() -> str:
    """The sample configuration the guide tells users to write (its YAML block naming the
    repository)."""
    blocks = re.findall(r"```yaml\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)
    found = [b for b in blocks if b.startswith("repository: ")]
    assert len(found) == 1, "the guide should show exactly one .changelog-tools.yaml"
    return found[0]


def _twin(root: Path) -> Path:
    """The example repository laid out as InferenceX is: master configs named as InferenceX's,
    no configuration file (main before the switch)."""
    shutil.copytree(EXAMPLE, root)
    (root / ".changelog-tools.yaml").unlink()
    (root / "configs/gpu-a-master.yaml").rename(root / "configs/amd-master.yaml")
    (root / "configs/gpu-b-master.yaml").rename(root / "configs/nvidia-master.yaml")
    return root


def _snapshot(root: Path) -> Path:
    shutil.copytree(INFERENCEX, root, ignore=shutil.ignore_patterns(".git"))
    for path in [root, *root.rglob("*")]:  # the snapshot is read-only; the copy must not be
        path.chmod(path.stat().st_mode | 0o200)
    return root


def _world(kind: str, tmp_path: Path) -> tuple[Path, str]:
    if kind == "twin":
        return _twin(tmp_path / "inferencex-twin"), "llama70b-fp8-gpu-*"
    if not (INFERENCEX / "perf-changelog.yaml").is_file():
        pytest.skip(f"real InferenceX fixture {INFERENCEX} is absent")
    return _snapshot(tmp_path / "inferencex"), "dsr1-fp8-h200-*"


def _check(root: Path, pr: int) -> dict[str, object]:
    proc = run_cli("check", "--pr", str(pr), "--format", "json", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc: dict[str, object] = json.loads(proc.stdout)
    return doc


@pytest.mark.parametrize("kind", ["twin", "inferencex"])
def test_following_the_guide_gives_no_warning(kind: str, tmp_path: Path) -> None:
    root, key = _world(kind, tmp_path)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "Before the switch")
    # The switch: the guide's configuration and a first entry, in one pull request.
    git(root, "checkout", "-qb", "adopt")
    (root / ".changelog-tools.yaml").write_text(guide_config(), encoding="utf-8")
    new = run_cli("new", "--config-key", key, "--description", "Bump SGLang", cwd=root)
    assert new.returncode == 0, new.stderr
    git(root, "add", "-A")
    git(root, "commit", "-qm", "Adopt changelog-tools")
    doc = _check(root, 2800)
    assert doc["ok"] is True
    assert doc["diagnostics"] == [], doc["diagnostics"]  # no CL116, no warning of any kind
    assert doc["summary"] == {"errors": 0, "warnings": 0, "text": "check: OK"}
    # Merged; the next pull request is judged by the configuration now on main.
    git(root, "checkout", "-q", "main")
    git(root, "merge", "-q", "--ff-only", "adopt")
    git(root, "commit", "-q", "--amend", "-m", "Adopt changelog-tools (#2800)")
    git(root, "checkout", "-qb", "next")
    new = run_cli("new", "--config-key", key, "--description", "Second entry", cwd=root)
    assert new.returncode == 0, new.stderr
    git(root, "commit", "-qam", "Second entry")
    doc = _check(root, 2801)
    assert doc["diagnostics"] == [] and doc["ok"] is True
    # Step 0 of the guide, on this history: the adoption replays clean.
    replay = run_cli("replay", "--last", "1", "--format", "json", "--branch", "main", cwd=root)
    assert replay.returncode == 0, replay.stderr
    assert json.loads(replay.stdout)["changes"][0] | {"commit": "", "subject": ""} == {
        "commit": "",
        "subject": "",
        "pr": 2800,
        "mode": "pr",
        "passes": True,
        "codes": [],
        "fix": None,
        "after-fix": [],
    }


def test_the_order_of_master_configs_is_what_made_the_old_sample_warn(tmp_path: Path) -> None:
    """The guide's promise rests on this: a configuration that differs from the defaults only in
    the order of `master-configs` does draw CL116 on the pull request that adds it."""
    root, key = _world("twin", tmp_path)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "Before the switch")
    git(root, "checkout", "-qb", "adopt")
    swapped = guide_config().replace("amd-master", "TMP").replace("nvidia-master", "amd-master")
    (root / ".changelog-tools.yaml").write_text(swapped.replace("TMP", "nvidia-master"))
    assert run_cli("new", "--config-key", key, "--description", "x", cwd=root).returncode == 0
    git(root, "add", "-A")
    git(root, "commit", "-qm", "Adopt")
    doc = _check(root, 2800)
    assert [d["code"] for d in doc["diagnostics"]] == ["CL116"]  # type: ignore[index, union-attr]


def _section(name: str) -> str:
    text = GUIDE.read_text(encoding="utf-8")
    found = re.search(rf"<!-- {name} -->\n(.*?)<!-- /{name} -->", text, re.S)
    assert found, f"the guide lost its {name} list"
    return found[1]


def test_the_guide_names_every_inferencex_file_that_refers_to_what_it_deletes() -> None:
    if not (INFERENCEX / ".github").is_dir():
        pytest.skip(f"real InferenceX fixture {INFERENCEX} is absent")
    deleted = re.findall(r"`([^`]+)`", _section("deleted-files"))
    # What a reference looks like: the file's name without its directory and extension
    # (`merge_with_reuse`, `changelog_gate_tests`, `recover-failed-ingest`).
    stems = {Path(p.rstrip("/")).stem for p in deleted if "/" in p}
    assert {"validate_perf_changelog", "changelog_gate_tests", "recover-failed-ingest"} <= stems
    named = set(re.findall(r"^\| `([^`]+)`(?:, `([^`]+)`)?", _section("referring-files"), re.M))
    named_files = {f for pair in named for f in pair if f}
    pattern = re.compile("|".join(re.escape(s) for s in sorted(stems)))
    referring = set()
    for path in INFERENCEX.rglob("*"):
        if not path.is_file() or path.suffix not in {".md", ".yml", ".yaml", ".py", ".sh"}:
            continue
        relative = path.relative_to(INFERENCEX).as_posix()
        if relative in deleted:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        # a link into a fixed commit keeps working after the delete
        live = re.sub(r"/blob/[0-9a-f]{40}/\S*", "", text)
        if pattern.search(live):
            referring.add(relative)
    assert referring, "found no reference at all: the search is wrong"
    assert referring <= named_files, f"the guide does not name {sorted(referring - named_files)}"
    # and the example the issue gives, by name
    assert ".github/workflows/test-changelog-gate.yml" in named_files
