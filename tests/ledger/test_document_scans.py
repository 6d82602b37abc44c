"""The whole-file scans of :mod:`changelog_tools.ledger.document` and their faster first looks.

Every write validates the whole file, so these scans run over all of history each time; each has
a cheaper first step (``bytes.find``, a search of the decoded text) that must find exactly what
the pattern it stands in front of finds. Hypothesis builds byte strings from the pieces those
patterns are made of, and each fast path is held to the plain pattern.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from changelog_tools import diagnostics as dx
from changelog_tools.ledger import document

PIECES = [
    b"- config-keys:", b"-  config-keys:", b" - config-keys:", b"\n", b"\n\n", b"...", b" ",
    b"\t", b"#", b"x", b"\r", b"\x00", b"\x01", b"\x0b", b"\x0c", b"\x1f", b"\x7f", b"\xc2\x85",
    b"\xc2\xa0", b"\xc2\x9f", b"\xe2\x80\xa8", b"\xe2\x80\xa9", b"\xe2\x80\x94", b"\xef\xbf\xbe",
    b"\xef\xbf\xbf", b"\xef\xbf\xbd", b"\xc3\xa9", b"\xff", b"\x80",
]  # fmt: skip
raws = st.lists(st.sampled_from(PIECES), max_size=30).map(b"".join)


@given(raws)
@settings(max_examples=300)
def test_entry_starts_are_the_offsets_the_pattern_finds(raw: bytes) -> None:
    expected = [m.start() for m in document.ENTRY_START_RE.finditer(raw)]
    assert document.entry_starts(raw) == expected


@given(raws)
@settings(max_examples=300)
def test_the_document_end_first_look_finds_what_the_pattern_finds(raw: bytes) -> None:
    found = document._document_end(raw)
    expected = document._DOCUMENT_END_RE.search(raw)
    assert (found and found.span()) == (expected and expected.span())


@given(raws)
@settings(max_examples=500)
def test_the_control_rule_on_decoded_text_reports_what_the_byte_scan_reports(raw: bytes) -> None:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return  # the rule runs on valid UTF-8 only (NOT_UTF8 comes first)
    fast = document._control_rule(raw, "p", 3, text)
    plain = document._control_rule(raw, "p", 3)
    assert fast == plain
    assert bool(plain) == (document._CONTROL_RE.search(raw) is not None)


def test_a_control_character_is_still_reported_through_byte_rules() -> None:
    for char in ("\x0b", "\x85", "\u2028", "\ufffe", "\x7f"):
        raw = f"- config-keys:\n    - a{char}\n".encode()
        found = [d for d in document.byte_rules(raw, "p") if d.code == dx.CONTROL_CHARACTER]
        assert [d.line for d in found] == [2], repr(char)
