"""The ledger's one YAML reader: values from ruamel's event parser, with positions and refusals.

`yamlload.load` builds plain values from the parser's events itself (positions of every value
and key, duplicate keys and anchors refused, a depth limit without recursion). These tests hold
its values to ruamel's own safe loader on texts that loader reads the same way, and pin the
positions and refusals that only the builder gives.
"""

from __future__ import annotations

import io
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from changelog_tools import diagnostics as dx
from changelog_tools import yamlload
from changelog_tools.testing import synth


def ruamel_safe(text: str) -> Any:
    from ruamel.yaml import YAML

    return YAML(typ="safe", pure=True).load(io.StringIO(text))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 40), st.integers(0, 2**32 - 1))
def test_synthetic_ledgers_read_as_ruamel_s_own_loader_reads_them(size_kib: int, seed: int) -> None:
    text = synth.ledger_of_size(size_kib * 1024, seed=seed).decode("utf-8")
    assert yamlload.load(text).value == ruamel_safe(text)


def test_every_value_and_key_has_its_line_and_column() -> None:
    text = "- a: 1\n  b:\n    - x\n    - 'y'\n- c: {d: e}\n"
    loaded = yamlload.load(text, line_offset=10)
    assert loaded.value == [{"a": 1, "b": ["x", "y"]}, {"c": {"d": "e"}}]
    assert loaded.marks[(0, "a")] == (11, 6)
    assert loaded.key_marks[(0, "b")] == (12, 3)
    assert loaded.marks[(0, "b", 1)] == (14, 7)
    assert loaded.marks[(1, "c", "d")] == (15, 10)


def test_a_duplicate_key_is_refused_at_its_second_occurrence() -> None:
    with pytest.raises(yamlload.YamlProblem) as caught:
        yamlload.load("- a: 1\n  b: 2\n  a: 3\n")
    assert caught.value.line == 3
    assert "a" in caught.value.message


def test_an_anchor_is_refused_before_anything_is_expanded() -> None:
    bomb = "- a: &x [1, 2]\n  b: [*x, *x, *x]\n"
    with pytest.raises(yamlload.YamlProblem) as caught:
        yamlload.load(bomb)
    assert caught.value.line == 1


@pytest.mark.parametrize("depth", [1, 2])
def test_a_small_depth_limit_stops_the_read(depth: int) -> None:
    with pytest.raises(yamlload.YamlProblem):
        yamlload.load("- a:\n    - x\n", max_depth=depth)
    assert yamlload.load("- a:\n    - x\n", max_depth=3).value == [{"a": ["x"]}]


def test_a_20000_deep_list_fails_fast_without_recursion() -> None:
    with pytest.raises(yamlload.YamlProblem):
        yamlload.load("[" * 20000 + "]" * 20000)


def test_a_control_character_is_reported_where_it_is() -> None:
    # The reader's error carries a character offset into the document; it must be counted in
    # the document, not in the last scalar read before it.
    text = "- a: word\n" * 50 + "- a: x\x01y\n"
    with pytest.raises(yamlload.YamlProblem) as caught:
        yamlload.load(text)
    assert (caught.value.code, caught.value.line, caught.value.column) == (dx.YAML_SYNTAX, 51, 7)
