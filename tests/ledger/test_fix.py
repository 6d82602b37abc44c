"""`fix`: every mechanical problem of a change repaired, every other byte kept.

The result is the base's bytes exactly, then each entry the change added, its own bytes, after
one empty line; it passes `check`. A real edit of history is refused and nothing is written.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from changelog_tools import diagnostics as dx
from changelog_tools.ledger.check import check_change
from changelog_tools.ledger.fix import HISTORY_EDITED, fix_change
from changelog_tools.ledger.guard import Refusal
from tests.checkdata import BASE, PULL, config, entry, init_repo
from tests.conftest import commit_files, git, run_cli
from tests.ledger.test_placement import history, insert

KEY = "alpha-fp8-gpu-a-vllm"
NEW_A = entry(KEY, description="Added first")
NEW_B = entry(KEY, description="Added second", link=f"{PULL}9")


def fixed(base: bytes, head: bytes, *, pr: int | None = None) -> tuple[bytes, list[str]]:
    out = fix_change(base, head, config=config(), path="p", base_label="b", pr=pr)
    return out.data, [r.code for r in out.repairs]


def errors(base: bytes, head: bytes, *, pr: int | None = None) -> list[str]:
    mode = "pr" if pr else "local"
    result = check_change(base=base, head=head, config=config(), mode=mode, pr=pr, path="p")
    return [d.code for d in result.report.errors]


def test_an_inserted_entry_moves_to_the_end() -> None:
    head = insert(BASE, 1, NEW_A)
    assert errors(BASE, head) == [dx.ENTRY_INSERTED]
    data, codes = fixed(BASE, head)
    assert data == BASE + b"\n" + NEW_A
    assert codes == [dx.ENTRY_INSERTED]
    assert errors(BASE, data) == []


def test_history_bytes_changed_but_not_meaning_are_restored_from_the_base() -> None:
    # an editor added trailing spaces and re-quoted a description in history
    edited = BASE.replace(b'"First sweep"', b"'First sweep'").replace(
        b"bench/pull/1\n", b"bench/pull/1   \n"
    )
    head = edited + b"\n" + NEW_A
    assert errors(BASE, head)  # CL105 or CL104
    data, codes = fixed(BASE, head)
    assert data == BASE + b"\n" + NEW_A
    assert codes[0] == dx.HISTORY_BYTES_CHANGED
    assert errors(BASE, data) == []


@pytest.mark.parametrize("separator", [b"", b"\n\n", b"   \n", b"\n\n\n"])
@pytest.mark.parametrize("tail", [b"", b"\n", b"\n\n"])
def test_separators_and_the_final_newline_become_one_empty_line_and_one_newline(
    separator: bytes, tail: bytes
) -> None:
    head = BASE + separator + NEW_A + tail
    data, codes = fixed(BASE, head)
    assert data == BASE + b"\n" + NEW_A
    assert errors(BASE, data) == []
    if head != data:
        assert codes == [dx.APPEND_SEPARATOR]
    else:
        assert codes == []


@pytest.mark.parametrize(
    ("link", "pr", "written"),
    [
        (f"http://github.com/{'example-org/bench'}/pull/7", None, f"{PULL}7"),
        ("https://github.com/Example-Org/bench/pull/7", None, f"{PULL}7"),
        ("TBD", None, "XXX"),
        ("TBD", 12, f"{PULL}12"),
        (f"{PULL}XXXX", 12, f"{PULL}12"),
    ],
)
def test_a_near_miss_link_in_a_new_entry_becomes_canonical_or_the_placeholder(
    link: str, pr: int | None, written: str
) -> None:
    head = BASE + b"\n" + entry(KEY, description="New", link=link)
    data, codes = fixed(BASE, head, pr=pr)
    assert data == BASE + b"\n" + entry(KEY, description="New", link=written)
    assert codes == [dx.NEAR_MISS_LINK]


def test_a_near_miss_with_another_pull_requests_number_is_left_for_a_human() -> None:
    head = (
        BASE
        + b"\n"
        + entry(KEY, description="New", link="http://github.com/example-org/bench/pull/7")
    )
    data, codes = fixed(BASE, head, pr=12)
    assert data == head and codes == []


@pytest.mark.parametrize(
    "edit",
    [
        lambda raw: raw.replace(b"First sweep", b"First sweep, edited"),  # meaning changed
        lambda raw: raw[raw.index(b"- config-keys", 1) :],  # an entry deleted
    ],
)
def test_a_real_edit_of_history_is_refused(edit) -> None:  # type: ignore[no-untyped-def]
    head = edit(BASE) + b"\n" + NEW_A
    with pytest.raises(Refusal) as caught:
        fixed(BASE, head)
    assert caught.value.code == HISTORY_EDITED
    assert "needs" not in caught.value.message or "human" in caught.value.message


def test_a_clean_change_or_a_correction_alone_is_left_as_it_is() -> None:
    clean = BASE + b"\n" + NEW_A
    assert fixed(BASE, clean) == (clean, [])
    corrected = BASE.replace(f"{PULL}1\n".encode(), f"{PULL}11\n".encode())
    assert fixed(BASE, corrected) == (corrected, [])


# -- the ledger's invariant, for any placement and layout ------------------------------------------

SEPARATORS = st.sampled_from([b"\n", b"\n\n", b"", b"  \n", b"\n\n\n"])


@settings(max_examples=150, deadline=None)
@given(
    n_history=st.integers(1, 6),
    odd=st.booleans(),
    new=st.lists(st.integers(0, 6), min_size=1, max_size=3),
    seps=st.lists(SEPARATORS, min_size=3, max_size=3),
    tail=st.sampled_from([b"", b"\n", b"\n\n"]),
)
def test_fix_keeps_the_base_bytes_and_each_new_entrys_bytes(
    n_history: int, odd: bool, new: list[int], seps: list[bytes], tail: bytes
) -> None:
    base = history(n_history, odd)
    blocks = [entry(KEY, description=f"New {i}") for i in range(len(new))]
    head = base
    for i, (position, block) in enumerate(zip(new, blocks, strict=True)):
        if position < n_history:
            head = insert(head, min(position, n_history - 1), block)
        else:
            head = head.rstrip(b"\n") + b"\n" + seps[i] + block
    head = head.rstrip(b"\n") + b"\n" + tail if tail else head
    if not head.endswith(b"\n"):
        head += b"\n"
    data, _ = fixed(base, head)
    assert data.startswith(base)  # the other side's bytes, exactly
    for block in blocks:
        assert data.count(block) == 1  # every new entry's own bytes, once
    assert errors(base, data) == []
    assert fixed(base, data) == (data, [])  # idempotent


# -- from the command line --------------------------------------------------------------------------


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = init_repo(tmp_path / "bench")
    git(root, "checkout", "-q", "-b", "pr")
    return root


def test_the_command_repairs_in_place_and_check_then_passes(repo: Path) -> None:
    head = insert(BASE, 1, NEW_A) + b"\n\n"
    commit_files(repo, {"perf-changelog.yaml": head}, "insert")
    assert run_cli("check", cwd=repo).returncode == 1
    dry = run_cli("fix", "--dry-run", "--diff", cwd=repo)
    assert dry.returncode == 1, dry.stdout + dry.stderr
    assert (repo / "perf-changelog.yaml").read_bytes() == head  # --dry-run writes nothing
    assert "CL103 would repair: moved new entry 2 (line 7) to the end" in dry.stdout
    assert '+    - "Added first"' in dry.stdout
    done = run_cli("fix", "--format", "json", cwd=repo)
    assert done.returncode == 0, done.stdout + done.stderr
    doc = json.loads(done.stdout)
    assert doc["written"] is True
    assert [r["code"] for r in doc["repairs"]] == [dx.ENTRY_INSERTED, dx.APPEND_SEPARATOR]
    assert (repo / "perf-changelog.yaml").read_bytes() == BASE + b"\n" + NEW_A
    assert not (repo / "perf-changelog.yaml.lock").exists()
    git(repo, "commit", "-qam", "fixed")
    assert run_cli("check", cwd=repo).returncode == 0


def test_the_command_refuses_a_history_edit_and_writes_nothing(repo: Path) -> None:
    head = BASE.replace(b"First sweep", b"Rewritten") + b"\n" + NEW_A
    commit_files(repo, {"perf-changelog.yaml": head}, "edit history")
    proc = run_cli("fix", cwd=repo)
    assert proc.returncode == 1
    assert "CL520" in proc.stdout and "real edit of history" in proc.stdout
    assert (repo / "perf-changelog.yaml").read_bytes() == head


def test_the_command_waits_for_the_writers_lock(repo: Path) -> None:
    import shutil
    import subprocess
    import sys
    import time

    head = insert(BASE, 1, NEW_A)
    commit_files(repo, {"perf-changelog.yaml": head}, "insert")
    lock = repo / "perf-changelog.yaml.lock"
    lock.write_text(f"{os.uname().nodename} {os.getpid()}\n")  # a live writer: this process
    exe = shutil.which("changelog-tools", path=str(Path(sys.executable).parent))
    assert exe
    proc = subprocess.Popen([exe, "fix"], cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        time.sleep(1.0)
        assert proc.poll() is None  # still waiting: the lock is held
        assert (repo / "perf-changelog.yaml").read_bytes() == head
        lock.unlink()
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert (repo / "perf-changelog.yaml").read_bytes() == BASE + b"\n" + NEW_A


# -- phasing a rule in ----------------------------------------------------------------------------


def test_a_phase_in_option_on_the_base_makes_the_rule_a_warning() -> None:
    head = insert(BASE, 1, NEW_A)
    lenient = dataclasses.replace(config(), entry_inserted="warning")
    result = check_change(base=BASE, head=head, config=lenient, mode="local", path="p")
    assert result.report.ok
    assert [(d.code, d.severity) for d in result.report.diagnostics] == [
        (dx.ENTRY_INSERTED, dx.Severity.WARNING)
    ]


def test_a_pull_request_cannot_phase_a_rule_in_for_itself(repo: Path) -> None:
    head = insert(BASE, 1, NEW_A)
    config_file = (repo / ".changelog-tools.yaml").read_text()
    commit_files(
        repo,
        {
            "perf-changelog.yaml": head,
            ".changelog-tools.yaml": config_file + "entry-inserted: warning\n",
        },
        "insert, and loosen the rule",
    )
    proc = run_cli("check", cwd=repo)
    assert proc.returncode == 1 and "CL103" in proc.stdout and "CL116" in proc.stdout


def test_a_base_that_does_not_parse_is_named_as_the_base() -> None:
    with pytest.raises(Refusal) as caught:
        fix_change(b"garbage: [\n", BASE, config=config(), path="p", base_label="b.yaml")
    assert caught.value.code == dx.NOT_AN_APPEND
    assert "the base (b.yaml) cannot be parsed into entries" in caught.value.message


@pytest.mark.parametrize(
    "argv", [("fix", "--dry-run", "--diff"), ("canonicalize", "--fix-placement", "--check")]
)
def test_the_diff_of_a_moved_entry_is_its_deletion_and_its_insertion_and_applies(
    repo: Path, argv: tuple[str, ...]
) -> None:
    # As many lines before as after: the diff must still not pair each line with the one
    # that took its place (a `-`/`+` alternation no reviewer can read as a move).
    head = insert(BASE, 1, NEW_A)
    commit_files(repo, {"perf-changelog.yaml": head}, "insert")
    proc = run_cli(*argv, cwd=repo)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stdout[proc.stdout.index("--- a/") :].splitlines(keepends=True)
    end = next((i for i, line in enumerate(lines) if line[:1] not in "-+@ "), len(lines))
    diff = "".join(lines[:end])  # `fix` prints its report after the diff
    body = [line.rstrip("\n") for line in lines[2:end] if line[:1] in "-+"]
    entry_lines = ("\n" + NEW_A.decode()).splitlines()
    # one deletion of the inserted entry, then its insertion at the end
    assert body == ["-" + line for line in entry_lines] + ["+" + line for line in entry_lines]
    (repo / "fix.diff").write_text(diff)
    git(repo, "apply", "fix.diff")
    assert (repo / "perf-changelog.yaml").read_bytes() == BASE + b"\n" + NEW_A
