"""jsonschema's findings in the tool's words: what is wrong, at which value, and what was meant.

The tool checks three things against JSON Schemas (a changelog entry, a master-config entry,
the configuration), and the people who read the result edit YAML, not schemas. jsonschema
reports each failing keyword in the schema's vocabulary; :func:`problems` turns its errors into
:class:`Problem` values: the path of the value to point at, a kind each caller maps to its own
diagnostic code, a short message and, for a misspelt field or value, what it most likely meant.
The callers add the where (entry, master key, option) and the line.

``x-message`` on a subschema (the master-config schema states its cross-field rules so)
replaces every error inside that subschema with its one message, at the value the subschema
judges: the keyword that happened to trip would mislead.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # Imported where used: jsonschema costs a short process more than judging a valid file
    # (see changelog_tools/schemasubset.py), so only a process that needs it loads it.
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator

    from changelog_tools.yamlload import Loaded

Path = tuple[str | int, ...]


def compile_validator(schema: Mapping[str, Any]) -> Validator:
    """A validator of the draft ``schema`` declares, checking ``format`` too (a configured
    regex that does not compile is then an error where it is written, not where it is used).

    Compiling is cheap but not free: callers keep one per schema for the process.
    """
    from jsonschema.validators import validator_for

    cls = validator_for(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


class Kind(StrEnum):
    UNKNOWN_FIELD = "unknown-field"  # the path ends with the field's name
    MISSING_FIELD = "missing-field"  # the path is the mapping that lacks it
    WRONG_TYPE = "wrong-type"
    EMPTY = "empty"  # a list or text that must hold something
    BAD_VALUE = "bad-value"
    CONSTRAINT = "constraint"  # a rule across fields


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an instance; ``message`` reads after the name of ``path``."""

    path: Path
    kind: Kind
    message: str
    hint: str | None = None
    # The keywords that led to the finding, for a caller that words one rule its own way.
    schema_path: Path = ()


def problems(validator: Validator, instance: Any, *, quote: str = "'") -> list[Problem]:
    """Every problem of ``instance``, in the order the schema finds them (none when valid);
    ``quote`` encloses field names (the caller's style)."""
    errors = list(validator.iter_errors(instance))
    if not errors:
        return []
    # A value of the wrong type fails the rest of its subschema too (an enum, a rule about the
    # fields of the mapping it is not): the type says it all.
    mistyped = [
        (tuple(e.absolute_path), tuple(e.absolute_schema_path)[:-1])
        for e in errors
        if e.validator == "type"
    ]
    out: list[Problem] = []
    seen: set[tuple[Kind, Path, str]] = set()
    for error in errors:
        if error.validator != "type" and _within(error, mistyped):
            continue
        for problem in _translate(validator.schema, error, quote):
            key = (problem.kind, problem.path, problem.message)
            if key not in seen:  # one missing field, or one x-message rule, failing twice
                seen.add(key)
                out.append(problem)
    return out


def _within(error: ValidationError, subschemas: list[tuple[Path, Path]]) -> bool:
    """Whether ``error`` judges the same value as one of ``subschemas`` (instance path, schema
    path), from inside that subschema."""
    path, rule = tuple(error.absolute_path), tuple(error.absolute_schema_path)
    return any(path == at and rule[: len(node)] == node for at, node in subschemas)


def dotted(path: Path) -> str:
    """``path`` as a person writes it: ``scenarios.fixed-seq-len[0].tp`` (the root: empty)."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def position(problem: Problem, loaded: Loaded, within: Path = ()) -> tuple[int | None, int | None]:
    """Line and column of ``problem`` in a YAML document (``within``: where its instance is):
    an unknown field at its key, anything else at its value or the nearest mapping above."""
    full = (*within, *problem.path)
    if problem.kind is Kind.UNKNOWN_FIELD and full in loaded.key_marks:
        return loaded.key_marks[full]
    return loaded.mark(full) or (None, None)


def show(value: Any) -> str:
    """A value as a message names it: scalars as written, containers by what they are."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return repr(value) if len(value) <= 40 else f"a string of {len(value)} characters"
    return str(value)


# Past this length a name is no typo of a known one; difflib is quadratic in its input.
_SUGGEST_MAX_CHARS = 64


@lru_cache(maxsize=1024)  # a file repeating one typo in every entry pays for it once
def closest(name: str, known: tuple[str, ...]) -> str | None:
    """The known name ``name`` most likely misspells; ``_`` is also read as ``-`` (the schemas'
    names are kebab-case, Python habits are not)."""
    if len(name) > _SUGGEST_MAX_CHARS:
        return None
    for candidate in dict.fromkeys((name, name.replace("_", "-"))):
        found = difflib.get_close_matches(candidate, known, n=1)
        if found:
            return found[0]
    return None


_TYPE_WORDS = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list",
    "object": "a mapping",
    "null": "null",
}

_FORMAT_WORDS = {"regex": "regular expression"}

_BOUNDS = {
    "minimum": "at least",
    "maximum": "at most",
    "exclusiveMinimum": "greater than",
    "exclusiveMaximum": "less than",
}


def _translate(root: Any, error: ValidationError, quote: str) -> Iterator[Problem]:
    """The problems one jsonschema ``error`` stands for, in the tool's words: a framing rule's
    own message, the fields named wrongly or missing, a composition that failed, or a value."""
    path = tuple(error.absolute_path)
    rule = tuple(error.absolute_schema_path)
    framed = _framing_message(root, rule)
    if framed is not None:
        message, depth = framed
        yield Problem(path[:depth], Kind.CONSTRAINT, message, None, rule)
        return
    # jsonschema sets this on every error it yields (its stubs also allow it unset, for an
    # error made by hand); the keyword is None where the subschema `false` failed.
    keyword: object = error.validator
    if "propertyNames" in rule or keyword in ("additionalProperties", "required"):
        yield from _field_problems(error, path, rule, quote)
    elif keyword is None or keyword in ("anyOf", "oneOf", "not", "contains"):
        yield from _shape_problems(root, error, path, rule, quote)
    else:
        kind, message, hint = _value_problem(error)
        yield Problem(path, kind, message, hint, rule)


def _field_problems(
    error: ValidationError, path: Path, rule: Path, quote: str
) -> Iterator[Problem]:
    """A mapping's keys: one not allowed (an unknown name, with the closest known one) or a
    required one missing."""
    expected: Any = error.validator_value
    instance: Any = error.instance
    if "propertyNames" in rule:  # the instance is a key of the mapping at `path`
        known = [str(v) for v in expected] if error.validator == "enum" else []
        yield _unknown((*path, instance), known, quote, rule)
    elif error.validator == "additionalProperties":  # false: the fields not named are refused
        owner = error.schema if isinstance(error.schema, Mapping) else {}
        known = list(owner.get("properties", {}))
        patterns = list(owner.get("patternProperties", {}))
        for key in sorted(instance, key=str):
            if key not in known and not any(re.search(p, str(key)) for p in patterns):
                yield _unknown((*path, key), known, quote, rule)
    else:  # required
        for name in expected:
            if name not in instance:
                message = f"missing required field {quote}{name}{quote}"
                yield Problem(path, Kind.MISSING_FIELD, message, None, rule)


def _shape_problems(
    root: Any, error: ValidationError, path: Path, rule: Path, quote: str
) -> Iterator[Problem]:
    """A composition of subschemas that failed as a whole (``anyOf``, ``oneOf``, ``not``,
    ``contains``, or the subschema ``false``)."""
    keyword: object = error.validator
    if keyword in ("anyOf", "oneOf") and error.context:
        # best_match descends to the one branch that came closest; when the branches fail
        # equally, naming any one of them would mislead.
        from jsonschema.exceptions import best_match

        best = best_match([error])
        if best is not None and best is not error:
            yield from _translate(root, best, quote)
            return
        message = "matches none of the allowed shapes"
    elif keyword == "oneOf":
        message = "matches more than one of the allowed shapes"
    elif keyword == "not":
        message = "this combination is not allowed"
    elif keyword == "contains":
        message = "no item matches"
    elif keyword is None:  # the subschema `false`
        yield Problem(path, Kind.BAD_VALUE, "this value is not allowed here", None, rule)
        return
    else:  # an `anyOf` without its branches' errors: jsonschema's own words
        yield Problem(path, Kind.BAD_VALUE, error.message, None, rule)
        return
    yield Problem(path, Kind.CONSTRAINT, message, None, rule)


def _value_problem(error: ValidationError) -> tuple[Kind, str, str | None]:
    """What is wrong with one value (its type, its range, its form): the kind, the message and
    a hint."""
    keyword: object = error.validator
    expected: Any = error.validator_value
    instance: Any = error.instance
    if keyword == "type":
        names = [expected] if isinstance(expected, str) else list(expected)
        want = " or ".join(_TYPE_WORDS.get(n, n) for n in names)
        scalar = instance is not None and not isinstance(instance, (list, dict))
        quoting = "string" in names and scalar
        hint = "quote the value if it is meant as text" if quoting else None
        return Kind.WRONG_TYPE, f"must be {want}, not {show(instance)}", hint
    if keyword == "enum":
        options = ", ".join(show(o) for o in expected)
        close = (
            closest(instance, tuple(str(o) for o in expected))
            if isinstance(instance, str)
            else None
        )
        hint = f"did you mean {close!r}?" if close else None
        return Kind.BAD_VALUE, f"must be one of {options}, not {show(instance)}", hint
    if keyword == "const":
        return Kind.BAD_VALUE, f"must be {show(expected)}, not {show(instance)}", None
    if keyword in ("minItems", "minLength") and expected == 1:
        return Kind.EMPTY, "must not be empty", None
    if keyword == "minItems":
        return Kind.BAD_VALUE, f"needs at least {expected} items", None
    if keyword == "minLength":
        return Kind.BAD_VALUE, f"must be at least {expected} characters long", None
    if keyword == "pattern":
        return Kind.BAD_VALUE, f"must match {expected}, not {show(instance)}", None
    if isinstance(keyword, str) and keyword in _BOUNDS:
        return Kind.BAD_VALUE, f"must be {_BOUNDS[keyword]} {expected}, not {show(instance)}", None
    if keyword == "format":
        why = f": {error.cause}" if error.cause else ""
        return Kind.BAD_VALUE, f"not a valid {_FORMAT_WORDS.get(expected, expected)}{why}", None
    # a keyword none of the tool's schemas uses yet: jsonschema's own words
    return Kind.BAD_VALUE, error.message, None


# Past this many, the fields allowed are no hint (a wall of names); the caller's docs are.
_LISTED_AT_MOST = 24


def _unknown(path: Path, known: Sequence[str], quote: str, rule: Path) -> Problem:
    name = str(path[-1])
    close = closest(name, tuple(known))
    hint = None
    if close:
        hint = f"did you mean {quote}{close}{quote}?"
    elif 0 < len(known) <= _LISTED_AT_MOST:
        hint = "allowed fields: " + ", ".join(known)
    return Problem(path, Kind.UNKNOWN_FIELD, f"unknown field {quote}{name}{quote}", hint, rule)


# How jsonschema's schema paths step into subschemas: keywords holding one subschema, and those
# holding a mapping or list of them (the next part names which). True where the step also moves
# into a part of the instance (a property or an item), which the instance path then records.
_ONE_SUBSCHEMA = {
    "items": True,
    "additionalProperties": True,
    "unevaluatedItems": True,
    "unevaluatedProperties": True,
    "additionalItems": True,
    "not": False,
    "if": False,
    "then": False,
    "else": False,
    "contains": False,
    "propertyNames": False,
}
_NAMED_SUBSCHEMAS = {
    "properties": True,
    "patternProperties": True,
    "prefixItems": True,
    "allOf": False,
    "anyOf": False,
    "oneOf": False,
    "dependentSchemas": False,
}


def _framing_message(root: Any, schema_path: Path) -> tuple[str, int] | None:
    """The ``x-message`` of the outermost subschema on the way to the failing keyword, with how
    many parts of the instance path lead to the value that subschema judges.

    jsonschema's schema paths leave out ``$ref`` (the path goes on inside the target): a part
    that the subschema does not hold is looked for where its ``$ref`` points.
    """
    node, depth, at = root, 0, 0
    while isinstance(node, Mapping):
        if "x-message" in node:
            return str(node["x-message"]), depth
        if at >= len(schema_path):
            return None
        part = schema_path[at]
        if part not in node and "$ref" in node:
            node = _local_ref(root, node["$ref"])
            continue
        if at == len(schema_path) - 1:  # the failing keyword itself
            return None
        if part in _ONE_SUBSCHEMA:
            node, depth, at = node[part], depth + _ONE_SUBSCHEMA[part], at + 1
        elif part in _NAMED_SUBSCHEMAS:
            node, depth = node[part][schema_path[at + 1]], depth + _NAMED_SUBSCHEMAS[part]
            at += 2
        else:
            return None
    return None


def _local_ref(root: Any, ref: str) -> Any:
    """The subschema a ``#/...`` reference names (the tool's schemas refer only within)."""
    if not ref.startswith("#"):
        raise ValueError(f"only references within the schema are followed, not {ref!r}")
    node = root
    for token in ref[1:].split("/")[1:]:
        key = token.replace("~1", "/").replace("~0", "~")
        node = node[int(key)] if isinstance(node, list) else node[key]
    return node
