"""Every regular expression in the package is free of overlapping unbounded repeats.

A structural bound on backtracking, instead of timing: in no pattern may an unbounded repeat be
followed (past only optional items) by another unbounded repeat that can start with one of its
characters. That pair is what makes a backtracking engine try every split of a long run
(quadratic, or worse when nested); without it the work per start position is linear.
"""

from __future__ import annotations

import re
from typing import Any

from changelog_tools.ledger.document import PR_LINK_LINE_RE

# The parser's internals moved in Python 3.11.
try:
    from re import _constants as _c  # type: ignore[attr-defined]
    from re import _parser as _p  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python < 3.11
    import sre_constants as _c
    import sre_parse as _p

_ALL = frozenset(range(256))
_CATEGORIES = {
    _c.CATEGORY_DIGIT: frozenset(b"0123456789"),
    _c.CATEGORY_SPACE: frozenset(b" \t\n\r\f\v"),
    _c.CATEGORY_WORD: frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"),
}


def _class_chars(items: list[tuple[Any, Any]]) -> frozenset[int]:
    out: set[int] = set()
    negate = False
    for op, av in items:
        if op is _c.NEGATE:
            negate = True
        elif op is _c.LITERAL:
            out.add(av)
        elif op is _c.RANGE:
            out.update(range(av[0], min(av[1], 255) + 1))
        elif op is _c.CATEGORY:
            name = str(av)
            base = next(
                (v for k, v in _CATEGORIES.items() if str(k) in name.replace("NOT_", "")), None
            )
            chars = base or _ALL
            out.update(_ALL - chars if "NOT_" in name else chars)
        else:
            out.update(_ALL)
    return frozenset(_ALL - out) if negate else frozenset(out)


def _chars(op: Any, av: Any) -> frozenset[int]:
    """Every character one item can consume (over-approximated for the rare cases)."""
    if op is _c.LITERAL:
        return frozenset({av}) if av < 256 else frozenset()
    if op is _c.NOT_LITERAL or op is _c.ANY:
        return _ALL
    if op is _c.IN:
        return _class_chars(av)
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", None)):
        return _seq_chars(av[2])
    if op is _c.SUBPATTERN:
        return _seq_chars(av[-1])
    if op is _c.BRANCH:
        return frozenset().union(*(_seq_chars(b) for b in av[1]))
    if op is _c.CATEGORY:
        return _class_chars([(op, av)])
    return frozenset()  # anchors and lookarounds consume nothing


def _seq_chars(seq: Any) -> frozenset[int]:
    return frozenset().union(*(_chars(op, av) for op, av in seq))


def _nullable(op: Any, av: Any) -> bool:
    if op in (_c.AT, _c.ASSERT, _c.ASSERT_NOT):
        return True
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", None)):
        return bool(av[0] == 0) or all(_nullable(o, a) for o, a in av[2])
    if op is _c.SUBPATTERN:
        return all(_nullable(o, a) for o, a in av[-1])
    if op is _c.BRANCH:
        return any(all(_nullable(o, a) for o, a in b) for b in av[1])
    return False


def _leading_unbounded(seq: Any) -> frozenset[int]:
    """First characters of the unbounded repeats the sequence can start with."""
    out: set[int] = set()
    for op, av in seq:
        if op in (_c.MAX_REPEAT, _c.MIN_REPEAT) and av[1] == _c.MAXREPEAT:
            out |= _first(av[2])
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT):
            out |= _leading_unbounded(av[2])
        elif op is _c.SUBPATTERN:
            out |= _leading_unbounded(av[-1])
        elif op is _c.BRANCH:
            for b in av[1]:
                out |= _leading_unbounded(b)
        if not _nullable(op, av):
            break
    return frozenset(out)


def _first(seq: Any) -> frozenset[int]:
    out: set[int] = set()
    for op, av in seq:
        if op in (_c.MAX_REPEAT, _c.MIN_REPEAT):
            out |= _first(av[2])
        elif op is _c.SUBPATTERN:
            out |= _first(av[-1])
        elif op is _c.BRANCH:
            for b in av[1]:
                out |= _first(b)
        else:
            out |= _chars(op, av)
        if not _nullable(op, av):
            break
    return frozenset(out)


def _always_matches(op: Any, av: Any) -> bool:
    """True when the item cannot fail wherever it is tried (it may match nothing)."""
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT):
        return bool(av[0] == 0)
    if op is _c.SUBPATTERN:
        return all(_always_matches(o, a) for o, a in av[-1])
    if op is _c.BRANCH:
        return any(all(_always_matches(o, a) for o, a in b) for b in av[1])
    return False


def _trailing_unbounded(op: Any, av: Any) -> frozenset[int]:
    """Characters of the unbounded repeats the item can end with."""
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT) and av[1] == _c.MAXREPEAT:
        return _seq_chars(av[2])
    children: list[Any] = []
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT):
        children = [av[2]]
    elif op is _c.SUBPATTERN:
        children = [av[-1]]
    elif op is _c.BRANCH:
        children = list(av[1])
    out: set[int] = set()
    for child in children:
        for o, a in reversed(list(child)):
            out |= _trailing_unbounded(o, a)
            if not _nullable(o, a):
                break
    return frozenset(out)


def overlapping_repeats(seq: Any, tail_can_fail: bool = True) -> list[str]:
    """Pairs of unbounded repeats that can split one run of characters between them, followed
    by something that can fail (so the engine would try every split)."""
    found: list[str] = []
    items = list(seq)
    for i, (op, av) in enumerate(items):
        mine = _trailing_unbounded(op, av)
        if mine:
            for j in range(i + 1, len(items)):
                op2, av2 = items[j]
                after_fails = tail_can_fail or not all(
                    _always_matches(o, a) for o, a in items[j + 1 :]
                )
                if after_fails and _leading_unbounded([(op2, av2)]) & mine:
                    found.append(f"item #{i} is followed by an overlapping unbounded repeat")
                if not _nullable(op2, av2):
                    break
        rest_fails = tail_can_fail or not all(_always_matches(o, a) for o, a in items[i + 1 :])
        children: list[Any] = []
        if op in (_c.MAX_REPEAT, _c.MIN_REPEAT):
            children = [av[2]]
        elif op is _c.SUBPATTERN:
            children = [av[-1]]
        elif op is _c.BRANCH:
            children = list(av[1])
        for child in children:
            found += overlapping_repeats(child, rest_fails)
    return found


def _module_patterns() -> list[tuple[str, re.Pattern[Any]]]:
    import importlib
    import pkgutil

    import changelog_tools

    out = []
    for info in pkgutil.walk_packages(changelog_tools.__path__, "changelog_tools."):
        if info.name.startswith("changelog_tools.testing"):
            continue  # the fake GitHub's routes are not on any user's path
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if isinstance(value, re.Pattern):
                out.append((f"{info.name}.{name}", value))
    return out


def test_the_structural_check_catches_the_patterns_that_were_quadratic() -> None:
    for old in (rb"^  pr-link:[ ]*(?P<value>[^\n]*?)[ ]*$", r"(?P<num>[^/?#\s]*)(?P<rest>.*)$",
                r"a[ ]*(?:[ ]+b)?x", r"\s+\s*x"):  # fmt: skip
        assert overlapping_repeats(_p.parse(old), False), old
    for fine in (rb"^  pr-link:(?P<value>[^\n]*)", r"remote:[ \t]*([^\n]*)", r"[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*",
                 r"[A-Za-z0-9_.\-]*[ ]*:[ ]*(?:#[^\n]*)?\Z", r"[-+]?[0-9]+\Z"):  # fmt: skip
        assert not overlapping_repeats(_p.parse(fine), False), fine


def test_no_pattern_in_the_package_has_overlapping_unbounded_repeats() -> None:
    patterns = _module_patterns()
    assert any(name.endswith("PR_LINK_LINE_RE") for name, _ in patterns)
    assert PR_LINK_LINE_RE.pattern == rb"^  pr-link:(?P<value>[^\n]*)"
    bad = {
        name: found
        for name, pattern in patterns
        if (found := overlapping_repeats(_p.parse(pattern.pattern, pattern.flags), False))
    }
    assert bad == {}
