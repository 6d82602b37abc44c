"""A CODEOWNERS parser and matcher with GitHub's semantics (written here, not a library).

GitHub's documented rules, which the two Python libraries we measured get wrong in places:
the last matching line wins and owners do not accumulate; ``/*`` matches root files only and
``foo/*`` no nested files; ``**`` matches any number of directories; there is no ``!`` negation
(such a line is invalid and skipped) and brackets are literal characters; ``#`` starts a comment
anywhere on a line, so an owner written after it is never an owner; a line with a pattern and no
owners makes matching paths unowned. Matching is case-sensitive.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Where GitHub looks, in order; the first file found is the one it uses.
CODEOWNERS_LOCATIONS = (".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS")
_CATCH_ALL = frozenset({"*", "**", "/**"})  # not "/*": that is root files only
_OWNER_RE = re.compile(r"^(?:@[A-Za-z0-9](?:[A-Za-z0-9-]*)(?:/[A-Za-z0-9._-]+)?|[^@\s]+@[^@\s]+)$")


@dataclass(frozen=True)
class Rule:
    """One valid CODEOWNERS line: its 1-based line number, pattern and owners as written."""

    line: int
    pattern: str
    owners: tuple[str, ...]
    regex: re.Pattern[str]

    @property
    def catch_all(self) -> bool:
        """True for a line whose pattern matches every path: ``*``, ``**``, ``/**``."""
        return self.pattern in _CATCH_ALL

    def matches(self, path: str) -> bool:
        return self.regex.fullmatch(path) is not None


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
    """Drop everything from the first unescaped ``#``; an owner after it never counts."""
    out: list[str] = []
    escaped = False
    for ch in line:
        if escaped:
            out.append(ch)
            escaped = False
        elif ch == "\\":
            out.append(ch)
            escaped = True
        elif ch == "#":
            break
        else:
            out.append(ch)
    return "".join(out)


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


def _segment_regex(segment: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(segment):
        ch = segment[i]
        if ch == "\\" and i + 1 < len(segment):
            out.append(re.escape(segment[i + 1]))
            i += 2
            continue
        if ch == "*":
            while i + 1 < len(segment) and segment[i + 1] == "*":
                i += 1  # "**" inside a segment is just "*"
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        else:
            out.append(re.escape(ch))  # brackets included: they are literal
        i += 1
    return "".join(out)


def compile_pattern(pattern: str) -> re.Pattern[str]:
    """The regular expression a CODEOWNERS pattern stands for (full-match against a path)."""
    anchored = pattern.startswith("/")
    body = pattern.lstrip("/") if anchored else pattern
    directory_only = body.endswith("/") and body != ""
    body = body.rstrip("/")
    if "/" in body:
        anchored = True  # a slash anywhere but the end anchors the pattern at the root
    if body in ("", "**"):
        return re.compile(".+")
    segments = body.split("/")
    parts: list[str] = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            if last:
                parts.append(".+")
            else:
                parts.append("(?:.*/)?")  # zero or more directories
            continue
        regex = _segment_regex(segment)
        parts.append(regex if last else regex + "/")
    text = "".join(parts)
    prefix = "" if anchored or segments[0] == "**" else "(?:.*/)?"
    if segments[-1] == "**":
        suffix = ""
    elif directory_only:
        suffix = "/.+"
    elif segments[-1] == "*" and anchored:
        suffix = ""  # "/*" and "foo/*": direct children only, no nested files
    else:
        suffix = "(?:/.*)?"  # a name matches the file or everything in the directory
    return re.compile(prefix + text + suffix)


def parse_codeowners(
    text: str, *, source: str = ".github/CODEOWNERS", invalid_lines: frozenset[int] = frozenset()
) -> CodeOwners:
    """Parse CODEOWNERS ``text``; ``invalid_lines`` are lines GitHub reports as errors (skipped)."""
    rules: list[Rule] = []
    skipped: list[Skipped] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = _strip_comment(raw).strip()
        if not line:
            continue
        fields = _split(line)
        pattern, owners = fields[0], tuple(fields[1:])
        reason = None
        if number in invalid_lines:
            reason = "GitHub reports this line as an error"
        elif pattern.startswith("!"):
            reason = "negation (!) is not supported by GitHub"
        elif bad := [o for o in owners if not _OWNER_RE.match(o)]:
            reason = f"invalid owner {bad[0]!r}"
        if reason is not None:
            skipped.append(Skipped(number, raw, reason))
            continue
        rules.append(Rule(number, pattern, owners, compile_pattern(pattern)))
    return CodeOwners(tuple(rules), tuple(skipped), source)
