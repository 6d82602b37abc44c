"""Entry validation against ``schemas/perf-changelog.schema.json``, problems mapped to lines.

The JSON Schema is the single source of truth for what an entry may hold; jsonschema judges
each entry with one validator compiled for the process, and this module turns the problems
:mod:`changelog_tools.schemaerrors` words into diagnostics with a stable code, a message that
names the entry and the line of the offending key or value.
"""

from __future__ import annotations

import json
import pathlib
from functools import cache
from typing import TYPE_CHECKING, Any

from changelog_tools import diagnostics as dx
from changelog_tools import schemasubset
from changelog_tools.ledger import knownvalid

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

    from changelog_tools.schemaerrors import Problem
    from changelog_tools.yamlload import Loaded, Path

# changelog_tools.schemaerrors (and jsonschema behind it) is imported only where an entry is not
# surely valid: a valid changelog is judged without either (see changelog_tools/schemasubset.py).

ENTRY_SCHEMA_FILE = "perf-changelog.schema.json"
_SCHEMAS = pathlib.Path(__file__).resolve().parent.parent / "schemas"


@cache
def entry_schema_bytes() -> bytes:
    # Beside this package's files (shipped as package data); importlib.resources would cost
    # more to import than the read.
    return (_SCHEMAS / ENTRY_SCHEMA_FILE).read_bytes()


@cache
def entry_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(entry_schema_bytes().decode("utf-8"))
    return schema


@cache
def entry_validator() -> Validator:
    """The entry schema's validator: compiled once, then used for every entry of every file."""
    from changelog_tools.schemaerrors import compile_validator

    return compile_validator(entry_schema())


@cache
def _subset_check() -> schemasubset.Check | None:
    return schemasubset.compile_schema(entry_schema())


def surely_valid(entry: Any) -> bool:
    """Whether the schema, read directly (:mod:`changelog_tools.schemasubset`), surely accepts
    ``entry``; False means only "ask jsonschema", which words every problem."""
    check = _subset_check()
    return check is not None and check(entry) is True


# The diagnostic code of each kind of problem (schemaerrors.Kind's values).
_CODES = {
    "unknown-field": dx.UNKNOWN_FIELD,
    "missing-field": dx.MISSING_FIELD,
    "wrong-type": dx.WRONG_TYPE,
    "empty": dx.EMPTY_VALUE,
    "bad-value": dx.BAD_VALUE,
    "constraint": dx.BAD_VALUE,
}


def _remembered(entry: Any) -> tuple[knownvalid.KnownValid | None, str | None, bool]:
    """The verdicts in use (the merge driver's, else None), ``entry``'s digest among them, and
    whether they hold ``entry`` as valid already."""
    known = knownvalid.active()
    if known is None:
        return None, None, False
    digest = knownvalid.entry_digest(entry)
    return known, digest, known.knows(digest)


def entry_valid(entry: Any) -> bool:
    """Whether ``entry`` matches the schema, without itemizing why not."""
    if not isinstance(entry, dict):
        return False
    known, digest, remembered = _remembered(entry)
    if remembered:
        return True
    valid = surely_valid(entry) or entry_validator().is_valid(entry)
    if valid and known is not None:
        known.accept(digest)
    return valid


def _subject(index: int, path: Path) -> str:
    from changelog_tools.schemaerrors import dotted

    return f"entry {index + 1}: `{dotted(path)}`" if path else f"entry {index + 1}"


def _message(index: int, problem: Problem) -> str:
    from changelog_tools.schemaerrors import Kind

    match problem.kind:
        case Kind.UNKNOWN_FIELD:  # "entry 3 has unknown field `x`"
            return f"{_subject(index, problem.path[:-1])} has {problem.message}"
        case Kind.MISSING_FIELD:  # "entry 3 is missing required field `x`"
            return f"{_subject(index, problem.path)} is {problem.message}"
        case _:  # "entry 3: `description` must not be empty"
            return f"{_subject(index, problem.path)} {problem.message}"


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
        from changelog_tools.schemaerrors import show

        line, col = loaded.mark(entry_path) or (None, None)
        return [
            dx.error(
                dx.ENTRY_NOT_MAPPING,
                f"entry {index + 1} is {show(entry)}, not a mapping",
                file,
                line,
                col,
            )
        ]
    known, digest, remembered = _remembered(entry)
    if remembered:
        return []
    if surely_valid(entry):
        if known is not None:
            known.accept(digest)
        return []
    from changelog_tools.schemaerrors import position, problems

    out: list[dx.Diagnostic] = []
    combination_told = False
    for problem in problems(entry_validator(), entry, quote="`"):
        if "then" in problem.schema_path:
            # The schema's if/then forbids what `append-only: true` cannot be combined with;
            # whichever keyword trips, the entry breaks that one rule: say so once, at the flag.
            if not combination_told:
                combination_told = True
                mark = loaded.mark(entry_path) or (None, None)
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
            continue
        out.append(
            dx.error(
                _CODES[problem.kind],
                _message(index, problem),
                file,
                *position(problem, loaded, entry_path),
                hint=problem.hint,
            )
        )
    if not out and known is not None:
        known.accept(digest)
    return out
