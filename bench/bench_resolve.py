"""Benchmark: `changelog-tools resolve` (file mode) and `canonicalize` as whole processes.

Run: python bench/bench_resolve.py [--repeat N]

Cases: the real 772-entry InferenceX changelog as the merge-base, main appending one entry and
the PR appending one entry with an `XXX` placeholder (resolved with --pr, so the placeholder
is canonicalized and the result checked in main mode); and the same on a history ten times
longer (the real file repeated). `canonicalize` runs on the PR's file against the merge-base,
once from files (--base-file) and once in git mode (base = merge-base with main, read through
git). Targets on a 2-core machine: < 0.3 s on the real file, and the 10x history at most 1.3x
the real one.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import INFERENCEX, console_script, report, run_measured, time_command

from changelog_tools.testing import synth

MAIN_ENTRY = (
    b"- config-keys:\n"
    b"    - dsr1-fp4-mi355x-sglang\n"
    b"  description:\n"
    b'    - "Main: bump the image"\n'
    b"  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2998\n"
)
PR_ENTRY = (
    b"- config-keys:\n"
    b"    - dsr1-fp8-b200-sglang\n"
    b"  description:\n"
    b'    - "PR: add a TP2 search-space row"\n'
    b"  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/XXX\n"
)


def _history() -> bytes:
    real = INFERENCEX / "perf-changelog.yaml"
    if real.is_file():
        return real.read_bytes()
    print(f"(real InferenceX changelog not found under {INFERENCEX}; using a synthetic one)")
    return synth.ledger_of_size(395_528, seed=1, repository="SemiAnalysisAI/InferenceX")


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=b", "-c", "user.email=b@b", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def _git_repo(root: Path, base: bytes, main: bytes, pr: bytes) -> Path:
    """main with one more entry; branch `pr` from the merge-base with the PR's entry."""
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    (root / "perf-changelog.yaml").write_bytes(base)
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "base")
    _git(root, "checkout", "-qb", "pr")
    (root / "perf-changelog.yaml").write_bytes(pr)
    _git(root, "commit", "-qam", "pr")
    _git(root, "checkout", "-q", "main")
    (root / "perf-changelog.yaml").write_bytes(main)
    _git(root, "commit", "-qam", "main")
    _git(root, "checkout", "-q", "pr")
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    exe = console_script()
    real = _history()
    medians: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for scale, history in (("real", real), ("10x", b"\n".join([real] * 10))):
            d = work / scale
            d.mkdir()
            main_side = history + b"\n" + MAIN_ENTRY
            pr_side = history + b"\n" + PR_ENTRY
            (d / "base.yaml").write_bytes(history)
            (d / "main.yaml").write_bytes(main_side)
            (d / "pr.yaml").write_bytes(pr_side)
            label = f"resolve, file mode, {scale} history + 1 + 1"
            result = time_command(
                [exe, "resolve", "--pr", "2999", "--base-file", "base.yaml",
                 "--pr-file", "pr.yaml", "--main-file", "main.yaml", "-o", "out.yaml"],
                cwd=d,
                repeat=args.repeat,
            )  # fmt: skip
            expected = main_side + b"\n" + PR_ENTRY.replace(b"XXX", b"2999")
            if (d / "out.yaml").read_bytes() != expected:
                sys.exit("resolve produced an unexpected result")
            report(label, len(main_side), result)
            medians[label] = result["cpu"]

            label = f"canonicalize, file mode, {scale} history + 1"
            times: list[float] = []
            cpus: list[float] = []
            env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
            for _ in range(args.repeat + 1):
                # Each run needs the placeholder back: copy the PR's file first (not timed).
                shutil.copyfile(d / "pr.yaml", d / "work.yaml")
                code, _out, err, wall, cpu = run_measured(
                    [exe, "canonicalize", "--pr", "2999", "--base-file", "base.yaml",
                     "work.yaml"],
                    cwd=d,
                    env=env,
                )  # fmt: skip
                if code != 0:
                    sys.exit(f"canonicalize exited {code}: {err.decode()[-2000:]}")
                times.append(wall)
                cpus.append(cpu)
            times = sorted(times[1:])  # the first run warms the page cache
            result = {
                "min": times[0],
                "median": times[len(times) // 2],
                "max": times[-1],
                "cpu": sorted(cpus[1:])[len(times) // 2],
            }
            report(label, len(pr_side), result)
            medians[label] = result["cpu"]

            repo = _git_repo(d / "repo", history, main_side, pr_side)
            label = f"canonicalize --check, git mode, {scale} history + 1"
            result = time_command(
                [exe, "canonicalize", "--pr", "2999", "--check"], cwd=repo, repeat=args.repeat,
                expect=1,
            )  # fmt: skip
            report(label, len(pr_side), result)
            medians[label] = result["cpu"]
    for what in ("resolve, file mode", "canonicalize, file mode", "canonicalize --check, git mode"):
        one = next(v for k, v in medians.items() if k.startswith(what) and ", real " in k)
        ten = next(v for k, v in medians.items() if k.startswith(what) and ", 10x " in k)
        print(f"ratio 10x / 1x, {what} (median CPU): {ten / one:.2f}")


if __name__ == "__main__":
    main()
