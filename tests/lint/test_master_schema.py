"""`master-schema`: master-config entries the change adds or modifies match the schema."""

from __future__ import annotations

import copy
import json
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

from changelog_tools import yamlload
from changelog_tools.lint.masterschema import entry_problems, spec_values
from changelog_tools.schemaerrors import Kind
from tests.conftest import inferencex_file
from tests.lint.world import AMD_MASTER, NVIDIA_MASTER, change, found, lint_change, make_world

AMD = "configs/amd-master.yaml"
SCHEMA = json.loads(
    resources.files("changelog_tools").joinpath("schemas", "master-config.schema.json").read_text()
)


def _lint(tmp_path: Path, amd: str) -> Any:
    root = make_world(tmp_path / "r")
    change(root, {AMD: amd})
    return lint_change(root, rules=("master-schema",))


def test_a_typo_is_an_error_at_its_line_with_did_you_mean(tmp_path: Path) -> None:
    result = _lint(tmp_path, AMD_MASTER.replace("{ tp: 8, conc-start: 4", "{ tp: 8, conc-strat: 4"))
    codes = found(result)
    assert ("CL701", AMD, 14) in codes
    typo = next(d for d in result.findings if d.code == "CL701")
    assert "unknown field 'conc-strat'" in typo.message
    assert typo.hint == "did you mean 'conc-start'?"
    assert typo.rule == "master-schema"


def test_a_wrong_type_is_an_error_at_the_value(tmp_path: Path) -> None:
    result = _lint(tmp_path, AMD_MASTER.replace("{ tp: 8, spec", "{ tp: eight, spec"))
    assert found(result) == [("CL703", AMD, 15)]
    assert "tp: must be an integer, not 'eight'" in result.findings[0].message


def test_an_unknown_spec_value_is_a_bad_value_with_did_you_mean(tmp_path: Path) -> None:
    result = _lint(tmp_path, AMD_MASTER.replace("spec-decoding: mtp", "spec-decoding: mtpp"))
    assert found(result) == [("CL704", AMD, 15)]
    assert result.findings[0].hint == "did you mean 'mtp'?"


def test_a_missing_field_and_a_cross_field_rule(tmp_path: Path) -> None:
    broken = AMD_MASTER.replace("  model-prefix: alpha\n", "").replace(
        "conc-list: [4, 8]", "conc-list: [4, 8], conc-start: 1"
    )
    result = _lint(tmp_path, broken)
    assert found(result) == [("CL702", AMD, 2), ("CL705", AMD, 14)]
    assert "missing required field 'model-prefix'" in result.findings[0].message


def test_only_entries_the_change_touches_are_judged(tmp_path: Path) -> None:
    # The base already holds an invalid entry; the change edits another: not this PR's problem.
    bad = NVIDIA_MASTER.replace("tp: 4,", "tp: four,")
    root = make_world(tmp_path / "r", {"configs/nvidia-master.yaml": bad})
    change(root, {AMD: AMD_MASTER.replace("v0.11.0", "v0.11.1")})
    result = lint_change(root, rules=("master-schema",))
    assert found(result) == []
    outcome = result.outcome("master-schema")
    assert outcome is not None and outcome.judged == ("alpha-fp8-h200-vllm",)


def test_a_change_outside_master_configs_is_not_applicable(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    change(root, {"README.md": "x\n"})
    outcome = lint_change(root, rules=("master-schema",)).outcome("master-schema")
    assert outcome is not None and not outcome.applicable


def test_the_spec_enum_is_what_launchers_and_docs_are_checked_against() -> None:
    assert spec_values() == ("mtp", "draft_model", "none")


def test_the_spec_enum_matches_inferencex_validation() -> None:
    import re

    text = inferencex_file("utils/matrix_logic/validation.py").read_text()
    literals = set(re.findall(r"spec_decoding: Literal\[([^\]]*)\]", text))
    assert literals == {'"mtp", "draft_model", "none"'}
    assert tuple(json.loads(f"[{literals.pop()}]")) == spec_values()


def _entries(text: str) -> list[Any]:
    return list(yamlload.load(text).value.values())


def test_the_schema_is_valid_json_schema_and_accepts_the_world() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    for entry in _entries(AMD_MASTER) + _entries(NVIDIA_MASTER):
        assert entry_problems(entry) == []


def test_every_real_inferencex_entry_is_valid() -> None:
    for name in ("amd", "nvidia"):
        text = inferencex_file(f"configs/{name}-master.yaml").read_text()
        loaded = yamlload.load(text).value
        bad = {k: entry_problems(v) for k, v in loaded.items() if entry_problems(v)}
        assert bad == {}
        assert len(loaded) > 40


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path] if path else []
    if isinstance(value, dict):
        for k, v in value.items():
            out += _leaves(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _leaves(v, (*path, i))
    return out


MULTI = {
    "image": "nvcr.io/x:1", "model": "m", "model-prefix": "m", "precision": "fp4",
    "framework": "dynamo-trt", "runner": "cluster:b200", "multinode": True, "disagg": True,
    "kv-p2p-transfer": "nixl",
    "scenarios": {
        "fixed-seq-len": [{"isl": 8192, "osl": 1024, "search-space": [{
            "spec-decoding": "mtp", "conc-list": [4],
            "prefill": {"num-worker": 1, "tp": 4, "ep": 4, "dp-attn": True},
            "decode": {"num-worker": 1, "tp": 8, "ep": 8, "dp-attn": False}}]}],
        "agentic-coding": [{"dram-utilization": 0.5, "search-space": [{
            "conc-start": 1, "conc-end": 8,
            "prefill": {"num-worker": 1, "tp": 4, "ep": 4, "dp-attn": True, "hardware": "b200"},
            "decode": {"num-worker": 1, "tp": 8, "ep": 8, "dp-attn": False, "hardware": "b200"}},
            {"tp": 8, "kv-offloading": "dram", "kv-offload-backend": {"name": "lmcache"},
             "conc-list": [2]}]}],
    },
}  # fmt: skip

SEEDS = [*_entries(AMD_MASTER), *_entries(NVIDIA_MASTER), MULTI]
MUTATIONS = st.sampled_from(["delete", "text", "zero", "true", "null", "rename", "float"])


@settings(max_examples=300, deadline=None)
@given(seed=st.sampled_from(SEEDS), data=st.data(), how=MUTATIONS)
def test_every_broken_entry_has_a_problem_at_a_value_it_holds(
    seed: Any, data: st.DataObject, how: str
) -> None:
    entry = copy.deepcopy(seed)
    path = data.draw(st.sampled_from(_leaves(entry)))
    parent = entry
    for part in path[:-1]:
        parent = parent[part]
    key = path[-1]
    if how == "delete":
        parent.pop(key)
    elif how == "rename" and isinstance(parent, dict):
        parent[f"{key}x"] = parent.pop(key)
    else:
        parent[key] = {"text": "eight", "zero": 0, "true": True, "null": None, "rename": 1,
                       "float": 0.5}[how]  # fmt: skip
    found = entry_problems(entry)
    assert (not found) == jsonschema.Draft202012Validator(SCHEMA).is_valid(entry), (path, how)
    for problem in found:  # each points at a value the entry holds, so it has a line
        assert problem.path in {(), *_leaves(entry)}, (problem, how)


def test_a_row_of_the_wrong_type_is_one_problem_not_every_rule_about_rows() -> None:
    entry = copy.deepcopy(_entries(AMD_MASTER)[0])
    row = ("scenarios", "fixed-seq-len", 0, "search-space", 0)
    entry["scenarios"]["fixed-seq-len"][0]["search-space"][0] = 8
    at_row = [(p.kind, p.message) for p in entry_problems(entry) if p.path == row]
    assert at_row == [(Kind.WRONG_TYPE, "must be a mapping, not 8")]


def test_a_cross_field_rule_speaks_at_the_row_it_judges() -> None:
    broken = copy.deepcopy(MULTI)
    row = broken["scenarios"]["agentic-coding"][0]["search-space"][0]
    del row["decode"]["hardware"]
    (problem,) = entry_problems(broken)
    assert problem.path == ("scenarios", "agentic-coding", 0, "search-space", 0)
    assert problem.message == "`hardware` must be given for both `prefill` and `decode`, or neither"


def test_the_multinode_seed_is_valid_and_a_disagg_entry_needs_a_transfer() -> None:
    assert entry_problems(MULTI) == []
    broken = copy.deepcopy(MULTI)
    del broken["kv-p2p-transfer"]
    (problem,) = entry_problems(broken)
    assert problem.kind is Kind.CONSTRAINT and "kv-p2p-transfer" in problem.message
    assert problem.path == ()


def test_an_entry_that_is_not_valid_yaml_is_a_lint_input_error(tmp_path: Path) -> None:
    result = _lint(tmp_path, AMD_MASTER.replace("  precision: fp8\n", "  precision: [fp8\n"))
    assert found(result) == [("CL700", AMD, 7)]  # where the parser gave up
    assert "invalid YAML" in result.findings[0].message
