"""`spec-launchers` and `config-script`: entries reach a script, every spec value is routed."""

from __future__ import annotations

from pathlib import Path

from tests.lint.world import AMD_MASTER, LAUNCHER, change, found, lint_change, make_world

AMD = "configs/amd-master.yaml"
LAUNCH = "runners/launch_h200-nb.sh"
DRAFT_ROW = "      - { tp: 8, spec-decoding: draft_model, conc-list: [2] }\n"


def test_an_unmapped_value_no_config_uses_is_a_latent_warning(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    change(root, {LAUNCH: LAUNCHER + "echo done\n"})
    result = lint_change(root, rules=("spec-launchers",))
    assert found(result) == [("CL721", LAUNCH, 3)]
    assert result.ok


def test_an_unmapped_value_a_config_uses_is_an_error(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    change(root, {AMD: AMD_MASTER + DRAFT_ROW})
    result = lint_change(root, rules=("spec-launchers",))
    assert found(result) == [("CL720", LAUNCH, 3)]
    assert "alpha-fp8-h200-vllm (configs/amd-master.yaml:16) runs the non-speculative" in (
        result.findings[0].message
    )


def test_a_launcher_that_maps_every_value_is_clean(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    routed = LAUNCHER.replace(
        "BENCH_BASE=",
        '[[ "$SPEC_DECODING" == "draft_model" ]] && SPEC_SUFFIX=_draft\nBENCH_BASE=',
    )
    change(root, {LAUNCH: routed})
    assert found(lint_change(root, rules=("spec-launchers",))) == []


def test_a_launcher_with_no_spec_logic_is_not_judged(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    change(root, {"runners/launch_gb200-nv.sh": "#!/bin/bash\nsrun bench.sh\n"})
    result = lint_change(root, rules=("spec-launchers",))
    assert found(result) == []
    outcome = result.outcome("spec-launchers")
    assert outcome is not None and not outcome.applicable and outcome.judged == ()


def test_a_changed_entry_is_checked_against_every_launcher_for_its_values_only(
    tmp_path: Path,
) -> None:
    root = make_world(tmp_path / "r")
    change(root, {AMD: AMD_MASTER.replace("conc-list: [4, 8]", "conc-list: [4, 16]")})
    result = lint_change(root, rules=("spec-launchers",))
    assert found(result) == []  # mtp is mapped; the latent draft_model gap is not this PR's
    outcome = result.outcome("spec-launchers")
    assert outcome is not None and outcome.judged == (LAUNCH,)


def test_a_change_to_a_script_only_leaves_launchers_unjudged(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    change(root, {"benchmarks/single_node/fixed_seq_len/alpha_fp8_h200.sh": "echo\n"})
    outcome = lint_change(root, rules=("spec-launchers",)).outcome("spec-launchers")
    assert outcome is not None and not outcome.applicable


NEW_ENTRY = """gamma-fp4-h200-sglang:
  image: lmsysorg/sglang:v0.5.0
  model: org/gamma
  model-prefix: gamma
  runner: h200
  precision: fp4
  framework: sglang
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - { tp: 8, conc-list: [4] }
      - { tp: 8, spec-decoding: mtp, conc-list: [4] }
"""


def test_an_entry_whose_script_does_not_exist_is_an_error_per_spec_value(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    script = "benchmarks/single_node/fixed_seq_len/gamma_fp4_h200_sglang.sh"
    change(root, {AMD: AMD_MASTER + NEW_ENTRY, script: "echo\n"})
    result = lint_change(root, rules=("config-script",))
    # The non-spec row finds its framework-named script; the mtp row has none.
    assert found(result) == [("CL730", AMD, 30)]
    message = result.findings[0].message
    assert "gamma_fp4_h200_sglang_mtp.sh or benchmarks/single_node/fixed_seq_len/gamma_fp4_h200_mtp.sh" in message  # fmt: skip
    assert result.findings[0].hint.startswith(  # type: ignore[union-attr]
        "add benchmarks/single_node/fixed_seq_len/gamma_fp4_h200_mtp.sh"
    )


def test_deleting_a_script_an_unchanged_entry_runs_is_caught_only_in_an_audit(
    tmp_path: Path,
) -> None:
    root = make_world(tmp_path / "r")
    change(root, {"benchmarks/single_node/fixed_seq_len/beta_fp4_h200.sh": None})
    assert found(lint_change(root, rules=("config-script",))) == []
    audit = lint_change(root, rules=("config-script",), audit=True)
    assert found(audit) == [("CL730", "configs/nvidia-master.yaml", 14)]


def test_old_commits_keep_master_configs_under_dot_github(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    from tests.conftest import git

    (root / ".github").mkdir(exist_ok=True)
    git(root, "mv", "configs", ".github/configs")
    git(root, "commit", "-q", "-m", "old layout")
    change(root, {".github/configs/amd-master.yaml": AMD_MASTER + NEW_ENTRY})
    result = lint_change(root, rules=("config-script", "master-schema"))
    legacy = ".github/configs/amd-master.yaml"
    # Found there, parsed and valid; neither of the new entry's scripts exists.
    assert found(result) == [("CL730", legacy, 29), ("CL730", legacy, 30)]
