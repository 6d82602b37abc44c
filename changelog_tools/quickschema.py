"""A small JSON Schema interpreter for the common case: deciding quickly that an entry is valid.

Importing jsonschema costs more than validating a whole changelog, and almost every entry is
valid. This interprets the schema file itself (so the rules live in one place) for the handful
of keywords the entry schema uses, and answers True (valid), False (invalid) or None (a keyword
or value it does not handle). Only True is trusted on its own; anything else goes to jsonschema,
which also produces the detailed errors. A property test checks it never disagrees with
jsonschema.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# Keywords that only annotate: they never make an instance invalid. `format` is one too: draft
# 2020-12 makes it an annotation unless a format checker is asked for, and this tool's
# validators ask for none.
_ANNOTATIONS = frozenset(
    {"$schema", "$id", "title", "description", "default", "examples", "format"}
)
_HANDLED = _ANNOTATIONS | {
    "type",
    "required",
    "properties",
    "additionalProperties",
    "propertyNames",
    "format",
    "items",
    "minItems",
    "minLength",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "enum",
    "const",
    "if",
    "then",
    "not",
}


class _Undecided(Exception):
    """The schema or the instance is outside what this interpreter handles."""


def _is_type(value: Any, name: str) -> bool:
    if isinstance(value, float):
        if name == "number":
            return True
        raise _Undecided  # 1.0 is an integer to JSON Schema; leave such cases to jsonschema
    match name:
        case "string":
            return isinstance(value, str)
        case "boolean":
            return isinstance(value, bool)
        case "integer" | "number":
            return isinstance(value, int) and not isinstance(value, bool)
        case "array":
            return isinstance(value, list)
        case "object":
            return isinstance(value, dict)
        case "null":
            return value is None
    raise _Undecided


def _equal(a: Any, b: Any) -> bool:
    # JSON Schema equality: true is not 1, and containers compare element-wise by that rule.
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, float) or isinstance(b, float):
        raise _Undecided
    return bool(a == b)


def _valid(schema: Any, value: Any) -> bool:
    if schema is True:
        return True
    if schema is False:
        return False
    if not isinstance(schema, Mapping) or not _HANDLED.issuperset(schema):
        raise _Undecided
    if "type" in schema:
        names = schema["type"]
        names = [names] if isinstance(names, str) else names
        if not any(_is_type(value, n) for n in names):
            return False
    if "enum" in schema and not any(_equal(value, option) for option in schema["enum"]):
        return False
    if "const" in schema and not _equal(value, schema["const"]):
        return False
    if "not" in schema and _valid(schema["not"], value):
        return False
    if_then = "if" in schema and "then" in schema
    if if_then and _valid(schema["if"], value) and not _valid(schema["then"], value):
        return False
    if isinstance(value, str) and len(value) < schema.get("minLength", 0):
        return False
    if isinstance(value, str) and "pattern" in schema:
        import re  # cached by re itself; jsonschema also matches with re.search

        if re.search(schema["pattern"], value) is None:
            return False
    if isinstance(value, int | float) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            return False
        if "maximum" in schema and value > schema["maximum"]:
            return False
        if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
            return False
        if "exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"]:
            return False
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            return False
        if "items" in schema and not all(_valid(schema["items"], item) for item in value):
            return False
    if isinstance(value, dict):
        if any(name not in value for name in schema.get("required", ())):
            return False
        if "propertyNames" in schema and not all(
            _valid(schema["propertyNames"], key) for key in value
        ):
            return False
        properties = schema.get("properties", {})
        for key, item in value.items():
            if key in properties:
                if not _valid(properties[key], item):
                    return False
            elif not _valid(schema.get("additionalProperties", True), item):
                return False
    return True


def quick_valid(schema: Mapping[str, Any], value: Any) -> bool | None:
    """True or False when the interpreter can decide ``value`` against ``schema``, else None."""
    try:
        return _valid(schema, value)
    except _Undecided:
        return None
