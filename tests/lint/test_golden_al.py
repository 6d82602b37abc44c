"""`golden-al`: agentic spec-decoding scripts pin the golden acceptance length."""

from __future__ import annotations

from pathlib import Path

import pytest

from changelog_tools.lint.goldenal import pins
from tests.conftest import INFERENCEX, inferencex_file
from tests.lint.world import AGENTIC_MTP, GOLDEN, change, found, lint_change, make_world

AGENTIC = "benchmarks/single_node/agentic/alpha_fp8_h200_mtp.sh"


def _golden(root: Path) -> list[tuple[str, str, int | None]]:
    return found(lint_change(root, rules=("golden-al",)))


def test_a_pin_off_the_curve_is_an_error_at_the_pin(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    change(root, {AGENTIC: AGENTIC_MTP.replace("=2.50", "=2.61")})
    result = lint_change(root, rules=("golden-al",))
    assert found(result) == [("CL790", AGENTIC, 3)]
    assert "pins AL 2.61, which is not a golden value for alpha at draft length 3" in (
        result.findings[0].message
    )
    assert "3 draft tokens: 2.5, 2.9" in (result.findings[0].hint or "")


def test_the_value_of_another_draft_length_does_not_count(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    change(root, {AGENTIC: AGENTIC_MTP.replace("=2.50", "=2.30")})  # the 2-token value
    assert _golden(root) == [("CL790", AGENTIC, 3)]


@pytest.mark.parametrize(
    "spelling",
    [
        'SPEC_CONFIG="{\\"num_speculative_tokens\\": 3, \\"synthetic_acceptance_length\\": 2.9}"',
        "export TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS=1.5",  # AL - 1
        "SPEC_DECODE_AL=2.5\nNUM_SPEC_TOKENS=3\natom --spec-decode-acceptance-length $SPEC_DECODE_AL",
        "SIMULATE_ACC_LEN=2.9\nNUM_SPEC_TOKENS=3\natom --spec-decode-acceptance-rate 0.63",
        "SYNTHETIC_ACCEPT_LEN=2.50\nNUM_SPEC_TOKENS=3\n"
        'printf \'{"synthetic_acceptance_length":%.2f}\' "$SYNTHETIC_ACCEPT_LEN"',
    ],
)
def test_every_engine_spelling_of_a_golden_pin_passes(tmp_path: Path, spelling: str) -> None:
    root = make_world(tmp_path / "r")
    change(root, {AGENTIC: f"#!/bin/bash\n{spelling}\nrun_agentic_replay_and_write_outputs\n"})
    assert _golden(root) == []
    wrong = spelling.replace("2.9", "2.7").replace("1.5", "1.7").replace("2.5", "2.7")
    change(root, {AGENTIC: f"#!/bin/bash\n{wrong}\nrun_agentic_replay_and_write_outputs\n"})
    assert [c for c, _p, _l in _golden(root)] == ["CL790"]


def test_an_unpinned_agentic_mtp_script_is_an_error(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    change(root, {AGENTIC: AGENTIC_MTP.replace("export SGLANG_SIMULATE_ACC_LEN=2.50\n", "")})
    assert _golden(root) == [("CL791", AGENTIC, 1)]


def test_a_model_without_a_golden_file_is_an_error(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    other = "benchmarks/single_node/agentic/zeta_fp8_h200_mtp.sh"
    change(root, {other: AGENTIC_MTP})
    assert _golden(root) == [("CL793", other, 3)]


def test_golden_files_are_read_at_the_base(tmp_path: Path) -> None:
    # The PR moves the curve to match its pin: the base's curve still decides.
    root = make_world(tmp_path / "r")
    from tests.lint.world import GOLDEN

    change(
        root,
        {
            AGENTIC: AGENTIC_MTP.replace("=2.50", "=2.61"),
            "golden_al_distribution/alpha_mtp.yaml": GOLDEN.replace("3: 2.50", "3: 2.61"),
        },
    )
    assert _golden(root) == [("CL790", AGENTIC, 3)]


def test_synthetic_acceptance_outside_agentic_scripts_is_an_error(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    script = "benchmarks/single_node/fixed_seq_len/alpha_fp8_h200_mtp.sh"
    from tests.lint.world import MTP_SCRIPT

    change(root, {script: MTP_SCRIPT.replace("vllm serve", "SGLANG_SIMULATE_ACC_LEN=3 vllm serve")})
    assert _golden(root) == [("CL792", script, 3)]


def test_every_real_agentic_mtp_script_pins_a_value() -> None:
    inferencex_file("benchmarks/single_node/agentic/dsv4_fp4_b200_sglang_mtp.sh")
    scripts = sorted((INFERENCEX / "benchmarks/single_node/agentic").glob("*_mtp.sh"))
    assert len(scripts) >= 30
    for script in scripts:
        found_pins, drafts = pins(script.read_text())
        assert found_pins and drafts, script.name


AGENTIC_ENTRY = """alpha-fp8-h200-sglang-agentic-mtp:
  image: lmsysorg/sglang:v0.5.0
  model: org/alpha
  model-prefix: alpha
  runner: cluster:h200-nb
  precision: fp8
  framework: sglang
  multinode: false
  scenarios:
    agentic-coding:
    - search-space:
      - { tp: 8, spec-decoding: mtp, kv-offloading: none, conc-list: [4] }
"""


def test_a_changed_entry_brings_the_script_it_runs_into_judgement(tmp_path: Path) -> None:
    # The script on main pins a stale value; a PR that only adds the entry running it is told.
    from tests.lint.world import AMD_MASTER

    root = make_world(tmp_path / "r", {AGENTIC: AGENTIC_MTP.replace("=2.50", "=2.61")})
    change(root, {"configs/amd-master.yaml": AMD_MASTER + AGENTIC_ENTRY})
    assert _golden(root) == [("CL790", AGENTIC, 3)]


MULTI_ENTRY = """alpha-fp8-gb200-dynamo-sglang-agentic:
  image: lmsysorg/sglang:v0.5.0
  model: org/alpha
  model-prefix: alpha
  runner: cluster:gb200-nv
  precision: fp8
  framework: dynamo-sglang
  multinode: true
  disagg: true
  kv-p2p-transfer: nixl
  scenarios:
    agentic-coding:
    - search-space:
      - spec-decoding: mtp
        conc-list: [8]
        prefill: { num-worker: 1, tp: 4, ep: 4, dp-attn: true }
        decode:
          num-worker: 1
          tp: 8
          ep: 8
          dp-attn: true
          additional-settings:
          - "SYNTHETIC_ACCEPTANCE=true"
          - "SYNTHETIC_ACCEPTANCE_LENGTH={al}"
"""


def test_a_multinode_entry_pins_through_additional_settings(tmp_path: Path) -> None:
    from tests.lint.world import AMD_MASTER

    root = make_world(tmp_path / "r")
    change(root, {"configs/amd-master.yaml": AMD_MASTER + MULTI_ENTRY.replace("{al}", "2.50")})
    result = lint_change(root, rules=("golden-al", "master-schema"))
    assert found(result) == []
    assert result.outcome("golden-al").judged == ("alpha-fp8-gb200-dynamo-sglang-agentic",)  # type: ignore[union-attr]
    change(root, {"configs/amd-master.yaml": AMD_MASTER + MULTI_ENTRY.replace("{al}", "2.61")})
    assert _golden(root) == [("CL790", "configs/amd-master.yaml", 39)]


@pytest.mark.parametrize(
    "line",
    [
        "--speculative-num-steps " + "9" * 5000,  # int() refuses past 4,300 digits
        "export NUM_SPEC_TOKENS=" + "9" * 400,  # float() reads it as infinity
        "SGLANG_SIMULATE_ACC_LEN=" + "9" * 400,
        "TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS=" + "9" * 400,
    ],
)
def test_a_number_past_python_s_limits_in_a_script_pins_nothing(line: str) -> None:
    al, drafts = pins(f"#!/bin/bash\n{line}\n")
    assert al == [] and drafts == set()


def test_a_huge_number_in_a_changed_script_is_judged_not_a_crash(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    huge = AGENTIC_MTP.replace("=2.50", "=" + "9" * 400) + "--speculative-num-steps " + "9" * 5000
    change(root, {AGENTIC: huge + "\n"})
    result = lint_change(root, rules=("golden-al",))
    # nothing it can read as a pin: the script is unpinned, an error at the script
    assert [(code, path) for code, path, _ in found(result)] == [("CL791", AGENTIC)]


def test_a_golden_value_past_float_s_range_is_skipped(tmp_path: Path) -> None:
    # Golden files are read at the base: a 400-digit value there must not crash the rule.
    huge = GOLDEN + "huge-model:\n  thinking_on:\n    3: " + "9" * 400 + "\n"
    root = make_world(tmp_path / "r", {"golden_al_distribution/alpha_mtp.yaml": huge})
    change(root, {AGENTIC: AGENTIC_MTP.replace("=2.50", "=2.90")})
    assert _golden(root) == []  # 2.9 is still golden; the huge value is not a value
