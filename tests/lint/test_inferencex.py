"""`lint` on the real InferenceX snapshot: the audit finds what the research notes found, and
real violations replayed as changes are caught at their lines.

The snapshot is copied into a temporary git repository (skipped when the shared fixtures are
absent; `test_world_audit.py` and the rule tests are the self-written twins).
"""

from __future__ import annotations

import datetime
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from changelog_tools.config import defaults
from changelog_tools.gitrepo import open_repo
from changelog_tools.lint.engine import LintRequest, LintResult, run_lint
from changelog_tools.lint.tree import GitTree
from tests.conftest import INFERENCEX, commit_files, git, inferencex_file, run_cli

NOW = datetime.date(2026, 8, 22)  # the snapshot's date

# (rule, code, path, line) of every finding of `lint --all`, against ../shared/notes/signoff.md
# section D: D.1 two conditional flags (deprecated); D.2 the draft_model latent gap in the 16
# launchers that map spec values and the one dangling agentic config; D.3 the two deprecated
# EAGLE3 in-place edits and the three "needs a human" installs/applies (the waiver-2508 files
# pass, the lm_eval sitecustomize is not flagged); D.4 the one --hf-overrides; D.5 no image
# violation and glm5.1-fp8-b200-tilert without a vLLM/SGLang sibling; D.6 the same entry as a
# retired model and 1k1k; D.7 every agentic spec-decode script pins its golden AL.
EXPECTED = [
    ("engine-patches", "CL740", "benchmarks/multi_node/amd_utils/setup_deps.sh", 100),
    ("engine-patches", "CL740", "benchmarks/multi_node/tilert_utils/setup_deps.sh", 65),
    ("arch-overrides", "CL750", "benchmarks/single_node/agentic/minimaxm3_fp4_mi355x_mtp.sh", 223),
    ("chat-template", "CL711", "benchmarks/single_node/fixed_seq_len/deprecated/minimaxm3_fp4_mi355x_atom_mtp.sh", 79),
    ("engine-patches", "CL740", "benchmarks/single_node/fixed_seq_len/deprecated/minimaxm3_fp8_mi325x_mtp.sh", 90),
    ("chat-template", "CL711", "benchmarks/single_node/fixed_seq_len/deprecated/minimaxm3_fp8_mi355x_atom_mtp.sh", 79),
    ("engine-patches", "CL740", "benchmarks/single_node/fixed_seq_len/deprecated/minimaxm3_fp8_mi355x_mtp.sh", 101),
    ("config-script", "CL730", "configs/nvidia-master.yaml", 7199),
    ("models", "CL780", "configs/nvidia-master.yaml", 9894),
    ("engine-first", "CL770", "configs/nvidia-master.yaml", 9897),
    ("models", "CL781", "configs/nvidia-master.yaml", 9904),
    ("engine-patches", "CL740", "runners/launch_b300-nv.sh", 107),
] + [
    ("spec-launchers", "CL721", f"runners/{name}", line)
    for name, line in [
        ("launch_b200-cw.sh", 8), ("launch_b200-dgxc.sh", 517), ("launch_b200-nb.sh", 6),
        ("launch_b300-nv.sh", 420), ("launch_gb300-nv.sh", 391), ("launch_h100-cr.sh", 10),
        ("launch_h100-cw.sh", 10), ("launch_h100-dgxc-slurm.sh", 10), ("launch_h200-cw.sh", 9),
        ("launch_h200-dgxc-slurm.sh", 384), ("launch_h200-nb.sh", 9),
        ("launch_mi300x-amds.sh", 18), ("launch_mi325x-amds.sh", 12),
        ("launch_mi325x-tw.sh", 17), ("launch_mi355x-amds.sh", 260),
        ("launch_rtx6000pro-lat.sh", 36),
    ]
]  # fmt: skip


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    inferencex_file("MODELS.md")
    root = tmp_path_factory.mktemp("ix") / "InferenceX"
    shutil.copytree(INFERENCEX, root, ignore=shutil.ignore_patterns("checklist-history"))
    env = ("-c", "user.name=T", "-c", "user.email=t@example.invalid")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, *env, "commit", "-q", "-m", "snapshot")
    yield root


def _key(result: LintResult) -> list[tuple[str | None, str, str, int | None]]:
    return sorted((d.rule, d.code, d.path, d.line) for d in result.findings)


def _audit(root: Path) -> LintResult:
    repo = open_repo(root)
    head = GitTree(repo, repo.rev_parse("main"))
    request = LintRequest(head=head, base=None, changed=None, pr=None, now=NOW)
    return run_lint(request, defaults(root))


def test_the_audit_finds_exactly_what_the_notes_found(snapshot: Path) -> None:
    result = _audit(snapshot)
    assert _key(result) == sorted(EXPECTED)
    judged = {o.rule: len(o.judged) for o in result.outcomes}
    # The populations the notes measured: 208 keys, 60 spec scripts calling the client,
    # 114 entry x scenario x spec triples, 87 vLLM/SGLang keys on established SKUs, 47 keys of
    # other engines, 33 agentic spec-decode scripts.
    assert judged["master-schema"] == 208
    assert judged["chat-template"] == 60
    assert judged["config-script"] == 114
    assert judged["images"] == 87
    assert judged["engine-first"] == 47
    golden = result.outcome("golden-al")
    assert golden is not None
    assert len([p for p in golden.judged if p.endswith(".sh")]) == 33
    assert len([p for p in golden.judged if not p.endswith(".sh")]) == 16  # multi-node pins
    assert judged["spec-launchers"] == 16


def _replay(root: Path, base_files: dict[str, str], *, pr: int = 9000) -> LintResult:
    """Commit ``base_files`` over main as the base, then main's own bytes back as the head: the
    change that introduced those lines, replayed."""
    git(root, "checkout", "-q", "-B", "replay-base", "main")
    originals = {p: (root / p).read_text() for p in base_files}
    commit_files(root, base_files, "before")
    base = git(root, "rev-parse", "HEAD")
    commit_files(root, originals, "the change")
    head = git(root, "rev-parse", "HEAD")
    git(root, "checkout", "-q", "main")
    repo = open_repo(root)
    request = LintRequest(
        head=GitTree(repo, head),
        base=GitTree(repo, base),
        changed=tuple(repo.changed_paths(base, head)),
        pr=pr,
        now=NOW,
    )
    return run_lint(request, defaults(root))


def test_the_pr_that_added_the_hf_override_is_caught_at_its_line(snapshot: Path) -> None:
    path = "benchmarks/single_node/agentic/minimaxm3_fp4_mi355x_mtp.sh"
    lines = (snapshot / path).read_text().split("\n")
    without = "\n".join(lines[:222] + lines[223:])  # line 223 is the override
    result = _replay(snapshot, {path: without})
    assert _key(result) == [("arch-overrides", "CL750", path, 223)]


def test_the_pr_that_added_the_retired_tilert_entry_is_caught(snapshot: Path) -> None:
    master = "configs/nvidia-master.yaml"
    text = (snapshot / master).read_text()
    start = text.index("glm5.1-fp8-b200-tilert:")
    # The entry runs to the next top-level key (a line starting with neither space nor #).
    nxt = next(
        (i for i in range(start + 1, len(text)) if text[i - 1] == "\n" and text[i] not in " \n#"),
        len(text),
    )
    result = _replay(snapshot, {master: text[:start] + text[nxt:]})
    assert _key(result) == [
        ("engine-first", "CL770", master, 9897),
        ("models", "CL780", master, 9894),
        ("models", "CL781", master, 9904),
    ]


def test_a_typical_pr_changing_one_pin_is_caught_and_judges_only_that_script(
    snapshot: Path,
) -> None:
    path = "benchmarks/single_node/agentic/qwen3.5_fp8_h200_mtp.sh"
    text = (snapshot / path).read_text()
    line = text[: text.index("SGLANG_SIMULATE_ACC_LEN=3.39")].count("\n") + 1
    # Replayed the other way round: main's bytes are the base, a wrong pin is the head.
    git(snapshot, "checkout", "-q", "-B", "typical", "main")
    commit_files(snapshot, {path: text.replace("ACC_LEN=3.39", "ACC_LEN=3.50")}, "pin")
    proc = run_cli("lint", "--base-ref", "main", "--now", "2026-08-22", cwd=snapshot)
    git(snapshot, "checkout", "-q", "main")
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.splitlines()[0] == (
        f"{path}:{line}: CL790 SGLANG_SIMULATE_ACC_LEN pins AL 3.5, which is not a golden value "
        "for qwen3.5 at draft length 3"
    )
    assert proc.stdout.splitlines()[-1].endswith("1 changed path: 1 problem (1 error, 0 warnings)")


def test_removing_the_waiver_exposes_the_patches_it_covers(snapshot: Path) -> None:
    git(snapshot, "checkout", "-q", "-B", "nowaiver", "main")
    git(snapshot, "rm", "-q", "docs/waiver/2508.md")
    git(snapshot, "-c", "user.name=T", "-c", "user.email=t@x", "commit", "-q", "-m", "rm")
    result = _audit_ref(snapshot, "nowaiver")
    git(snapshot, "checkout", "-q", "main")
    new = set(_key(result)) - set(EXPECTED)
    assert {(r, c, p) for r, c, p, _l in new} == {
        ("engine-patches", "CL740", "benchmarks/single_node/agentic/apply_k3_container_patches.sh"),
        ("engine-patches", "CL740", "benchmarks/single_node/agentic/kimik3_fp4_mi355x_mtp.sh"),
    }
    assert ("engine-patches", "CL740", "benchmarks/single_node/agentic/kimik3_fp4_mi355x_mtp.sh", 150) in new  # fmt: skip


def _audit_ref(root: Path, ref: str) -> LintResult:
    repo = open_repo(root)
    request = LintRequest(
        head=GitTree(repo, repo.rev_parse(ref)), base=None, changed=None, pr=None, now=NOW
    )
    return run_lint(request, defaults(root))
