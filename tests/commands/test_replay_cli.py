"""`changelog-tools replay`: the merged history of a real git repository, replayed through
`check` and `fix` by the installed command, counted exactly; nothing written."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

import changelog_tools
from tests.conftest import INFERENCEX, git, inferencex_file, run_cli

EXAMPLE = Path(changelog_tools.__file__).parent / "examples" / "inferencex-mini"
LINK = "https://github.com/example-org/inferencex-mini/pull/"
CHANGELOG = "perf-changelog.yaml"


def _entry(key: str, text: str, pr: int) -> str:
    return f'\n- config-keys:\n    - {key}\n  description:\n    - "{text}"\n  pr-link: {LINK}{pr}\n'


def _append(root: Path, text: str) -> None:
    with (root / CHANGELOG).open("a", encoding="utf-8") as f:
        f.write(text)


def _commit(root: Path, subject: str) -> str:
    git(root, "commit", "-qam", subject)
    return git(root, "rev-parse", "HEAD")


@pytest.fixture
def history(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The example repository with merged "pull requests" on main: two good ones (one a real
    merge commit), one that touches no changelog, and one each failing CL201, CL108 (fixable),
    CL101 (fix refuses) and CL301 (fix cannot help)."""
    root = tmp_path / "bench"
    shutil.copytree(EXAMPLE, root)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    shas = {"import": _commit(root, "Import inferencex-mini")}
    _append(root, _entry("llama70b-fp8-gpu-a-vllm", "Bump vLLM", 10))
    shas["good"] = _commit(root, "Bump vLLM (#10)")
    with (root / "README.md").open("a") as f:
        f.write("more\n")
    shas["docs"] = _commit(root, "Docs only (#11)")
    _append(root, _entry("llama70b-fp8-gpu-b-vllm", "Links another PR", 99))
    shas["wrong-pr"] = _commit(root, "Wrong link (#12)")
    _append(root, "\n" + _entry("mixtral-fp4-gpu-b-trt", "Two empty lines before", 13))
    shas["separator"] = _commit(root, "Separator (#13)")
    text = (root / CHANGELOG).read_text()
    start = text.index("- config-keys:\n    - mixtral-fp4-gpu-b-*")
    end = text.index("- config-keys:", start + 1)
    (root / CHANGELOG).write_text(text[:start] + text[end:])
    shas["deleted"] = _commit(root, "Drop an entry (#14)")
    git(root, "checkout", "-qb", "side")
    _append(root, _entry("mixtral-fp4-gpu-b-trt", "Through a merge commit", 15))
    _commit(root, "side work")
    git(root, "checkout", "-q", "main")
    git(root, "merge", "-q", "--no-ff", "side", "-m", "Merge pull request #15 from someone/side")
    shas["merge"] = git(root, "rev-parse", "HEAD")
    _append(root, _entry("no-such-key-gpu-a", "Unknown key", 16))
    shas["unknown-key"] = _commit(root, "Unknown key (#16)")
    return root, shas


def _tree_state(root: Path) -> tuple[str, str, bytes]:
    return (
        git(root, "rev-parse", "HEAD"),
        git(root, "status", "--porcelain"),
        (root / CHANGELOG).read_bytes(),
    )


def test_replay_counts_failures_by_code_and_what_fix_repairs(
    history: tuple[Path, dict[str, str]],
) -> None:
    root, shas = history
    before = _tree_state(root)
    proc = run_cli("replay", "--last", "6", "--format", "json", cwd=root)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert (doc["replayed"], doc["pass"], doc["fail"]) == (6, 2, 4)
    assert doc["by-code"] == {
        "CL101": {"name": "entry-deleted", "failing": 1, "gone": 0},
        "CL108": {"name": "append-separator", "failing": 1, "gone": 1},
        "CL201": {"name": "wrong-pr", "failing": 1, "gone": 0},
        "CL301": {"name": "unknown-config-key", "failing": 1, "gone": 0},
    }
    assert doc["fix"] == {
        "repaired": 1,
        "still-fails": 2,
        "refused": 1,
        "refused-by-code": {"CL520": 1},
    }
    by_commit = {c["commit"]: c for c in doc["changes"]}
    # Newest first; the commit that left the changelog alone is not a change of it; the
    # import (the 7th) is beyond --last 6.
    assert [c["commit"] for c in doc["changes"]] == [
        shas[k] for k in ("unknown-key", "merge", "deleted", "separator", "wrong-pr", "good")
    ]
    assert by_commit[shas["merge"]]["pr"] == 15 and by_commit[shas["merge"]]["passes"]
    assert by_commit[shas["separator"]] | {"subject": ""} == {
        "commit": shas["separator"],
        "subject": "",
        "pr": 13,
        "mode": "pr",
        "passes": False,
        "codes": ["CL108"],
        "fix": "repaired",
        "after-fix": [],
    }
    assert by_commit[shas["wrong-pr"]]["after-fix"] == ["CL201"]
    # Progress on stderr, one line per change, each naming it.
    progress = [line for line in proc.stderr.splitlines() if line.startswith("replay: ")]
    assert len(progress) == 7
    assert progress[4] == f"replay: 4/6 {shas['separator'][:12]} #13: fails CL108; `fix` repairs it"
    assert _tree_state(root) == before  # nothing written: not the file, not git


def test_replay_text_and_a_commit_without_a_pull_request_number(
    history: tuple[Path, dict[str, str]],
) -> None:
    root, shas = history
    proc = run_cli("replay", "--last", "50", cwd=root)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[:3] == [
        "replayed 7 merged changes of perf-changelog.yaml on main (newest first)",
        "  pass `check`: 3",
        "  fail `check`: 4",
    ]
    assert "  CL108  append-separator           1 change; gone after `fix` in 1" in lines
    assert "`fix` (in memory): repairs 1 of 4; 2 still fail after it; refuses 1 (CL520 1)" in lines
    assert f"  {shas['deleted'][:12]} #14: CL101; `fix` refuses (CL520)" in lines
    # The import names no pull request: checked as the push job would check it.
    assert (
        f"replay: 7/7 {shas['import'][:12]} (no pull request named; main mode): passes"
        in proc.stderr.splitlines()
    )


def test_replay_without_config_keys_skips_the_master_config_rules(
    history: tuple[Path, dict[str, str]],
) -> None:
    root, _ = history
    proc = run_cli("replay", "--last", "1", "--no-config-keys", "--format", "json", cwd=root)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert (doc["replayed"], doc["fail"], doc["config-keys"]) == (1, 0, False)


def test_replay_in_a_shallow_clone_is_refused_rather_than_judging_a_cut_history(
    history: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    # The oldest commit of a shallow clone has no parent: its whole changelog would look new.
    root, _ = history
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "3", f"file://{root}", str(shallow))
    proc = run_cli("replay", "--last", "10", cwd=shallow)
    assert proc.returncode == 2
    assert "is shallow" in proc.stderr and "fetch-depth: 0" in proc.stderr
    assert proc.stdout == ""


def test_replay_of_an_unknown_branch_is_a_usage_error(
    history: tuple[Path, dict[str, str]],
) -> None:
    root, _ = history
    proc = run_cli("replay", "--branch", "no-such-branch", cwd=root)
    assert proc.returncode == 2
    assert "unknown revision 'no-such-branch'" in proc.stderr


def _ending(data: bytes) -> bytes:
    """``data`` as a pull request leaves the file: the empty (or blank) lines that separate its
    last entry from the next one are the next pull request's to add."""
    return data.rstrip(b" \t\r\n") + b"\n" if data.strip() else data


def relanded_history(snapshot: Path, root: Path, count: int) -> list[int | None]:
    """A git repository of ``snapshot`` whose newest ``count`` changelog entries land one squash
    commit each (subject ``... (#N)``, N from the entry's pr-link), on a base holding the rest:
    the real ledger's last pull requests, merged again byte for byte. Their numbers, oldest
    first."""
    shutil.copytree(snapshot, root, ignore=shutil.ignore_patterns(".git"))
    for path in root.rglob("*"):  # a read-only snapshot copies read-only
        path.chmod(path.stat().st_mode | 0o200)
    data = (root / CHANGELOG).read_bytes()
    starts = [m.start() for m in re.finditer(rb"(?m)^- ", data)][-count:]
    git(root, "init", "-q", "-b", "main")
    (root / CHANGELOG).write_bytes(_ending(data[: starts[0]]))
    git(root, "add", "-A")
    git(root, "commit", "-qm", "Snapshot before the replayed pull requests")
    numbers: list[int | None] = []
    for start, end in zip(starts, [*starts[1:], len(data)], strict=True):
        found = re.search(rb"pull/([0-9]+)", data[start:end])
        # An entry whose link is still the placeholder landed without its number: a subject
        # without one (checked in main mode, as the push job would).
        numbers.append(int(found[1]) if found else None)
        (root / CHANGELOG).write_bytes(_ending(data[:end]))
        suffix = f" (#{found[1].decode()})" if found else ""
        git(root, "commit", "-qam", f"Re-land an entry{suffix}")
    return numbers


def test_replay_on_the_inferencex_ledger_relanded(tmp_path: Path) -> None:
    snapshot = inferencex_file(CHANGELOG).parent
    root = tmp_path / "inferencex"
    numbers = relanded_history(snapshot, root, 12)
    proc = run_cli("replay", "--last", "12", "--format", "json", cwd=root)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert [c["pr"] for c in doc["changes"]] == numbers[::-1]
    assert doc["pass"] + doc["fail"] == doc["replayed"] == 12
    assert sum(v["failing"] for v in doc["by-code"].values()) >= doc["fail"]
    fixed = doc["fix"]
    assert fixed["repaired"] + fixed["still-fails"] + fixed["refused"] == doc["fail"]


def test_replay_on_inferencex_history_when_a_clone_is_at_hand() -> None:
    """A clone of InferenceX with its history (the snapshot beside the checkout has none): name it
    in CHANGELOG_TOOLS_INFERENCEX_CLONE. At the snapshot's commit the newest 100 changes are
    known: 30 fail, `fix` repairs 29 of them (the other links another pull request)."""
    import os
    import subprocess

    clone = Path(os.environ.get("CHANGELOG_TOOLS_INFERENCEX_CLONE", INFERENCEX))
    if not (clone / ".git").exists():
        pytest.skip(f"{clone} is not a clone with history (set CHANGELOG_TOOLS_INFERENCEX_CLONE)")
    proc = run_cli("replay", "--last", "100", "--format", "json", cwd=clone)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["replayed"] == len(doc["changes"]) == 100
    assert doc["pass"] + doc["fail"] == 100
    head = subprocess.run(
        ["git", "-C", str(clone), "rev-parse", "main"], capture_output=True, text=True, check=True
    ).stdout.strip()
    if head.startswith("843c6254f"):
        assert (doc["pass"], doc["fail"]) == (70, 30)
        assert doc["fix"] == {
            "repaired": 29,
            "still-fails": 1,
            "refused": 0,
            "refused-by-code": {},
        }
        assert {k: v["failing"] for k, v in doc["by-code"].items()} == {
            "CL103": 17,
            "CL108": 9,
            "CL105": 4,
            "CL109": 1,
            "CL201": 1,
        }


def _raw_controls(text: str) -> list[str]:
    return [c for c in text if (ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) <= 0x9F]


def test_a_control_character_in_a_commit_subject_is_kept_exactly_and_never_printed_raw(
    tmp_path: Path,
) -> None:
    root = tmp_path / "bench"
    shutil.copytree(EXAMPLE, root)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    _commit(root, "Import inferencex-mini")
    # Both fail `check`: one links another pull request, one selects no master-config key.
    _append(root, _entry("llama70b-fp8-gpu-a-vllm", "Links another PR", 99))
    squash = "Bump \x1b[31mred\x07 (#10)"
    _commit(root, squash)
    _append(root, _entry("no-such-key-gpu-a", "Unknown key", 11))
    direct = "Direct push \x1b]8;;https://evil.example/\x07here"
    pushed = _commit(root, direct)
    assert git(root, "log", "-2", "--format=%s").splitlines() == [direct, squash]

    proc = run_cli("replay", "--format", "json", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert _raw_controls(proc.stdout) == []  # the JSON encoder escapes them
    subjects = [change["subject"] for change in json.loads(proc.stdout)["changes"]]
    assert subjects == [direct, squash, "Import inferencex-mini"]  # exact, not `?`

    text = run_cli("replay", cwd=root)
    assert text.returncode == 0, text.stderr
    assert _raw_controls(text.stdout) == [] and _raw_controls(text.stderr) == []
    shown = '(main mode: "Direct push \\x1b]8;;https://evil.example/\\x07here")'
    assert f"  {pushed[:12]} {shown}: CL301" in text.stdout
