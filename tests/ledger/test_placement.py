"""`canonicalize --fix-placement`: entries inserted among history (CL103) moved to the end.

Everything else stays byte for byte; the result passes `check` against the base and `validate`
as a whole; nothing is written on a refusal. And `check` no longer reports a key the misplaced
entry selects as unselected.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from changelog_tools import diagnostics as dx
from changelog_tools.ledger.check import check_change
from changelog_tools.ledger.document import parse_ledger
from changelog_tools.ledger.guard import Refusal
from changelog_tools.ledger.placement import fix_placement
from tests.checkdata import (
    BASE,
    CONFIG,
    MASTER_A,
    MASTERS,
    MASTERS_A,
    PULL,
    config,
    entry,
    init_repo,
)
from tests.conftest import commit_files, git, run_cli

KEY = "alpha-fp8-gpu-a-vllm"
NEW_A = entry(KEY, description="Inserted first")
NEW_B = entry(KEY, description="Inserted second", link=f"{PULL}9")


def history(n: int, odd: bool = False) -> bytes:
    seps = [b"\n", b"  \n\n", b"\n"] if odd else [b"\n"]
    out = b""
    for i in range(n):
        if i:
            out += seps[i % len(seps)]
        out += entry(f"h{i}-x", description=f"Old {i}", link=f"{PULL}{i + 1}")
    return out


def insert(raw: bytes, before: int, block: bytes) -> bytes:
    start = parse_ledger(raw, path="x").blocks[before].start
    return raw[:start] + block + b"\n" + raw[start:]


def place(base: bytes, head: bytes) -> bytes:
    return fix_placement(base, head, config=config(), path="p", base_label="b").data


def test_an_entry_inserted_in_the_middle_moves_to_the_end_byte_for_byte() -> None:
    head = insert(BASE, 1, NEW_A)
    result = fix_placement(BASE, head, config=config(), path="p", base_label="b")
    assert result.data == BASE + b"\n" + NEW_A
    assert [m.as_json() for m in result.moves] == [
        {"entry": 2, "line": 7, "new-entry": 3, "new-line": 13}
    ]


def test_several_inserted_entries_keep_their_order_after_those_already_at_the_end() -> None:
    base = history(5, odd=True)
    head = insert(insert(base, 3, NEW_B), 1, NEW_A) + b"\n" + entry(KEY, description="At the end")
    data = place(base, head)
    assert data == base + b"\n" + NEW_A + b"\n" + NEW_B + b"\n" + entry(
        KEY, description="At the end"
    )
    assert data.startswith(base)  # history's irregular "  \n\n" separator kept as it was


def test_an_append_at_the_end_has_nothing_to_move() -> None:
    head = BASE + b"\n" + NEW_A
    result = fix_placement(BASE, head, config=config(), path="p", base_label="b")
    assert result.data == head and result.moves == ()


def test_an_edit_of_history_is_refused_not_moved() -> None:
    head = insert(BASE.replace(b"Second sweep", b"Rewritten"), 1, NEW_A)
    with pytest.raises(Refusal) as caught:
        place(BASE, head)
    assert caught.value.code == dx.NOT_AN_APPEND
    assert "deleted, reordered or edited existing entries" in caught.value.message


def test_changed_bytes_around_the_insertion_are_refused() -> None:
    head = insert(BASE, 1, NEW_A).replace(b"pull/1\n\n", b"pull/1\n  \n", 1)
    with pytest.raises(Refusal) as caught:
        place(BASE, head)
    assert "does not give back the base bytes exactly" in caught.value.message


def test_a_moved_entry_that_is_itself_invalid_fails_the_recheck() -> None:
    bad = NEW_A.replace(b"  description:\n", b"  descripton:\n")
    with pytest.raises(Refusal) as caught:
        place(BASE, insert(BASE, 1, bad))
    assert caught.value.code == dx.RESULT_INVALID


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 6), st.lists(st.integers(0, 5), min_size=1, max_size=3), st.booleans())
def test_property_moved_entries_follow_the_base_in_their_order(
    n: int, positions: list[int], odd: bool
) -> None:
    base = history(n, odd)
    head = base
    news = [entry(KEY, description=f"New {k}") for k in range(len(positions))]
    # Insert the later ones first so earlier positions stay valid; order in head = news order.
    for k in reversed(range(len(positions))):
        head = insert(head, min(positions[k], n - 1), news[k])
    ordered = [b for b in parse_ledger(head, path="h").blocks if b"New " in head[b.start : b.end]]
    expected = base + b"".join(b"\n" + head[b.start : b.content_end] for b in ordered)
    assert place(base, head) == expected


# -- check: the follow-on coverage warning ------------------------------------------------------


def test_no_coverage_warning_for_a_key_the_misplaced_entry_selects() -> None:
    changed = {
        **MASTERS,
        MASTER_A: MASTERS_A.replace(b"conc-list: [4, 8]", b"conc-list: [4, 8, 16]"),
    }
    result = check_change(
        base=BASE,
        head=insert(BASE, 1, NEW_A),
        config=config(),
        mode="local",
        path="perf-changelog.yaml",
        masters_base=dict(MASTERS),
        masters_head=changed,
    )
    assert [d.code for d in result.report.sorted()] == [dx.ENTRY_INSERTED]
    (diag,) = result.report.errors
    assert "changelog-tools fix" in (diag.hint or "")


# -- the installed CLI, in a real repository -----------------------------------------------------


def test_cli_fix_placement_in_git_moves_checks_and_writes_atomically(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r")
    git(repo, "checkout", "-q", "-b", "pr")
    head = insert(BASE, 1, NEW_A)
    commit_files(repo, {"perf-changelog.yaml": head}, "insert")
    before = run_cli("check", "--pr", "9", cwd=repo)
    assert before.returncode == 1 and "CL103" in before.stdout
    assert "changelog-tools fix" in before.stdout
    preview = run_cli("canonicalize", "--fix-placement", "--check", cwd=repo)
    assert preview.returncode == 1 and '+    - "Inserted first"' in preview.stdout
    assert (repo / "perf-changelog.yaml").read_bytes() == head  # --check writes nothing
    done = run_cli("canonicalize", "--fix-placement", "--pr", "9", cwd=repo)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "moved entry 2 (was line 7) to the end as entry 3" in done.stdout
    assert (repo / "perf-changelog.yaml").read_bytes() == BASE + b"\n" + NEW_A.replace(
        b"XXX", f"{PULL}9".encode()
    )
    commit_files(repo, {}, "moved")
    assert run_cli("check", "--pr", "9", cwd=repo).returncode == 0
    again = run_cli("canonicalize", "--fix-placement", cwd=repo)
    assert again.returncode == 0 and "nothing to move" in again.stderr


def test_cli_fix_placement_refusal_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / ".changelog-tools.yaml").write_text(CONFIG)
    (tmp_path / "base.yaml").write_bytes(BASE)
    head = insert(BASE.replace(b"Second sweep", b"Rewritten"), 1, NEW_A)
    (tmp_path / "perf-changelog.yaml").write_bytes(head)
    proc = run_cli("canonicalize", "--fix-placement", "--base-file", "base.yaml", cwd=tmp_path)
    assert proc.returncode == 1 and "CL506" in proc.stdout
    assert (tmp_path / "perf-changelog.yaml").read_bytes() == head


def test_cli_canonicalize_without_pr_or_fix_placement_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / ".changelog-tools.yaml").write_text(CONFIG)
    proc = run_cli("canonicalize", cwd=tmp_path)
    assert proc.returncode == 2 and "--pr N is required" in proc.stderr
