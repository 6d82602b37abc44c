"""Review findings: cli.printable, the last step before a message reaches a CI log."""

from __future__ import annotations

import pytest

from changelog_tools.cli import printable


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The Actions runner reads its output with .NET ReadLine: CR, LF and CRLF end a line.
        # A CR is shown as an escape, so it ends no line; a line after LF is neutralised.
        ("x.yaml: bad \r::add-mask::s", "x.yaml: bad \\x0d::add-mask::s"),
        ("a\r\n::warning::x", "a\\x0d\n\u200b::warning::x"),
        ("a\r\t ::error::x", "a\\x0d\\x09 ::error::x"),
        # a terminal escape (an OSC 8 hyperlink, a C1 CSI) is shown, not obeyed
        ("k\x1b]8;;http://x\x1b\\t\x9b2J", "k\\x1b]8;;http://x\\x1b\\t\\x9b2J"),
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
