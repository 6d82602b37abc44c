"""Base vs head of the ledger: what a change did (appended / corrected / nothing) and its byte rules.

The common case is a change that only appends: the head starts with the base bytes. Then only
the appended suffix is parsed (history was checked when it landed), so the cost follows the size
of the change, not of the file. Anything else falls back to a full entry-by-entry comparison that
explains precisely what was deleted, inserted, changed or reformatted.

This module knows nothing of pr-link policy or master configs; `check` layers those on top.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from changelog_tools import diagnostics as dx
from changelog_tools.ledger.document import (
    ENTRY_START_RE,
    Block,
    Ledger,
    Splice,
    apply_splices,
    byte_rules,
    count_entries,
    parse_ledger,
    pr_link_lines,
)


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


def separator_after(history: bytes) -> bytes:
    """What goes between ``history`` and a new entry so that exactly one empty line separates them.

    History that already ends with an empty line needs nothing more; an empty history needs
    nothing at all. A whitespace-only line at the end of history is history's own byte, not a
    separator: the empty line still follows it (as the reference gate requires).
    """
    if not history or history.endswith(b"\n\n"):
        return b""
    return b"\n"


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


def _line_at(raw: bytes, offset: int) -> int:
    return raw.count(b"\n", 0, offset) + 1


def _shift(block: Block, delta: int) -> Block:
    return Block(
        index=block.index,
        start=block.start + delta,
        content_end=block.content_end + delta,
        end=block.end + delta,
        line=block.line,
        data=block.data,
    )


def _blank_run(
    make: Callable[..., dx.Diagnostic], path: str, first: int, next_line: int
) -> dx.Diagnostic:
    # One finding per run of whitespace-only lines: three million of them are one thing to delete.
    count = next_line - first
    if count == 1:
        return make(
            dx.WHITESPACE_ONLY_LINE,
            "whitespace-only line inside a new entry",
            path,
            first,
            1,
            hint="delete the spaces, or the line",
        )
    return make(
        dx.WHITESPACE_ONLY_LINE,
        f"{count:,} whitespace-only lines inside a new entry (lines {first}-{next_line - 1})",
        path,
        first,
        1,
        hint="delete them",
    )


def whitespace_findings(
    raw: bytes, blocks: tuple[Block, ...], path: str, *, strict: bool
) -> list[dx.Diagnostic]:
    """Trailing spaces and whitespace-only lines inside the given entries."""
    make = dx.error if strict else dx.warning
    out: list[dx.Diagnostic] = []
    for block in blocks:
        pos = block.start
        line = block.line
        run_start = 0  # first line of the current run of whitespace-only lines (0: none)

        while pos < block.content_end:
            nl = raw.find(b"\n", pos, block.content_end)
            end = block.content_end if nl == -1 else nl
            text = raw[pos:end]
            if text and not text.strip():
                run_start = run_start or line
                pos = end + 1
                line += 1
                continue
            if run_start:
                out.append(_blank_run(make, path, run_start, line))
                run_start = 0
            if text != text.rstrip(b" "):
                out.append(
                    make(
                        dx.TRAILING_WHITESPACE,
                        "trailing whitespace",
                        path,
                        line,
                        len(text.rstrip(b" ").decode("utf-8", "replace")) + 1,
                        hint="delete the spaces at the end of the line",
                    )
                )
            pos = end + 1
            line += 1
        if run_start:
            out.append(_blank_run(make, path, run_start, line))
    return out


def compare(
    base: bytes | None,
    head: bytes,
    *,
    path: str,
    base_label: str | None = None,
    max_size: int | None = None,
    strict: bool = False,
    whitespace_separator: str = "error",
) -> Change:
    """Classify ``head`` against ``base`` and apply every append-only byte and entry rule.

    ``base`` is None when the file did not exist before (everything in ``head`` is appended).
    ``whitespace_separator`` "warning" lets a line of spaces stand in for an empty separator
    line (the `whitespace-only-separator` option); "error" is the reference gate's rule.
    """
    history = base or b""
    if max_size is not None and len(head) > max_size:
        return Change(
            ChangeKind.INVALID,
            history,
            head,
            diagnostics=(
                dx.error(
                    dx.TOO_LARGE,
                    f"file is {len(head):,} bytes; the limit is {max_size:,} (`max-file-size`)",
                    path,
                ),
            ),
        )
    if head == history:
        return Change(ChangeKind.NONE, history, head, fast_path=True)
    if head.startswith(history) and (not history or history.endswith(b"\n")):
        return _compare_append(
            history, head, path=path, strict=strict, lenient=whitespace_separator == "warning"
        )
    return _compare_full(
        history, head, path=path, base_label=base_label or f"{path} (base)", strict=strict
    )


def _compare_append(
    history: bytes, head: bytes, *, path: str, strict: bool, lenient: bool = False
) -> Change:
    suffix = head[len(history) :]
    history_lines = history.count(b"\n")
    first_new_line = history_lines + 1
    found = ENTRY_START_RE.search(suffix)
    lead = suffix[: found.start()] if found else suffix
    diags: list[dx.Diagnostic] = []
    if found is None or lead.strip():
        # Text after the history that is not a new entry: it extends the last existing entry
        # (or is stray text), which edits history.
        first_text = next((i for i, ln in enumerate(lead.split(b"\n")) if ln.strip()), None)
        if first_text is None:
            diags.append(
                dx.error(
                    dx.FINAL_NEWLINES,
                    "the change only adds blank lines at the end of the file",
                    path,
                    first_new_line,
                    1,
                    hint="the file must end with exactly one newline; remove the added lines",
                )
            )
        else:
            diags.append(
                dx.error(
                    dx.CONTINUES_HISTORY,
                    "these lines extend the last existing entry instead of starting a new one; "
                    "existing entries are immutable",
                    path,
                    first_new_line + first_text,
                    1,
                    hint="start every new entry with `- config-keys:` at column 0, after one "
                    "empty line",
                )
            )
        return Change(ChangeKind.INVALID, history, head, diagnostics=tuple(diags), fast_path=True)
    # The first appended bytes must be exactly the separator history still needs: one empty
    # line, or none when history ends with one. History's own whitespace-only lines are never
    # judged again (they landed long ago); a whitespace-only or control-character line the
    # change brings is not an empty line (the reference gate rejects it, and a TAB, VT or FF
    # line would no longer be valid YAML).
    lead_lines = _blank_lines(lead, 0, len(lead))
    diags += _lead_byte_rules(lead, first_new_line, path)
    if history:
        problem = _lead_problem(history, lead_lines)
        if problem is not None:
            legacy = lenient and _spaces_only_separator(_trailing_blank_lines(history) + lead_lines)
            diags.append(
                (dx.warning if legacy else dx.error)(
                    dx.APPEND_SEPARATOR,
                    "new entries must be separated from the existing history by exactly one "
                    f"empty line ({problem})",
                    path,
                    first_new_line,
                    1,
                    hint="leave exactly one empty line (no spaces on it) before the first "
                    "`- config-keys:` you add"
                    + ("" if separator_after(history) else "; history already ends with one")
                    + FIX_HINT,
                )
            )
    elif lead:
        diags.append(
            dx.error(
                dx.APPEND_SEPARATOR,
                "a new changelog starts with its first `- config-keys:` line",
                path,
                1,
                1,
                hint="delete the blank lines at the start of the file",
            )
        )
    region_start = len(history) + len(lead)
    region = head[region_start:]
    history_entries = count_entries(history)
    ledger = parse_ledger(
        region,
        path=path,
        line_offset=history_lines + lead.count(b"\n"),
        entry_offset=history_entries,
    )
    diags.extend(ledger.diagnostics)
    blocks = tuple(_shift(b, region_start) for b in ledger.blocks)
    diags.extend(_separator_findings(head, blocks, path, strict=strict, lenient=lenient))
    diags.extend(whitespace_findings(head, blocks, path, strict=strict))
    kind = ChangeKind.APPENDED if blocks else ChangeKind.INVALID
    return Change(
        kind,
        history,
        head,
        appended=blocks,
        diagnostics=tuple(diags),
        fast_path=True,
        history_entries=history_entries,
    )


def _blank_lines(raw: bytes, start: int, end: int) -> list[bytes]:
    """The lines of ``raw[start:end]``, which holds only whole blank or whitespace-only lines."""
    return raw[start:end].split(b"\n")[:-1]


def _trailing_blank_lines(history: bytes) -> list[bytes]:
    """The blank or whitespace-only lines at the end of ``history`` (oldest first)."""
    lines: list[bytes] = []
    end = len(history)
    while end > 0:
        start = history.rfind(b"\n", 0, end - 1) + 1
        text = history[start : end - 1]
        if text.strip():
            break
        lines.append(text)
        end = start
    return lines[::-1]


def _spaces_only_separator(lines: list[bytes]) -> bool:
    """True when ``lines`` separate as one empty line would, if lines of spaces count as empty:
    what the `whitespace-only-separator: warning` option accepts (never a control character)."""
    return (
        bool(lines)
        and sum(1 for t in lines if not t) <= 1
        and all(not t.strip(b" ") for t in lines)
    )


def _describe_line(text: bytes) -> str:
    if not text:
        return "an empty line"
    if not text.strip(b" "):
        return f"a line of {len(text)} space{'s' * (len(text) != 1)}"
    names = {b"\t": "TAB", b"\r": "CR", b"\x0b": "VT", b"\x0c": "FF"}
    shown = " ".join(names.get(bytes([c]), "space" if c == 32 else f"0x{c:02x}") for c in text)
    return f"a line holding only {shown}"


def _lead_problem(history: bytes, lines: list[bytes]) -> str | None:
    """Why the bytes between history and the first new entry are not the separator it needs."""
    wanted: list[bytes] = [] if not separator_after(history) else [b""]
    if lines == wanted:
        return None
    if not lines:
        last = history[history.rfind(b"\n", 0, len(history) - 1) + 1 : -1]
        if last and not last.strip():
            return (
                "found none: history ends with a whitespace-only line, which is history's own "
                "byte, not an empty line"
            )
        return "found none"
    found = ", then ".join(_describe_line(t) for t in lines)
    if not wanted:
        return f"history already ends with an empty line, but the change adds {found}"
    return f"found {found}"


def _separator_problem(lines: list[bytes], *, last: bool) -> str | None:
    """Why a run of blank lines after a new entry is not a valid separator, or None.

    Between entries the run ends with exactly one empty line; whitespace-only lines before it
    are the entry's own trailing bytes (they warn: history carries dozens). A whitespace-only
    line is never the separator itself. After the last entry none may be empty (the file ends
    with exactly one newline).
    """
    empty = sum(1 for text in lines if not text)
    if last:
        return f"found {empty} empty line{'s' * (empty != 1)} at the end" if empty else None
    if not lines:
        return "found none"
    if empty > 1:
        return f"found {empty} empty lines"
    if empty == 0:
        return (
            f"found {', then '.join(_describe_line(t) for t in lines)}, which is not an empty line"
        )
    if lines[-1]:
        return f"{_describe_line(lines[-1])} follows the empty line"
    return None


_LEAD_BYTE_CODES = frozenset({dx.CARRIAGE_RETURN, dx.TAB, dx.NUL, dx.CONTROL_CHARACTER})


def _lead_byte_rules(lead: bytes, first_line: int, path: str) -> list[dx.Diagnostic]:
    """The file's byte rules on the separator before the first new entry (not parsed with it)."""
    if not lead.strip(b" \n"):
        return []
    return [
        d for d in byte_rules(lead, path, line_offset=first_line - 1) if d.code in _LEAD_BYTE_CODES
    ]


def _whitespace_line_warnings(
    lines: list[bytes], first_line: int, path: str, *, strict: bool
) -> list[dx.Diagnostic]:
    make = dx.error if strict else dx.warning
    return [
        make(
            dx.WHITESPACE_ONLY_LINE,
            "whitespace-only line next to a new entry",
            path,
            first_line + k,
            1,
            hint="delete the spaces",
        )
        for k, text in enumerate(lines)
        if text
    ]


def _separator_findings(
    head: bytes, blocks: tuple[Block, ...], path: str, *, strict: bool, lenient: bool = False
) -> list[dx.Diagnostic]:
    """Exactly one empty line between new entries and none after the last."""
    out: list[dx.Diagnostic] = []
    for i, block in enumerate(blocks):
        lines = _blank_lines(head, block.content_end, block.end)
        # Counted from the block's own line: counting from the file start per block is
        # quadratic when a whole history is appended (a new file, a root commit).
        first_line = block.line + head.count(b"\n", block.start, block.content_end)
        out += _whitespace_line_warnings(lines, first_line, path, strict=strict)
        last = i == len(blocks) - 1
        problem = _separator_problem(lines, last=last)
        if problem is None:
            continue
        if last:
            out.append(
                dx.error(
                    dx.FINAL_NEWLINES,
                    f"the file must end with exactly one newline after the last entry ({problem})",
                    path,
                    first_line,
                    1,
                    hint="delete the empty lines at the end of the file",
                )
            )
        else:
            legacy = lenient and _spaces_only_separator(lines)
            out.append(
                (dx.warning if legacy else dx.error)(
                    dx.APPEND_SEPARATOR,
                    f"new entries must be separated by exactly one empty line ({problem})",
                    path,
                    first_line,
                    1,
                    hint="leave exactly one empty line between entries" + FIX_HINT,
                )
            )
    return out


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


def _compare_full(
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
        diags.append(
            dx.error(
                dx.MIXED_CORRECTION_APPEND,
                f"the change corrects {len(corrections)} pr-link(s) and also appends "
                f"{len(appended)} entr{'y' if len(appended) == 1 else 'ies'}",
                path,
                appended[0].line,
                1,
                hint="make pr-link corrections in a pull request of their own",
            )
        )
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
        line = first_difference_line(history, head)
        diags.append(
            dx.error(
                dx.HISTORY_BYTES_CHANGED,
                f"appending changed existing bytes at line {line}; the history must stay "
                "byte-for-byte identical",
                path,
                line,
                1,
                hint="restore the base file exactly (whitespace included) and append at the end"
                + FIX_HINT,
            )
        )
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
    line = first_difference_line(history, head)
    diags.append(
        dx.error(
            dx.REFORMATTED,
            f"line {line} changed without changing any entry; existing whitespace and "
            "formatting are immutable",
            path,
            line,
            1,
            hint="restore the base bytes exactly" + FIX_HINT,
        )
    )
    return Change(
        ChangeKind.INVALID, history, head, diagnostics=tuple(diags), history_entries=n_base
    )


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
