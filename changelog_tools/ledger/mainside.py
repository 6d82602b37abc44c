"""What main did since the merge-base: the entries it added, in its own numbering.

Main's side is only read here; a side that is not a valid changelog is refused with the reason.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

from changelog_tools import diagnostics as dx
from changelog_tools.ledger.change import without_link
from changelog_tools.ledger.document import (
    ENTRY_START,
    ENTRY_START_RE,
    Ledger,
    count_entries,
    parse_ledger,
)
from changelog_tools.ledger.guard import Refusal
from changelog_tools.ledger.resolution import Labels


def signature(data: Any) -> str:
    # Canonical JSON of the entry without its link: equal meaning, equal string.
    return json.dumps(without_link(data), sort_keys=True, default=str, ensure_ascii=False)


@dataclass(frozen=True)
class MainSide:
    """What main did since the merge-base: the entries it added, in its own numbering."""

    entries: int  # entries on main's side
    new: tuple[tuple[int, int, Any], ...]  # (entry number, line, data) of each new entry
    ledger: Ledger | None  # the whole parse, when the slow path made one


def invalid_main(ledger: Ledger, label: str) -> Refusal:
    errors = [d for d in ledger.diagnostics if d.severity is dx.Severity.ERROR]
    return Refusal(
        dx.MAIN_SIDE_INVALID,
        f"{label} is not a valid changelog" + (f": {errors[0].message}" if errors else ""),
        path=ledger.path,
        line=errors[0].line if errors else None,
        hint="fix it first, then merge again",
        details=errors,
    )


def structure(
    raw: bytes, *, path: str, what: str, line_offset: int = 0, entry_offset: int = 0
) -> Ledger:
    """``raw`` parsed for its structure only (the result is validated whole later); a
    :class:`Refusal` naming ``what`` when it is not a valid changelog."""
    ledger = parse_ledger(
        raw, path=path, line_offset=line_offset, entry_offset=entry_offset, validate_entries=False
    )
    if not ledger.ok or not ledger.structured:
        raise invalid_main(ledger, what)
    return ledger


def main_side_entries(
    base: bytes, main: bytes, *, labels: Labels, base_entries: int | None = None
) -> MainSide:
    """The entries main added since ``base``; raises :class:`Refusal` when main is unusable.

    When main starts with the merge-base bytes (the normal case) only its suffix is parsed and
    every entry there is new. Otherwise (main corrected or reformatted history, or, during a
    rebase, "main" is main plus the PR commits already replayed) both versions are parsed and
    main's new entries are what remains after taking away, by meaning, one main entry for each
    base entry.
    """
    if main and not main.endswith(b"\n"):
        raise Refusal(
            dx.MAIN_SIDE_INVALID,
            "main's version does not end with a newline; appending would change its last line",
            path=labels.main,
            line=main.count(b"\n") + 1,
            hint="fix main first (add the final newline), then merge again",
        )
    # ``base_entries``: the count of base's entries when the caller has it (one pass saved).
    first = count_entries(base) if base_entries is None else base_entries
    if main.startswith(base) and (not base or base.endswith(b"\n")):
        found = ENTRY_START_RE.search(main, len(base))
        lead = main[len(base) : found.start() if found else len(main)]
        if not lead.strip():
            if found is None:
                return MainSide(first, (), None)
            ledger = structure(
                main[found.start() :],
                path=labels.main,
                what="main's side",
                line_offset=main.count(b"\n", 0, found.start()),
            )
            new = tuple((first + b.index + 1, b.line, b.data) for b in ledger.blocks)
            return MainSide(first + len(new), new, None)
    # The entries both versions begin with, byte for byte, are the same on both sides and cancel
    # out below whatever they hold, so only what follows them is parsed (as on the fast path,
    # the whole result is validated later). In a rebase that is nearly all of history.
    cut = shared_entries_end(base, main)
    shared = count_entries(base[:cut]) if cut else 0
    lines = base.count(b"\n", 0, cut)
    at = {"line_offset": lines, "entry_offset": shared}
    base_ledger = structure(base[cut:], path=labels.base, what="the merge-base version", **at)
    main_ledger = structure(main[cut:], path=labels.main, what="main's side", **at)
    old = Counter(signature(b.data) for b in base_ledger.blocks)
    added: list[tuple[int, int, Any]] = []
    for block in main_ledger.blocks:
        sig = signature(block.data)
        if old[sig] > 0:
            old[sig] -= 1
        else:
            added.append((shared + block.index + 1, block.line, block.data))
    return MainSide(
        shared + len(main_ledger.blocks), tuple(added), main_ledger if not cut else None
    )


def shared_entries_end(a: bytes, b: bytes) -> int:
    """The largest offset where both ``a`` and ``b`` start an entry (`- config-keys:` at the
    start of a line) after identical bytes; 0 when there is none past the first entry."""
    low, high = 0, min(len(a), len(b))
    while low < high:  # the length of the common prefix, by bisection (each test a memcmp)
        mid = (low + high + 1) // 2
        if a[low:mid] == b[low:mid]:
            low = mid
        else:
            high = mid - 1
    start = a.rfind(b"\n" + ENTRY_START, 0, low)
    return start + 1 if start >= 0 else 0
