"""How `config-keys` patterns select master-config keys: only `*` is a wildcard, anchored,
answered without backtracking, with the closest keys as a hint."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from changelog_tools.ledger import keypatterns as kp

NAMES = ["config-b", "config-a", "conf?g-c", "other-config-a"]


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("config-a", ["config-a"]),
        ("config-*", ["config-b", "config-a"]),
        ("*config-a", ["config-a", "other-config-a"]),
        ("config", []),  # anchored: no prefix match
        ("config-?", []),  # `?` is literal
        ("conf?g-*", ["conf?g-c"]),
        ("[c]onfig-a", []),  # brackets are literal
        ("*", NAMES),
    ],
)
def test_only_star_is_a_wildcard_and_patterns_are_anchored(
    pattern: str, expected: list[str]
) -> None:
    assert kp.resolve_key(pattern, NAMES) == expected


def test_several_patterns_resolve_without_duplicates_in_first_seen_order() -> None:
    assert kp.resolve_keys(["config-*", "config-a", "other-*"], NAMES) == [
        "config-b",
        "config-a",
        "other-config-a",
    ]


def test_suggestions_offer_the_closest_keys_for_typos_and_wildcards() -> None:
    names = ["dsr1-fp4-b200-sglang", "dsr1-fp4-b200-trt", "gptoss-fp4-h100-vllm"]
    assert kp.suggestions("dsr1-fp4-b200-sglng", names)[0] == "dsr1-fp4-b200-sglang"
    assert "dsr1-fp4-b200-trt" in kp.suggestions("dsr1-fp4-b300-*", names)
    assert kp.suggestions("zzz", names) == []


_WILD = st.text(alphabet="ab-*", max_size=8)


@settings(max_examples=300, deadline=None)
@given(pattern=_WILD, name=st.text(alphabet="ab-", max_size=10))
def test_wildcard_matching_agrees_with_the_anchored_regex(pattern: str, name: str) -> None:
    expected = kp.wildcard_regex(pattern).match(name) is not None
    assert kp.wildcard_match(pattern, name) is expected
