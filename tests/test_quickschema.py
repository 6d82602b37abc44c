"""The quick schema interpreter never disagrees with jsonschema, and decides real entries."""

from __future__ import annotations

from typing import Any

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

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
    assert quick_valid({"type": "string", "pattern": "^a"}, "abc") is None
    assert quick_valid({"type": "integer"}, 1.0) is None
    assert quick_valid({"type": "integer"}, True) is False
    assert quick_valid({"enum": ["a"]}, "b") is False
