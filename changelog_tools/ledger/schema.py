"""Entry validation against ``schemas/perf-changelog.schema.json``, errors mapped to lines.

The JSON Schema is the single source of truth for what an entry may hold; this module only
turns jsonschema's findings into :class:`~changelog_tools.diagnostics.Diagnostic` values with a
stable code, a short message and the line of the offending key or value.
"""

from __future__ import annotations

import json
import pathlib
from functools import cache
from typing import Any

from changelog_tools import diagnostics as dx
from changelog_tools.quickschema import quick_valid
from changelog_tools.yamlload import Loaded, Path

ENTRY_SCHEMA_FILE = "perf-changelog.schema.json"
_SCHEMAS = pathlib.Path(__file__).resolve().parent.parent / "schemas"


@cache
def entry_schema() -> dict[str, Any]:
    # Beside this package's files (shipped as package data); importlib.resources would cost
    # more to import than the read.
    text = (_SCHEMAS / ENTRY_SCHEMA_FILE).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


@cache
def _validator() -> Any:
    import jsonschema  # deferred: costs ~0.1 s to import and not every command needs it

    return jsonschema.Draft202012Validator(entry_schema())


def known_fields() -> list[str]:
    return list(entry_schema()["properties"])


_TYPE_NAMES = {
    "array": "a list",
    "string": "a string",
    "boolean": "true or false",
    "integer": "an integer",
    "object": "a mapping",
}


def _type_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return f"the string {value!r}" if len(value) < 40 else "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__  # pragma: no cover - YAML yields only the types above


def _describe(path: tuple[Any, ...]) -> str:
    if not path:
        return "the entry"
    rest = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path[1:])
    return f"`{path[0]}{rest}`"


# Past this length a field name is no typo of a known one; difflib is quadratic in its input.
_SUGGEST_MAX_CHARS = 64


@cache
def _did_you_mean_cached(name: str) -> tuple[str, ...]:
    import difflib  # only for an unknown field

    return tuple(difflib.get_close_matches(name.replace("_", "-"), known_fields(), n=1))


def _did_you_mean(name: str) -> tuple[str, ...]:
    """The known field ``name`` is most likely a typo of; bounded work per distinct name, and
    a file repeating one typo in every entry pays for it once."""
    if len(name) > _SUGGEST_MAX_CHARS:
        return ()
    if _did_you_mean_cached.cache_info().currsize > 1000:
        _did_you_mean_cached.cache_clear()
    return _did_you_mean_cached(name)


def entry_valid(entry: Any) -> bool:
    """Whether ``entry`` matches the schema, without itemizing why not (cheap when it does not:
    the quick interpreter decides most entries without jsonschema)."""
    if not isinstance(entry, dict):
        return False
    quick = quick_valid(entry_schema(), entry)
    if quick is not None:
        return quick
    return bool(_validator().is_valid(entry))


def validate_entry(
    entry: Any,
    *,
    index: int,
    entry_path: Path,
    loaded: Loaded,
    file: str,
) -> list[dx.Diagnostic]:
    """Validate one parsed entry; ``entry_path`` locates it inside ``loaded`` for line numbers."""
    if not isinstance(entry, dict):
        line, col = loaded.mark(entry_path) or (None, None)
        return [
            dx.error(
                dx.ENTRY_NOT_MAPPING,
                f"entry {index + 1} is {_type_of(entry)}, not a mapping",
                file,
                line,
                col,
            )
        ]
    if quick_valid(entry_schema(), entry) is True:
        return []  # the common case, decided without importing jsonschema
    validator = _validator()
    if validator.is_valid(entry):
        return []
    out: list[dx.Diagnostic] = []
    seen: set[tuple[str, tuple[Any, ...]]] = set()
    for err in validator.iter_errors(entry):
        rel = tuple(err.absolute_path)
        schema_path = tuple(err.relative_schema_path)
        mark = loaded.mark((*entry_path, *rel)) or (None, None)
        kind = err.validator
        if "then" in schema_path:
            key = ("combo", ())
            if key in seen:
                continue
            seen.add(key)
            line, col = loaded.key_marks.get((*entry_path, "append-only"), mark)
            out.append(
                dx.error(
                    dx.APPEND_ONLY_COMBINATION,
                    f"entry {index + 1}: `append-only: true` cannot be combined with "
                    "`evals-only`, `all-evals` or `eval-min-prefill-ep`",
                    file,
                    line,
                    col,
                    hint="split the change into an append-only entry and a separate eval entry",
                )
            )
        elif kind == "additionalProperties":
            allowed = known_fields()
            for extra in sorted(set(err.instance) - set(allowed), key=str):
                line, col = loaded.key_marks.get((*entry_path, extra), mark)
                close = _did_you_mean(str(extra))
                out.append(
                    dx.error(
                        dx.UNKNOWN_FIELD,
                        f"entry {index + 1} has unknown field `{extra}`",
                        file,
                        line,
                        col,
                        hint=f"did you mean `{close[0]}`?"
                        if close
                        else "allowed fields: " + ", ".join(allowed),
                    )
                )
        elif kind == "required":
            present = set(err.instance)
            for name in err.validator_value:
                if name not in present:
                    out.append(
                        dx.error(
                            dx.MISSING_FIELD,
                            f"entry {index + 1} is missing required field `{name}`",
                            file,
                            *mark,
                        )
                    )
        elif kind == "type":
            expected = err.validator_value
            names = [expected] if isinstance(expected, str) else list(expected)
            want = " or ".join(_TYPE_NAMES.get(n, n) for n in names)
            out.append(
                dx.error(
                    dx.WRONG_TYPE,
                    f"entry {index + 1}: {_describe(rel)} must be {want}, "
                    f"not {_type_of(err.instance)}",
                    file,
                    *mark,
                    hint="quote the value if it is meant as text"
                    if "string" in names and not isinstance(err.instance, (list, dict))
                    else None,
                )
            )
        elif kind in ("minItems", "minLength"):
            out.append(
                dx.error(
                    dx.EMPTY_VALUE,
                    f"entry {index + 1}: {_describe(rel)} must not be empty",
                    file,
                    *mark,
                )
            )
        elif kind == "enum":
            allowed_values = ", ".join(str(v) for v in err.validator_value)
            out.append(
                dx.error(
                    dx.BAD_VALUE,
                    f"entry {index + 1}: {_describe(rel)} is {err.instance!r}; "
                    f"allowed: {allowed_values}",
                    file,
                    *mark,
                )
            )
        else:  # minimum and anything a future schema adds
            out.append(
                dx.error(
                    dx.BAD_VALUE,
                    f"entry {index + 1}: {_describe(rel)}: {err.message}",
                    file,
                    *mark,
                )
            )
    return out
