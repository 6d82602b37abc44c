"""A JSON Schema verdict without jsonschema, for the schemas small enough to read directly.

Importing jsonschema (with referencing, attrs and its format checkers) costs a short-lived
process more than everything else it does on a valid changelog: the merge driver pays it on
every replayed commit, `check` on every pull request. Almost every entry they see is valid,
and for a schema built only of the plain keywords below that verdict can be reached by reading
the schema directly. So :func:`compile_schema` turns such a schema into a predicate that answers
only when it is sure: True (jsonschema would find nothing), False (jsonschema would find
something), None (it cannot tell: a keyword or value outside what it reads).

Callers skip jsonschema only on True; on anything else they ask jsonschema, which stays the
one source of every message. A schema that uses any keyword not listed here (``$ref``, a
``format`` other than ``regex``, ``patternProperties``, another draft ...) compiles
to None and everything goes to jsonschema, so editing the schema can never make this module
judge what it does not understand. Values are read, never changed; only exact built-in types
are judged (a subclass could compare unlike what jsonschema sees), and numbers only where
Python's comparison is what jsonschema uses too. A property test checks this module against
jsonschema on tens of thousands of generated entries.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

Verdict = bool | None
Check = Callable[[Any], Verdict]

# The drafts whose semantics for the keywords below this module follows (2020-12's `items`).
DRAFTS = frozenset({"https://json-schema.org/draft/2020-12/schema"})

# Keywords that never change a verdict.
_ANNOTATIONS = frozenset(
    {"$schema", "$id", "$comment", "title", "description", "default", "examples", "deprecated"}
)
_PLAIN = (str, int, float, bool, type(None), list, dict)
_MAX_DEPTH = 64


class Unsupported(Exception):
    """The schema uses something this module does not read."""


def _and(verdicts: Iterable[Verdict]) -> Verdict:
    # One keyword that fails fails the value, whatever the others would say.
    unsure = False
    for verdict in verdicts:
        if verdict is False:
            return False
        if verdict is None:
            unsure = True
    return None if unsure else True


def _scalar(value: Any) -> bool:
    return type(value) in (str, int, bool, type(None))


def _equal(instance: Any, wanted: Any) -> Verdict:
    """jsonschema's equality for a scalar ``wanted``: the same type and ==, else unsure unless
    the types can never be equal (a string is never equal to a non-string)."""
    if type(instance) is type(wanted):
        return bool(instance == wanted)
    if type(instance) in (str, list, dict, type(None)) or type(wanted) in (str, type(None)):
        return False
    return None  # int, float and bool compare across types in jsonschema: not judged here


def _type_of(instance: Any, name: str) -> Verdict:
    kind = type(instance)
    match name:
        case "object":
            return kind is dict
        case "array":
            return kind is list
        case "string":
            return kind is str
        case "boolean":
            return kind is bool
        case "null":
            return instance is None
        case "integer":
            if kind is float:
                return None  # 1.0 is an integer to jsonschema: left to it
            return kind is int
        case "number":
            return kind in (int, float)
    raise Unsupported(f"type {name!r}")


# The types whose verdict never depends on more than the value's exact type.
_EXACT: dict[str, Check] = {
    "object": lambda i: type(i) is dict,
    "array": lambda i: type(i) is list,
    "string": lambda i: type(i) is str,
    "boolean": lambda i: type(i) is bool,
    "null": lambda i: i is None,
}


def _keyword(name: str, value: Any, schema: Mapping[str, Any]) -> Check | None:
    """The check of one keyword, or None for an annotation (or a keyword judged with another:
    ``then``/``else`` with ``if``)."""
    if name in _ANNOTATIONS or name.startswith("x-"):
        return None
    build = _BUILDERS.get(name)
    if build is None:
        raise Unsupported(name)
    return build(name, value, schema)


def _build_type(_name: str, value: Any, _schema: Mapping[str, Any]) -> Check:
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise Unsupported("type")
    for n in names:
        _type_of(None, n)  # refuse unknown type names now
    if len(names) == 1:
        only = names[0]
        return _EXACT.get(only) or (lambda i: _type_of(i, only))

    def check_type(instance: Any) -> Verdict:
        verdicts = [_type_of(instance, n) for n in names]
        if True in verdicts:
            return True
        return None if None in verdicts else False

    return check_type


def _build_required(_name: str, value: Any, _schema: Mapping[str, Any]) -> Check:
    if not isinstance(value, list) or not all(isinstance(k, str) for k in value):
        raise Unsupported("required")
    return lambda i: type(i) is not dict or all(k in i for k in value)


def _build_properties(_name: str, value: Any, _schema: Mapping[str, Any]) -> Check:
    if not isinstance(value, dict):
        raise Unsupported("properties")
    pairs = tuple((k, _compile(s)) for k, s in value.items())

    def check_properties(instance: Any) -> Verdict:
        # A loop of its own, stopping at the first failure: it runs for every entry.
        if type(instance) is not dict:
            return True
        unsure = False
        for key, sub in pairs:
            if key in instance:
                verdict = sub(instance[key])
                if verdict is False:
                    return False
                unsure = unsure or verdict is None
        return None if unsure else True

    return check_properties


def _build_additional(_name: str, value: Any, schema: Mapping[str, Any]) -> Check:
    known = set(schema.get("properties", {}))
    if "patternProperties" in schema:
        raise Unsupported("patternProperties")
    extra = _compile(value)

    def check_additional(instance: Any) -> Verdict:
        if type(instance) is not dict:
            return True
        return _and(extra(v) for k, v in instance.items() if k not in known)

    return check_additional


def _build_items(_name: str, value: Any, schema: Mapping[str, Any]) -> Check:
    if "prefixItems" in schema:
        raise Unsupported("prefixItems")
    each = _compile(value)

    def check_items(instance: Any) -> Verdict:
        if type(instance) is not list:
            return True
        unsure = False
        for item in instance:
            verdict = each(item)
            if verdict is False:
                return False
            unsure = unsure or verdict is None
        return None if unsure else True

    return check_items


def _build_length(name: str, value: Any, _schema: Mapping[str, Any]) -> Check:
    if type(value) is not int or value < 0:
        raise Unsupported(name)
    kind = list if name.endswith("Items") else str
    if name.startswith("min"):
        return lambda i: type(i) is not kind or len(i) >= value
    return lambda i: type(i) is not kind or len(i) <= value


def _build_bound(name: str, value: Any, _schema: Mapping[str, Any]) -> Check:
    if type(value) not in (int, float):
        raise Unsupported(name)
    compare: Callable[[Any], bool] = {
        "minimum": lambda i: not i < value,
        "maximum": lambda i: not i > value,
        "exclusiveMinimum": lambda i: not i <= value,
        "exclusiveMaximum": lambda i: not i >= value,
    }[name]
    return lambda i: True if type(i) not in (int, float) else compare(i)


def _build_equal(name: str, value: Any, _schema: Mapping[str, Any]) -> Check:
    options = value if name == "enum" else [value]
    if not isinstance(options, list) or not all(_scalar(o) for o in options):
        raise Unsupported(name)

    def check_equal(instance: Any) -> Verdict:
        # Any one option equal is enough; else unsure if any comparison was.
        verdicts = [_equal(instance, o) for o in options]
        if True in verdicts:
            return True
        return None if None in verdicts else False

    return check_equal


def _build_not(_name: str, value: Any, _schema: Mapping[str, Any]) -> Check:
    inner = _compile(value)

    def check_not(instance: Any) -> Verdict:
        verdict = inner(instance)
        return None if verdict is None else not verdict

    return check_not


def _build_if(_name: str, value: Any, schema: Mapping[str, Any]) -> Check:
    condition = _compile(value)
    then = _compile(schema.get("then", True))
    otherwise = _compile(schema.get("else", True))

    def check_if(instance: Any) -> Verdict:
        holds = condition(instance)
        if holds is None:
            return None
        return then(instance) if holds else otherwise(instance)

    return check_if


def _build_with_if(_name: str, _value: Any, _schema: Mapping[str, Any]) -> None:
    return None  # judged with `if`; without an `if` jsonschema ignores them too


def _build_pattern(_name: str, value: Any, _schema: Mapping[str, Any]) -> Check:
    # jsonschema searches with Python's own re, as here.
    try:
        compiled = re.compile(value)
    except (re.error, TypeError) as exc:
        raise Unsupported("pattern") from exc
    return lambda i: type(i) is not str or compiled.search(i) is not None


def _build_format(_name: str, value: Any, _schema: Mapping[str, Any]) -> Check:
    if value != "regex":  # the others depend on optional packages jsonschema may find
        raise Unsupported(f"format {value!r}")
    return _is_regex


def _build_property_names(_name: str, value: Any, _schema: Mapping[str, Any]) -> Check:
    names = _compile(value)
    return lambda i: True if type(i) is not dict else _and(names(k) for k in i)


def _build_all_of(name: str, value: Any, _schema: Mapping[str, Any]) -> Check:
    if not isinstance(value, list) or not value:
        raise Unsupported(name)
    parts = [_compile(s) for s in value]
    return lambda i: _and(p(i) for p in parts)


# Every keyword this module reads, and how it builds its check; any other is Unsupported.
_BUILDERS: dict[str, Callable[[str, Any, Mapping[str, Any]], Check | None]] = {
    "type": _build_type,
    "required": _build_required,
    "properties": _build_properties,
    "additionalProperties": _build_additional,
    "items": _build_items,
    "minItems": _build_length,
    "maxItems": _build_length,
    "minLength": _build_length,
    "maxLength": _build_length,
    "minimum": _build_bound,
    "maximum": _build_bound,
    "exclusiveMinimum": _build_bound,
    "exclusiveMaximum": _build_bound,
    "enum": _build_equal,
    "const": _build_equal,
    "not": _build_not,
    "if": _build_if,
    "then": _build_with_if,
    "else": _build_with_if,
    "pattern": _build_pattern,
    "format": _build_format,
    "propertyNames": _build_property_names,
    "allOf": _build_all_of,
}


def _is_regex(instance: Any) -> Verdict:
    # jsonschema's "regex" format: a string that Python's re compiles.
    if type(instance) is not str:
        return True
    try:
        re.compile(instance)
    except re.error:
        return False
    except Exception:  # jsonschema would not catch it either: left to it
        return None
    return True


def _compile(schema: Any) -> Check:
    if schema is True:
        return lambda i: True
    if schema is False:
        return lambda i: False
    if not isinstance(schema, dict):
        raise Unsupported("a schema that is neither an object nor a boolean")
    checks = [c for k, v in schema.items() if (c := _keyword(k, v, schema)) is not None]
    if len(checks) == 1:
        return checks[0]

    def check_all(instance: Any) -> Verdict:
        unsure = False
        for check in checks:
            verdict = check(instance)
            if verdict is False:
                return False
            unsure = unsure or verdict is None
        return None if unsure else True

    return check_all


def _plain(value: Any, depth: int = 0) -> bool:
    kind = type(value)
    if kind not in _PLAIN or depth > _MAX_DEPTH:
        return False
    if kind is list:
        return all(_plain(v, depth + 1) for v in value)
    if kind is dict:
        return all(type(k) is str and _plain(v, depth + 1) for k, v in value.items())
    return True


def compile_schema(schema: Mapping[str, Any]) -> Check | None:
    """A predicate judging values as jsonschema would judge them against ``schema`` (True:
    valid, False: invalid, None: cannot tell), or None when ``schema`` uses anything this
    module does not read."""
    if not isinstance(schema, dict) or schema.get("$schema") not in DRAFTS:
        return None
    try:
        check = _compile(schema)
    except Unsupported:
        return None

    def judge(instance: Any) -> Verdict:
        return check(instance) if _plain(instance) else None

    return judge
