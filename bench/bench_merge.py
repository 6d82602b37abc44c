"""Benchmark: what `merge` costs from the command to a merged PR, with and without the wait for
main's push run: GitHub requests (reads and writes, by kind) and wall time.

Run: python bench/bench_merge.py [--repeat N] [--latency MS]

Each round builds a fresh world (a bare origin from the bundled example, a clone, the fake
GitHub tied to the origin, a fake CI that reports the PR's checks and adds main's push run for
each merge, reusing the sweep when the PR is authorized), opens PR #1 with one placeholder
entry and a successful sweep, then runs the installed console script as a whole process:
`merge 1` (which waits for main's push run and reports it) and, in another round,
`merge 1 --no-wait-ingest` (what a merge cost before the report existed). ``--latency MS``
(default 100) is added to every request the fake answers.
"""

from __future__ import annotations

import argparse
import collections
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _util import BENCH_IDENTITY, EXAMPLE_REPOSITORY, add_latency, console_script, swept_pr_world

from changelog_tools.testing.fakeci import FakeCI, all_green
from changelog_tools.testing.fakegithub import FakeGitHub
from changelog_tools.testing.fakesweep import ci_push_runs

REPOSITORY = EXAMPLE_REPOSITORY
TOKEN = "bench-token"


def kind(method: str, path: str) -> str:
    """A request's kind, without the numbers in its path."""
    parts = [p if not p.isdigit() and len(p) != 40 else "N" for p in path.split("/")[4:]]
    return f"{method} {'/'.join(parts)}"


def one_round(root: Path, latency: float, wait: bool) -> tuple[collections.Counter[str], float]:
    origin, clone, head = swept_pr_world(root, pr_link="XXX")
    fake = FakeGitHub(REPOSITORY, git_origin=origin, token=TOKEN).start()
    ci = FakeCI(fake, all_green(), on_merge=ci_push_runs(fake))
    try:
        fake.add_pull(1, "feat-a", title="Tune", labels=["full-sweep-enabled"])
        fake.add_run("run-sweep.yml", head, head_branch="feat-a", artifacts=["results_bmk"])
        ci.start()
        add_latency(fake, latency)
        env = {**os.environ, **BENCH_IDENTITY, "GH_TOKEN": TOKEN, "GITHUB_API_URL": fake.base_url}
        env.pop("GITHUB_ACTIONS", None)
        args = [console_script(), "merge", "1", *([] if wait else ["--no-wait-ingest"])]
        started = time.perf_counter()
        proc = subprocess.run(args, cwd=clone, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - started
        if proc.returncode != 0:
            sys.exit(f"merge failed ({proc.returncode}):\n{proc.stderr}")
        return collections.Counter(kind(r.method, r.path) for r in fake.log), wall
    finally:
        ci.stop()
        fake.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--latency", type=float, default=100.0, help="ms added to each request")
    args = parser.parse_args()
    latency = args.latency / 1000
    for wait in (False, True):
        rounds = []
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory(prefix="bench-merge-") as tmp:
                rounds.append(one_round(Path(tmp), latency, wait))
        counts = rounds[0][0]
        walls = [w for _c, w in rounds]
        label = "merge 1" if wait else "merge 1 --no-wait-ingest"
        total = sum(counts.values())
        writes = sum(n for k, n in counts.items() if not k.startswith("GET "))
        print(f"{label}: {total} requests ({writes} writes), {args.latency:g} ms a request, "
              f"wall median {statistics.median(walls):.2f} s")  # fmt: skip
        for name, n in sorted(counts.items()):
            print(f"  {n:3d}  {name}")


if __name__ == "__main__":
    from _header import print_header  # the date and machine of every figure below

    print_header(__file__)
    main()
