"""Replaying real history: cut the last entries of a changelog into "main appended" and "PR
appended" and show that the resolution reproduces the file byte for byte.

A cut (k, m, n) takes entries [0, k) as the merge-base, [k, m) as what main appended, [m, n) as
what the PR appended, and expects the file through entry n. Main's side is a prefix of the real
file (its own irregular bytes included); the PR's side is the merge-base plus the PR's entries as
they appear in the real file. The real InferenceX file is used when present; a self-written twin
with the same kinds of irregular whitespace always runs.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from changelog_tools.config import Config, defaults
from changelog_tools.ledger.document import Block, Ledger, parse_ledger
from changelog_tools.ledger.resolve import Resolution, carried, resolve
from tests.conftest import inferencex_file

CFG: Config = defaults(Path("/nonexistent"))  # InferenceX defaults: SemiAnalysisAI/InferenceX


@dataclasses.dataclass(frozen=True)
class History:
    raw: bytes
    ledger: Ledger

    @classmethod
    def of(cls, raw: bytes) -> History:
        ledger = parse_ledger(raw, path="perf-changelog.yaml")
        assert ledger.ok and ledger.structured
        return cls(raw, ledger)

    @property
    def blocks(self) -> tuple[Block, ...]:
        return self.ledger.blocks

    def end_of(self, i: int) -> int:
        """End of entry ``i``'s own bytes: its content plus whitespace-only lines it carried."""
        block = self.blocks[i]
        return block.content_end + len(carried(self.raw, block))

    def side_before(self, i: int) -> bytes:
        """The file as a side had it just before entry ``i`` was appended to it: through the
        end of entry ``i - 1``'s own bytes (whitespace-only lines it carried included)."""
        return self.raw[: self.end_of(i - 1)]

    def brought(self, i: int) -> bytes:
        """The bytes between entry ``i - 1``'s own bytes and entry ``i``: its separator."""
        return self.raw[self.end_of(i - 1) : self.blocks[i].start]

    def regular(self, m: int, n: int) -> bool:
        """True when entries [m, n) and the one before them are separated as `check` (and the
        reference gate) requires of new entries: by exactly one empty line."""
        return all(self.brought(j) == b"\n" for j in range(m, n))

    def links(self, m: int, n: int) -> set[object]:
        return {self.blocks[j].data.get("pr-link") for j in range(m, n)}


def replay(
    h: History, k: int, m: int, n: int, *, placeholder_for: int | None = None
) -> tuple[Resolution, bytes]:
    """Resolve the cut (k, m, n); return the resolution and the expected bytes."""
    base = h.side_before(k)
    main = h.side_before(m) if m > k else base
    expected = h.raw[: h.end_of(n - 1)]
    pr_entries = h.raw[h.blocks[m].start : h.end_of(n - 1)]
    if placeholder_for is not None:
        pr_entries = pr_entries.replace(
            f"pr-link: https://github.com/{CFG.repository}/pull/{placeholder_for}\n".encode(),
            b"pr-link: XXX\n",
        )
        assert b"pr-link: XXX\n" in pr_entries
    pr_side = base + b"\n" + pr_entries
    result = resolve(
        base, pr_side, main, config=CFG, pr=placeholder_for, path="perf-changelog.yaml"
    )
    return result, expected


def cuts(h: History, last: int) -> list[tuple[int, int, int]]:
    """Cuts among the last ``last`` entries (and of the history truncated there) whose PR part
    is separated regularly and links canonically, so the result can pass `check`."""
    total = len(h.blocks)
    out = []
    for n in range(total - last + 3, total + 1):
        for m in range(n - 3, n):
            for k in range(max(1, m - 3), m + 1):
                links = h.links(m, n)
                canonical = all(
                    isinstance(link, str) and link.rsplit("/", 1)[-1].isdigit() for link in links
                )
                if h.regular(m, n) and canonical:
                    out.append((k, m, n))
    return out


def assert_replays(h: History, last: int, minimum: int) -> None:
    found = cuts(h, last)
    assert len(found) >= minimum
    for k, m, n in found:
        result, expected = replay(h, k, m, n)
        assert result.data == expected, (k, m, n)
        assert result.data.startswith(h.side_before(m) if m > k else h.side_before(k))
        assert [a.entry for a in result.appended] == list(range(m + 1, n + 1))
        assert result.dropped == ()


def assert_recovery_entry_kept(h: History, old: int, again: int) -> None:
    """An entry that repeats an old one (ignoring pr-link) is the PR's, not a duplicate."""
    assert h.blocks[old].data != h.blocks[again].data
    assert {**h.blocks[old].data, "pr-link": None} == {**h.blocks[again].data, "pr-link": None}
    result, expected = replay(h, again - 2, again - 1, again + 1)
    assert result.data == expected
    assert result.dropped == ()


def assert_placeholders_become_the_real_links(h: History, k: int, m: int, n: int) -> None:
    (number,) = {int(str(link).rsplit("/", 1)[1]) for link in h.links(m, n)}
    result, expected = replay(h, k, m, n, placeholder_for=number)
    assert result.data == expected
    assert result.verified_mode == "main"
    assert len(result.substitutions) == n - m


def assert_copy_of_mains_entry_is_dropped(h: History, k: int, m: int, n: int) -> None:
    """A PR that carries an entry cherry-picked from main (its link included) drops it; the
    same fields under a placeholder are the PR's own entry (a re-sweep) and are kept."""
    base = h.side_before(k)
    copied = h.blocks[m - 1]
    copy = h.raw[copied.start : copied.content_end]
    rest = h.raw[h.blocks[m].start : h.end_of(n - 1)]
    main = h.side_before(m)
    result = resolve(
        base, base + b"\n" + copy + b"\n" + rest, main, config=CFG, path="perf-changelog.yaml"
    )
    assert result.data == h.raw[: h.end_of(n - 1)]
    assert [(d.pr_entry, d.main_entry) for d in result.dropped] == [(k + 1, m)]
    link = str(copied.data["pr-link"]).encode()
    resweep = copy.replace(b"pr-link: " + link, b"pr-link: XXX")
    result = resolve(
        base, base + b"\n" + resweep + b"\n" + rest, main, config=CFG, path="perf-changelog.yaml"
    )
    assert result.dropped == ()
    assert result.data == main + b"\n" + resweep + b"\n" + rest


# -- the real InferenceX file ---------------------------------------------------------------


@pytest.fixture(scope="module")
def real() -> History:
    return History.of(inferencex_file("perf-changelog.yaml").read_bytes())


def test_real_history_every_regular_cut_of_the_last_entries_reproduces_the_file(
    real: History,
) -> None:
    assert_replays(real, last=12, minimum=20)
    result, expected = replay(real, len(real.blocks) - 2, len(real.blocks) - 1, len(real.blocks))
    assert expected == real.raw and result.data == real.raw


def test_real_history_main_side_with_irregular_whitespace_is_kept_exactly(real: History) -> None:
    # Entries 765-769 (1-based) carry whitespace-only lines ("  \n", "  \n\n"): on main's side.
    total = len(real.blocks)
    result, expected = replay(real, total - 8, total - 3, total)
    assert result.data == expected == real.raw
    assert b"  \n\n- config-keys:" in result.data[: result.main_bytes]


def test_real_history_recovery_entries_repeating_old_ones_are_kept(real: History) -> None:
    assert_recovery_entry_kept(real, 591, 599)  # pull/2197 (1-based entries 592 and 600)
    assert_recovery_entry_kept(real, 587, 600)  # pull/2198


def test_real_history_placeholders_canonicalize_back_to_the_real_link(real: History) -> None:
    total = len(real.blocks)
    assert_placeholders_become_the_real_links(real, total - 3, total - 1, total)


def test_real_history_a_pr_copy_of_mains_new_entry_is_dropped(real: History) -> None:
    total = len(real.blocks)
    assert_copy_of_mains_entry_is_dropped(real, total - 4, total - 2, total)


# -- the self-written twin (never skips) ------------------------------------------------------

REPO = CFG.repository


def twin_entry(i: int) -> bytes:
    keys = f"    - model{i % 7}-fp{4 + 4 * (i % 2)}-gpu-{'abc'[i % 3]}-vllm\n"
    if i % 5 == 0:
        keys += "    - model9-fp8-gpu-*-sglang\n"
    extra = "  scenario-type:\n    - agentic-coding\n" if i % 6 == 0 else ""
    return (
        f"- config-keys:\n{keys}{extra}  description:\n"
        f'    - "Change {i % 40}: tune the sweep"\n'
        f"  pr-link: https://github.com/{REPO}/pull/{1000 + i}\n"
    ).encode()


def twin() -> History:
    """Forty entries with InferenceX's irregularities: whitespace-only separators of every
    shape seen there, trailing spaces, and a duplicate of an older entry (a recovery)."""
    seps = {3: b"\n  \n", 7: b"  \n", 11: b"  \n\n", 12: b"\n\n", 15: b" \n", 30: b"  \n"}
    parts = []
    for i in range(40):
        block = twin_entry(i if i != 35 else 5)  # entry 36 repeats entry 6's content...
        if i == 35:
            block = block.replace(b"pull/1005", b"pull/1035")  # ...with its own link
        if i == 20:
            block = block.replace(b'sweep"\n', b'sweep"   \n')  # trailing spaces
        parts.append(block)
        if i < 39:
            parts.append(seps.get(i, b"\n"))
    return History.of(b"".join(parts))


def test_twin_every_regular_cut_of_the_last_entries_reproduces_the_file() -> None:
    h = twin()
    assert_replays(h, last=12, minimum=20)


def test_twin_main_side_with_irregular_whitespace_is_kept_exactly() -> None:
    h = twin()
    result, expected = replay(h, 27, 33, 40)  # main appends entries 28-33 (one ends "  \n")
    assert result.data == expected == h.raw
    result, expected = replay(h, 9, 12, 13)  # main's side ends with the "  \n" of "  \n\n"
    assert result.data == expected


def test_twin_recovery_entry_repeating_an_old_one_is_kept() -> None:
    assert_recovery_entry_kept(twin(), 5, 35)


def test_twin_placeholders_canonicalize_back_to_the_real_link() -> None:
    assert_placeholders_become_the_real_links(twin(), 36, 38, 39)


def test_twin_a_pr_copy_of_mains_new_entry_is_dropped() -> None:
    assert_copy_of_mains_entry_is_dropped(twin(), 34, 37, 40)


def test_twin_a_pr_whose_entries_carry_whitespace_only_lines_keeps_them_with_a_warning() -> None:
    h = twin()
    # Entries 10-12 (0-based) include entry 11, which carries "  \n" before the empty line: the
    # PR's bytes are kept, not normalized, and check only warns (history carries dozens).
    result, expected = replay(h, 9, 10, 13)
    assert result.data == expected
    assert b"  \n" in result.data[result.main_bytes :]
