"""The byte rules of appended entries: the separator before and between them (exactly one empty
line, none at the end), whitespace-only lines and trailing spaces inside them.

History's own bytes are never judged again here (they landed long ago): only what a change
appends.
"""

from __future__ import annotations

from collections.abc import Callable

from changelog_tools import diagnostics as dx
from changelog_tools.ledger.change import FIX_HINT
from changelog_tools.ledger.document import Block, byte_rules


def separator_after(history: bytes) -> bytes:
    """What goes between ``history`` and a new entry so that exactly one empty line separates them.

    History that already ends with an empty line needs nothing more; an empty history needs
    nothing at all. A whitespace-only line at the end of history is history's own byte, not a
    separator: the empty line still follows it (as the reference gate requires).
    """
    if not history or history.endswith(b"\n\n"):
        return b""
    return b"\n"


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


def blank_lines(raw: bytes, start: int, end: int) -> list[bytes]:
    """The lines of ``raw[start:end]``, which holds only whole blank or whitespace-only lines."""
    return raw[start:end].split(b"\n")[:-1]


def trailing_blank_lines(history: bytes) -> list[bytes]:
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


def spaces_only_separator(lines: list[bytes]) -> bool:
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


def lead_problem(history: bytes, lines: list[bytes]) -> str | None:
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


def lead_byte_rules(lead: bytes, first_line: int, path: str) -> list[dx.Diagnostic]:
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


def separator_findings(
    head: bytes, blocks: tuple[Block, ...], path: str, *, strict: bool, lenient: bool = False
) -> list[dx.Diagnostic]:
    """Exactly one empty line between new entries and none after the last."""
    out: list[dx.Diagnostic] = []
    for i, block in enumerate(blocks):
        lines = blank_lines(head, block.content_end, block.end)
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
            legacy = lenient and spaces_only_separator(lines)
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


def lead_findings(
    history: bytes, lead: bytes, first_line: int, path: str, *, lenient: bool
) -> list[dx.Diagnostic]:
    """The rules on ``lead``, the blank lines between history and the first new entry.

    The first appended bytes must be exactly the separator history still needs: one empty
    line, or none when history ends with one. History's own whitespace-only lines are never
    judged again (they landed long ago); a whitespace-only or control-character line the
    change brings is not an empty line (the reference gate rejects it, and a TAB, VT or FF
    line would no longer be valid YAML).
    """
    lead_lines = blank_lines(lead, 0, len(lead))
    diags = lead_byte_rules(lead, first_line, path)
    if history:
        problem = lead_problem(history, lead_lines)
        if problem is not None:
            legacy = lenient and spaces_only_separator(trailing_blank_lines(history) + lead_lines)
            diags.append(
                (dx.warning if legacy else dx.error)(
                    dx.APPEND_SEPARATOR,
                    "new entries must be separated from the existing history by exactly one "
                    f"empty line ({problem})",
                    path,
                    first_line,
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
    return diags
