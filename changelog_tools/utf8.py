"""Where a file stops being UTF-8, told the same way for the changelog and the configuration."""

from __future__ import annotations

from changelog_tools import diagnostics as dx


def not_utf8(
    raw: bytes, exc: UnicodeDecodeError, path: str, *, line_offset: int = 0
) -> dx.Diagnostic:
    """The CL001 finding for ``raw`` (a file's bytes) failing to decode as ``exc`` says: the
    line and column of the first bad byte, counted as an editor counts them."""
    line = raw.count(b"\n", 0, exc.start) + 1 + line_offset
    line_start = raw.rfind(b"\n", 0, exc.start) + 1
    column = len(raw[line_start : exc.start].decode("utf-8", "replace")) + 1
    return dx.error(
        dx.NOT_UTF8,
        f"invalid UTF-8 byte 0x{raw[exc.start]:02x}",
        path,
        line,
        column,
        hint="save the file as UTF-8",
    )
