"""The schema read directly agrees with jsonschema, and never answers what it cannot tell.

The tool skips jsonschema for an entry only when :mod:`changelog_tools.schemasubset` says the
entry is valid, so the property that matters is: on every value, a True or False from it is
jsonschema's own verdict, and it never changes the value it judges. It is checked on 50,000
generated entries against the shipped entry schema (valid ones, ones with one or more fields
broken in the ways YAML authors break them, and odd values of every JSON type), and on smaller
runs against schemas that use the keywords the shipped one does not.
"""

from __future__ import annotations

import copy
import json
import math
import random
from typing import Any

import pytest
from jsonschema.validators import validator_for

from changelog_tools import schemasubset
from changelog_tools.ledger import schema

DRAFT = "https://json-schema.org/draft/2020-12/schema"
ENTRY_SCHEMA = schema.entry_schema()
FIELDS = list(ENTRY_SCHEMA["properties"])


def _jsonschema(schema_: dict[str, Any]) -> Any:
    cls = validator_for(schema_)
    return cls(schema_, format_checker=cls.FORMAT_CHECKER)


def _odd_value(rng: random.Random, depth: int = 0) -> Any:
    """A value of any JSON type, leaning on the edges the keywords care about."""
    choices: list[Any] = [
        "", "x", "dsr1-fp8-*", "é", "(", "a+", "aa", "\U0001f600", " ", "fixed-seq-len", "agentic-coding",
        0, 1, -1, 2, 10**20, True, False, None,
        0.0, 1.0, 1.5, -0.5, math.inf, -math.inf, math.nan,
    ]  # fmt: skip
    if depth < 3 and rng.random() < 0.3:
        if rng.random() < 0.5:
            return [_odd_value(rng, depth + 1) for _ in range(rng.randrange(4))]
        return {rng.choice([*FIELDS, "x", ""]): _odd_value(rng, depth + 1)}
    return rng.choice(choices)


def _valid_entry(rng: random.Random) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "config-keys": [rng.choice(["a-b", "dsr1-*", "k"]) for _ in range(rng.randrange(1, 4))],
        "description": [
            rng.choice(["", "Bump the image", "é"]) for _ in range(rng.randrange(1, 3))
        ],
        "pr-link": rng.choice(["https://github.com/o/r/pull/7", "XXX", ""]),
    }
    if rng.random() < 0.3:
        entry["append-only"] = rng.random() < 0.5
    for flag in ("evals-only", "all-evals"):
        if rng.random() < 0.2:
            entry[flag] = rng.random() < 0.5
    if rng.random() < 0.2:
        entry["eval-min-prefill-ep"] = rng.choice([1, 2, 8])
    if rng.random() < 0.2:
        entry["scenario-type"] = rng.sample(
            ["fixed-seq-len", "agentic-coding"], rng.randrange(1, 3)
        )
    keys = list(entry)
    rng.shuffle(keys)
    return {k: entry[k] for k in keys}


def generated_entry(rng: random.Random) -> Any:
    """A valid entry, the same with up to three fields broken, or a value of another shape."""
    roll = rng.random()
    if roll < 0.05:
        return _odd_value(rng)
    entry = _valid_entry(rng)
    if roll < 0.35:
        return entry
    for _ in range(rng.randrange(1, 4)):
        action = rng.random()
        key = rng.choice([*FIELDS, "config_keys", "descripton", "x-extra"])
        if action < 0.2:
            entry.pop(key, None)
        elif action < 0.7:
            entry[key] = _odd_value(rng)
        else:  # a list field whose items break
            entry[key] = [_odd_value(rng) for _ in range(rng.randrange(3))]
    return entry


def agreement(schema_: dict[str, Any], values: list[Any]) -> dict[object, int]:
    """Judge every value both ways; fail on a disagreement or a changed value. Returns how often
    each verdict of the subset came out."""
    judge = schemasubset.compile_schema(schema_)
    assert judge is not None
    validator = _jsonschema(schema_)
    counts: dict[object, int] = {True: 0, False: 0, None: 0}
    for value in values:
        before = repr(value)
        verdict = judge(value)
        assert repr(value) == before, "the subset changed the value it judged"
        counts[verdict] += 1
        if verdict is not None:
            assert verdict == validator.is_valid(value), (
                f"subset says {verdict}, jsonschema disagrees on {value!r}"
            )
    return counts


def test_agrees_with_jsonschema_on_fifty_thousand_generated_entries() -> None:
    rng = random.Random(20261205)
    values = [generated_entry(rng) for _ in range(50_000)]
    counts = agreement(ENTRY_SCHEMA, values)
    # Both verdicts come out in bulk (the generator is not trivially one-sided), and the subset
    # answers nearly everything on its own (floats and int/bool comparisons are left to jsonschema).
    assert counts[True] > 10_000 and counts[False] > 10_000
    assert counts[None] < 0.1 * len(values)


def test_never_changes_the_value_it_judges_even_with_defaults_in_the_schema() -> None:
    # The entry schema gives `default: false` for its flags; a validator that fills defaults
    # would add them to the entry.
    judge = schemasubset.compile_schema(ENTRY_SCHEMA)
    assert judge is not None
    entry = {"config-keys": ["k"], "description": ["d"], "pr-link": "XXX"}
    kept = copy.deepcopy(entry)
    assert judge(entry) is True
    assert entry == kept and list(entry) == list(kept)


VARIANT = {
    "$schema": DRAFT,
    "type": ["object", "null"],
    "additionalProperties": {"type": "string", "maxLength": 3},
    "properties": {
        "n": {"type": "number", "maximum": 5, "exclusiveMinimum": 0},
        "i": {"type": "integer", "exclusiveMaximum": 10},
        "s": {"allOf": [{"type": "string"}, {"minLength": 1}], "not": {"const": "no"}},
        "l": {"type": "array", "maxItems": 2, "items": {"enum": [None, "a", 1, True]}},
        "b": False,
        "t": True,
        "p": {"pattern": "^a+$"},
        "r": {"format": "regex"},
    },
    "propertyNames": {"pattern": "^[a-z]*$"},
    "if": {"required": ["s"]},
    "then": {"required": ["n"]},
    "else": {"properties": {"i": {"minimum": 3}}},
}


def test_agrees_with_jsonschema_on_the_keywords_the_entry_schema_does_not_use() -> None:
    rng = random.Random(7)
    names = ["n", "i", "s", "l", "b", "t", "p", "r", "zz", "long-name"]
    values: list[Any] = []
    for _ in range(10_000):
        if rng.random() < 0.05:
            values.append(_odd_value(rng))
            continue
        values.append({rng.choice(names): _odd_value(rng) for _ in range(rng.randrange(4))})
    counts = agreement(VARIANT, values)
    assert counts[True] > 500 and counts[False] > 500


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ({"s": "a", "n": 1, "i": 1.0}, "1.0 is an integer to jsonschema"),
        ({"s": "a", "n": 1, "l": [1.0]}, "1.0 equals 1 to jsonschema"),
        ({"s": "a", "n": 1, "l": [False]}, "jsonschema tells False from 0 by its own rules"),
    ],
)
def test_leaves_numbers_that_compare_across_types_to_jsonschema(value: Any, why: str) -> None:
    judge = schemasubset.compile_schema(VARIANT)
    assert judge is not None
    assert judge(value) is None, why


class _Str(str):
    pass


def test_judges_only_exact_built_in_types() -> None:
    judge = schemasubset.compile_schema(ENTRY_SCHEMA)
    assert judge is not None
    entry = {"config-keys": ["k"], "description": ["d"], "pr-link": "XXX"}
    assert judge(entry) is True
    assert judge({**entry, "pr-link": _Str("XXX")}) is None
    assert judge({**entry, "description": ("d",)}) is None
    nested: Any = "leaf"
    for _ in range(100):
        nested = [nested]
    assert judge({**entry, "description": nested}) is None  # deeper than it reads


@pytest.mark.parametrize(
    "change",
    [
        {"$schema": "http://json-schema.org/draft-07/schema#"},
        {"$defs": {"a": {"type": "string"}}, "properties": {"x": {"$ref": "#/$defs/a"}}},
        {"properties": {"pr-link": {"type": "string", "format": "uri"}}},
        {"properties": {"pr-link": {"type": "string", "format": "date"}}},
        {"properties": {"pr-link": {"type": "string", "pattern": "("}}},
        {"patternProperties": {"^x-": {}}},
        {"prefixItems": [{"type": "string"}]},
        {"properties": {"pr-link": {"enum": [["a"]]}}},
        {"type": "decimal"},
        {"unevaluatedProperties": False},
    ],
)
def test_a_schema_with_anything_it_does_not_read_leaves_every_verdict_to_jsonschema(
    change: dict[str, Any],
) -> None:
    edited = {**ENTRY_SCHEMA, **change}
    assert schemasubset.compile_schema(edited) is None


def test_follows_an_edit_of_the_schema() -> None:
    entry = {"config-keys": ["k"], "description": ["d"], "pr-link": "XXX"}
    stricter = json.loads(json.dumps(ENTRY_SCHEMA))
    stricter["properties"]["pr-link"]["minLength"] = 4
    judge = schemasubset.compile_schema(stricter)
    assert judge is not None
    assert judge(entry) is False
    assert _jsonschema(stricter).is_valid(entry) is False


def test_agrees_with_jsonschema_on_generated_configurations() -> None:
    from changelog_tools.config import OPTIONS, config_schema

    rng = random.Random(11)
    defaults = {o.name: o.default for o in OPTIONS}
    values: list[Any] = []
    for _ in range(10_000):
        config = {k: v for k, v in defaults.items() if rng.random() < 0.3}
        for _ in range(rng.randrange(3)):
            config[rng.choice([*defaults, "colour"])] = _odd_value(rng)
        values.append(json.loads(json.dumps(config)))  # as YAML would give them: lists, not tuples
    counts = agreement(config_schema(), values)
    assert counts[True] > 500 and counts[False] > 500
