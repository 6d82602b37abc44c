"""The quick schema interpreter never disagrees with jsonschema, and decides real entries."""

from __future__ import annotations

from typing import Any

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

from changelog_tools.config import OPTIONS, config_schema
from changelog_tools.ledger.schema import entry_schema, known_fields
from changelog_tools.quickschema import quick_valid
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
KEYS = st.sampled_from([*known_fields(), "pr_link", "bogus"])


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


@settings(max_examples=400, deadline=None)
@given(entries_like())
def test_quick_answers_agree_with_jsonschema(instance: Any) -> None:
    expected = jsonschema.Draft202012Validator(entry_schema()).is_valid(instance)
    assert quick_valid(entry_schema(), instance) in (None, expected)


def test_synthetic_entries_are_decided_valid_without_jsonschema() -> None:
    from changelog_tools.ledger.document import parse_ledger

    ledger = parse_ledger(synth.ledger(50, seed=3), path="p.yaml", validate_entries=False)
    assert all(quick_valid(entry_schema(), e) is True for e in ledger.entries)


def test_an_unhandled_keyword_leaves_the_decision_to_jsonschema() -> None:
    assert quick_valid({"type": "string", "format": "uri"}, "abc") is None
    assert quick_valid({"type": "array", "uniqueItems": True}, [1, 1]) is None
    assert quick_valid({"type": "integer"}, 1.0) is None
    assert quick_valid({"type": "integer"}, True) is False
    assert quick_valid({"enum": ["a"]}, "b") is False


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
def test_quick_answers_agree_with_jsonschema_on_configurations(instance: Any) -> None:
    expected = jsonschema.Draft202012Validator(config_schema()).is_valid(instance)
    assert quick_valid(config_schema(), instance) in (None, expected)


def test_every_default_configuration_is_decided_valid_without_jsonschema() -> None:
    # The config loader trusts a True here and skips jsonschema: the common case must be True.
    assert quick_valid(config_schema(), {o.name: o.default for o in OPTIONS}) is True
    assert quick_valid(config_schema(), {"github-retry-backoff": 0.5, "repository": "o/r"}) is True
    assert quick_valid(config_schema(), {"repository": "no slash"}) is False
    assert quick_valid(config_schema(), {"github-retries": 21}) is False
    assert quick_valid(config_schema(), {"check-poll-interval": 0}) is False  # exclusiveMinimum
    assert quick_valid(config_schema(), {"check-poll-interval": 0.5}) is True
