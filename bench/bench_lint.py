"""Benchmark: `changelog-tools lint` as a whole process, on a typical pull request and `--all`.

Run: python bench/bench_lint.py [--repeat N]

Cases, inside a real temporary git repository holding the InferenceX snapshot (859 files,
7.3 MB; synthetic stand-ins when it is absent): a typical pull request that edits one agentic
script (its golden-AL pin), one that adds a search-space row to one master-config entry, one
that touches only a README (every rule n/a), and `lint --all` over the whole tree. A change is
linted against its merge-base with main, as CI does.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import INFERENCEX, console_script, report, time_command

AGENTIC = "benchmarks/single_node/agentic/qwen3.5_fp8_h200_mtp.sh"
MASTER = "configs/nvidia-master.yaml"


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=b", "-c", "user.email=b@b", *args],
        cwd=cwd, check=True, capture_output=True,
    )  # fmt: skip


def _tree(root: Path) -> None:
    if (INFERENCEX / MASTER).is_file():
        shutil.copytree(
            INFERENCEX, root, ignore=shutil.ignore_patterns("checklist-history"), dirs_exist_ok=True
        )
        return
    print(f"(real InferenceX files not found under {INFERENCEX}; using synthetic stand-ins)")
    from changelog_tools.testing import synth

    keys = [f"m{i}-fp8-h200-vllm" for i in range(200)]
    files = {
        MASTER: synth.master_config(keys[:100]),
        "configs/amd-master.yaml": synth.master_config(keys[100:]),
        AGENTIC: b"#!/bin/bash\nexport SGLANG_SIMULATE_ACC_LEN=3.39\n--speculative-num-steps 3\n",
        "golden_al_distribution/qwen3.5_mtp.yaml": b"q:\n  thinking_on:\n    3: 3.39\n",
    }
    for i in range(300):
        files[f"benchmarks/single_node/fixed_seq_len/m{i}_fp8_h200.sh"] = (
            b"#!/bin/bash\nvllm serve m &\nrun_benchmark_serving --model m\n" * 20
        )
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)


def _branch(root: Path, name: str, edit: dict[str, bytes]) -> None:
    _git(root, "checkout", "-q", "-B", name, "main")
    for rel, data in edit.items():
        (root / rel).write_bytes(data)
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", name)


def _add_row(master: bytes) -> bytes:
    at = master.index(b"search-space:\n") + len(b"search-space:\n")
    indent = master[at : master.index(b"-", at)]
    row = b"- { tp: 2, conc-start: 4, conc-end: 8 }\n"
    if b"prefill:" in master[at : master.index(b"\n\n", at) if b"\n\n" in master[at:] else None]:
        row = b"- { tp: 2, conc-list: [4] }\n"
    return master[:at] + indent + row + master[at:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    exe = console_script()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "InferenceX"
        root.mkdir()
        _tree(root)
        _git(root, "init", "-q", "-b", "main")
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", "snapshot")
        size = sum(
            p.stat().st_size for p in root.rglob("*") if p.is_file() and ".git" not in p.parts
        )
        script = (root / AGENTIC).read_bytes()
        master = (root / MASTER).read_bytes()
        cases = [
            ("PR: one agentic script (wrong AL pin)", "pin",
             {AGENTIC: script.replace(b"ACC_LEN=3.39", b"ACC_LEN=3.50")}, 1),
            ("PR: one master-config entry (+1 row)", "row", {MASTER: _add_row(master)}, None),
            ("PR: README only (every rule n/a)", "readme", {"README.md": b"docs\n"}, 0),
        ]  # fmt: skip
        for label, branch, edit, expect in cases:
            _branch(root, branch, edit)
            result = time_command(
                [exe, "lint", "--now", "2026-08-22"], cwd=root, repeat=args.repeat, expect=expect
            )
            report(label, sum(len(v) for v in edit.values()), result)
        _git(root, "checkout", "-q", "main")
        result = time_command(
            [exe, "lint", "--all", "--now", "2026-08-22"], cwd=root, repeat=args.repeat,
            expect=None,
        )  # fmt: skip
        report("lint --all (whole tree)", size, result)


if __name__ == "__main__":
    from _header import print_header  # the date and machine of every figure below

    print_header(__file__)
    main()
