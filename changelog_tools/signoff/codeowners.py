"""A CODEOWNERS parser and matcher with GitHub's semantics (written here, not a library).

GitHub's documented rules, which the two Python libraries we measured get wrong in places:
the last matching line wins and owners do not accumulate; ``/*`` matches root files only and
``foo/*`` no nested files; ``**`` matches any number of directories; there is no ``!`` negation
(such a line is invalid and skipped), nor character ranges (a line with ``[`` or ``]`` is reported
and skipped, as GitHub reports it); ``#`` starts a comment anywhere on a line and ``\\#`` does not
escape it, so an owner written after it is never an owner; a line with a pattern and no owners
makes matching paths unowned; lines end at LF only. Matching is case-sensitive, and takes time
proportional to the path's length (paths are chosen by the pull request's author).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Where GitHub looks, in order; the first file found is the one it uses.
CODEOWNERS_LOCATIONS = (".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS")
_CATCH_ALL = frozenset({"*", "**", "/**"})  # not "/*": that is root files only
# A user (GitHub logins, and Enterprise Managed Users' `name_shortcode`), an `@org/team`, or an
# e-mail address.
_OWNER_RE = re.compile(
    r"^(?:@[A-Za-z0-9_](?:[A-Za-z0-9_-]*)(?:/[A-Za-z0-9._-]+)?|[^@\s]+@[^@\s]+)$"
)


@dataclass(frozen=True, slots=True)
class Rule:
    """One valid CODEOWNERS line: its 1-based line number, pattern and owners as written."""

    line: int
    pattern: str
    owners: tuple[str, ...]
    glob: Pattern

    @property
    def catch_all(self) -> bool:
        """True for a line whose pattern matches every path: ``*``, ``**``, ``/**``."""
        return self.pattern in _CATCH_ALL

    def matches(self, path: str) -> bool:
        return self.glob.matches(path)


@dataclass(frozen=True)
class Skipped:
    line: int
    text: str
    reason: str


@dataclass(frozen=True)
class CodeOwners:
    rules: tuple[Rule, ...]
    skipped: tuple[Skipped, ...] = ()
    source: str = ".github/CODEOWNERS"

    def decide(self, path: str) -> Rule | None:
        """The line that decides ``path``: the last one that matches, or None."""
        for rule in reversed(self.rules):
            if rule.matches(path):
                return rule
        return None

    def everyone(self) -> frozenset[str]:
        """Every owner named on any line (users, ``org/team`` and e-mail owners)."""
        return frozenset(o for rule in self.rules for o in rule.owners)


def _strip_comment(line: str) -> str:
    """Drop everything from the first ``#``: an owner after it never counts, and ``\\#`` is no
    escape (GitHub's documentation says escaping a ``#`` does not work)."""
    return line.partition("#")[0]


def _split(line: str) -> list[str]:
    """Whitespace-separated fields; a backslash-escaped space stays inside a pattern."""
    fields: list[str] = []
    current: list[str] = []
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == "\\" and i + 1 < len(line):
            current.append(line[i : i + 2])
            i += 2
            continue
        if ch in " \t":
            if current:
                fields.append("".join(current))
                current = []
        else:
            current.append(ch)
        i += 1
    if current:
        fields.append("".join(current))
    return fields


_STAR, _ONE = object(), object()  # `*` and `?` in a segment; any other item is a literal character
_Glob = tuple[object, ...]


def _segment_glob(segment: str) -> _Glob:
    """One path segment of a pattern as items: `*` (any run within the segment), `?` (one
    character), or a literal character (a backslash makes the next character literal)."""
    items: list[object] = []
    i = 0
    while i < len(segment):
        ch = segment[i]
        if ch == "\\" and i + 1 < len(segment):
            items.append(segment[i + 1])
            i += 2
            continue
        if ch == "*":
            if not items or items[-1] is not _STAR:  # "**" inside a segment is just "*"
                items.append(_STAR)
        else:
            items.append(_ONE if ch == "?" else ch)
        i += 1
    return tuple(items)


def _glob_matches(glob: _Glob, text: str) -> bool:
    """Wildcard matching of one segment without backtracking regexes: the greedy two-pointer
    walk, which resumes from the last `*` only, so it takes at most len(glob) * len(text) steps
    on any input a pull request can name."""
    g = t = 0
    star_g, star_t = -1, 0
    while t < len(text):
        if g < len(glob) and glob[g] is not _STAR and (glob[g] is _ONE or glob[g] == text[t]):
            g += 1
            t += 1
        elif g < len(glob) and glob[g] is _STAR:
            star_g, star_t = g, t
            g += 1
        elif star_g >= 0:
            g = star_g + 1
            star_t += 1
            t = star_t
        else:
            return False
    return all(item is _STAR for item in glob[g:])


@dataclass(frozen=True, slots=True)
class _Many:
    """Any number of whole path segments, at least ``least`` of them (``**``)."""

    least: int


@dataclass(frozen=True, slots=True)
class Pattern:
    """A CODEOWNERS pattern as a sequence over path segments: segment globs and runs of any
    segments. Matching walks the set of reachable segment positions, one step per item, so its
    cost grows with the path's length times the pattern's, never exponentially: a regular
    expression with a ``(?:.*/)?`` per ``**`` took seconds on a 163-character path."""

    items: tuple[_Glob | _Many, ...]

    def matches(self, path: str) -> bool:
        segments = path.split("/")
        reachable = {0}
        for item in self.items:
            if not reachable:
                return False
            if isinstance(item, _Many):
                reachable = set(range(min(reachable) + item.least, len(segments) + 1))
            else:
                reachable = {
                    i + 1
                    for i in reachable
                    if i < len(segments) and _glob_matches(item, segments[i])
                }
        return len(segments) in reachable


def compile_pattern(pattern: str) -> Pattern:
    """The path matcher a CODEOWNERS pattern stands for (GitHub's rules, in the module's doc)."""
    anchored = pattern.startswith("/")
    body = pattern.lstrip("/") if anchored else pattern
    directory_only = body.endswith("/") and body != ""
    body = body.rstrip("/")
    if "/" in body:
        anchored = True  # a slash anywhere but the end anchors the pattern at the root
    if body in ("", "**"):
        return Pattern((_Many(1),))
    segments = body.split("/")
    items: list[_Glob | _Many] = []
    if not anchored and segments[0] != "**":
        items.append(_Many(0))  # the name may sit in any directory
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            least = 1 if last else 0  # last: something below; inside: zero or more dirs
            previous = items[-1] if items else None
            if isinstance(previous, _Many):  # consecutive `**` are one run
                items[-1] = _Many(max(least, previous.least))
            else:
                items.append(_Many(least))
        else:
            items.append(_segment_glob(segment))
    if segments[-1] == "**":
        pass
    elif directory_only:
        items.append(_Many(1))  # a directory: something inside it
    elif not (segments[-1] == "*" and anchored):  # "/*", "foo/*": direct children only
        items.append(_Many(0))  # a name matches the file or everything in the directory
    return Pattern(tuple(items))


def parse_codeowners(
    text: str, *, source: str = ".github/CODEOWNERS", invalid_lines: frozenset[int] = frozenset()
) -> CodeOwners:
    """Parse CODEOWNERS ``text``; ``invalid_lines`` are lines GitHub reports as errors (skipped)."""
    rules: list[Rule] = []
    skipped: list[Skipped] = []
    # GitHub splits the file on LF only: a form feed or U+2028 is inside a line, not between.
    for number, raw in enumerate(text.split("\n"), start=1):
        line = _strip_comment(raw).strip(" \t\r")
        if not line:
            continue
        fields = _split(line)
        pattern, owners = fields[0], tuple(fields[1:])
        reason = None
        if number in invalid_lines:
            reason = "GitHub reports this line as an error"
        elif pattern.startswith("!"):
            reason = "negation (!) is not supported by GitHub"
        elif "[" in pattern or "]" in pattern:
            reason = "character ranges ([ ]) are not supported by GitHub"
        elif bad := [o for o in owners if not _OWNER_RE.match(o)]:
            reason = f"invalid owner {bad[0]!r}"
        if reason is not None:
            skipped.append(Skipped(number, raw, reason))
            continue
        rules.append(Rule(number, pattern, owners, compile_pattern(pattern)))
    return CodeOwners(tuple(rules), tuple(skipped), source)
