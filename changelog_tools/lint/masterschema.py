"""`master-schema`: every master-config entry the change adds or modifies is valid.

The schema is ``schemas/master-config.schema.json`` (the facts of InferenceX's
``utils/matrix_logic/validation.py``, written as JSON Schema), judged by jsonschema; errors
point at the line of the failing field, with did-you-mean for unknown fields and enum values,
and a cross-field rule says its ``x-message`` (see :mod:`changelog_tools.schemaerrors`).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from jsonschema.protocols import Validator

from changelog_tools import diagnostics as dx
from changelog_tools.lint import codes
from changelog_tools.lint.context import Context
from changelog_tools.schemaerrors import Kind, Problem, compile_validator, dotted, problems

RULE = "master-schema"
SCHEMA_FILE = "master-config.schema.json"

_KIND_CODES = {
    Kind.UNKNOWN_FIELD: codes.MASTER_UNKNOWN_FIELD,
    Kind.MISSING_FIELD: codes.MASTER_MISSING_FIELD,
    Kind.WRONG_TYPE: codes.MASTER_WRONG_TYPE,
    Kind.EMPTY: codes.MASTER_BAD_VALUE,
    Kind.BAD_VALUE: codes.MASTER_BAD_VALUE,
    Kind.CONSTRAINT: codes.MASTER_CONSTRAINT,
}


@cache
def master_schema() -> dict[str, Any]:
    text = resources.files("changelog_tools").joinpath("schemas", SCHEMA_FILE).read_text()
    schema: dict[str, Any] = json.loads(text)
    return schema


@cache
def validator() -> Validator:
    """The master-config schema's validator, compiled once for the process."""
    return compile_validator(master_schema())


def spec_values() -> tuple[str, ...]:
    """The `spec-decoding` values the schema accepts (for `spec-launchers`)."""
    enum = master_schema()["$defs"]["singleNodeRow"]["properties"]["spec-decoding"]["enum"]
    return tuple(str(v) for v in enum)


def entry_problems(value: Any) -> list[Problem]:
    """What is wrong with one master-config entry (nothing when it is valid)."""
    return problems(validator(), value)


def check(ctx: Context) -> tuple[bool, list[dx.Diagnostic], list[str]]:
    entries = ctx.judged_entries
    out: list[dx.Diagnostic] = list(ctx.master_problems()) if ctx.masters_changed else []
    for entry in entries:
        for problem in entry_problems(entry.value):
            where = dotted(problem.path)
            field = f" {where}:" if where else ":"
            if ctx.allowed(RULE, path=entry.path, key=entry.name, text=problem.message):
                continue
            out.append(
                dx.error(
                    _KIND_CODES[problem.kind],
                    f"{entry.name}{field} {problem.message}",
                    entry.path,
                    entry.line_of(*problem.path),
                    hint=problem.hint
                    or "see changelog_tools/schemas/master-config.schema.json "
                    "(InferenceX: utils/matrix_logic/validation.py)",
                )
            )
    return bool(entries) or bool(out), out, [e.name for e in entries]


CHECKS = {RULE: check}
