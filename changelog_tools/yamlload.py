"""A strict, fast YAML loader for ledgers: plain data plus the position of every node.

It builds Python values straight from the parser's event stream (libyaml through
``ruamel.yaml.clib`` when installed, ruamel's pure parser otherwise), which lets it

* reject anchors, aliases and explicit tags the moment they appear, so an alias-expansion bomb
  costs nothing;
* reject duplicate keys at any depth, with the line of the second occurrence;
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
    # ruamel.yaml is imported on the first text the simple reader below leaves to it: the
    # import costs more than a whole `check` of one appended entry spends on its own work.
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


def load(text: str, *, max_depth: int = DEFAULT_MAX_DEPTH, line_offset: int = 0) -> Loaded:
    """Parse one YAML document from ``text``; raise :class:`YamlProblem` on anything unsafe.

    ``line_offset`` is added to every line number, for parsing a slice of a larger file.
    """
    return _load_mixed(text, max_depth=max_depth, line_offset=line_offset)


def _load_events(text: str, *, max_depth: int, line_offset: int) -> Loaded:
    """:func:`load` through the YAML parser's event stream: any YAML at all."""
    from ruamel.yaml.error import MarkedYAMLError, YAMLError
    from ruamel.yaml.events import (
        AliasEvent,
        DocumentStartEvent,
        MappingEndEvent,
        MappingStartEvent,
        ScalarEvent,
        SequenceEndEvent,
        SequenceStartEvent,
    )

    result = Loaded(value=None)
    marks = result.marks
    key_marks = result.key_marks
    notes = result.notes
    stack: list[_Frame] = []
    root_set = False

    def attach(value: Any, mark: Mark) -> Path | None:
        nonlocal root_set
        if not stack:
            result.value = value
            root_set = True
            marks[()] = mark
            return ()
        frame = stack[-1]
        container = frame.container
        if isinstance(container, list):
            path = (*frame.path, len(container))
            container.append(value)
            marks[path] = mark
            return path
        if frame.key is _NO_KEY:
            if isinstance(value, (list, dict)):
                raise YamlProblem(
                    dx.YAML_SYNTAX, "mapping keys must be scalars, not collections", *mark
                )
            if value in container:
                raise YamlProblem(
                    dx.DUPLICATE_KEY,
                    f"duplicate key {value!r} (first defined on line "
                    f"{key_marks[(*frame.path, value)][0]})",
                    *mark,
                )
            frame.key = value
            frame.key_mark = mark
            return None
        key = frame.key
        path = (*frame.path, key)
        container[key] = value
        marks[path] = mark
        key_marks[path] = frame.key_mark
        frame.key = _NO_KEY
        return path

    def plain(text: str, mark: Mark) -> Any:
        return _plain(text, mark, notes)

    def reject_properties(event: Any) -> None:
        if event.anchor is not None:
            raise YamlProblem(
                dx.ANCHOR_ALIAS,
                f"YAML anchor &{event.anchor} is not allowed in a changelog",
                *_pos(event, line_offset),
            )
        if event.tag is not None and not _implicit_plain(event):
            raise YamlProblem(
                dx.YAML_TAG,
                f"explicit YAML tag {event.tag} is not allowed in a changelog",
                *_pos(event, line_offset),
            )

    try:
        for event in _parser().parse(text):
            kind = type(event)
            if kind is ScalarEvent:
                # reject_properties can only raise for an anchor or a tag; nearly no scalar has
                # either, so the call (and _pos's) is skipped in this loop over every scalar.
                if event.anchor is not None or event.tag is not None:
                    reject_properties(event)
                start = event.start_mark
                mark = (start.line + 1 + line_offset, start.column + 1)
                # not `text`: the reader's error position below counts lines in the document
                scalar = event.value
                if event.implicit[0] and scalar and scalar[0] in _SPECIAL_FIRST:
                    attach(plain(scalar, mark), mark)
                else:  # quoted, or a plain word both YAML versions read as this string
                    attach(scalar if scalar or not event.implicit[0] else plain(scalar, mark), mark)
            elif kind is MappingStartEvent or kind is SequenceStartEvent:
                reject_properties(event)
                if len(stack) >= max_depth:
                    raise YamlProblem(
                        dx.TOO_DEEP,
                        f"nesting deeper than {max_depth} levels",
                        *_pos(event, line_offset),
                    )
                container: Any = {} if kind is MappingStartEvent else []
                mark = _pos(event, line_offset)
                path = attach(container, mark)
                if path is None:
                    raise YamlProblem(
                        dx.YAML_SYNTAX, "mapping keys must be scalars, not collections", *mark
                    )
                stack.append(_Frame(container, path))
            elif kind is MappingEndEvent or kind is SequenceEndEvent:
                stack.pop()
            elif kind is AliasEvent:
                raise YamlProblem(
                    dx.ANCHOR_ALIAS,
                    f"YAML alias *{event.anchor} is not allowed in a changelog",
                    *_pos(event, line_offset),
                )
            elif kind is DocumentStartEvent:
                result.documents += 1
                if result.documents > 1:
                    raise YamlProblem(
                        dx.MULTI_DOCUMENT,
                        "a changelog is a single YAML document",
                        *_pos(event, line_offset),
                    )
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = " ".join(filter(None, [exc.context, exc.problem])) or str(exc)
        line = mark.line + 1 + line_offset if mark is not None else None
        column = mark.column + 1 if mark is not None else None
        raise YamlProblem(dx.YAML_SYNTAX, f"invalid YAML: {problem}", line, column) from None
    except YAMLError as exc:
        # The reader's errors (a control character) carry a character offset, not a mark, and a
        # two-line text naming "<unicode string>": give the position and one line instead.
        position = getattr(exc, "position", None)
        if isinstance(position, int):
            line = text.count("\n", 0, position) + 1 + line_offset
            column = position - (text.rfind("\n", 0, position) + 1) + 1
            char = getattr(exc, "character", None)
            what = f"U+{char:04X}" if isinstance(char, int) else repr(char)
            reason = getattr(exc, "reason", "") or "not allowed"
            message = f"invalid YAML: unacceptable character {what} ({reason})"
            raise YamlProblem(dx.YAML_SYNTAX, message, line, column) from None
        message = " ".join(str(exc).split())
        raise YamlProblem(dx.YAML_SYNTAX, f"invalid YAML: {message}", None, None) from None
    if not root_set:
        result.value = None
    return result


def _implicit_plain(event: Any) -> bool:
    # libyaml reports the resolved tag for implicit scalars in some versions; only a tag written
    # in the text (implicit flags both false) is a real explicit tag.
    implicit = getattr(event, "implicit", None)
    if isinstance(implicit, tuple):
        return any(implicit)
    return bool(implicit)


# -- The simple reader ----------------------------------------------------------------------------
# A changelog is almost always the same few line shapes: `- key: value` starting an entry,
# `  key: value` continuing it, `  key:` followed by `    - item` lines. For text made only of
# those lines, load_simple() builds exactly the Loaded that the event reader above would (the
# same values, marks, key marks, notes and document count: a differential test holds the two
# together), without importing the YAML parser. Anything else (comments, flow collections,
# block scalars, escapes, anchors, tags, an empty value, a duplicate key, a tab or any
# character YAML's reader treats specially) returns None, and the event reader, which reports
# every problem, reads the text instead. So the simple reader never accepts what the event
# reader would reject: every line shape it takes is one YAML reads one way only.

_SIMPLE_DEPTH = 3  # the root list, an entry, a list value
# What the simple reader declines outright: control characters (tab and CR included), DEL and
# the C1 range (NEL among them), the Unicode line and paragraph separators, the byte-order mark
# and the non-characters and surrogates YAML's reader refuses. Spelled as the few characters
# declined, not as the negation of those taken: that class spans up to U+10FFFF and cost 7 ms
# to compile at every start.
_NOT_SIMPLE_CHAR = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]"
)
# An implicit key is at most 1024 characters long in YAML (libyaml and PyYAML refuse more).
_SIMPLE_KEY = re.compile(r"([A-Za-z][A-Za-z0-9_-]{0,1023}):(?: (.*))?\Z")
# Of the escapes, only \" \\ and \/ (which stand for the character after the backslash).
_DOUBLE_QUOTED = re.compile(r'"((?:[^"\\]|\\["\\/])*)"\Z')
_ESCAPE = re.compile(r"\\(.)")
_ITEM = re.compile(r"( {2,})- ")
_SINGLE_QUOTED = re.compile(r"'((?:[^']|'')*)'\Z")
# A plain scalar's first character may not be an indicator (nor a space); `: ` and ` #` inside,
# or a `:` or space at its end, would make it something else. Declined, not judged.
_NOT_PLAIN_FIRST = frozenset("-?:,[]{}#&*!|>'\"%@` ")


def _simple_scalar(
    text: str, mark: Mark, notes: list[tuple[str, str, str, Mark]]
) -> tuple[bool, Any]:
    """(True, value) of a one-line scalar of the simple shapes, else (False, None)."""
    first = text[:1]
    if first == '"':
        quoted = _DOUBLE_QUOTED.match(text)
        if quoted is None:
            return False, None
        body = quoted[1]
        return True, (_ESCAPE.sub(r"\1", body) if "\\" in body else body)
    if first == "'":
        quoted = _SINGLE_QUOTED.match(text)
        return (True, quoted[1].replace("''", "'")) if quoted else (False, None)
    if not first or first in _NOT_PLAIN_FIRST or text[-1] in ": " or ": " in text or " #" in text:
        return False, None
    # As the event reader: a word both YAML versions read as itself is the string; the rest is
    # resolved, with its notes.
    return True, (_plain(text, mark, notes) if first in _SPECIAL_FIRST else text)


def _open_items(
    mapping: dict[Any, Any], path: Path, key_mark: Mark, mark: Mark, result: Loaded
) -> list[Any]:
    """The list a `key:` line's first item line starts: set as the key's value, positioned."""
    items: list[Any] = []
    mapping[path[-1]] = items
    result.marks[path] = mark
    result.key_marks[path] = key_mark
    return items


class _SimpleRead:
    """What :func:`_read_simple` read: ``result`` holds the first ``entries`` entries whole;
    ``stop`` is -1 when that is the whole text, else the offset of the first entry it could
    not read (whose first line is line ``stop_line`` of the text, 0-based), and ``notes`` the
    number of notes the whole entries made."""

    __slots__ = ("entries", "notes", "result", "stop", "stop_line")

    def __init__(self, result: Loaded, entries: int, stop: int, stop_line: int, notes: int):
        self.result = result
        self.entries = entries
        self.stop = stop
        self.stop_line = stop_line
        self.notes = notes


def _read_simple(text: str, line_offset: int) -> _SimpleRead:
    """Read the entries of ``text`` that are made only of the changelog's usual line shapes.

    The shapes: a list at column 1 of mappings (``- key: value`` starts one, ``  key: value``
    continues it); a value is a one-line scalar, or after ``key:`` a list of one-line scalars,
    one per line, with their ``-`` at one column from 3 on. Empty and comment lines are
    skipped. Reading stops at the first entry holding anything else.
    """
    root: list[Any] = []
    result = Loaded(value=root, documents=1)
    marks = result.marks
    key_marks = result.key_marks
    notes = result.notes
    bad_char = _NOT_SIMPLE_CHAR.search(text)
    limit = len(text) if bad_char is None else bad_char.start()
    entry: dict[Any, Any] = {}
    entry_path: Path = ()
    entry_start = entry_line = -1  # the offset and line index of the current entry's first line
    notes_before = 0  # the notes of the entries before the current one
    pending: tuple[Any, Mark] | None = None  # a key whose list of items is to follow
    items: list[Any] | None = None  # the list the item lines append to
    items_path: Path = ()
    items_column = 0
    offset = 0
    for index, raw in enumerate(text.split("\n")):
        start, offset = offset, offset + len(raw) + 1
        if start > limit or (start <= limit < offset and raw):
            break  # the line with a character these shapes do not take
        number = index + 1 + line_offset
        # Trailing spaces end no scalar of these shapes and start none; YAML drops them.
        line = raw.rstrip(" ")
        if not line or line.lstrip(" ")[0] == "#":  # empty, or a comment: nothing to read
            continue
        item = _ITEM.match(line) if line[0] == " " else None
        if line[0] == "-":
            if line[1:2] != " " or pending is not None:
                break
            entry = {}
            entry_path = (len(root),)
            entry_start, entry_line, notes_before = start, index, len(notes)
            if not root:
                marks[()] = (number, 1)
            root.append(entry)
            marks[entry_path] = (number, 3)
            items = None
            rest, column = line[2:], 3
        elif entry_start < 0:
            break
        elif item is not None:
            dash = item.end() - 1  # the column of the `-`
            if pending is not None:
                items_path = (*entry_path, pending[0])
                items = _open_items(entry, items_path, pending[1], (number, dash), result)
                items_column = dash
                pending = None
            elif items is None or dash != items_column:
                break
            mark = (number, dash + 2)
            ok, value = _simple_scalar(line[dash + 1 :], mark, notes)
            if not ok:
                break
            marks[(*items_path, len(items))] = mark
            items.append(value)
            continue
        elif line[:2] == "  " and line[2] != " ":
            if pending is not None:
                break
            items = None
            rest, column = line[2:], 3
        else:
            break
        # `key: value` or `key:` at `column` of the current entry
        found = _SIMPLE_KEY.match(rest)
        if found is None:
            break
        key_mark = (number, column)
        ok, key = _simple_scalar(found[1], key_mark, notes)
        if not ok or key in entry:
            break  # a duplicate key: the event reader says where the first one is
        if found[2] is None:
            pending = (key, key_mark)
            continue
        mark = (number, column + len(found[1]) + 2)
        ok, value = _simple_scalar(found[2], mark, notes)
        if not ok:
            break
        path = (*entry_path, key)
        entry[key] = value
        marks[path] = mark
        key_marks[path] = key_mark
    else:
        if pending is None and root:
            return _SimpleRead(result, len(root), -1, -1, len(notes))
    if entry_start < 0:
        return _SimpleRead(result, 0, 0, 0, 0)  # nothing read: the whole text is the rest
    return _SimpleRead(result, len(root) - 1, entry_start, entry_line, notes_before)


_ROOT_ITEM = re.compile(r"( *)- ")


def _read_simple_mapping(text: str, line_offset: int) -> Loaded | None:
    """The simple reader for a flat mapping at column 1 (a configuration file): ``key: value``
    lines, and ``key:`` followed by its list of one-line scalars, their ``-`` at one column.
    None for anything else; the event reader reads it then."""
    if _NOT_SIMPLE_CHAR.search(text):
        return None
    root: dict[Any, Any] = {}
    result = Loaded(value=root, documents=1)
    marks = result.marks
    key_marks = result.key_marks
    notes = result.notes
    pending: tuple[Any, Mark] | None = None
    items: list[Any] | None = None
    items_path: Path = ()
    items_column = 0
    for number, raw in enumerate(text.split("\n"), start=1 + line_offset):
        line = raw.rstrip(" ")
        if not line or line.lstrip(" ")[0] == "#":
            continue
        item = _ROOT_ITEM.match(line)
        if item is not None:
            dash = item.end() - 1
            if pending is not None:
                items_path = (pending[0],)
                items = _open_items(root, items_path, pending[1], (number, dash), result)
                items_column = dash
                pending = None
            elif items is None or dash != items_column:
                return None
            mark = (number, dash + 2)
            ok, value = _simple_scalar(line[dash + 1 :], mark, notes)
            if not ok:
                return None
            marks[(*items_path, len(items))] = mark
            items.append(value)
            continue
        found = _SIMPLE_KEY.match(line)
        if found is None or pending is not None:
            return None
        items = None
        key_mark = (number, 1)
        ok, key = _simple_scalar(found[1], key_mark, notes)
        if not ok or key in root:
            return None
        if not root:
            marks[()] = key_mark
        if found[2] is None:
            pending = (key, key_mark)
            continue
        mark = (number, len(found[1]) + 3)
        ok, value = _simple_scalar(found[2], mark, notes)
        if not ok:
            return None
        root[key] = value
        marks[(key,)] = mark
        key_marks[(key,)] = key_mark
    if pending is not None or not root:
        return None
    return result


def _entry(path: Path) -> int:
    """The entry index a path below the root list starts with."""
    index = path[0]
    assert isinstance(index, int)
    return index


def _load_mixed(text: str, *, max_depth: int, line_offset: int) -> Loaded:
    """:func:`load`: the simple reader for the leading entries it can read, the event reader
    for the rest.

    Why the two parts make the whole: an entry the simple reader read ends with a complete
    one-line scalar, so at the `- ` in column 1 that starts the next entry the YAML parser is
    only inside the root list, in the state it starts a text in; the rest read alone gives the
    events the whole text gives from there, with its lines offset. A problem in the rest is
    reported from the whole text, so its message and position are the whole text's.
    """
    if max_depth >= _SIMPLE_DEPTH and text[:1].isalpha():
        mapping = _read_simple_mapping(text, line_offset)
        if mapping is not None:
            return mapping
    read = _read_simple(text, line_offset) if max_depth >= _SIMPLE_DEPTH else None
    if read is not None and read.stop < 0:
        return read.result
    if read is None or read.entries == 0:
        return _load_events(text, max_depth=max_depth, line_offset=line_offset)
    try:
        rest = _load_events(
            text[read.stop :], max_depth=max_depth, line_offset=line_offset + read.stop_line
        )
    except YamlProblem:
        return _load_events(text, max_depth=max_depth, line_offset=line_offset)
    if not isinstance(rest.value, list) or rest.documents != 1:
        return _load_events(text, max_depth=max_depth, line_offset=line_offset)
    done = read.entries
    head = read.result
    result = Loaded(value=head.value[:done] + rest.value, documents=1)
    for mine, theirs in ((result.marks, head.marks), (result.key_marks, head.key_marks)):
        mine.update((p, m) for p, m in theirs.items() if not p or _entry(p) < done)
    for mine, theirs in ((result.marks, rest.marks), (result.key_marks, rest.key_marks)):
        mine.update(((_entry(p) + done, *p[1:]), m) for p, m in theirs.items() if p)
    result.notes.extend(head.notes[: read.notes])
    result.notes.extend(rest.notes)
    return result
