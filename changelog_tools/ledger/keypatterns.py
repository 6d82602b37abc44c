"""How a changelog's `config-keys` patterns select master-config keys: `*` is the only wildcard,
patterns are anchored, and an unknown key gets the closest existing ones as a hint."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence


def wildcard_regex(pattern: str) -> re.Pattern[str]:
    """Anchored regex for a config-key pattern: `*` matches any run of characters, nothing else
    is special (the reference tool's semantics; `?` and `[...]` are literal)."""
    return re.compile(re.escape(pattern).replace(r"\*", ".*") + r"\Z")


def wildcard_match(pattern: str, name: str) -> bool:
    """Whether ``name`` matches ``pattern`` (`*` any run of characters, anchored at both ends).

    Same answers as :func:`wildcard_regex`, but without backtracking: the regex takes
    exponential time on keys such as ``*a*a*a*a*a*a*a*a*a*a*a*c``, so an appended entry could
    hang CI. The literal parts are found leftmost-first between a fixed prefix and suffix.
    """
    parts = pattern.split("*")
    if len(parts) == 1:
        return name == pattern
    first, last = parts[0], parts[-1]
    start, end = len(first), len(name) - len(last)
    if end < start or not name.startswith(first) or not name.endswith(last):
        return False
    for part in parts[1:-1]:
        found = name.find(part, start, end)
        if found < 0:
            return False
        start = found + len(part)
    return True


def resolve_key(pattern: str, names: Sequence[str]) -> list[str]:
    """The master keys ``pattern`` selects, in master order."""
    if "*" not in pattern:
        return [pattern] if pattern in names else []
    return [n for n in names if wildcard_match(pattern, n)]


def resolve_keys(patterns: Iterable[str], names: Sequence[str]) -> list[str]:
    """Resolve several patterns; duplicates removed, first-seen order kept."""
    out: dict[str, None] = {}
    for pattern in patterns:
        for name in resolve_key(pattern, names):
            out.setdefault(name)
    return list(out)


def suggestions(pattern: str, names: Sequence[str], n: int = 3) -> list[str]:
    """Closest existing keys for an unknown key or a wildcard that matched nothing."""
    probe = pattern.replace("*", "")
    import difflib  # only for a key that matches nothing

    close = difflib.get_close_matches(probe, names, n=n, cutoff=0.6)
    if not close and "*" in pattern:
        # A wildcard's fixed part is often a prefix: offer keys sharing its longest literal part.
        parts = sorted((p for p in pattern.split("*") if p), key=len, reverse=True)
        if parts:
            close = [k for k in names if parts[0] in k][:n]
    return close


def did_you_mean(options: Sequence[str]) -> str | None:
    if not options:
        return None
    return "did you mean " + " or ".join(f"`{o}`" for o in options) + "?"
