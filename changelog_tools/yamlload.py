"""A strict, fast YAML loader for ledgers: plain data plus the position of every node.

It builds Python values straight from the parser's event stream (libyaml through
``ruamel.yaml.clib`` when installed, ruamel's pure parser otherwise), which lets it

* reject anchors, aliases and explicit tags the moment they appear, so an alias-expansion bomb
  costs nothing;
* reject duplicate keys at any depth, with the line of the second occurrence (or note them
  and read on, for a caller that reports every problem of a file);
* stop at a nesting depth no changelog needs, without recursion, so a 20,000-deep list fails fast;
* record where every value and key starts, for precise diagnostics.

Plain scalars follow the YAML 1.2 core schema (``yes`` is a string, not a boolean). The ledger's
other reader is PyYAML (YAML 1.1), so every plain scalar the two would read differently, and every
integer too long to convert safely, is recorded in :attr:`Loaded.notes` for the ledger rules to
report; the load itself goes on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

from changelog_tools import diagnostics as dx

if TYPE_CHECKING:
    from ruamel.yaml import YAML

Path = tuple[str | int, ...]
Mark = tuple[int, int]  # 1-based (line, column)

DEFAULT_MAX_DEPTH = 32


@cache
def _parser() -> YAML:
    # Imported on first use: commands that read no YAML (the GitHub-only ones) never pay for it.
    # The C parser (libyaml through ruamel.yaml.clib) reads the real ledger ~20x faster than
    # ruamel's pure parser, which stays the fallback where no wheel of the extension exists.
    from ruamel.yaml import YAML

    try:
        import _ruamel_yaml  # noqa: F401  (only probing for the C extension)

        return YAML(typ="safe", pure=False)
    except ImportError:  # pragma: no cover - depends on the installed wheel
        return YAML(typ="safe", pure=True)


# The core schema's fixed words, as sets: a membership test is exactly a match of the
# alternation anchored at both ends, and a set costs nothing to build at import (a compiled
# pattern costs 0.1-0.5 ms each, paid by every command that loads this module).
_NULL = frozenset({"~", "null", "Null", "NULL", ""})
_TRUE = frozenset({"true", "True", "TRUE"})
_FALSE = frozenset({"false", "False", "FALSE"})
_INT10 = re.compile(r"[-+]?[0-9]+\Z")
_INT8 = re.compile(r"0o[0-7]+\Z")
_INT16 = re.compile(r"0x[0-9a-fA-F]+\Z")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?\Z")
_INF = frozenset(sign + "." + word for sign in ("", "-", "+") for word in ("inf", "Inf", "INF"))
_NAN = frozenset({".nan", ".NaN", ".NAN"})


# Longer runs of digits are never converted: int() refuses 4,301+ decimal digits, and converting
# is quadratic below that. A changelog needs no such number.
MAX_NUMBER_DIGITS = 1000


class NumberTooLong(ValueError):
    """A plain scalar is a YAML 1.2 integer of more than :data:`MAX_NUMBER_DIGITS` digits."""


def resolve_plain(value: str) -> Any:
    """Resolve an unquoted scalar by the YAML 1.2 core schema.

    Raises :class:`NumberTooLong` for an integer too long to convert safely.
    """
    if not value or value[0] not in "~nNtTfF0123456789+-.":
        return value  # fast path: most changelog scalars are words
    if value in _NULL:
        return None
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    if _INT10.match(value):
        if len(value) > MAX_NUMBER_DIGITS:
            raise NumberTooLong(value)
        return int(value, 10)
    if _INT8.match(value):
        if len(value) > MAX_NUMBER_DIGITS:
            raise NumberTooLong(value)
        return int(value[2:], 8)
    if _INT16.match(value):
        if len(value) > MAX_NUMBER_DIGITS:
            raise NumberTooLong(value)
        return int(value[2:], 16)
    if _FLOAT.match(value):
        return float(value)
    if value in _INF:
        return float("-inf") if value.startswith("-") else float("inf")
    if value in _NAN:
        return float("nan")
    return value


# -- YAML 1.1: what a PyYAML consumer makes of the same plain scalar -----------------------------
# Written from the YAML 1.1 type definitions (bool, int, float, null, merge, timestamp, value).
# PyYAML implements them except the one-letter booleans y/Y/n/N, which other 1.1 readers honour.
_Y11_BOOL = frozenset([
    "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True", "TRUE",
    "false", "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF",
])  # fmt: skip
_Y11_FLOAT = re.compile(
    r"(?:[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+][0-9]+)?"
    r"|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
    r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))\Z"
)
_Y11_INT = re.compile(
    r"(?:[-+]?0b[01_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+"
    r"|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)\Z"
)
_Y11_TIMESTAMP = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}\Z"
    r"|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?"
    r"(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?\Z"
)
_Y11_FIRST = frozenset("yYnNtTfFoO-+0123456789.~<=")
_OCTAL11 = re.compile(r"[-+]?0[0-7]+\Z")


def _yaml11_kind(value: str) -> str:
    """The type a YAML 1.1 reader gives a plain scalar (the first rule that matches wins)."""
    if value in ("", "~", "null", "Null", "NULL"):
        return "null"
    first = value[0]
    if first in "yYnNtTfFoO" and value in _Y11_BOOL:
        return "bool"
    if first in "-+0123456789.":
        if _Y11_FLOAT.match(value):
            return "float"
        if _Y11_INT.match(value):
            return "int"
    if value == "<<":
        return "merge"
    if first in "0123456789" and _Y11_TIMESTAMP.match(value):
        return "timestamp"
    if value == "=":
        return "value"
    return "str"


# First characters of the plain scalars that are not simply strings in YAML 1.2 or 1.1.
_SPECIAL_FIRST = frozenset("~nNtTfF0123456789+-.") | _Y11_FIRST

_KIND12 = {type(None): "null", bool: "bool", int: "int", float: "float", str: "str"}
_READS_AS = {
    "null": "null",
    "bool": "a boolean",
    "int": "an integer",
    "float": "a number",
    "merge": "a merge key (PyYAML cannot read it as a value)",
    "timestamp": "a date (PyYAML fails on one that is not a real date)",
    "value": "a value key (PyYAML cannot read it)",
    "str": "a string",
}


def yaml11_difference(text: str, resolved: Any) -> str | None:
    """How a YAML 1.1 reader (PyYAML) reads plain scalar ``text`` when that differs from
    ``resolved``, its YAML 1.2 value here; None when both readers agree.

    Never converts the digits: an octal-looking integer differs exactly when more than one
    digit follows its leading zeros.
    """
    if not text or text[0] not in _Y11_FIRST:
        # Words read the same in both. An empty value is "" here and null in PyYAML: both are
        # "no value", which the schema rules judge (canonicalize fills an empty pr-link).
        return None
    kind11 = _yaml11_kind(text)
    kind12 = _KIND12.get(type(resolved), "str")
    if kind11 != kind12:
        return _READS_AS[kind11]
    if kind11 == "int" and _OCTAL11.match(text) and len(text.lstrip("+-").lstrip("0")) > 1:
        return "an octal integer"
    return None


class YamlProblem(Exception):
    """The text is not acceptable YAML for a ledger; carries a diagnostic code and position."""

    def __init__(self, code: str, message: str, line: int | None, column: int | None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.line = line
        self.column = column


@dataclass
class Loaded:
    """The loaded value plus start positions: ``marks[path]`` for values, ``key_marks`` for keys."""

    value: Any
    marks: dict[Path, Mark] = field(default_factory=dict)
    key_marks: dict[Path, Mark] = field(default_factory=dict)
    documents: int = 0
    # Plain scalars that are not errors of YAML itself but of a ledger:
    # (code, message, hint, mark), in file order.
    notes: list[tuple[str, str, str, Mark]] = field(default_factory=list)

    def mark(self, path: Path) -> Mark | None:
        """The position of the value at ``path``, or of its nearest located ancestor."""
        while True:
            if path in self.marks:
                return self.marks[path]
            if not path:
                return None
            path = path[:-1]


def _plain(text: str, mark: Mark, notes: list[tuple[str, str, str, Mark]]) -> Any:
    """The value of plain scalar ``text``; a note for what a ledger must not hold unquoted."""
    try:
        value = resolve_plain(text)
    except NumberTooLong:
        notes.append(
            (
                dx.NUMBER_TOO_LONG,
                f"plain number of {len(text):,} characters is too long to read "
                f"(the limit is {MAX_NUMBER_DIGITS:,})",
                "quote it if it is text; a changelog holds no such number",
                mark,
            )
        )
        return text
    reads = yaml11_difference(text, value)
    if reads is not None:
        shown = text if len(text) <= 40 else text[:37] + "..."
        here = "null" if value is None else _READS_AS[_KIND12.get(type(value), "str")]
        notes.append(
            (
                dx.YAML11_AMBIGUOUS,
                f"plain scalar `{shown}` reads as {here} in YAML 1.2 but as {reads} in "
                "YAML 1.1 (PyYAML)",
                f'quote it, `"{shown}"`, so that both read the same string',
                mark,
            )
        )
    return value


class _Frame:
    __slots__ = ("container", "key", "key_mark", "path")

    def __init__(self, container: Any, path: Path) -> None:
        self.container = container
        self.path = path
        self.key: Any = _NO_KEY
        self.key_mark: Mark = (0, 0)


_NO_KEY = object()


def _pos(event: Any, line_offset: int) -> Mark:
    mark = event.start_mark
    return (mark.line + 1 + line_offset, mark.column + 1)


class _Builder:
    """The value under construction from the parser's events: its stack of open containers,
    the marks of every value and key, and the notes; it refuses what a ledger must not hold."""

    __slots__ = ("duplicates_as_notes", "line_offset", "max_depth", "result", "stack")

    def __init__(self, *, max_depth: int, line_offset: int, duplicates_as_notes: bool) -> None:
        self.result = Loaded(value=None)
        self.stack: list[_Frame] = []
        self.max_depth = max_depth
        self.line_offset = line_offset
        self.duplicates_as_notes = duplicates_as_notes

    def feed(self, events: Any) -> None:
        """Build from the parser's ``events``; raise :class:`YamlProblem` at the first unsafe one."""
        from ruamel.yaml.events import (
            AliasEvent,
            DocumentStartEvent,
            MappingEndEvent,
            MappingStartEvent,
            ScalarEvent,
            SequenceEndEvent,
            SequenceStartEvent,
        )

        line_offset = self.line_offset
        attach = self.attach
        notes = self.result.notes
        for event in events:
            kind = type(event)
            if kind is ScalarEvent:
                # _reject_properties can only raise for an anchor or a tag; nearly no scalar
                # has either, so the call (and _pos's) is skipped in this loop over every scalar.
                if event.anchor is not None or event.tag is not None:
                    self._reject_properties(event)
                start = event.start_mark
                mark = (start.line + 1 + line_offset, start.column + 1)
                # not `text`: the reader's error position counts lines in the document
                scalar = event.value
                if event.implicit[0] and scalar and scalar[0] in _SPECIAL_FIRST:
                    attach(_plain(scalar, mark, notes), mark)
                elif scalar or not event.implicit[0]:
                    attach(scalar, mark)  # quoted, or a word both YAML versions read as it
                else:
                    attach(_plain(scalar, mark, notes), mark)
            elif kind is MappingStartEvent or kind is SequenceStartEvent:
                self.open(event, {} if kind is MappingStartEvent else [])
            elif kind is MappingEndEvent or kind is SequenceEndEvent:
                self.stack.pop()
            elif kind is AliasEvent:
                raise YamlProblem(
                    dx.ANCHOR_ALIAS,
                    f"YAML alias *{event.anchor} is not allowed in a changelog",
                    *_pos(event, line_offset),
                )
            elif kind is DocumentStartEvent:
                self.result.documents += 1
                if self.result.documents > 1:
                    raise YamlProblem(
                        dx.MULTI_DOCUMENT,
                        "a changelog is a single YAML document",
                        *_pos(event, line_offset),
                    )

    def open(self, event: Any, container: list[Any] | dict[Any, Any]) -> None:
        """Start the mapping or sequence of ``event`` (empty ``container``), inside the
        innermost open one."""
        self._reject_properties(event)
        if len(self.stack) >= self.max_depth:
            raise YamlProblem(
                dx.TOO_DEEP,
                f"nesting deeper than {self.max_depth} levels",
                *_pos(event, self.line_offset),
            )
        mark = _pos(event, self.line_offset)
        path = self.attach(container, mark)
        if path is None:
            raise YamlProblem(
                dx.YAML_SYNTAX, "mapping keys must be scalars, not collections", *mark
            )
        self.stack.append(_Frame(container, path))

    def attach(self, value: Any, mark: Mark) -> Path | None:
        """Put ``value`` (starting at ``mark``) where the document is: the root, the next item
        of a sequence, or a mapping's next key or that key's value. Returns the value's path;
        None when ``value`` was a key."""
        stack = self.stack
        if not stack:
            self.result.value = value
            self.result.marks[()] = mark
            return ()
        frame = stack[-1]
        container = frame.container
        if isinstance(container, list):
            path = (*frame.path, len(container))
            container.append(value)
            self.result.marks[path] = mark
            return path
        if frame.key is _NO_KEY:
            self._key(frame, value, mark)
            return None
        path = (*frame.path, frame.key)
        container[frame.key] = value
        self.result.marks[path] = mark
        self.result.key_marks[path] = frame.key_mark
        frame.key = _NO_KEY
        return path

    def _key(self, frame: _Frame, value: Any, mark: Mark) -> None:
        """Make ``value`` the next key of mapping ``frame``: a scalar, and a second occurrence
        only as a note when the caller asked for that."""
        if isinstance(value, (list, dict)):
            raise YamlProblem(
                dx.YAML_SYNTAX, "mapping keys must be scalars, not collections", *mark
            )
        if value in frame.container:
            first = self.result.key_marks[(*frame.path, value)][0]
            message = f"duplicate key {value!r} (first defined on line {first})"
            if not self.duplicates_as_notes:
                raise YamlProblem(dx.DUPLICATE_KEY, message, *mark)
            hint = "delete one of them; YAML readers that accept it keep the later value"
            self.result.notes.append((dx.DUPLICATE_KEY, message, hint, mark))
        frame.key = value
        frame.key_mark = mark

    def _reject_properties(self, event: Any) -> None:
        if event.anchor is not None:
            raise YamlProblem(
                dx.ANCHOR_ALIAS,
                f"YAML anchor &{event.anchor} is not allowed in a changelog",
                *_pos(event, self.line_offset),
            )
        if event.tag is not None and not _implicit_plain(event):
            raise YamlProblem(
                dx.YAML_TAG,
                f"explicit YAML tag {event.tag} is not allowed in a changelog",
                *_pos(event, self.line_offset),
            )


def load(
    text: str,
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
    line_offset: int = 0,
    duplicates_as_notes: bool = False,
) -> Loaded:
    """Parse one YAML document from ``text``; raise :class:`YamlProblem` on anything unsafe.

    ``line_offset`` is added to every line number, for parsing a slice of a larger file. With
    ``duplicates_as_notes`` a duplicate key is a note (the later value is kept, as YAML
    readers that accept duplicates keep it) and the read goes on, so that one run can report
    every other problem of the file too; otherwise it stops the read.
    """
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    builder = _Builder(
        max_depth=max_depth, line_offset=line_offset, duplicates_as_notes=duplicates_as_notes
    )
    try:
        builder.feed(_parser().parse(text))
    except MarkedYAMLError as exc:
        raise _marked_problem(exc, line_offset) from None
    except YAMLError as exc:
        raise _reader_problem(exc, text, line_offset) from None
    return builder.result


def _marked_problem(exc: Any, line_offset: int) -> YamlProblem:
    """The parser's error (it carries a mark) as one line at its position."""
    mark = exc.problem_mark or exc.context_mark
    problem = " ".join(filter(None, [exc.context, exc.problem])) or str(exc)
    line = mark.line + 1 + line_offset if mark is not None else None
    column = mark.column + 1 if mark is not None else None
    return YamlProblem(dx.YAML_SYNTAX, f"invalid YAML: {problem}", line, column)


def _reader_problem(exc: Exception, text: str, line_offset: int) -> YamlProblem:
    """The reader's error (a control character), which carries a character offset, not a
    mark, and a two-line text naming "<unicode string>": the position and one line instead."""
    position = getattr(exc, "position", None)
    if isinstance(position, int):
        line = text.count("\n", 0, position) + 1 + line_offset
        column = position - (text.rfind("\n", 0, position) + 1) + 1
        char = getattr(exc, "character", None)
        what = f"U+{char:04X}" if isinstance(char, int) else repr(char)
        reason = getattr(exc, "reason", "") or "not allowed"
        message = f"invalid YAML: unacceptable character {what} ({reason})"
        return YamlProblem(dx.YAML_SYNTAX, message, line, column)
    message = " ".join(str(exc).split())
    return YamlProblem(dx.YAML_SYNTAX, f"invalid YAML: {message}", None, None)


def _implicit_plain(event: Any) -> bool:
    # libyaml reports the resolved tag for implicit scalars in some versions; only a tag written
    # in the text (implicit flags both false) is a real explicit tag.
    implicit = getattr(event, "implicit", None)
    if isinstance(implicit, tuple):
        return any(implicit)
    return bool(implicit)
