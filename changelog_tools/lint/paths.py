"""Glob patterns over repository paths: ``**`` crosses directories, ``*`` and ``?`` do not."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache


@cache
def glob_regex(pattern: str) -> re.Pattern[str]:
    out = []
    i = 0
    anchored = pattern.startswith("/") or "/" in pattern.rstrip("/")
    pattern = pattern.lstrip("/")
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    body = "".join(out)
    # A pattern without a slash matches a name at any depth (gitignore's rule).
    return re.compile(("" if anchored else "(?:.*/)?") + body + r"(?:/.*)?\Z")


def matches(path: str, patterns: Iterable[str]) -> bool:
    return any(glob_regex(p).match(path) for p in patterns)
