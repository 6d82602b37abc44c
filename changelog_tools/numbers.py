"""Parsing the numbers people and GitHub write: ASCII digits only, and never unbounded.

``str.isdigit`` accepts ``²``, ``٥`` and ``５`` and ``int`` accepts the last two (and ``1_0``),
so ``.../pull/٥`` would read as pull request 5 and ``.../pull/²`` would crash. Every PR number,
run id or count the tools read from text goes through :func:`parse_number`.
"""

from __future__ import annotations

import re

ASCII_DIGITS = re.compile(r"[0-9]+\Z")
# GitHub's ids are 64-bit; nineteen digits hold any of them and keep int() far from its limit.
MAX_DIGITS = 19


def is_number(text: str) -> bool:
    """True for a non-empty run of ASCII digits ``0``-``9`` of at most :data:`MAX_DIGITS`."""
    return len(text) <= MAX_DIGITS and ASCII_DIGITS.match(text) is not None


def parse_number(text: str) -> int | None:
    """The value of ``text`` when it is ASCII digits only (see :func:`is_number`), else None."""
    return int(text) if is_number(text) else None
