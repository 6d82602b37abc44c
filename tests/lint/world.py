"""A small self-written InferenceX-shaped repository for lint tests, and how to lint a change.

Every test commits a base, then the change as a second commit, and lints base..head through
git (the same path as the command); nothing here copies InferenceX's files.
"""

from __future__ import annotations

import datetime
from pathlib import Path

from changelog_tools import diagnostics as dx
from changelog_tools.config import Config, defaults
from changelog_tools.gitrepo import open_repo
from changelog_tools.lint.engine import LintRequest, LintResult, run_lint
from changelog_tools.lint.tree import GitTree
from tests.conftest import commit_files, git

NOW = datetime.date(2026, 8, 22)

LAUNCHER = """#!/usr/bin/env bash
# Route spec-decoding=mtp configs to the _mtp benchmark script.
SPEC_SUFFIX=$([[ "$SPEC_DECODING" == "mtp" ]] && printf '_mtp' || printf '')
BENCH_BASE="benchmarks/single_node/${SCENARIO_SUBDIR}${EXP_NAME%%_*}_${PRECISION}_h200"
bash "${BENCH_BASE}${SPEC_SUFFIX}.sh"
"""

MTP_SCRIPT = """#!/usr/bin/env bash
source "$(dirname "$0")/../../benchmark_lib.sh"
vllm serve "$MODEL" --speculative-config '{"method": "mtp", "num_speculative_tokens": 2}' &
run_benchmark_serving \\
    --model "$MODEL" \\
    --port "$PORT" \\
    --use-chat-template \\
    --result-dir /workspace/
"""

PLAIN_SCRIPT = """#!/usr/bin/env bash
vllm serve "$MODEL" &
run_benchmark_serving --model "$MODEL" --port "$PORT"
"""

AMD_MASTER = """alpha-fp8-h200-vllm:
  image: vllm/vllm-openai:v0.11.0
  model: org/alpha
  model-prefix: alpha
  runner: h200
  precision: fp8
  framework: vllm
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - { tp: 8, conc-start: 4, conc-end: 64 }
      - { tp: 8, spec-decoding: mtp, conc-list: [4, 8] }
"""

NVIDIA_MASTER = """beta-fp4-h200-vllm:
  image: vllm/vllm-openai:v0.11.0
  model: org/beta
  model-prefix: beta
  runner: h200
  precision: fp4
  framework: vllm
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - { tp: 4, conc-list: [1, 2] }
"""

BASE_FILES: dict[str, str] = {
    "runners/launch_h200-nb.sh": LAUNCHER,
    "benchmarks/benchmark_lib.sh": 'run_benchmark_serving() {\n    python3 client.py "$@"\n}\n',
    "benchmarks/single_node/fixed_seq_len/alpha_fp8_h200.sh": PLAIN_SCRIPT,
    "benchmarks/single_node/fixed_seq_len/alpha_fp8_h200_mtp.sh": MTP_SCRIPT,
    "benchmarks/single_node/fixed_seq_len/beta_fp4_h200.sh": PLAIN_SCRIPT,
    "configs/amd-master.yaml": AMD_MASTER,
    "configs/nvidia-master.yaml": NVIDIA_MASTER,
}


def make_world(root: Path, files: dict[str, str] | None = None) -> Path:
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    commit_files(root, dict(BASE_FILES, **(files or {})), "base")
    return root


def change(root: Path, files: dict[str, str | None], message: str = "change") -> str:
    """Commit ``files`` on a branch (None deletes a file); return the head commit."""
    git(root, "checkout", "-q", "-B", "pr")
    for rel, content in files.items():
        if content is None:
            (root / rel).unlink()
    commit_files(root, {k: v for k, v in files.items() if v is not None}, message)
    return git(root, "rev-parse", "HEAD")


def lint_change(
    root: Path,
    *,
    config: Config | None = None,
    rules: tuple[str, ...] | None = None,
    pr: int | None = 7,
    now: datetime.date = NOW,
    audit: bool = False,
) -> LintResult:
    repo = open_repo(root)
    base = git(root, "merge-base", "main", "HEAD")
    head = git(root, "rev-parse", "HEAD")
    request = LintRequest(
        head=GitTree(repo, head),
        base=None if audit else GitTree(repo, base),
        changed=None if audit else tuple(repo.changed_paths(base, head)),
        pr=pr,
        now=now,
    )
    return run_lint(request, config or defaults(root), rules=rules)


def found(result: LintResult) -> list[tuple[str, str, int | None]]:
    """(code, path, line) of every finding, sorted."""
    return sorted((d.code, d.path, d.line) for d in result.findings)


def severities(result: LintResult) -> list[tuple[str, dx.Severity]]:
    return sorted((d.code, d.severity) for d in result.findings)


MODELS_MD = """# Models

## Deprecation Notice

### Monday, August 3, 2026

**Monday, August 3, 2026** is the last day for the scenarios listed below.

| Model | Deprecated | Remains |
|---|---|---|
| Beta (`beta`) | All **bf16** recipes, in every scenario | fp8 and fp4 recipes |

| Model | Deprecated arm | Published arm |
|---|---|---|
| Alpha (`alpha`) | Agentic coding, non-MTP | Agentic coding, MTP |

**Status: not yet enacted.** Every non-spec-decode agentic arm above still runs.

## Scenarios

| Scenario | ISL/OSL | Status |
|---|---|---|
| Single-turn 8k1k | 8192 / 1024 | Active. |
| Single-turn 1k1k | 1024 / 1024 | **Deprecated for all models** since 2026-07-17 (#1). |

## Model support matrix

| Model | Prefix | Date added | Active scenarios | Deprecated scenarios |
|---|---|---|---|---|
| Alpha | `alpha` | 2026-01-01 | Single-turn 8k1k | |
| Beta | `beta` | 2026-01-01 | Single-turn 8k1k | |
| Omega | `omega` | 2025-01-01 | None (retired 2026-07-18, #2) | Single-turn 8k1k |
"""

GOLDEN = """# key = num_speculative_tokens; value = golden AL
alpha-model:
  thinking_on:
    1: 1.80
    2: 2.30
    3: 2.50
  thinking_off:
    3: 2.90
"""

AGENTIC_MTP = """#!/usr/bin/env bash
# golden-al: golden_al_distribution/alpha_mtp.yaml alpha-model thinking_on 3
export SGLANG_SIMULATE_ACC_LEN=2.50
python3 -m sglang.launch_server --model-path "$MODEL" \\
    --speculative-algorithm EAGLE --speculative-num-steps 3 &
run_agentic_replay_and_write_outputs
"""

BASE_FILES.update(
    {
        "MODELS.md": MODELS_MD,
        "golden_al_distribution/alpha_mtp.yaml": GOLDEN,
        "benchmarks/single_node/agentic/alpha_fp8_h200_mtp.sh": AGENTIC_MTP,
        "docs/waiver/3.md": "# Waiver\\n\\n## What is patched\\n\\n`old_patch.sh` rewrites x.\\n",
    }
)
