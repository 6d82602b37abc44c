"""Benchmark: what `recover` costs from the command to a merged recovery PR with its push run
checked: GitHub requests (reads and writes), git pushes, and wall time.

Run: python bench/bench_recover.py [--repeat N] [--latency MS]

Each round builds a fresh world (a bare origin from the bundled example, a clone, the fake
GitHub tied to the origin, a fake CI that reports the PR checks and adds a push run for each
merge), opens and sweeps PR #1, merges it without reuse and records a push run that lost the
ingest; then the installed console script runs `recover --pr 1 --yes` as a whole process.
``--latency MS`` (default 100) is added to every request the fake answers, since loopback hides
what a round trip to api.github.com costs. Printed: requests (writes), pushes, the median wall
time, and the time the same requests would cost at the given latency alone.

The reference has no command to compare with: InferenceX recovers by a 400-line procedure an
agent runs by hand (`gh`, `git`, `jq`, `utils/recover_failed_ingest.py`). Its steps make at
least the same reads and writes, interleaved with a person's or an agent's turns.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _util import EXAMPLE_REPOSITORY, add_latency, bench_git, console_script, swept_pr_world

from changelog_tools.testing.fakeci import FakeCI, all_green
from changelog_tools.testing.fakegithub import FakeGitHub
from changelog_tools.testing.fakesweep import (
    ci_push_runs,
    lost_ingest_run,
    merge_now,
)

REPOSITORY = EXAMPLE_REPOSITORY
TOKEN = "bench-token"


def one_round(root: Path, latency: float) -> tuple[int, int, int, float]:
    origin, clone, head = swept_pr_world(root, pr_link=f"https://github.com/{REPOSITORY}/pull/1")
    fake = FakeGitHub(REPOSITORY, git_origin=origin, token=TOKEN).start()
    ci = FakeCI(
        fake, all_green(("check-changelog", "reuse-sweep-gate")), on_merge=ci_push_runs(fake)
    )
    try:
        fake.add_pull(1, "feat-a", title="Tune", labels=["full-sweep-enabled"])
        fake.add_run("run-sweep.yml", head, head_branch="feat-a", artifacts=["results_bmk"])
        lost_ingest_run(fake, merge_now(fake, 1))
        ci.start()
        add_latency(fake, latency)
        bench_git(origin, "config", "core.logAllRefUpdates", "always")
        env = {**os.environ, "GH_TOKEN": TOKEN, "GITHUB_API_URL": fake.base_url}
        env.pop("GITHUB_ACTIONS", None)
        started = time.perf_counter()
        proc = subprocess.run(
            [console_script(), "recover", "--pr", "1", "--yes"],
            cwd=clone,
            env={**env, "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "b@example.invalid",
                 "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "b@example.invalid"},
            capture_output=True,
            text=True,
        )  # fmt: skip
        wall = time.perf_counter() - started
        if proc.returncode != 0:
            sys.exit(f"recover failed ({proc.returncode}):\n{proc.stderr}")
        writes = sum(1 for r in fake.log if r.method != "GET")
        # each push to the recovery branch is one line of its reflog (switched on above)
        pushes = len(
            bench_git(origin, "reflog", "show", "refs/heads/recovery/reuse-pr-1").splitlines()
        )
        return len(fake.log), writes, pushes, wall
    finally:
        ci.stop()
        fake.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--latency", type=float, default=100.0, help="ms added to each request")
    args = parser.parse_args()
    latency = args.latency / 1000
    results = []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory(prefix="bench-recover-") as tmp:
            results.append(one_round(Path(tmp), latency))
    requests, writes, pushes = results[0][:3]
    walls = [r[3] for r in results]
    print(f"recover --pr 1 --yes, happy path, {args.repeat} rounds, {args.latency:g} ms a request")
    print(f"  requests: {requests} ({writes} writes), git pushes: {pushes}")
    print(f"  wall, command to merged PR and checked push run: median {statistics.median(walls):.2f} s"
          f" (min {min(walls):.2f}, max {max(walls):.2f})")  # fmt: skip
    print(f"  of which the requests alone at that latency: {requests * latency:.2f} s")


if __name__ == "__main__":
    from _header import print_header  # the date and machine of every figure below

    print_header(__file__)
    main()
