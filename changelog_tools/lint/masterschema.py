"""`master-schema`: every master-config entry the change adds or modifies is valid.

The schema is ``schemas/master-config.schema.json`` (the facts of InferenceX's
``utils/matrix_logic/validation.py``, written as JSON Schema); errors point at the line of the
failing field, with did-you-mean for unknown fields and enum values.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from changelog_tools import diagnostics as dx
from changelog_tools.lint import codes
from changelog_tools.lint.context import Context
from changelog_tools.lint.schemacheck import SchemaError, Validator

RULE = "master-schema"
SCHEMA_FILE = "master-config.schema.json"

_KIND_CODES = {
    "unknown-field": codes.MASTER_UNKNOWN_FIELD,
    "missing-field": codes.MASTER_MISSING_FIELD,
    "wrong-type": codes.MASTER_WRONG_TYPE,
    "bad-value": codes.MASTER_BAD_VALUE,
    "constraint": codes.MASTER_CONSTRAINT,
}


@cache
def master_schema() -> dict[str, Any]:
    text = resources.files("changelog_tools").joinpath("schemas", SCHEMA_FILE).read_text()
    schema: dict[str, Any] = json.loads(text)
    return schema


@cache
def validator() -> Validator:
    return Validator(master_schema())


def spec_values() -> tuple[str, ...]:
    """The `spec-decoding` values the schema accepts (for `spec-launchers`)."""
    enum = master_schema()["$defs"]["singleNodeRow"]["properties"]["spec-decoding"]["enum"]
    return tuple(str(v) for v in enum)


def _where(path: tuple[str | int, ...]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def entry_errors(value: Any) -> list[SchemaError]:
    return validator().errors(value)


def check(ctx: Context) -> tuple[bool, list[dx.Diagnostic], list[str]]:
    entries = ctx.judged_entries
    out: list[dx.Diagnostic] = list(ctx.master_problems()) if ctx.masters_changed else []
    for entry in entries:
        for err in entry_errors(entry.value):
            where = _where(err.path)
            field = f" {where}:" if where else ":"
            if ctx.allowed(RULE, path=entry.path, key=entry.name, text=err.message):
                continue
            line = entry.line_of(*err.path)
            out.append(
                dx.error(
                    _KIND_CODES[err.kind],
                    f"{entry.name}{field} {err.message}",
                    entry.path,
                    line,
                    hint=err.hint
                    or "see changelog_tools/schemas/master-config.schema.json "
                    "(InferenceX: utils/matrix_logic/validation.py)",
                )
            )
    return bool(entries) or bool(out), out, [e.name for e in entries]


CHECKS = {RULE: check}
