"""Parsing the numbers people and GitHub write: ASCII digits only, and never unbounded.

``str.isdigit`` accepts ``²``, ``٥`` and ``５`` and ``int`` accepts the last two (and ``1_0``),
so ``.../pull/٥`` would read as pull request 5 and ``.../pull/²`` would crash. Every PR number,
run id or count the tools read from text goes through :func:`parse_number`.
"""

from __future__ import annotations

import math
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


# A measured quantity (an acceptance length, a ratio) written in a script or a data file: a few
# digits. Longer text is refused before float() sees it, as is a value float() reads as infinite.
MAX_DECIMAL_CHARS = 32


def finite_float(value: str | int | float) -> float | None:
    """``value`` as a finite float, or None when it is too long, not finite or not a number.

    ``float("1" * 400)`` is infinity and ``float(10**400)`` raises OverflowError; numbers read
    from files a pull request controls go through here so that neither reaches a rule.
    """
    if isinstance(value, str) and len(value) > MAX_DECIMAL_CHARS:
        return None
    try:
        number = float(value)
    except (ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None
