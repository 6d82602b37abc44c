"""utf8.py: where a file stops being UTF-8."""

from __future__ import annotations

from changelog_tools import diagnostics as dx
from changelog_tools.utf8 import not_utf8


def _finding(raw: bytes, line_offset: int = 0) -> dx.Diagnostic:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return not_utf8(raw, exc, "f.yaml", line_offset=line_offset)
    raise AssertionError("the bytes decoded")


def test_the_column_counts_characters_before_the_bad_byte() -> None:
    found = _finding("a: 1\n# café \xff\n".encode("latin-1").replace(b"caf\xe9", "café".encode()))
    assert (found.code, found.line, found.column) == (dx.NOT_UTF8, 2, 8)
    assert found.message == "invalid UTF-8 byte 0xff" and found.hint == "save the file as UTF-8"


def test_the_line_counts_from_the_offset_and_a_truncated_sequence_is_found() -> None:
    found = _finding(b"one\ntwo \xe2\x82", line_offset=10)
    assert (found.line, found.column, found.message) == (12, 5, "invalid UTF-8 byte 0xe2")
