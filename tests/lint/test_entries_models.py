"""`images`, `engine-first` and `models`: rules about the entries a change adds or modifies."""

from __future__ import annotations

import datetime
from dataclasses import replace
from pathlib import Path

from changelog_tools.config import defaults
from changelog_tools.lint.models import parse_models
from tests.conftest import inferencex_file
from tests.lint.world import AMD_MASTER, MODELS_MD, change, found, lint_change, make_world

AMD = "configs/amd-master.yaml"


def _entry(name: str, *, image: str, prefix: str, runner: str, precision: str = "fp8",
           framework: str = "vllm", isl: int = 8192, osl: int = 1024) -> str:  # fmt: skip
    return (
        f"{name}:\n  image: {image}\n  model: org/{prefix}\n  model-prefix: {prefix}\n"
        f"  runner: {runner}\n  precision: {precision}\n  framework: {framework}\n"
        "  multinode: false\n  scenarios:\n    fixed-seq-len:\n"
        f"    - isl: {isl}\n      osl: {osl}\n      search-space:\n      - {{ tp: 8, conc-list: [4] }}\n"
    )


def test_a_vllm_entry_on_an_established_sku_needs_the_upstream_image(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    text = AMD_MASTER.replace("image: vllm/vllm-openai:v0.11.0", "image: ghcr.io/fork/vllm:dev")
    change(root, {AMD: text})
    result = lint_change(root, rules=("images",))
    assert found(result) == [("CL760", AMD, 2)]
    assert "vllm on h200 must use the upstream image" in result.findings[0].message


def test_hash_reads_as_slash_and_unestablished_skus_are_free(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    hashed = AMD_MASTER.replace("vllm/vllm-openai:v0.11.0", "docker.io#vllm/vllm-openai-rocm:v1")
    extra = _entry("alpha-fp8-rtx6000pro-vllm", image="me/custom:1", prefix="alpha",
                   runner="rtx6000pro-lat")  # fmt: skip
    change(root, {AMD: hashed + extra})
    result = lint_change(root, rules=("images",))
    assert found(result) == []
    assert result.outcome("images").judged == ("alpha-fp8-h200-vllm",)  # type: ignore[union-attr]


def test_another_engine_without_a_vllm_or_sglang_sibling_fails_engine_first(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    trt = _entry("gamma-fp8-h200-trt", image="nvcr.io/trt:1", prefix="gamma", runner="h200",
                 framework="trt")  # fmt: skip
    sibling = _entry("alpha-fp8-h200-trt", image="nvcr.io/trt:1", prefix="alpha", runner="h200",
                     framework="trt")  # fmt: skip
    change(root, {AMD: AMD_MASTER + trt + sibling})
    result = lint_change(root, rules=("engine-first",))
    # alpha has a vLLM entry on h200; gamma has none.
    assert found(result) == [("CL770", AMD, 22)]
    allow = ({"rule": "engine-first", "config-key": "gamma-*", "reason": "new architecture"},)
    cfg = replace(defaults(root), lint_allow=allow)
    assert found(lint_change(root, rules=("engine-first",), config=cfg)) == []


def test_a_retired_model_is_an_error_at_its_prefix(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    omega = _entry(
        "omega-fp8-h200-vllm", image="vllm/vllm-openai:v1", prefix="omega", runner="h200"
    )
    change(root, {AMD: AMD_MASTER + omega})
    result = lint_change(root, rules=("models",))
    assert found(result) == [("CL780", AMD, 19)]
    assert "model omega was retired on 2026-07-18 (MODELS.md:" in result.findings[0].message
    # Before the retirement date it was fine (--now).
    early = lint_change(root, rules=("models",), now=datetime.date(2026, 7, 17))
    assert found(early) == []


def test_a_deprecated_scenario_and_precision_are_errors_from_their_dates(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    old = _entry("alpha-fp8-h100-vllm", image="vllm/vllm-openai:v1", prefix="alpha",
                 runner="h100", isl=1024, osl=1024)  # fmt: skip
    bf16 = _entry("beta-bf16-h200-vllm", image="vllm/vllm-openai:v1", prefix="beta",
                  runner="h200", precision="bf16")  # fmt: skip
    change(root, {AMD: AMD_MASTER + old + bf16})
    result = lint_change(root, rules=("models",))
    assert found(result) == [("CL781", AMD, 26), ("CL781", AMD, 35)]
    # The notice's "last day" is August 3: deprecated from August 4.
    on_the_day = lint_change(root, rules=("models",), now=datetime.date(2026, 8, 3))
    assert found(on_the_day) == [("CL781", AMD, 26)]


def test_a_not_yet_enacted_table_is_skipped() -> None:
    rules = parse_models(MODELS_MD)
    assert not [r for r in rules if r.what == "arm"]
    assert {(r.prefix, r.what) for r in rules} == {
        ("omega", "model"),
        (None, "scenario"),
        ("beta", "precision"),
    }


def test_models_md_is_read_at_the_base(tmp_path: Path) -> None:
    # The PR un-retires its model in the same change: the base's MODELS.md still decides.
    root = make_world(tmp_path / "r")
    omega = _entry(
        "omega-fp8-h200-vllm", image="vllm/vllm-openai:v1", prefix="omega", runner="h200"
    )
    change(root, {AMD: AMD_MASTER + omega, "MODELS.md": MODELS_MD.replace("None (retired", "x (")})
    assert found(lint_change(root, rules=("models",))) == [("CL780", AMD, 19)]


def test_the_real_models_md_parses_to_its_tables() -> None:
    rules = parse_models(inferencex_file("MODELS.md").read_text())
    retired = {(r.prefix, str(r.since)) for r in rules if r.what == "model"}
    assert retired == {
        ("glm5", "2026-07-18"), ("glm5.1", "2026-07-18"), ("minimaxm2.5", "2026-06-20"),
        ("kimik2.5", "2026-08-07"), ("gptoss", "2026-07-06"), ("llama70b", "2025-10-29"),
    }  # fmt: skip
    scenarios = {(r.prefix, r.seq, str(r.since)) for r in rules if r.what == "scenario"}
    assert (None, (1024, 1024), "2026-07-17") in scenarios
    assert (None, (1024, 8192), "2026-03-27") in scenarios
    assert ("minimaxm3", (8192, 1024), "2026-08-04") in scenarios
    assert not [r for r in rules if r.what == "arm"]  # the spec-decode A/B table is not enacted


def test_a_list_or_mapping_where_a_scalar_belongs_is_a_schema_finding_not_a_crash(
    tmp_path: Path,
) -> None:
    # A pull request controls the master config: a value of the wrong shape must reach the
    # schema rule's finding, and every rule that compares the field must pass over it.
    root = make_world(tmp_path / "r")
    shapes = {
        "framework: vllm": "framework: [vllm]",
        "model-prefix: alpha": "model-prefix: {a: 1}",
        "precision: fp8": "precision: [fp8]",
    }
    text = AMD_MASTER
    for old, new in shapes.items():
        assert old in text
        text = text.replace(old, new, 1)
    change(root, {AMD: text})
    result = lint_change(root)
    assert not result.ok
    schema = result.outcome("master-schema")
    assert schema is not None
    wrong = sorted((d.code, d.path) for d in schema.findings)
    assert len(wrong) == len(shapes) and {c for c, _ in wrong} <= {"CL703", "CL704"}
    assert all(o.findings == () for o in result.outcomes if o.rule in ("images", "engine-first"))


def test_a_date_that_does_not_exist_in_models_md_is_a_warning_at_its_line(
    tmp_path: Path,
) -> None:
    # MODELS.md is read at the base: a typo there must not crash every later pull request.
    bad = MODELS_MD.replace("retired 2026-07-18", "retired 2026-02-30").replace(
        "since 2026-07-17", "since 2026-13-01"
    )
    problems: list[tuple[int, str]] = []
    rules = parse_models(bad, problems)
    assert {r.what for r in rules} == {"precision"}
    assert sorted(reason for _, reason in problems) == [
        "2026-02-30 is not a date",
        "2026-13-01 is not a date",
    ]
    root = make_world(tmp_path / "r", {"MODELS.md": bad})
    omega = _entry(
        "omega-fp8-h200-vllm", image="vllm/vllm-openai:v1", prefix="omega", runner="h200"
    )
    change(root, {AMD: AMD_MASTER + omega})
    result = lint_change(root, rules=("models",))
    assert sorted((d.code, d.path, d.severity.name) for d in result.findings) == [
        ("CL700", "MODELS.md", "WARNING"),
        ("CL700", "MODELS.md", "WARNING"),
    ]
    assert result.ok
