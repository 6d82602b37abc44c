"""`fix` through the installed console script, exactly as docs/fix.md and `fix --help` give it.

Each test runs the real command in a real repository (a `main` branch holding the base, a PR
branch holding the head) and then judges the file on disk: what `fix` says must be true of
the file it leaves, and a command that fails or refuses leaves the file byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from changelog_tools import diagnostics as dx
from changelog_tools.ledger.fix import HISTORY_EDITED
from tests.checkdata import BASE, PULL, entry, init_repo
from tests.conftest import commit_files, git, run_cli

KEY = "alpha-fp8-gpu-a-vllm"
CHANGELOG = "perf-changelog.yaml"
NEW = entry(KEY, description="Added first")


def pr_repo(tmp_path: Path, head: bytes, *, base: bytes = BASE) -> Path:
    """``base`` committed on main, ``head`` on a PR branch checked out."""
    root = init_repo(tmp_path / "bench")
    if base != BASE:
        commit_files(root, {CHANGELOG: base}, "the base")
    git(root, "checkout", "-q", "-b", "pr")
    commit_files(root, {CHANGELOG: head}, "the change")
    return root


def committed_check(root: Path, *args: str) -> tuple[int, str]:
    """Commit what `fix` wrote and run `check` on it, as the author does next."""
    git(root, "commit", "-q", "--allow-empty", "-am", "fixed")
    proc = run_cli("check", "--no-config-keys", *args, cwd=root)
    return proc.returncode, proc.stdout + proc.stderr


# -- the documented calls -------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["--pr", "1234"],  # docs/fix.md
        ["--pr-number", "1234"],
        ["--pr", "1234", "--format", "json"],  # `fix --help` and docs/fix.md
    ],
)
def test_fix_with_the_pull_requests_number_repairs_and_passes(
    tmp_path: Path, args: list[str]
) -> None:
    head = BASE + b"\n\n" + entry(KEY, description="Added first", link="TBD")
    root = pr_repo(tmp_path, head)
    proc = run_cli("fix", *args, cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    expected = BASE + b"\n" + entry(KEY, description="Added first", link=f"{PULL}1234")
    assert (root / CHANGELOG).read_bytes() == expected
    if "json" in args:
        doc = json.loads(proc.stdout)
        assert doc["ok"] is True and doc["written"] is True and doc["checked"] == "written"
        assert [r["code"] for r in doc["repairs"]] == [dx.APPEND_SEPARATOR, dx.NEAR_MISS_LINK]
    else:
        assert "CL203 repaired" in proc.stdout and proc.stdout.endswith(": OK\n")
    code, out = committed_check(root, "--pr", "1234")
    assert code == 0, out


def test_a_fix_that_fails_writes_nothing_and_leaves_no_lock(tmp_path: Path) -> None:
    head = BASE + b"\n\n" + NEW
    root = pr_repo(tmp_path, head)
    proc = run_cli("fix", "--pr", "7", "--base-ref", "no-such-revision", cwd=root)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.startswith("error: unknown revision 'no-such-revision'")
    assert (root / CHANGELOG).read_bytes() == head
    assert not (root / f"{CHANGELOG}.lock").exists()


# -- history written twice: a side whose entries cannot all be located ------------------------

# Entry 2 of the base starts with `- description:`: the YAML is a list of two entries, but no
# entry can be located by its `- config-keys:` line.
ODD_BASE = BASE.replace(
    b'- config-keys:\n    - beta-fp4-gpu-b-*\n  description:\n    - "Second sweep"\n',
    b'- description:\n    - "Second sweep"\n  config-keys:\n    - beta-fp4-gpu-b-*\n',
)


@pytest.mark.parametrize(
    ("base", "head", "side"),
    [
        # a byte-order mark on the base, which the change dropped
        (b"\xef\xbb\xbf" + BASE, BASE + b"\n" + NEW, "the base"),
        # a byte-order mark on both
        (b"\xef\xbb\xbf" + BASE, b"\xef\xbb\xbf" + BASE + b"\n" + NEW, "the base"),
        # an entry that does not start with `- config-keys:`, kept or reordered by the change
        (ODD_BASE, ODD_BASE + b"\n" + NEW, "the base"),
        (ODD_BASE, BASE + b"\n" + NEW, "the base"),
        # the change's own entry does not start with `- config-keys:`
        (BASE, BASE + b'\n- description:\n    - "x"\n  config-keys:\n    - a\n  pr-link: XXX\n',
         "the file"),
    ],
)  # fmt: skip
def test_entries_that_cannot_be_located_are_refused_and_nothing_is_written(
    tmp_path: Path, base: bytes, head: bytes, side: str
) -> None:
    root = pr_repo(tmp_path, head, base=base)
    proc = run_cli("fix", cwd=root)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"{dx.NOT_AN_APPEND} {side}" in proc.stdout and "cannot be split into entries" in (
        proc.stdout
    )
    assert "nothing was written" in proc.stdout
    assert (root / CHANGELOG).read_bytes() == head  # not the history appended again
    assert not (root / f"{CHANGELOG}.lock").exists()


# -- OK while `check` fails: the base's own empty lines at its end ----------------------------


@pytest.mark.parametrize(("tail", "kept"), [(b"\n\n", b"\n"), (b"\n\n\n", b"\n"), (b"\n", b"")])
def test_empty_lines_the_change_trimmed_from_the_base_are_restored_and_check_passes(
    tmp_path: Path, tail: bytes, kept: bytes
) -> None:
    base = BASE + tail  # the base ends in empty lines of its own
    head = BASE + kept + NEW  # the change trimmed them
    root = pr_repo(tmp_path, head, base=base)
    before = run_cli("check", "--no-config-keys", cwd=root)
    assert before.returncode == 1, before.stdout
    proc = run_cli("fix", "--format", "json", cwd=root)
    doc = json.loads(proc.stdout)
    written = (root / CHANGELOG).read_bytes()
    assert written == base + NEW
    assert doc["written"] is True and proc.returncode == 0
    assert doc["repairs"][0]["code"] == dx.HISTORY_BYTES_CHANGED
    assert "nothing to repair" not in proc.stderr
    code, out = committed_check(root)
    assert code == 0, out  # "OK" from fix is `check`'s verdict on the file it wrote


# -- a near-miss naming another pull request: `fix` cannot help, so no hint sends you there ------


def test_a_near_miss_naming_another_pull_request_is_hinted_to_edit_by_hand_not_to_fix(
    tmp_path: Path,
) -> None:
    head = BASE + b"\n" + entry(KEY, description="Added first", link=f"{PULL}12/")
    root = pr_repo(tmp_path, head)
    fixed = run_cli("fix", "--pr", "13", cwd=root)
    assert fixed.returncode == 1, fixed.stdout + fixed.stderr
    assert "nothing to repair" in fixed.stderr
    assert (root / CHANGELOG).read_bytes() == head
    proc = run_cli("check", "--no-config-keys", "--pr", "13", "--format", "json", cwd=root)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    [problem] = json.loads(proc.stdout)["diagnostics"]
    assert problem["code"] == dx.NEAR_MISS_LINK
    hint = problem["hint"]
    assert "fix` does it" not in hint and "`changelog-tools fix` leaves it" in hint
    assert "#12, not #13" in hint and f"`{PULL}13`" in hint and "by hand" in hint
    text = run_cli("check", "--no-config-keys", "--pr", "13", cwd=root).stdout
    assert "fix` does it" not in text and "by hand" in text
    # doing what the hint says passes
    (root / CHANGELOG).write_bytes(head.replace(f"{PULL}12/".encode(), f"{PULL}13".encode()))
    code, out = committed_check(root, "--pr", "13")
    assert code == 0, out


def test_a_near_miss_fix_can_repair_still_names_fix(tmp_path: Path) -> None:
    head = BASE + b"\n" + entry(KEY, description="Added first", link=f"{PULL}13/")
    root = pr_repo(tmp_path, head)
    proc = run_cli("check", "--no-config-keys", "--pr", "13", cwd=root)
    assert proc.returncode == 1 and dx.NEAR_MISS_LINK in proc.stdout, proc.stdout
    assert "`changelog-tools fix` does it" in proc.stdout
    assert run_cli("fix", "--pr", "13", cwd=root).returncode == 0
    code, out = committed_check(root, "--pr", "13")
    assert code == 0, out


# -- a refusal listed with its causes: shown, marked, and not counted, in every format --------


@pytest.mark.parametrize("output_format", ["text", "github", "json"])
def test_a_refusal_is_marked_as_the_consequence_and_left_out_of_the_count_in_every_format(
    tmp_path: Path, output_format: str
) -> None:
    edited = BASE.replace(b"Second sweep", b"Second sweep, edited")
    head = edited + b"\n" + NEW
    root = pr_repo(tmp_path, head)
    proc = run_cli("fix", "--format", output_format, cwd=root)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert (root / CHANGELOG).read_bytes() == head
    summary = "fix: perf-changelog.yaml: 1 problem (1 error, 0 warnings)"
    tag = " (consequence, not counted)"
    if output_format == "json":
        doc = json.loads(proc.stdout)
        causes = [d for d in doc["diagnostics"] if not d.get("consequence")]
        [refusal] = [d for d in doc["diagnostics"] if d.get("consequence")]
        assert [d["code"] for d in causes] == [dx.ENTRY_CHANGED]
        assert refusal["code"] == HISTORY_EDITED and tag not in refusal["message"]
        assert doc["summary"] == {"errors": len(causes), "warnings": 0, "text": summary}
        return
    lines = proc.stdout.splitlines()
    assert lines[-1] == summary
    marked = [line for line in lines if tag in line]
    assert len(marked) == 1 and HISTORY_EDITED in marked[0], proc.stdout
    assert f"nothing was written{tag}" in marked[0]
    errors = [line for line in lines if line.startswith("::error") or ": CL" in line]
    assert len(errors) == 2 and len(errors) - len(marked) == 1, proc.stdout


# -- PR-controlled text never reaches the terminal as control characters ----------------------

# An OSC 8 hyperlink, a CSI colour, a C1 CSI (U+009B) and a BEL in a YAML key of the new entry:
# YAML's double-quoted escapes put them in the key without a raw control byte in the file.
HOSTILE = b'  "\\e]8;;https://evil.example/\\e\\\\click\\e]8;;\\e\\\\ \\e[31mred\\x9b2J\\a": 1\n'


def _raw_controls(text: str) -> list[str]:
    return [c for c in text if (ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) <= 0x9F]


@pytest.mark.parametrize("output_format", ["text", "github", "json"])
def test_control_characters_from_the_pull_request_are_never_printed_raw(
    tmp_path: Path, output_format: str
) -> None:
    hostile = entry(KEY, description="Added first", extra=HOSTILE.decode().rstrip("\n"))
    head = BASE + b"\n" + hostile
    root = pr_repo(tmp_path, head)
    for command in (["fix"], ["check", "--no-config-keys"]):
        proc = run_cli(*command, "--format", output_format, cwd=root)
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert dx.UNKNOWN_FIELD in proc.stdout
        assert _raw_controls(proc.stdout) == [], (command, proc.stdout)
        assert _raw_controls(proc.stderr) == [], (command, proc.stderr)
        if output_format == "json":
            # the key itself is kept, as JSON's own escapes
            message = json.loads(proc.stdout)["diagnostics"][0]["message"]
            assert "\x1b]8;;https://evil.example/" in message
        else:
            assert "\\x1b]8;;https://evil.example/" in proc.stdout  # shown, not obeyed


def test_a_base_over_the_size_limit_is_refused_from_its_size_and_nothing_written(
    tmp_path: Path,
) -> None:
    padded = BASE + b"# " + b"x" * 4000 + b"\n"
    root = pr_repo(tmp_path, BASE + b"\n" + NEW, base=padded)
    config = (root / ".changelog-tools.yaml").read_text()
    (root / ".changelog-tools.yaml").write_text(config + f"max-file-size: {len(padded) - 1}\n")
    before = (root / CHANGELOG).read_bytes()
    proc = run_cli("fix", "--base-ref", "main", cwd=root)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stderr == (
        f"error: {CHANGELOG}@main: file is {len(padded):,} bytes; the limit is "
        f"{len(padded) - 1:,} (`max-file-size`)\n"
    )
    assert (root / CHANGELOG).read_bytes() == before
