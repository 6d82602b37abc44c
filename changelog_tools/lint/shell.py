"""Reading shell scripts the way the rules need: logical lines, comments dropped, added lines.

Not a shell parser: quotes are tracked so that a ``#`` inside a string is kept, backslash
continuations are joined into one logical line that keeps the number of its first physical
line, and heredoc bodies are read like any other lines (their Python comments start with ``#``
too).
"""

from __future__ import annotations

import bisect
import difflib
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class LogicalLine:
    line: int  # 1-based number of its first physical line
    last: int  # number of its last physical line
    text: str  # comments dropped, continuations joined with a space
    offsets: tuple[int, ...] = ()  # where each physical line after the first starts in text

    def line_at(self, position: int) -> int:
        """The physical line holding ``text[position]``."""
        line = self.line
        for offset in self.offsets:
            if position >= offset:
                line += 1
        return line


_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")


_SPECIAL = re.compile(r"[#'\"\\\\]")


def _strip_line(raw: str, quote: str) -> tuple[str, str]:
    """``raw`` without its comment, and the quote still open at its end."""
    if not quote and _SPECIAL.search(raw) is None:
        return raw.rstrip(), ""  # the common line: nothing to track
    i = 0
    n = len(raw)
    while i < n:
        if quote:
            # Jump to the closing quote (or, in double quotes, the next escape).
            stops = '\\"' if quote == '"' else "'"
            j = i
            while j < n and raw[j] not in stops:
                j += 1
            if j >= n:
                return raw.rstrip(), quote
            if raw[j] == "\\":
                i = j + 2
                continue
            quote = ""
            i = j + 1
            continue
        m = _SPECIAL.search(raw, i)
        if m is None:
            break
        j = m.start()
        c = raw[j]
        if c == "\\":
            i = j + 2
        elif c == "#":
            if j == 0 or raw[j - 1] in " \t;&|(":
                return raw[:j].rstrip(), ""
            i = j + 1
        else:
            quote = c
            i = j + 1
    return raw.rstrip(), quote


def strip_comments(text: str) -> list[str]:
    """The physical lines of ``text`` with comments removed (quotes respected).

    A heredoc body is read line by line with no quote carried across lines (it is another
    language: an apostrophe in a Python comment must not swallow the rest of the script).
    """
    out: list[str] = []
    quote = ""
    terminator: str | None = None
    for raw in text.split("\n"):
        if terminator is not None:
            if raw.strip() == terminator:
                terminator = None
                out.append(raw.strip())
                continue
            out.append(_strip_line(raw, "")[0])
            continue
        line, quote = _strip_line(raw, quote)
        out.append(line)
        heredoc = _HEREDOC.search(line) if not quote else None
        if heredoc is not None:
            terminator = heredoc.group(2)
    return out


def heredocs(text: str, stripped: list[str] | None = None) -> list[tuple[int, int, str]]:
    """(first line, last line, body) of every heredoc, numbered from the line that opens it.

    ``stripped`` is :func:`strip_comments` of ``text`` when the caller already has it."""
    physical = text.split("\n")
    out: list[tuple[int, int, str]] = []
    stripped = strip_comments(text) if stripped is None else stripped
    i = 0
    while i < len(physical):
        found = _HEREDOC.search(stripped[i])
        if found is None:
            i += 1
            continue
        end = i + 1
        while end < len(physical) and physical[end].strip() != found.group(2):
            end += 1
        out.append((i + 1, min(end + 1, len(physical)), "\n".join(stripped[i + 1 : end])))
        i = end + 1
    return out


def logical_lines(text: str, stripped: list[str] | None = None) -> list[LogicalLine]:
    physical = strip_comments(text) if stripped is None else stripped
    out: list[LogicalLine] = []
    parts: list[str] = []
    first = 0

    def close(last: int) -> None:
        joined = ""
        offsets: list[int] = []
        for k, part in enumerate(parts):
            if k:
                joined += " "
                offsets.append(len(joined))
            joined += part
        if joined.strip():
            out.append(LogicalLine(first, last, joined, tuple(offsets)))

    for number, line in enumerate(physical, start=1):
        if not parts:
            first = number
        if line.endswith("\\") and not line.endswith("\\\\"):
            parts.append(line[:-1].strip())
            continue
        parts.append(line.strip())
        close(number)
        parts = []
    if parts:
        close(len(physical))
    return out


def added_lines(base: str | None, head: str) -> frozenset[int]:
    """1-based numbers of the head lines that are not in base (all of them when base is None)."""
    head_lines = head.split("\n")
    if base is None:
        return frozenset(range(1, len(head_lines) + 1))
    base_lines = base.split("\n")
    # The common prefix and suffix first: a change to a 10,000-line master config touches a few
    # lines, and the matcher is quadratic in what is left.
    start = 0
    limit = min(len(base_lines), len(head_lines))
    while start < limit and base_lines[start] == head_lines[start]:
        start += 1
    end = 0
    while (
        end < limit - start
        and base_lines[len(base_lines) - 1 - end] == head_lines[len(head_lines) - 1 - end]
    ):
        end += 1
    old = base_lines[start : len(base_lines) - end]
    new = head_lines[start : len(head_lines) - end]
    out: set[int] = set()
    # The matcher is quadratic in repeated lines, and a change every few lines of a big master
    # config (an image bump across entries) leaves it the whole file: lines that occur once on
    # each side anchor the diff (patience diff), and the matcher only sees what lies between.
    i0 = j0 = 0
    for i1, j1 in [*_anchors(old, new), (len(old), len(new))]:
        for b1, b2 in _added_between(old[i0:i1], new[j0:j1]):
            out.update(range(start + j0 + b1 + 1, start + j0 + b2 + 1))
        i0, j0 = i1 + 1, j1 + 1
    return frozenset(out)


# Beyond this many line pairs between two anchors, difflib's matcher (quadratic and worse on
# repeated lines: 2,000 repeated lines took 277 s) gives way to a count of lines.
_MATCHER_PAIRS = 20_000


def _added_between(old: list[str], new: list[str]) -> list[tuple[int, int]]:
    """Half-open ranges of ``new`` that are not in ``old``, for one stretch between anchors.

    A small stretch is diffed. A large one (only a file whose lines repeat leaves one: every
    unique line is an anchor) is judged by counting: a line of ``new`` is added when ``old``
    has no unused copy of it, which is linear and differs from a diff only for lines moved
    within the stretch (which the rules about added code need not judge again).
    """
    if len(old) * len(new) <= _MATCHER_PAIRS:
        matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
        return [
            (b1, b2)
            for tag, _a1, _a2, b1, b2 in matcher.get_opcodes()
            if tag in ("replace", "insert")
        ]
    unused: dict[str, int] = {}
    for line in old:
        unused[line] = unused.get(line, 0) + 1
    ranges: list[tuple[int, int]] = []
    for j, line in enumerate(new):
        if unused.get(line, 0):
            unused[line] -= 1
        elif ranges and ranges[-1][1] == j:
            ranges[-1] = (ranges[-1][0], j + 1)
        else:
            ranges.append((j, j + 1))
    return ranges


def _anchors(old: list[str], new: list[str]) -> list[tuple[int, int]]:
    """(old index, new index) of lines that occur exactly once in each, the longest run of them
    in the same order on both sides."""
    counts: dict[str, list[int]] = {}
    for i, line in enumerate(old):
        counts.setdefault(line, [0, 0, i])[0] += 1
    for line in new:
        if line in counts:
            counts[line][1] += 1
    pairs = [
        (counts[line][2], j)
        for j, line in enumerate(new)
        if line in counts and counts[line][0] == 1 and counts[line][1] == 1
    ]
    # Longest increasing subsequence of the old indexes (pairs are in new order).
    tails: list[int] = []  # tails[k]: index into pairs ending the best run of length k + 1
    ends: list[int] = []  # ends[k]: the old index of pairs[tails[k]]
    previous: list[int] = [-1] * len(pairs)
    for p, (i, _j) in enumerate(pairs):
        k = bisect.bisect_left(ends, i)
        if k:
            previous[p] = tails[k - 1]
        if k == len(tails):
            tails.append(p)
            ends.append(i)
        else:
            tails[k] = p
            ends[k] = i
    run: list[tuple[int, int]] = []
    p = tails[-1] if tails else -1
    while p >= 0:
        run.append(pairs[p])
        p = previous[p]
    return run[::-1]
