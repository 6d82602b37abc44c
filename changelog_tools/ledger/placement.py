"""The fix for the most common layout mistake: new entries inserted among history (CL103).

An editor's paste lands a new entry in the middle of the file, or a rebase conflict was
resolved by putting the PR's entry above main's. The fix takes every entry the change added,
wherever it sits, out of the head, checks that what remains is the base byte for byte, and
appends those entries (their own bytes, in the order they had) after one empty line each. The
result must pass `check` against the base and `validate` as a whole, or nothing is written.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from changelog_tools import diagnostics as dx
from changelog_tools.config import Config
from changelog_tools.errors import UsageError
from changelog_tools.fsutil import TooLarge, atomic_write, locked, read_input
from changelog_tools.ledger.appendonly import (
    first_difference_line,
    separator_after,
)
from changelog_tools.ledger.document import Block, Ledger, Splice, apply_splices, parse_ledger
from changelog_tools.ledger.guard import Refusal, require_valid
from changelog_tools.ledger.historywalk import new_entries_among


@dataclass(frozen=True)
class Move:
    """One entry moved to the end: its number and line before and after."""

    entry: int
    line: int
    new_entry: int
    new_line: int

    def as_json(self) -> dict[str, Any]:
        return dx.record_json(self)


@dataclass(frozen=True)
class Placed:
    """The outcome of :func:`fix_placement`: the new bytes and the entries moved."""

    data: bytes
    moves: tuple[Move, ...]
    warnings: tuple[dx.Diagnostic, ...]

    @property
    def changed(self) -> bool:
        return bool(self.moves)


def fix_placement(
    base: bytes | None, head: bytes, *, config: Config, path: str, base_label: str
) -> Placed:
    """Move the entries ``head`` added among ``base``'s entries to the end (bytes in, bytes out).

    Raises :class:`Refusal` (nothing to write) when the head's history is not the base's
    entries in order, when taking the new entries out does not give back the base bytes
    exactly, or when the result would not pass `check` and `validate`.
    """
    history = base or b""
    base_ledger, head_ledger = parse_entries(
        history, head, path=path, base_label=base_label, so="no entry can be moved"
    )
    base_blocks = base_ledger.blocks if base_ledger else ()
    new = new_entries_among(base_blocks, head_ledger.blocks)
    if new is None:
        raise Refusal(
            dx.NOT_AN_APPEND,
            "the change also deleted, reordered or edited existing entries; only entries "
            "inserted among unchanged history can be moved",
            path=path,
            hint="`changelog-tools check` names the entry that changed",
        )
    # Entries already after the last existing entry are appended: they stay in place.
    last_base = _last_base_index(new, head_ledger.blocks)
    misplaced = [b for b in new if b.index < last_base]
    if not misplaced:
        return Placed(head, (), ())
    # History without every new entry (content and the separator after it).
    kept = apply_splices(head, [Splice(b.start, b.end, b"") for b in new])
    if kept.endswith(b"\n\n") and not history.endswith(b"\n\n"):
        kept = kept[:-1]  # the separator that led into an entry that was at the very end
    if kept != history:
        line = first_difference_line(history, kept)
        raise Refusal(
            dx.NOT_AN_APPEND,
            "taking the inserted entries out does not give back the base bytes exactly (the "
            f"surrounding bytes changed too, near line {line} of the base)",
            path=path,
            hint="move the entries by hand: restore the base bytes and append them at the end",
        )
    data = history
    moves: list[Move] = []
    line = history.count(b"\n")
    for number, block in enumerate(new, start=len(base_blocks) + 1):
        chunk = head[block.start : block.content_end]
        sep = separator_after(data)
        data += sep + chunk
        start_line = line + sep.count(b"\n") + 1
        line = data.count(b"\n")
        if block in misplaced:
            moves.append(Move(block.index + 1, block.line, number, start_line))
    warnings = require_valid(
        base,
        data,
        config=config,
        mode="local",
        path=path,
        base_label=base_label,
        what="the file with the entries moved to the end",
    )
    return Placed(data, tuple(moves), warnings)


def parse_entries(
    history: bytes, head: bytes, *, path: str, base_label: str, so: str
) -> tuple[Ledger | None, Ledger]:
    """Both versions split into entries, or :class:`Refusal` (CL506) naming the first error of
    the one that cannot be, and what that prevents (``so``)."""
    base_ledger = (
        parse_ledger(history, path=base_label, validate_entries=False) if history else None
    )
    head_ledger = parse_ledger(head, path=path, validate_entries=False)
    if (base_ledger is not None and not base_ledger.structured) or not head_ledger.structured:
        bad = head_ledger if not head_ledger.structured else base_ledger
        errors = [d for d in (bad.diagnostics if bad else ()) if d.severity is dx.Severity.ERROR]
        which = "the file" if bad is head_ledger else f"the base ({base_label})"
        raise Refusal(
            dx.NOT_AN_APPEND,
            f"{which} cannot be parsed into entries, so {so}",
            path=path,
            line=errors[0].line if errors else None,
            details=errors,
        )
    for ledger, which in ((base_ledger, f"the base ({base_label})"), (head_ledger, "the file")):
        if ledger is None or ledger.loaded is None:
            continue
        total = len(ledger.loaded.value)
        if len(ledger.blocks) != total:
            # The YAML is a list, but not every item starts at column 0 with `- config-keys:`
            # (a byte-order mark, another first field): entries that cannot be located cannot
            # be matched with the other side's, and every one would count as new.
            errors = [d for d in ledger.diagnostics if d.severity is dx.Severity.ERROR]
            raise Refusal(
                dx.NOT_AN_APPEND,
                f"{which} cannot be split into entries ({len(ledger.blocks)} of "
                f"{dx.counted(total, 'entry', 'entries')} located), so {so}; nothing was written",
                path=path,
                # a line of the base is not a line of the file the refusal names
                line=errors[0].line if errors and ledger is head_ledger else None,
                hint="`changelog-tools validate` on that version names what hides the entries",
                details=errors,
            )
    return base_ledger, head_ledger


def _last_base_index(new: tuple[Block, ...], head_blocks: tuple[Block, ...]) -> int:
    """Head index of the last entry that is not new (-1: none)."""
    new_ids = {b.index for b in new}
    return max((b.index for b in head_blocks if b.index not in new_ids), default=-1)


@dataclass(frozen=True)
class PlacementOutcome:
    """:func:`fix_placement_file`'s result: the file, its base, and what happened."""

    display: str
    base_label: str
    before: bytes
    result: Placed
    written: bool


def read_base(
    path: Path, *, config: Config, base_ref: str | None, base_file: Path | None, shown: str
) -> tuple[bytes | None, str]:
    """The base version of ``path``: ``base_file``, else ``path`` at ``base_ref`` in its
    repository (default: the merge-base of HEAD and the main branch), and its label."""
    if base_file is not None:
        return read_input(base_file, str(base_file), max_size=config.max_file_size), str(base_file)
    from changelog_tools.gitrepo import BlobTooLarge, default_base, open_repo

    repo = open_repo(path.resolve().parent)
    try:
        relative = path.resolve().relative_to(repo.path.resolve()).as_posix()
    except ValueError:
        raise UsageError(f"{shown} is not inside the repository {repo.path}") from None
    # A revision the user names is resolved as `check` resolves it: an unknown one is the
    # command line's fault (exit 2, with the hint to fetch it), not a failure of git.
    ref = (
        repo.user_commit(base_ref)
        if base_ref is not None
        else default_base(repo, head="HEAD", main_branch=config.main_branch, remote=config.remote)
    )
    label = f"{relative}@{ref[:12] if base_ref is None else base_ref}"
    try:
        # Over the size limit the base is refused from its size, as the head is, never read.
        return repo.read_blob(ref, relative, max_size=config.max_file_size), label
    except BlobTooLarge as exc:
        raise TooLarge(label, exc.size, exc.limit) from None


def fix_placement_file(
    path: Path,
    *,
    config: Config,
    base_ref: str | None = None,
    base_file: Path | None = None,
    pr: int | None = None,
    fix_near_misses: bool = False,
    write: bool = True,
    display: str | None = None,
) -> tuple[PlacementOutcome, Any]:
    """Move the inserted entries of the changelog at ``path`` to the end and, with ``pr``, then
    canonicalize their links; one atomic write of the final bytes (nothing on a refusal).

    Returns the outcome and the canonicalization (None without ``pr``).
    """
    with locked(path) if write else contextlib.nullcontext(path):
        return _fix_placement_file(
            path, config, base_ref, base_file, pr, fix_near_misses, write, display
        )


def _fix_placement_file(
    path: Path,
    config: Config,
    base_ref: str | None,
    base_file: Path | None,
    pr: int | None,
    fix_near_misses: bool,
    write: bool,
    display: str | None,
) -> tuple[PlacementOutcome, Any]:
    from changelog_tools.ledger.canonicalize import canonicalize

    shown = display or str(path)
    head = read_input(path, shown, max_size=config.max_file_size)
    base, label = read_base(
        path, config=config, base_ref=base_ref, base_file=base_file, shown=shown
    )
    placed = fix_placement(base, head, config=config, path=shown, base_label=label)
    data = placed.data
    canon = None
    if pr is not None:
        canon = canonicalize(
            base, data, pr=pr, config=config, fix_near_misses=fix_near_misses, path=shown,
            base_label=label,
        )  # fmt: skip
        data = canon.data
    written = False
    if write and data != head:
        atomic_write(path, data)
        written = True
    final = Placed(data, placed.moves, placed.warnings)
    return PlacementOutcome(shown, label, head, final, written), canon
