"""The slow path of comparing two versions of the ledger: parse both, walk history entry by entry,
then classify the rest; every deleted, inserted, changed or reformatted entry is explained.

Taken when the head does not start with the base bytes (see :func:`.appendonly.compare`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from changelog_tools import diagnostics as dx
from changelog_tools.ledger.change import (
    FIX_HINT,
    Change,
    ChangeKind,
    Correction,
    first_difference_line,
    without_link,
)
from changelog_tools.ledger.document import (
    Block,
    Ledger,
    Splice,
    apply_splices,
    parse_ledger,
    pr_link_lines,
)


def _first_changed_field(base: Any, head: Any) -> str | None:
    if not isinstance(base, dict) or not isinstance(head, dict):
        return None
    for key in list(head) + [k for k in base if k not in head]:
        if base.get(key) != head.get(key) and key != "pr-link":
            return str(key)
    return None


def _first_changed_path(base: Any, head: Any) -> tuple[Any, ...]:
    """Path inside ``head`` of the first value that differs from ``base`` (``()``: this one)."""
    if isinstance(base, list) and isinstance(head, list):
        for k, (old, new) in enumerate(zip(base, head, strict=False)):
            if old != new:
                return (k, *_first_changed_path(old, new))
        return (min(len(base), len(head)),) if len(base) != len(head) else ()
    if isinstance(base, dict) and isinstance(head, dict):
        for key in head:
            if key not in base:
                return (key,)
            if base[key] != head[key]:
                return (key, *_first_changed_path(base[key], head[key]))
    return ()


def _entry_label(block: Block) -> str:
    keys = block.data.get("config-keys") if isinstance(block.data, dict) else None
    if isinstance(keys, list) and keys:
        return f" ({keys[0]}{', ...' if len(keys) > 1 else ''})"
    return ""


def compare_full(
    history: bytes, head: bytes, *, path: str, base_label: str, strict: bool
) -> Change:
    """The slow path: parse both versions, walk history entry by entry, then classify the rest."""
    parsed = _parse_both(history, head, path=path, base_label=base_label)
    if isinstance(parsed, Change):
        return parsed
    base_ledger, head_ledger = parsed
    base_blocks = base_ledger.blocks if base_ledger else ()
    walk = _walk_history(base_blocks, head_ledger, head, path=path)
    diags = [*head_ledger.diagnostics, *walk.diagnostics]
    if walk.structural:
        inserted = any(d.code == dx.ENTRY_INSERTED for d in walk.diagnostics)
        misplaced = new_entries_among(base_blocks, head_ledger.blocks) if inserted else None
        if misplaced is None and len(head_ledger.blocks) > len(base_blocks):
            # History was edited, and entries follow it: they are the change's new entries
            # all the same, and their own problems (a link to another PR) are reported in the
            # same run, not after the history is fixed.
            misplaced = head_ledger.blocks[len(base_blocks) :]
        return Change(
            ChangeKind.INVALID,
            history,
            head,
            diagnostics=tuple(diags),
            misplaced=misplaced or (),
        )
    return _classify_rest(
        history,
        head,
        base_ledger,
        head_ledger,
        list(walk.corrections),
        diags,
        path=path,
    )


def _parse_both(
    history: bytes, head: bytes, *, path: str, base_label: str
) -> tuple[Ledger | None, Ledger] | Change:
    """Both versions parsed, or the INVALID change when either cannot be compared entry-wise."""
    base_ledger = parse_ledger(history, path=base_label) if history else None
    if base_ledger is not None and (not base_ledger.ok or not base_ledger.structured):
        diags = [
            dx.error(
                dx.BASE_INVALID,
                "the base version is invalid, so the change cannot be checked against it",
                base_label,
                hint="fix the base first (its problems are listed with the base's path)",
            ),
            *base_ledger.diagnostics,
        ]
        return Change(ChangeKind.INVALID, history, head, diagnostics=tuple(diags))
    head_ledger = parse_ledger(head, path=path)
    loaded_items = head_ledger.loaded.value if head_ledger.loaded is not None else None
    if not isinstance(loaded_items, list) or len(head_ledger.blocks) != len(loaded_items):
        return Change(ChangeKind.INVALID, history, head, diagnostics=head_ledger.diagnostics)
    return base_ledger, head_ledger


@dataclass(frozen=True, slots=True)
class _HistoryWalk:
    """What happened to each existing entry: pr-link corrections, or the first structural edit."""

    corrections: tuple[Correction, ...]
    diagnostics: tuple[dx.Diagnostic, ...]
    structural: bool


def _walk_history(
    base_blocks: tuple[Block, ...], head_ledger: Ledger, head: bytes, *, path: str
) -> _HistoryWalk:
    """Compare base entry i with head entry i: corrections are collected, every changed entry
    is reported, and a deletion or an insertion ends the walk (the positions no longer match).
    """
    head_blocks = head_ledger.blocks
    n_base, n_head = len(base_blocks), len(head_blocks)
    corrections: list[Correction] = []
    diags: list[dx.Diagnostic] = []
    for i, old in enumerate(base_blocks):
        if i >= n_head:
            # The file's last line (a file ending with a newline has no line after it).
            last = max(1, head.count(b"\n") + (not head.endswith(b"\n")))
            diags.append(_deleted(old, n_base - n_head, path, last))
            break
        new = head_blocks[i]
        if old.data == new.data:
            continue
        if without_link(old.data) == without_link(new.data):
            corrections.append(
                Correction(
                    i,
                    old.data.get("pr-link"),
                    new.data.get("pr-link"),
                    _link_line(head_ledger, new),
                )
            )
            continue
        later = [b.data for b in head_blocks[i + 1 : i + 1 + max(0, n_head - n_base)]]
        if n_head > n_base and old.data in later:
            diags.append(_inserted(old, new, i, path))
            break
        # A later base entry here means this one was deleted, also when the change appended
        # as many entries as it deleted (the counts then match).
        if any(b.data == new.data for b in base_blocks[i + 1 :]):
            diags.append(_deleted(old, n_base - n_head, path, new.line))
            break
        diags.append(_changed(old, new, i, head_ledger, path))
    return _HistoryWalk(tuple(corrections), tuple(diags), bool(diags))


def new_entries_among(
    base_blocks: tuple[Block, ...], head_blocks: tuple[Block, ...]
) -> tuple[Block, ...] | None:
    """The head entries that are not base entries, when the base's entries appear in the head
    unchanged and in order (by value); None when some base entry is missing or changed."""
    out: list[Block] = []
    j = 0
    for block in head_blocks:
        if j < len(base_blocks) and block.data == base_blocks[j].data:
            j += 1
        else:
            out.append(block)
    return tuple(out) if j == len(base_blocks) else None


def _inserted(old: Block, new: Block, i: int, path: str) -> dx.Diagnostic:
    return dx.error(
        dx.ENTRY_INSERTED,
        # Numbered as in the head, like every other finding about the head's entries.
        f"new entry {new.index + 1} was inserted before existing entry {new.index + 2}"
        f"{_entry_label(old)}; new entries go at the end of the file",
        path,
        new.line,
        1,
        hint="move the new entry to the end, after one empty line" + FIX_HINT,
    )


def _changed(old: Block, new: Block, i: int, head_ledger: Ledger, path: str) -> dx.Diagnostic:
    """CL102 at the changed field's line, or at the changed item inside it."""
    field_name = _first_changed_field(old.data, new.data)
    loaded = head_ledger.loaded
    line = new.line
    at = new.index  # the head's position: marks are the head's, and so is the numbering
    if field_name and loaded is not None:
        line = (loaded.key_marks.get((at, field_name)) or (new.line, 1))[0]
        inner = _first_changed_path(old.data.get(field_name), new.data.get(field_name))
        if inner:  # point at the changed item (description[1]), not just the field's key
            line = (loaded.mark((at, field_name, *inner)) or (line, 1))[0]
    return dx.error(
        dx.ENTRY_CHANGED,
        f"existing entry {at + 1}{_entry_label(old)} changed"
        + (f" (`{field_name}`)" if field_name else "")
        + "; existing entries are immutable except for pr-link corrections",
        path,
        line,
        1,
        hint="restore the entry and append a new entry that describes the change",
    )


def _classify_rest(
    history: bytes,
    head: bytes,
    base_ledger: Ledger | None,
    head_ledger: Ledger,
    corrections: list[Correction],
    diags: list[dx.Diagnostic],
    *,
    path: str,
) -> Change:
    """History's entries all survived: the change is a correction, an append, both, or nothing."""
    n_base = len(base_ledger.blocks) if base_ledger else 0
    appended = head_ledger.blocks[n_base:]
    if corrections and appended:
        diags.append(_mixed(len(corrections), appended, path))
        return Change(
            ChangeKind.INVALID,
            history,
            head,
            appended=appended,
            corrections=tuple(corrections),
            diagnostics=tuple(diags),
            history_entries=n_base,
        )
    if appended:
        # Entries survive by meaning, yet the head does not start with the base bytes.
        diags.append(_bytes_changed(first_difference_line(history, head), path, appended=True))
        return Change(
            ChangeKind.INVALID,
            history,
            head,
            appended=appended,
            diagnostics=tuple(diags),
            history_entries=n_base,
        )
    if corrections:
        diags.extend(_correction_bytes(history, head, base_ledger, head_ledger, corrections, path))
        return Change(
            ChangeKind.CORRECTED,
            history,
            head,
            corrections=tuple(corrections),
            diagnostics=tuple(diags),
            history_entries=n_base,
        )
    diags.append(_bytes_changed(first_difference_line(history, head), path, appended=False))
    return Change(
        ChangeKind.INVALID, history, head, diagnostics=tuple(diags), history_entries=n_base
    )


def _mixed(corrections: int, appended: tuple[Block, ...], path: str) -> dx.Diagnostic:
    return dx.error(
        dx.MIXED_CORRECTION_APPEND,
        f"the change corrects {corrections} pr-link(s) and also appends "
        f"{len(appended)} entr{'y' if len(appended) == 1 else 'ies'}",
        path,
        appended[0].line,
        1,
        hint="make pr-link corrections in a pull request of their own",
    )


def _bytes_changed(line: int, path: str, *, appended: bool) -> dx.Diagnostic:
    """Every entry of history means what it did, but its bytes changed at ``line``: with entries
    appended after it, or with nothing appended (a reformat)."""
    if appended:
        code, message = (
            dx.HISTORY_BYTES_CHANGED,
            (
                f"appending changed existing bytes at line {line}; the history must stay "
                "byte-for-byte identical"
            ),
        )
        hint = "restore the base file exactly (whitespace included) and append at the end"
    else:
        code, message = (
            dx.REFORMATTED,
            (
                f"line {line} changed without changing any entry; existing whitespace and "
                "formatting are immutable"
            ),
        )
        hint = "restore the base bytes exactly"
    return dx.error(code, message, path, line, 1, hint=hint + FIX_HINT)


def _deleted(old: Block, count: int, path: str, line: int) -> dx.Diagnostic:
    more = f" ({count} entries fewer than the base)" if count > 1 else ""
    return dx.error(
        dx.ENTRY_DELETED,
        f"existing entry {old.index + 1}{_entry_label(old)} was deleted{more}",
        path,
        line,
        1,
        hint="entries are never deleted; restore it (a correction entry can be appended)",
    )


def _link_line(ledger: Ledger, block: Block) -> int:
    loaded = ledger.loaded
    if loaded is not None:
        mark = loaded.key_marks.get((block.index, "pr-link"))
        if mark:
            return mark[0]
    return block.line


def _correction_bytes(
    history: bytes,
    head: bytes,
    base_ledger: Ledger | None,
    head_ledger: Ledger,
    corrections: list[Correction],
    path: str,
) -> list[dx.Diagnostic]:
    """A correction may change only the pr-link line of each corrected entry."""
    assert base_ledger is not None  # corrections need a base
    splices: list[Splice] = []
    for corr in corrections:
        old_lines = pr_link_lines(history, base_ledger.blocks[corr.index])
        new_lines = pr_link_lines(head, head_ledger.blocks[corr.index])
        if len(old_lines) != 1 or len(new_lines) != 1:
            return [
                dx.error(
                    dx.CORRECTION_OUTSIDE_LINK,
                    f"entry {corr.index + 1}: could not find exactly one `  pr-link:` line",
                    path,
                    corr.line,
                    1,
                    hint="write the pr-link on one line, indented by two spaces",
                )
            ]
        new = new_lines[0]
        old = old_lines[0]
        splices.append(Splice(new.line_start, new.line_end, history[old.line_start : old.line_end]))
    restored = apply_splices(head, splices)
    if restored == history:
        return []
    line = first_difference_line(history, restored)
    return [
        dx.error(
            dx.CORRECTION_OUTSIDE_LINK,
            f"a pr-link correction also changed line {line}, which is not a pr-link line",
            path,
            line,
            1,
            hint="a correction may change only the `  pr-link:` lines it corrects",
        )
    ]
