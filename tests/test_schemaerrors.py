"""jsonschema's errors in the tool's words: never silent on an invalid value, never pointing
outside it, and each keyword worded as the three schemas' readers expect."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from changelog_tools import yamlload
from changelog_tools.config import OPTIONS, config_schema, validation
from changelog_tools.ledger.schema import entry_schema, entry_valid, entry_validator
from changelog_tools.lint import masterschema
from changelog_tools.schemaerrors import (
    Kind,
    Problem,
    compile_validator,
    dotted,
    position,
    problems,
    show,
)
from changelog_tools.testing import synth

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=False, allow_infinity=False, width=16),
    st.sampled_from(["", "x", "fixed-seq-len", "agentic-coding", "XXX", "true"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2)
    ),
    max_leaves=6,
)
KEYS = st.sampled_from([*entry_schema()["properties"], "pr_link", "bogus"])


def entries_like() -> st.SearchStrategy[Any]:
    base = st.fixed_dictionaries(
        {
            "config-keys": st.one_of(
                st.lists(st.sampled_from(["k", "", "a*"]), max_size=2), VALUES
            ),
            "description": st.one_of(st.lists(st.sampled_from(["d", ""]), max_size=2), VALUES),
            "pr-link": st.one_of(st.just("XXX"), VALUES),
        },
        optional={
            "evals-only": st.one_of(st.booleans(), VALUES),
            "all-evals": st.one_of(st.booleans(), VALUES),
            "append-only": st.one_of(st.booleans(), VALUES),
            "eval-min-prefill-ep": st.one_of(st.integers(-1, 3), VALUES),
            "scenario-type": st.one_of(
                st.lists(st.sampled_from(["fixed-seq-len", "agentic-coding", "other"]), max_size=2),
                VALUES,
            ),
        },
    )
    extra = st.dictionaries(KEYS, VALUES, max_size=2)
    return st.one_of(
        st.tuples(base, extra).map(lambda pair: {**pair[0], **pair[1]}),
        VALUES,
    )


def _points_into(instance: Any, problem: Problem) -> bool:
    """The problem's path names a value the instance holds (an unknown field: a key of it)."""
    node = instance
    for part in problem.path:
        if isinstance(node, list):
            node = dict(enumerate(node))
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def _check_against_jsonschema(schema: dict[str, Any], instance: Any) -> None:
    found = problems(compile_validator(schema), instance)
    assert (not found) == jsonschema.Draft202012Validator(schema).is_valid(instance)
    for problem in found:
        assert _points_into(instance, problem), problem
        assert problem.message and problem.kind in Kind


@settings(max_examples=400, deadline=None)
@given(entries_like())
def test_every_invalid_entry_has_a_problem_at_a_value_it_holds(instance: Any) -> None:
    _check_against_jsonschema(entry_schema(), instance)


CONFIG_VALUES = st.one_of(
    SCALARS,
    st.floats(-5, 100, allow_nan=False),
    st.integers(-2, 400),
    st.sampled_from(["o/r", "a b/c", "/x", "x", "run-sweep.yml", "bad name", "https://h/api"]),
    st.lists(st.sampled_from(["", "x", "o/r", "full-sweep-enabled"]), max_size=3),
)


def configs_like() -> st.SearchStrategy[Any]:
    names = [o.name for o in OPTIONS]
    defaults = st.sampled_from(OPTIONS).map(lambda o: {o.name: o.default})
    mixed = st.dictionaries(st.sampled_from([*names, "bogus"]), CONFIG_VALUES, max_size=4)
    return st.one_of(defaults, mixed, st.tuples(defaults, mixed).map(lambda p: {**p[0], **p[1]}))


@settings(max_examples=500, deadline=None)
@given(configs_like())
def test_every_invalid_configuration_has_a_problem_at_a_value_it_holds(instance: Any) -> None:
    _check_against_jsonschema(config_schema(), instance)


def test_synthetic_entries_and_the_default_configuration_are_valid() -> None:
    from changelog_tools.ledger.document import parse_ledger

    ledger = parse_ledger(synth.ledger(50, seed=3), path="p.yaml", validate_entries=False)
    assert len(ledger.entries) == 50 and all(entry_valid(e) for e in ledger.entries)
    assert problems(validation.validator(), {o.name: o.default for o in OPTIONS}) == []


def test_each_schema_is_compiled_once_for_the_process() -> None:
    assert entry_validator() is entry_validator()
    assert masterschema.validator() is masterschema.validator()
    assert validation.validator() is validation.validator()
    for validator in (entry_validator(), masterschema.validator(), validation.validator()):
        assert isinstance(validator, jsonschema.Draft202012Validator)  # what they declare
        assert validator.format_checker is not None


def _one(schema: dict[str, Any], instance: Any, **kwargs: Any) -> Problem:
    (problem,) = problems(compile_validator(schema), instance, **kwargs)
    return problem


@pytest.mark.parametrize(
    ("schema", "instance", "kind", "message"),
    [
        ({"type": "integer"}, True, Kind.WRONG_TYPE, "must be an integer, not true"),
        ({"type": ["string", "null"]}, [], Kind.WRONG_TYPE, "must be a string or null, not a list"),
        (
            {"type": "object"},
            "x" * 50,
            Kind.WRONG_TYPE,
            "must be a mapping, not a string of 50 characters",
        ),
        ({"enum": ["a", 1]}, None, Kind.BAD_VALUE, "must be one of 'a', 1, not null"),
        ({"const": False}, 0, Kind.BAD_VALUE, "must be false, not 0"),
        ({"minItems": 1}, [], Kind.EMPTY, "must not be empty"),
        ({"minLength": 1}, "", Kind.EMPTY, "must not be empty"),
        ({"minItems": 2}, [1], Kind.BAD_VALUE, "needs at least 2 items"),
        ({"minLength": 10}, "short", Kind.BAD_VALUE, "must be at least 10 characters long"),
        ({"pattern": "^/"}, "x", Kind.BAD_VALUE, "must match ^/, not 'x'"),
        ({"minimum": 1}, 0, Kind.BAD_VALUE, "must be at least 1, not 0"),
        ({"maximum": 20}, 21, Kind.BAD_VALUE, "must be at most 20, not 21"),
        ({"exclusiveMinimum": 0}, 0, Kind.BAD_VALUE, "must be greater than 0, not 0"),
        ({"exclusiveMaximum": 1}, 1.5, Kind.BAD_VALUE, "must be less than 1, not 1.5"),
        (
            {"not": {"required": ["a"]}},
            {"a": 1},
            Kind.CONSTRAINT,
            "this combination is not allowed",
        ),
        ({"contains": {"const": 1}}, [2], Kind.CONSTRAINT, "no item matches"),
        ({"oneOf": [{}, {}]}, 1, Kind.CONSTRAINT, "matches more than one of the allowed shapes"),
        ({"properties": {"a": False}}, {"a": 1}, Kind.BAD_VALUE, "this value is not allowed here"),
        # keywords none of the tool's schemas uses: jsonschema's own words, still a problem
        ({"maxLength": 2}, "abc", Kind.BAD_VALUE, "'abc' is too long"),
        ({"uniqueItems": True}, [1, 1], Kind.BAD_VALUE, "[1, 1] has non-unique elements"),
    ],
)
def test_each_keyword_in_the_tools_words(
    schema: dict[str, Any], instance: Any, kind: Kind, message: str
) -> None:
    problem = _one(schema, instance)
    assert (problem.kind, problem.message) == (kind, message)


def test_an_integral_float_is_an_integer_as_json_schema_says() -> None:
    assert problems(compile_validator({"type": "integer"}), 1.0) == []


def test_a_scalar_where_text_belongs_hints_at_quoting() -> None:
    assert _one({"type": "string"}, 42).hint == "quote the value if it is meant as text"
    assert _one({"type": "string"}, None).hint is None  # an empty value: quoting would not help
    assert _one({"type": "string"}, [1]).hint is None


def test_unknown_fields_get_did_you_mean_or_the_allowed_fields() -> None:
    schema = {"properties": {"pr-link": {}, "config-keys": {}}, "additionalProperties": False}
    typo, other = problems(compile_validator(schema), {"pr_link": 1, "zzz": 2, "config-keys": 3})
    assert typo == Problem(
        ("pr_link",), Kind.UNKNOWN_FIELD, "unknown field 'pr_link'", "did you mean 'pr-link'?",
        ("additionalProperties",),
    )  # fmt: skip
    assert (other.path, other.hint) == (("zzz",), "allowed fields: pr-link, config-keys")
    ticked = _one(schema, {"pr-lnk": 1}, quote="`")
    assert (ticked.message, ticked.hint) == ("unknown field `pr-lnk`", "did you mean `pr-link`?")
    assert _one(schema, {"pr-link" * 10: 1}).hint == "allowed fields: pr-link, config-keys"
    many = {"properties": {f"field-{i}": {} for i in range(30)}, "additionalProperties": False}
    assert _one(many, {"zzz": 1}).hint is None  # thirty names are no hint


def test_a_key_outside_property_names_is_an_unknown_field() -> None:
    schema = {"propertyNames": {"enum": ["master-schema", "models"]}}
    assert problems(compile_validator(schema), {"models": 1}) == []
    problem = _one(schema, {"master-schma": "off"})
    assert (problem.path, problem.kind) == (("master-schma",), Kind.UNKNOWN_FIELD)
    assert problem.hint == "did you mean 'master-schema'?"


def test_an_enum_value_gets_did_you_mean() -> None:
    problem = _one({"enum": ["mtp", "draft_model", "none"]}, "draft-model")
    assert problem.hint == "did you mean 'draft_model'?"
    assert _one({"enum": ["mtp"]}, 7).hint is None


def test_every_missing_field_once() -> None:
    found = problems(compile_validator({"required": ["a", "b", "c"]}), {"b": 1})
    assert [(p.path, p.message) for p in found] == [
        ((), "missing required field 'a'"),
        ((), "missing required field 'c'"),
    ]


def test_a_wrong_type_silences_the_rest_of_its_subschema_only() -> None:
    schema = {
        "properties": {
            "mode": {"type": "string", "enum": ["a", "b"]},
            "row": {"$ref": "#/$defs/row"},
        },
        "$defs": {"row": {"type": "object", "not": {"required": ["x"]}, "minProperties": 1}},
    }
    found = problems(compile_validator(schema), {"mode": 5, "row": "text"})
    assert [(p.path, p.kind) for p in found] == [
        (("mode",), Kind.WRONG_TYPE),
        (("row",), Kind.WRONG_TYPE),
    ]
    # the same value judged by a sibling subschema still says its own piece
    both = {"allOf": [{"type": "string"}, {"const": "x"}]}
    kinds = [p.kind for p in problems(compile_validator(both), 5)]
    assert kinds == [Kind.WRONG_TYPE, Kind.BAD_VALUE]


ROWS = {
    "$defs": {
        "row": {
            "type": "object",
            "properties": {"prefill": {"type": "object"}, "tp": {"type": "integer"}},
            "if": {"required": ["prefill"]},
            "then": {
                "properties": {"prefill": {"required": ["hardware"]}},
                "x-message": "`hardware` must be given",
            },
        },
        "rows": {
            "type": "array",
            "items": {"$ref": "#/$defs/row"},
        },
    },
    "properties": {
        "rows": {"$ref": "#/$defs/rows"},
        "wrapped": {"properties": {"inner": {"const": 1}}, "x-message": "the outer rule"},
    },
}


def test_an_x_message_replaces_what_tripped_inside_at_the_value_it_judges() -> None:
    instance = {"rows": [{"tp": 1}, {"prefill": {}, "tp": "x"}], "wrapped": {"inner": {"x": 2}}}
    found = problems(compile_validator(ROWS), instance)
    assert sorted((p.path, p.kind, p.message) for p in found) == [
        (("rows", 1), Kind.CONSTRAINT, "`hardware` must be given"),  # not at rows[1].prefill
        (("rows", 1, "tp"), Kind.WRONG_TYPE, "must be an integer, not 'x'"),
        (("wrapped",), Kind.CONSTRAINT, "the outer rule"),
    ]


def test_an_outer_x_message_wins_over_an_inner_one() -> None:
    schema = {
        "properties": {
            "a": {
                "x-message": "outer",
                "properties": {"b": {"minimum": 1, "x-message": "inner"}},
            }
        }
    }
    assert _one(schema, {"a": {"b": 0}}) == Problem(
        ("a",), Kind.CONSTRAINT, "outer", None, ("properties", "a", "properties", "b", "minimum")
    )


def test_any_of_names_the_closest_branch_or_none_when_they_tie() -> None:
    schema = {
        "anyOf": [
            {"type": "object", "properties": {"n": {"type": "integer"}}},
            {"type": "string"},
        ]
    }
    closest = _one(schema, {"n": "x"})
    assert (closest.path, closest.message) == (("n",), "must be an integer, not 'x'")
    tie = _one({"anyOf": [{"required": ["a"]}, {"required": ["b"]}]}, {})
    assert (tie.kind, tie.message) == (Kind.CONSTRAINT, "matches none of the allowed shapes")


def test_a_regex_that_does_not_compile_is_a_bad_value() -> None:
    problem = _one({"type": "string", "format": "regex"}, "(open")
    assert problem.kind is Kind.BAD_VALUE
    assert problem.message.startswith("not a valid regular expression: missing )")


def test_the_validator_follows_the_draft_the_schema_declares() -> None:
    draft7 = {"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "string"}]}
    assert isinstance(compile_validator(draft7), jsonschema.Draft7Validator)
    assert _one(draft7, [1]).path == (0,)  # draft 7's tuple form of items


def test_paths_are_named_as_a_person_writes_them() -> None:
    assert dotted(("scenarios", "fixed-seq-len", 0, "search-space", 2, "tp")) == (
        "scenarios.fixed-seq-len[0].search-space[2].tp"
    )
    assert dotted(()) == ""
    assert [show(v) for v in (None, True, 1.5, {}, [], "x")] == [
        "null", "true", "1.5", "a mapping", "a list", "'x'"
    ]  # fmt: skip


def test_a_problem_is_located_at_its_key_or_its_value() -> None:
    loaded = yamlload.load("entries:\n  - name: a\n    nmae: b\n    size: [\n      1]\n")
    schema = {
        "properties": {
            "entries": {
                "items": {
                    "properties": {"name": {}, "size": {"type": "integer"}},
                    "required": ["name", "id"],
                    "additionalProperties": False,
                }
            }
        }
    }
    found = problems(compile_validator(schema), loaded.value)
    where = {p.kind: position(p, loaded) for p in found}
    assert where == {
        Kind.UNKNOWN_FIELD: (3, 5),  # the key `nmae`
        Kind.MISSING_FIELD: (2, 5),  # the mapping that lacks `id`
        Kind.WRONG_TYPE: (4, 11),  # the value of `size`
    }
    # inside a larger document: the instance's own path is given
    inner = problems(compile_validator(schema["properties"]["entries"]), loaded.value["entries"])
    assert {position(p, loaded, ("entries",)) for p in inner} == set(where.values())
