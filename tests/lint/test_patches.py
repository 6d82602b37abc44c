"""`engine-patches` and `arch-overrides`: rules about the lines a change adds."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from changelog_tools.config import defaults
from tests.conftest import commit_files, git, run_cli
from tests.lint.world import (
    AMD_MASTER,
    MTP_SCRIPT,
    PLAIN_SCRIPT,
    change,
    found,
    lint_change,
    make_world,
)

SCRIPT = "benchmarks/single_node/fixed_seq_len/alpha_fp8_h200.sh"
APPLY = PLAIN_SCRIPT + "git apply /workspace/fix-moe.patch\n"  # line 4
WAIVER = """# Inference-engine patch waiver

## What is patched
The MoE kernel.

## Why the unmodified upstream image cannot run this benchmark
It crashes.

## Upstream PR / issue links
vllm#1

## Removal plan
Drop it after v0.12.
"""


def _patches(root: Path, pr: int | None = 7) -> list[tuple[str, str, int | None]]:
    return found(lint_change(root, rules=("engine-patches",), pr=pr))


def test_an_added_git_apply_needs_a_waiver(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    change(root, {SCRIPT: APPLY})
    assert _patches(root) == [("CL740", SCRIPT, 4)]
    d = lint_change(root, rules=("engine-patches",)).findings[0]
    assert "docs/waiver/7.md" in (d.hint or "") and d.message.startswith("git apply patches")


def test_this_prs_waiver_with_every_heading_covers_it(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    change(root, {SCRIPT: APPLY, "docs/waiver/7.md": WAIVER})
    assert _patches(root) == []


def test_a_waiver_missing_a_heading_is_an_error_at_the_waiver(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    change(root, {SCRIPT: APPLY, "docs/waiver/7.md": WAIVER.replace("## Removal plan", "Later")})
    result = lint_change(root, rules=("engine-patches",))
    assert found(result) == [("CL741", "docs/waiver/7.md", 1)]
    assert "'Removal plan'" in result.findings[0].message


def test_another_prs_waiver_filed_now_does_not_count(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    change(root, {SCRIPT: APPLY, "docs/waiver/99.md": WAIVER})
    assert _patches(root) == [("CL740", SCRIPT, 4)]


def test_without_a_pr_number_the_one_waiver_the_change_adds_counts(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    change(root, {SCRIPT: APPLY, "docs/waiver/99.md": WAIVER})
    assert _patches(root, pr=None) == []


def test_an_existing_waiver_that_names_the_file_covers_further_edits(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    patcher = "benchmarks/single_node/fixed_seq_len/old_patch.sh"  # named by docs/waiver/3.md
    change(root, {patcher: "#!/bin/bash\ngit apply fix.patch\n"})
    assert _patches(root) == []


def test_a_waiver_added_by_the_pr_itself_is_not_trusted_as_existing(tmp_path: Path) -> None:
    # The PR edits waiver 3 to name its script: existing waivers are read at the base.
    root = make_world(tmp_path / "r")
    change(root, {SCRIPT: APPLY, "docs/waiver/3.md": f"# W\n\n`{SCRIPT}`\n"})
    assert _patches(root) == [("CL740", SCRIPT, 4)]


def test_removing_a_patch_and_commented_patching_are_not_flagged(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r", {SCRIPT: APPLY})
    change(root, {SCRIPT: PLAIN_SCRIPT + "# git apply was dropped in #12\n"})
    result = lint_change(root, rules=("engine-patches",))
    assert found(result) == []
    assert result.outcome("engine-patches").applicable  # type: ignore[union-attr]


def test_every_patching_spelling_is_caught_at_its_line(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    text = "\n".join(
        [
            "#!/bin/bash",  # 1
            "patch -p1 < /tmp/x.diff",  # 2
            'sed -i "s/a/b/" /usr/lib/python3/site-packages/vllm/config.py',  # 3
            "pip install git+https://github.com/fork/vllm.git@abc",  # 4
            "pip install flashinfer-python==0.2.5",  # 5
            "cp fix.py /tmp/sitecustomize.py",  # 6
            'bash "$(dirname "$0")/apply_k3_container_patches.sh"',  # 7
            "python3 - <<'PY'",  # 8
            "import importlib.util, pathlib",
            'p = pathlib.Path(importlib.util.find_spec("vllm").origin)',
            "p.write_text(p.read_text().replace('a', 'b'))",
            "PY",
            "pip install lm-eval==0.4.9 'transformers'",  # 13: harness, unpinned
            'sed -i "s/name:.*/name: x/" recipe.yaml',  # 14: a recipe, not the engine
            "",
        ]
    )
    change(root, {SCRIPT: text})
    assert [line for _c, _p, line in _patches(root)] == [2, 3, 4, 5, 6, 7, 8]


def test_an_added_patch_file_is_flagged_and_harness_paths_are_not(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    change(
        root,
        {
            "runners/patches/fix.patch": "--- a\n+++ b\n",
            "utils/evals/patches/lm_eval.patch": "--- a\n+++ b\n",
            "benchmarks/single_node/speedbench/x.sh": "git apply shim.patch\n",
        },
    )
    assert _patches(root) == [("CL740", "runners/patches/fix.patch", 1)]


def test_an_allow_list_entry_with_a_reason_accepts_a_finding(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    change(root, {SCRIPT: APPLY})
    allow = ({"rule": "engine-patches", "path": SCRIPT, "reason": "srt-slurm backport, not vLLM"},)
    cfg = replace(defaults(root), lint_allow=allow)
    assert found(lint_change(root, rules=("engine-patches",), config=cfg)) == []


def test_a_pr_cannot_allow_its_own_finding_through_the_config_file(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    config = (
        "lint-allow:\n  - rule: engine-patches\n"
        f"    path: {SCRIPT}\n    reason: trust me, it is fine\n"
    )
    change(root, {SCRIPT: APPLY, ".changelog-tools.yaml": config})
    proc = run_cli("lint", "--base-ref", "main", "--pr", "7", "--rule", "engine-patches", cwd=root)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"{SCRIPT}:4: CL740" in proc.stdout
    # Once the allow entry is on main, the same change passes.
    git(root, "checkout", "-q", "main")
    commit_files(root, {".changelog-tools.yaml": config}, "allow on main")
    git(root, "checkout", "-q", "pr")
    git(root, "rebase", "-q", "main")
    ok = run_cli("lint", "--base-ref", "main", "--pr", "7", "--rule", "engine-patches", cwd=root)
    assert ok.returncode == 0, ok.stdout + ok.stderr


ARCH = "    --hf-overrides '{\"num_hidden_layers\": 30}' \\\n"


def test_an_added_hf_override_is_an_error_naming_the_key(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    mtp = "benchmarks/single_node/fixed_seq_len/alpha_fp8_h200_mtp.sh"
    change(root, {mtp: MTP_SCRIPT.replace("    --port", ARCH + "    --port")})
    result = lint_change(root, rules=("arch-overrides",))
    assert found(result) == [("CL750", mtp, 6)]
    assert "(it sets num_hidden_layers)" in result.findings[0].message


def test_overrides_in_configs_count_and_comments_do_not(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    master = "configs/amd-master.yaml"
    text = AMD_MASTER.replace(
        "  multinode: false\n",
        "  multinode: false\n  # never pass --json-model-override-args here\n"
        "  extra: [--json-model-override-args, '{}']\n",
    )
    change(root, {master: text, SCRIPT: PLAIN_SCRIPT + "# --hf-overrides would skip layers\n"})
    assert found(lint_change(root, rules=("arch-overrides",))) == [("CL750", master, 10)]


def test_an_override_already_on_main_is_not_this_prs_finding(tmp_path: Path) -> None:
    mtp = "benchmarks/single_node/fixed_seq_len/alpha_fp8_h200_mtp.sh"
    text = MTP_SCRIPT.replace("    --port", ARCH + "    --port")
    root = make_world(tmp_path / "r", {mtp: text})
    change(root, {mtp: text + "echo done\n"})
    assert found(lint_change(root, rules=("arch-overrides",))) == []
    assert found(lint_change(root, rules=("arch-overrides",), audit=True)) == [("CL750", mtp, 6)]


def test_a_pr_cannot_turn_a_rule_blind_through_other_lint_options(tmp_path: Path) -> None:
    # Review finding: only lint-allow and lint-rules were read at the base; a pull request
    # could mark every path a harness path (or blank the override pattern) in its own config.
    root = make_world(tmp_path / "r")
    config = 'lint-harness-paths: ["**"]\nlint-arch-override-pattern: "^NOTHING$"\n'
    mtp = "benchmarks/single_node/fixed_seq_len/alpha_fp8_h200_mtp.sh"
    change(
        root,
        {
            SCRIPT: APPLY,
            mtp: MTP_SCRIPT.replace("    --port", ARCH + "    --port"),
            ".changelog-tools.yaml": config,
        },
    )
    args = ("lint", "--base-ref", "main", "--pr", "7", "--rule", "engine-patches")
    proc = run_cli(*args, "--rule", "arch-overrides", cwd=root)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"{SCRIPT}:4: CL740" in proc.stdout
    assert f"{mtp}:6: CL750" in proc.stdout


def test_paths_git_would_quote_are_still_linted(tmp_path: Path) -> None:
    # Review finding: `git diff --name-only` C-quotes non-ASCII paths ("...\303\274.sh"), so a
    # script or a .patch file with such a name was never judged.
    root = make_world(tmp_path / "r")
    script = "benchmarks/single_node/fixed_seq_len/helper_ü.sh"
    change(root, {script: "#!/bin/bash\ngit apply x.patch\n", "benchmarks/fix ü.patch": "x\n"})
    assert sorted(_patches(root)) == [
        ("CL740", "benchmarks/fix ü.patch", 1),
        ("CL740", script, 2),
    ]


def test_renaming_a_script_adds_none_of_its_lines(tmp_path: Path) -> None:
    # Review finding: renames were read as a new file, so every line of a renamed script was
    # "added" and a violation already on main became this pull request's error.
    mtp = "benchmarks/single_node/fixed_seq_len/alpha_fp8_h200_mtp.sh"
    text = MTP_SCRIPT.replace("    --port", ARCH + "    --port")
    root = make_world(tmp_path / "r", {mtp: text})
    moved = "benchmarks/single_node/fixed_seq_len/alpha_fp8_h200_vllm_mtp.sh"
    change(root, {mtp: None, moved: text + "echo renamed\n"})
    assert found(lint_change(root, rules=("arch-overrides",))) == []
    # A new line in the renamed file is still judged.
    root = make_world(tmp_path / "r2", {mtp: text})
    change(root, {mtp: None, moved: text + "echo --hf-overrides '{}'\n"})
    assert found(lint_change(root, rules=("arch-overrides",))) == [("CL750", moved, 10)]


def test_a_pr_cannot_move_the_paths_lint_judges_through_its_config(tmp_path: Path) -> None:
    # Review finding: `master-configs` pointed at a missing file hid every entry from the
    # master-config rules, and `changelog` naming a script excused it from engine-patches.
    root = make_world(tmp_path / "r")
    master = "configs/amd-master.yaml"
    typo = AMD_MASTER.replace("{ tp: 8, conc-start: 4", "{ tp: 8, conc-strat: 4")
    config = f'master-configs: ["configs/none.yaml"]\nchangelog: "{SCRIPT}"\n'
    change(root, {SCRIPT: APPLY, master: typo, ".changelog-tools.yaml": config})
    proc = run_cli("lint", "--base-ref", "main", "--pr", "7", cwd=root)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"{SCRIPT}:4: CL740" in proc.stdout
    assert f"{master}:14" in proc.stdout and "conc-strat" in proc.stdout


def test_git_apply_and_patch_with_options_before_the_verb_need_a_waiver(tmp_path: Path) -> None:
    # Review finding: `git -C DIR apply` and `patch -d DIR -p1` (options first, the usual way
    # to patch an installed engine) were not recognised.
    root = make_world(tmp_path / "r")
    lines = (
        "git -C /sgl-workspace/sglang apply /tmp/fix.patch\n"
        'patch -d "$ROOT" -p1 < fix.diff\n'
        "patch --directory=/vllm-workspace --forward -p1 -i fix.diff\n"
        "kubectl patch deployment x -p '{}'\n"
    )
    change(root, {SCRIPT: PLAIN_SCRIPT + lines})
    assert _patches(root) == [("CL740", SCRIPT, 4), ("CL740", SCRIPT, 5), ("CL740", SCRIPT, 6)]
