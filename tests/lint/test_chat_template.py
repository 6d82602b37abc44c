"""`chat-template`: spec-decoding scripts pass --use-chat-template to every benchmark call."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import git, run_cli
from tests.lint.world import MTP_SCRIPT, change, found, lint_change, make_world

MTP = "benchmarks/single_node/fixed_seq_len/alpha_fp8_h200_mtp.sh"


def test_a_new_mtp_script_without_the_flag_is_an_error_at_its_call(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    new = "benchmarks/single_node/fixed_seq_len/gamma_fp8_h200_mtp.sh"
    text = MTP_SCRIPT.replace("    --use-chat-template \\\n", "")
    change(root, {new: text})
    result = lint_change(root, rules=("chat-template",))
    assert found(result) == [("CL710", new, 4)]
    (d,) = result.findings
    assert d.rule == "chat-template" and "--use-chat-template" in (d.hint or "")


def test_the_flag_in_a_comment_does_not_count(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    text = MTP_SCRIPT.replace("    --use-chat-template \\\n", "    # --use-chat-template \\\n")
    change(root, {MTP: text})
    assert found(lint_change(root, rules=("chat-template",))) == [("CL710", MTP, 4)]


def test_a_flag_passed_only_under_a_condition_is_a_warning_at_the_flag(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    text = MTP_SCRIPT.replace(
        "    --use-chat-template \\\n",
        '    $( [[ ${#SPEC_ARGS[@]} -gt 0 ]] && echo "--use-chat-template" ) \\\n',
    )
    change(root, {MTP: text})
    result = lint_change(root, rules=("chat-template",))
    assert found(result) == [("CL711", MTP, 7)]
    assert result.ok  # a warning does not fail the lint


def test_an_implying_flag_counts_and_untouched_scripts_are_not_read(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    text = MTP_SCRIPT.replace("--use-chat-template", "--dsv4")
    change(root, {MTP: text})
    result = lint_change(root, rules=("chat-template",))
    assert found(result) == []
    outcome = result.outcome("chat-template")
    assert outcome is not None and outcome.applicable and outcome.judged == (MTP,)


def test_a_change_to_no_script_is_not_applicable(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    change(root, {"README.md": "docs\n"})
    outcome = lint_change(root, rules=("chat-template",)).outcome("chat-template")
    assert outcome is not None and not outcome.applicable and outcome.findings == ()


def test_speculative_flags_in_a_script_not_named_mtp_warn(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    path = "benchmarks/single_node/fixed_seq_len/beta_fp4_h200.sh"
    change(root, {path: MTP_SCRIPT.replace("    --use-chat-template \\\n", "")})
    assert found(lint_change(root, rules=("chat-template",))) == [("CL712", path, 3)]


def test_the_command_reports_the_finding_and_exits_1(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    change(root, {MTP: MTP_SCRIPT.replace("    --use-chat-template \\\n", "")})
    proc = run_cli("lint", "--base-ref", "main", "--rule", "chat-template", cwd=root)
    assert proc.returncode == 1, proc.stderr
    assert f"{MTP}:4: CL710 run_benchmark_serving is called without" in proc.stdout
    ok = run_cli("lint", "--base-ref", "main", "--head-ref", "main", cwd=root)
    assert ok.returncode == 0, ok.stdout + ok.stderr


def test_an_mtp_script_that_is_a_symlink_is_judged_by_its_target(tmp_path: Path) -> None:
    # Review finding: git stores a symlink as a blob holding the target's name, so a *_mtp.sh
    # symlink to a script without the flag read as a file with no benchmark call (n/a).
    root = make_world(tmp_path / "r")
    target = "benchmarks/helpers/gamma_impl.sh"
    change(root, {target: MTP_SCRIPT.replace("    --use-chat-template \\\n", "")})
    link = root / "benchmarks/single_node/fixed_seq_len/gamma_fp8_h200_mtp.sh"
    link.symlink_to("../../helpers/gamma_impl.sh")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "link")
    result = lint_change(root, rules=("chat-template",))
    assert ("CL710", "benchmarks/single_node/fixed_seq_len/gamma_fp8_h200_mtp.sh", 4) in found(
        result
    )
    audit = lint_change(root, rules=("chat-template",), audit=True)
    assert ("CL710", "benchmarks/single_node/fixed_seq_len/gamma_fp8_h200_mtp.sh", 4) in found(
        audit
    )
