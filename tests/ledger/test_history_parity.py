"""Parity with the gate `check` replaces, replayed over real history.

Every entry of the real changelog once landed as a change: "history before it" -> "history with
it". The separator bytes between two entries were brought either by the later entry's change
(read A) or, for a whitespace-only line followed by the empty line, carried by the earlier
entry (read B: history ends with the whitespace-only line, the change brings the empty line).
For each such pair the reference's byte verdict (written here from its documented rule, see
`reference_byte_verdict`) is compared with `check`'s byte verdict.

The second half replays merges: every cut (k, m, n) among the last entries, main appending
[k, m) and the PR [m, n), each side ending where its last entry's own bytes end (whitespace-only
lines it carried included) and the PR bringing the bytes in between. The resolution must rebuild
the real file byte for byte whenever the reference accepts the PR's bytes on top of main.

Counts are printed (``pytest -s``) for the closing note; the assertions hold them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from changelog_tools.config import Config, defaults
from changelog_tools.ledger.check import check_change
from changelog_tools.ledger.document import Block, parse_ledger
from changelog_tools.ledger.guard import Refusal
from changelog_tools.ledger.resolve import carried, resolve
from tests.conftest import inferencex_file

CFG: Config = defaults(Path("/nonexistent"))
_START = re.compile(rb"^- config-keys:", re.MULTILINE)


def reference_byte_verdict(base: bytes, head: bytes) -> bool:
    """The reference gate's append-mode byte rule (anchor inventory, section 3.2), True = pass.

    The head starts with the base; the first appended bytes are ``- config-keys:`` after a base
    ending in an empty line, else ``\\n- config-keys:``; every later appended entry is preceded
    by exactly one empty line; the file does not end with an empty line.
    """
    if not head.startswith(base):
        return False
    added = head[len(base) :]
    first = b"- config-keys:" if base.endswith(b"\n\n") or not base else b"\n- config-keys:"
    if not added.startswith(first):
        return False
    starts = [m.start() for m in _START.finditer(head) if m.start() >= len(base)]
    for start in starts[1:]:
        before = head[:start]
        if not before.endswith(b"\n\n") or before.endswith(b"\n\n\n"):
            return False
    return not head.endswith(b"\n\n")


def check_byte_verdict(base: bytes, head: bytes) -> bool:
    """`check`'s verdict on the bytes alone (CL0xx/CL1xx; pr-link and key policy aside)."""
    result = check_change(
        base=base, head=head, config=CFG, mode="local", path="perf-changelog.yaml"
    )
    return not any(
        d.code[:3] in ("CL0", "CL1") and not d.code.startswith("CL05") for d in result.report.errors
    )


def end_of(raw: bytes, block: Block) -> int:
    return block.content_end + len(carried(raw, block))


def pairs(raw: bytes) -> list[tuple[str, bytes, bytes]]:
    blocks = parse_ledger(raw, path="perf-changelog.yaml").blocks
    out: list[tuple[str, bytes, bytes]] = []
    for i in range(1, len(blocks)):
        head = raw[: blocks[i].content_end]
        out.append(("A", raw[: blocks[i - 1].content_end], head))
        carried_end = end_of(raw, blocks[i - 1])
        if carried_end != blocks[i - 1].content_end:
            out.append(("B", raw[:carried_end], head))
    return out


def parity(raw: bytes) -> tuple[int, int, list[int]]:
    """(pairs, pairs agreeing, line numbers of the disagreements)."""
    found = pairs(raw)
    disagree = [
        head.count(b"\n") for _, base, head in found
        if reference_byte_verdict(base, head) != check_byte_verdict(base, head)
    ]  # fmt: skip
    return len(found), len(found) - len(disagree), disagree


def merge_replay(raw: bytes, last: int) -> tuple[int, int, int, list[tuple[int, int, int]]]:
    """(cuts, cuts the reference accepts, of those rebuilt byte for byte, the failures)."""
    blocks = parse_ledger(raw, path="perf-changelog.yaml").blocks
    total = len(blocks)

    def side(i: int) -> bytes:  # a side whose last entry is entry i - 1
        return raw[: end_of(raw, blocks[i - 1])]

    cuts = accepted = rebuilt = 0
    failures: list[tuple[int, int, int]] = []
    for n in range(total - last + 3, total + 1):
        for m in range(n - 3, n):
            for k in range(max(1, m - 3), m + 1):
                cuts += 1
                base, main = side(k), side(m)
                expected = raw[: end_of(raw, blocks[n - 1])]
                pr_bytes = expected[len(main) :]
                if not reference_byte_verdict(main, expected):
                    continue
                accepted += 1
                pr_side = base + pr_bytes
                try:
                    result = resolve(base, pr_side, main, config=CFG, path="perf-changelog.yaml")
                except Refusal:
                    failures.append((k, m, n))
                    continue
                if result.data == expected:
                    rebuilt += 1
                else:
                    failures.append((k, m, n))
    return cuts, accepted, rebuilt, failures


@pytest.fixture(scope="module")
def real() -> bytes:
    return inferencex_file("perf-changelog.yaml").read_bytes()


def test_real_history_check_agrees_with_the_reference_on_every_landed_pair(real: bytes) -> None:
    total, agreeing, disagree = parity(real)
    print(f"\nparity: {agreeing}/{total} pairs agree with the reference's byte verdict")
    assert total > 770
    assert disagree == []


def test_real_history_every_accepted_merge_is_rebuilt_byte_for_byte(real: bytes) -> None:
    cuts, accepted, rebuilt, failures = merge_replay(real, last=40)
    print(f"\nmerge replay: {cuts} cuts, {accepted} accepted by the reference, {rebuilt} rebuilt")
    assert accepted > 100
    assert failures == []


# -- a self-written twin with every irregular separator seen in the real file (never skips) --


def twin() -> bytes:
    repo = CFG.repository
    seps = [b"\n", b"  \n", b"\n  \n", b"  \n\n", b"\n", b" \n\n", b"\n", b"\n"]
    parts = []
    for i in range(24):
        parts.append(
            (
                f"- config-keys:\n    - model{i % 5}-fp8-gpu-vllm\n  description:\n"
                f'    - "Change {i}"\n  pr-link: https://github.com/{repo}/pull/{100 + i}\n'
            ).encode()
        )
        if i < 23:
            parts.append(seps[i % len(seps)])
    raw = b"".join(parts)
    assert parse_ledger(raw, path="twin").ok
    return raw


def test_twin_check_agrees_with_the_reference_on_every_pair() -> None:
    total, agreeing, disagree = parity(twin())
    assert (total, agreeing, disagree) == (total, total, [])
    assert total > 23  # read B exists for the "  \n\n" separators


def test_twin_every_accepted_merge_is_rebuilt_byte_for_byte() -> None:
    cuts, accepted, rebuilt, failures = merge_replay(twin(), last=20)
    assert failures == []
    assert rebuilt == accepted > 20
    assert cuts > accepted  # the cuts on top of a whitespace-only separator are rejected
