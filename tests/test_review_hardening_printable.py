"""Review findings: cli.printable, the last step before a message reaches a CI log."""

from __future__ import annotations

import pytest

from changelog_tools.cli import printable


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The Actions runner reads its output with .NET ReadLine: CR, LF and CRLF end a line.
        ("x.yaml: bad \r::add-mask::s", "x.yaml: bad \r\u200b::add-mask::s"),
        ("a\r\n::warning::x", "a\r\n\u200b::warning::x"),
        ("a\r\t ::error::x", "a\r\t \u200b::error::x"),
        # unchanged from before: LF, leading blanks, the first line
        ("::stop-commands::t", "\u200b::stop-commands::t"),
        ("a\n  ::warning::x", "a\n  \u200b::warning::x"),
        ("\n\n::a\n::b", "\n\n\u200b::a\n\u200b::b"),
        # legitimate text is left alone
        ("std::vector in a message", "std::vector in a message"),
        ("line\nnext: 10:30::00", "line\nnext: 10:30::00"),
    ],
)
def test_every_line_the_runner_sees_is_neutralised(text: str, expected: str) -> None:
    assert printable(text) == expected
