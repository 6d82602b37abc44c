"""A classified change to the ledger (base vs head) and the small facts both ways of comparing
share: what the change did, its pr-link corrections, and where two versions first differ."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from changelog_tools import diagnostics as dx
from changelog_tools.ledger.document import Block


class ChangeKind(StrEnum):
    APPENDED = "appended"
    CORRECTED = "corrected"
    NONE = "none"
    INVALID = "invalid"


@dataclass(frozen=True, slots=True)
class Correction:
    """A pr-link-only change to an existing entry (``index`` is 0-based)."""

    index: int
    old: Any
    new: Any
    line: int  # line of the pr-link in the head


@dataclass(frozen=True, slots=True)
class Change:
    """The classified difference between two versions of the ledger.

    ``appended`` blocks carry offsets into ``head`` and head line numbers.
    """

    kind: ChangeKind
    base: bytes
    head: bytes
    appended: tuple[Block, ...] = ()
    corrections: tuple[Correction, ...] = ()
    diagnostics: tuple[dx.Diagnostic, ...] = ()
    fast_path: bool = False
    history_entries: int | None = None
    # When the change inserted entries among existing ones (CL103): every entry it added, in
    # head order (inserted or at the end). Not appended, but the change's own entries all the
    # same: their keys count as selected, and `canonicalize --fix-placement` moves them to the
    # end. Head offsets and numbering (``index``).
    misplaced: tuple[Block, ...] = ()

    @property
    def ok(self) -> bool:
        return not any(d.severity is dx.Severity.ERROR for d in self.diagnostics)


def without_link(entry: Any) -> Any:
    """The entry with its pr-link removed, for comparing meaning."""
    if isinstance(entry, dict):
        return {k: v for k, v in entry.items() if k != "pr-link"}
    return entry


# The rules `changelog-tools fix` repairs name it in their hint.
FIX_HINT = "; `changelog-tools fix` does it, keeping every other byte"


def first_difference_line(a: bytes, b: bytes) -> int:
    """1-based line number (in ``b``) of the first byte where ``a`` and ``b`` differ."""
    limit = min(len(a), len(b))
    i = 0
    # Compare in chunks first; most files share a long prefix.
    step = 4096
    while i + step <= limit and a[i : i + step] == b[i : i + step]:
        i += step
    while i < limit and a[i] == b[i]:
        i += 1
    return b.count(b"\n", 0, i) + 1
