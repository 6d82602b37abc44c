"""The ledger's one YAML reader: values from ruamel's event parser, with positions and refusals.

`yamlload.load` builds plain values from the parser's events itself (positions of every value
and key, duplicate keys and anchors refused, a depth limit without recursion). These tests hold
its values to ruamel's own safe loader on texts that loader reads the same way, and pin the
positions and refusals that only the builder gives.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from changelog_tools import diagnostics as dx
from changelog_tools import yamlload
from changelog_tools.testing import synth
from tests.checkdata import (
    DESCRIPTION_LINE,
    KEY,
    appended,
    check_json,
    entry,
    error_lines,
    no_crash,
    project,
)
from tests.conftest import run_cli


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


# -- huge integers and YAML 1.1 vs 1.2 readings ------------------------------------------------


@pytest.mark.parametrize("digits", [1001, 4301, 100_000])
def test_a_huge_plain_integer_is_one_error_at_its_line_not_exit_70(
    tmp_path: Path, digits: int
) -> None:
    number = "7" * digits
    head = appended(entry(KEY, description="x").replace(b'    - "x"', f"    - {number}".encode()))
    project(tmp_path, head)
    (tmp_path / "perf-changelog.yaml").write_bytes(head)
    proc = run_cli("validate", "--format", "json", "perf-changelog.yaml", cwd=tmp_path)
    no_crash(proc)
    assert proc.returncode == 1
    assert error_lines(proc) == [("CL031", DESCRIPTION_LINE)]
    proc = check_json(tmp_path)
    assert proc.returncode == 1
    assert ("CL031", DESCRIPTION_LINE) in error_lines(proc)
    quoted = head.replace(number.encode(), f'"{number}"'.encode())
    (tmp_path / "perf-changelog.yaml").write_bytes(quoted)
    assert run_cli("validate", "perf-changelog.yaml", cwd=tmp_path).returncode == 0


# Plain scalars with their YAML 1.1 reading (PyYAML's), where YAML 1.2 reads another value.
YAML11_DIFFERENT = [
    "yes", "No", "ON", "off", "y", "N", "=", "<<", "1_000", "12:30", "1:30.5", "010", "-017",
    "0o17", "0b101", "-0x1F", "1e3", "1.5e3", "-.5", "08", "2024-01-31", "2001-12-14 21:59:43",
]  # fmt: skip


YAML11_SAME = ["hello", "0", "7", "007", "12", "-3", "1.5", ".5", "0x1F", "true", "null", "~",
               "1.0e+3", ".inf", "-.inf", ".nan", "yEs", "onion", "2024-1-1x", "v1.2.3"]  # fmt: skip


def _one(text: str) -> yamlload.Loaded:
    return yamlload.load(f"- {text}\n")


@pytest.mark.parametrize("text", YAML11_DIFFERENT)
def test_a_scalar_yaml_1_1_reads_differently_is_flagged(text: str) -> None:
    assert [code for code, *_ in _one(text).notes] == ["CL030"]
    assert _one(f'"{text}"').notes == []  # the quoted form passes


@pytest.mark.parametrize("text", YAML11_SAME)
def test_a_scalar_both_versions_read_alike_is_not_flagged(text: str) -> None:
    assert _one(text).notes == []


def test_yaml_1_1_scalars_fail_validate_and_check_at_their_line_and_pass_quoted(
    tmp_path: Path,
) -> None:
    def head(items: list[str]) -> bytes:
        body = "".join(f"    - {i}\n" for i in items)
        return appended(entry(KEY).replace(b'    - "A change"\n', body.encode()))

    plain = head(["yes", "=", "1_000", "12:30"])
    project(tmp_path, plain)
    (tmp_path / "perf-changelog.yaml").write_bytes(plain)
    proc = run_cli("validate", "--format", "json", "perf-changelog.yaml", cwd=tmp_path)
    assert proc.returncode == 1
    assert error_lines(proc) == [("CL030", DESCRIPTION_LINE + k) for k in range(4)]
    hints = [d["hint"] for d in json.loads(proc.stdout)["diagnostics"]]
    assert hints[0] == 'quote it, `"yes"`, so that both read the same string'
    proc = check_json(tmp_path)
    assert proc.returncode == 1
    assert [f for f in error_lines(proc) if f[0] == "CL030"] == [
        ("CL030", DESCRIPTION_LINE + k) for k in range(4)
    ]
    quoted = head(['"yes"', '"="', "'1_000'", '"12:30"'])
    project(tmp_path, quoted)
    (tmp_path / "perf-changelog.yaml").write_bytes(quoted)
    assert run_cli("validate", "perf-changelog.yaml", cwd=tmp_path).returncode == 0
    assert check_json(tmp_path).returncode == 0


# Scalars built from the pieces YAML 1.1 and 1.2 resolve differently.
_PIECES = ["0", "1", "7", "8", "9", "_", ":", ".", "e", "E", "+", "-", "x", "o", "b", "a", "f"]


_WORDS = ["yes", "no", "on", "off", "y", "n", "Yes", "NO", "On", "OFF", "true", "null", "=",
          "<<", "~", ".inf", ".nan", "2024-01-31", "1:30", "0o", "0x", "0b"]  # fmt: skip


yaml11_scalars = st.one_of(
    st.sampled_from(_WORDS),
    st.lists(st.sampled_from(_PIECES), min_size=1, max_size=8).map("".join),
    st.tuples(st.sampled_from(_WORDS), st.lists(st.sampled_from(_PIECES), max_size=3)).map(
        lambda t: t[0] + "".join(t[1])
    ),
)


def _plain_ours(text: str) -> yamlload.Loaded | None:
    try:
        loaded = yamlload.load(f"- {text}\n")
    except yamlload.YamlProblem:
        return None
    # Only single plain scalars ("- -1" is a nested list, "- a: b" a mapping).
    if not (isinstance(loaded.value, list) and len(loaded.value) == 1):
        return None
    if isinstance(loaded.value[0], (list, dict)):
        return None
    return loaded


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(yaml11_scalars)
def test_the_yaml_1_1_rule_agrees_with_pyyaml(text: str) -> None:
    """Compared with PyYAML's real YAML 1.1 resolver: every scalar it reads differently from us
    is flagged, and every flagged one it reads differently (except y/n, which PyYAML leaves out
    of the 1.1 booleans and other 1.1 readers do not)."""
    yaml = pytest.importorskip("yaml", reason="PyYAML is a test extra: pip install -e '.[test]'")
    ours = _plain_ours(text)
    if ours is None:
        return
    ours_value = ours.value[0]
    try:
        theirs: Any = yaml.safe_load(f"- {text}\n")[0]
        same = type(theirs) is type(ours_value) and (
            theirs == ours_value or (theirs != theirs and ours_value != ours_value)  # NaN
        )
    except (yaml.YAMLError, ValueError, TypeError):
        same = False  # `=`, `<<` and impossible dates: PyYAML cannot read them at all
    if ours_value == "" and theirs is None:
        same = True  # "no value" either way; the schema rules judge an empty field
    flagged = [c for c, *_ in ours.notes if c == "CL030"] != []
    if text in ("y", "Y", "n", "N"):
        assert flagged
        return
    assert flagged == (not same), (text, ours_value, theirs if "theirs" in dir() else None)


# -- hostile and odd inputs to the ledger commands ---------------------------------------------


def test_a_control_character_in_a_master_config_is_one_line_with_its_position() -> None:
    from changelog_tools import yamlload

    with pytest.raises(yamlload.YamlProblem) as caught:
        yamlload.load('a-key:\n  image: "x\x07"\n', line_offset=10)
    problem = caught.value
    assert (problem.line, problem.column) == (12, 12)
    assert problem.message == (
        "invalid YAML: unacceptable character U+0007 (control characters are not allowed)"
    )
