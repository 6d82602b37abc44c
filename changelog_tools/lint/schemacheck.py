"""A small JSON Schema (2020-12) validator for the keywords the master-config schema uses.

It answers with located, readable errors (the path of the failing value, the unknown field and
what it may have meant), which `lint` turns into diagnostics at a line, and it needs no
jsonschema import on the command's path. A test checks that it agrees with jsonschema on the
real master configs and on broken variants. A keyword it does not know raises
:class:`UnsupportedSchema` (the schema file is ours, so that is a bug, not user input).

``x-message`` on a subschema replaces that subschema's errors with one message (the message a
maintainer should read for a cross-field rule, instead of the keyword that tripped).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

Path = tuple[str | int, ...]

_ANNOTATIONS = frozenset(
    {"$schema", "$id", "$defs", "$comment", "title", "description", "default", "x-message"}
)
_KNOWN = _ANNOTATIONS | {
    "$ref", "type", "enum", "const", "required", "properties", "additionalProperties", "items",
    "contains", "minItems", "minLength", "minimum", "exclusiveMinimum", "maximum", "pattern",
    "if", "then", "else", "allOf", "anyOf", "not",
}  # fmt: skip


class UnsupportedSchema(Exception):
    """The schema uses a keyword this validator does not implement."""


@dataclass(frozen=True)
class SchemaError:
    path: Path  # where the failing value is (for an unknown field: the field itself)
    kind: str  # unknown-field | missing-field | wrong-type | bad-value | constraint
    message: str
    hint: str | None = None


def _type_ok(value: Any, name: str) -> bool:
    match name:
        case "string":
            return isinstance(value, str)
        case "boolean":
            return isinstance(value, bool)
        case "integer":
            if isinstance(value, float):
                return value.is_integer()
            return isinstance(value, int) and not isinstance(value, bool)
        case "number":
            return isinstance(value, (int, float)) and not isinstance(value, bool)
        case "array":
            return isinstance(value, list)
        case "object":
            return isinstance(value, dict)
        case "null":
            return value is None
    raise UnsupportedSchema(f"type {name!r}")


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    return bool(a == b)


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (dict, list)):
        return "a mapping" if isinstance(value, dict) else "a list"
    return repr(value) if isinstance(value, str) else str(value)


_TYPE_WORDS = {"string": "text", "integer": "an integer", "number": "a number",
               "boolean": "true or false", "array": "a list", "object": "a mapping",
               "null": "null"}  # fmt: skip


@cache
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


class Validator:
    def __init__(self, schema: Mapping[str, Any]) -> None:
        self.root = schema

    def _resolve(self, ref: str) -> Any:
        if not ref.startswith("#/"):
            raise UnsupportedSchema(f"$ref {ref!r}")
        node: Any = self.root
        for part in ref[2:].split("/"):
            node = node[part]
        return node

    def valid(self, value: Any, schema: Any = None) -> bool:
        return not self.errors(value, self.root if schema is None else schema, ())

    def errors(self, value: Any, schema: Any = None, path: Path = ()) -> list[SchemaError]:
        schema = self.root if schema is None else schema
        if schema is True:
            return []
        if schema is False:
            return [SchemaError(path, "bad-value", "this value is not allowed here")]
        unknown = set(schema) - _KNOWN
        if unknown:
            raise UnsupportedSchema(", ".join(sorted(unknown)))
        out = self._errors(value, schema, path)
        if out and "x-message" in schema:
            return [SchemaError(path, "constraint", str(schema["x-message"]))]
        return out

    def _errors(self, value: Any, s: Mapping[str, Any], path: Path) -> list[SchemaError]:
        out: list[SchemaError] = []
        if "$ref" in s:
            out += self.errors(value, self._resolve(s["$ref"]), path)
        if "type" in s:
            names = [s["type"]] if isinstance(s["type"], str) else list(s["type"])
            if not any(_type_ok(value, n) for n in names):
                want = " or ".join(_TYPE_WORDS.get(n, n) for n in names)
                return [
                    *out,
                    SchemaError(path, "wrong-type", f"must be {want}, not {_show(value)}"),
                ]
        if "enum" in s and not any(_equal(value, o) for o in s["enum"]):
            options = ", ".join(_show(o) for o in s["enum"])
            close = (
                difflib.get_close_matches(value, [str(o) for o in s["enum"]], n=1)
                if isinstance(value, str)
                else []
            )
            out.append(SchemaError(path, "bad-value", f"{_show(value)} is not one of {options}",
                                   f"did you mean {close[0]!r}?" if close else None))  # fmt: skip
        if "const" in s and not _equal(value, s["const"]):
            out.append(SchemaError(path, "bad-value",
                                   f"must be {_show(s['const'])}, not {_show(value)}"))  # fmt: skip
        if isinstance(value, str):
            if len(value) < s.get("minLength", 0):
                out.append(SchemaError(path, "bad-value", "must not be empty"))
            if "pattern" in s and not _regex(s["pattern"]).search(value):
                out.append(SchemaError(path, "bad-value", f"must match {s['pattern']}"))
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if number:
            if "minimum" in s and value < s["minimum"]:
                out.append(SchemaError(path, "bad-value", f"must be at least {s['minimum']}"))
            if "exclusiveMinimum" in s and value <= s["exclusiveMinimum"]:
                out.append(SchemaError(path, "bad-value",
                                       f"must be greater than {s['exclusiveMinimum']}"))  # fmt: skip
            if "maximum" in s and value > s["maximum"]:
                out.append(SchemaError(path, "bad-value", f"must be at most {s['maximum']}"))
        if isinstance(value, list):
            if len(value) < s.get("minItems", 0):
                out.append(SchemaError(path, "bad-value",
                                       f"needs at least {s['minItems']} item(s)"))  # fmt: skip
            if "items" in s:
                for i, item in enumerate(value):
                    out += self.errors(item, s["items"], (*path, i))
            if "contains" in s and not any(self.valid(item, s["contains"]) for item in value):
                out.append(SchemaError(path, "constraint", "no item matches"))
        if isinstance(value, dict):
            out += self._object(value, s, path)
        for sub in s.get("allOf", ()):
            out += self.errors(value, sub, path)
        if "anyOf" in s and not any(self.valid(value, sub) for sub in s["anyOf"]):
            out.append(SchemaError(path, "constraint", "matches none of the allowed shapes"))
        if "not" in s and self.valid(value, s["not"]):
            out.append(SchemaError(path, "constraint", "this combination is not allowed"))
        if "if" in s:
            branch = s.get("then") if self.valid(value, s["if"]) else s.get("else")
            if branch is not None:
                out += self.errors(value, branch, path)
        return out

    def _object(self, value: dict[Any, Any], s: Mapping[str, Any], path: Path) -> list[SchemaError]:
        out: list[SchemaError] = []
        properties: Mapping[str, Any] = s.get("properties", {})
        for name in s.get("required", ()):
            if name not in value:
                out.append(SchemaError(path, "missing-field", f"missing required field {name!r}"))
        extra = s.get("additionalProperties", True)
        for key, item in value.items():
            if key in properties:
                out += self.errors(item, properties[key], (*path, key))
            elif extra is False:
                out.append(_unknown(str(key), list(properties), (*path, key)))
            elif extra is not True:
                out += self.errors(item, extra, (*path, key))
        return out


def _unknown(key: str, known: Sequence[str], path: Path) -> SchemaError:
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    hint = f"did you mean {close[0]!r}?" if close else "allowed here: " + ", ".join(known)
    return SchemaError(path, "unknown-field", f"unknown field {key!r}", hint)
