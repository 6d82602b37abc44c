"""Benchmark: how many GitHub requests a typical `signoff verify` makes, and how long it takes.

Run: python bench/bench_signoff.py [--repeat N]

Requests spend the rate limit, so they are counted from the fake GitHub's request log, grouped
by endpoint, for:

- a typical verification: one valid sign-off, a sweep run with jobs and an eval artifact, a
  reuse authorization, first run (posts the verdict comment) and a second run (edits it);
- the same with --dry-run (reads only);
- two sign-offs, one of them through a team owner;
- a comment event with no sign-off (the cheap skip).

Each case runs against real git (a bare origin, a trusted clone) in a temporary directory.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

for who in ("AUTHOR", "COMMITTER"):  # the world commits; keep the user's identity out of it
    os.environ[f"GIT_{who}_NAME"] = "Bench"
    os.environ[f"GIT_{who}_EMAIL"] = "bench@example.invalid"
os.environ["GIT_CONFIG_NOSYSTEM"] = "1"

from tests.signoff.world import MASTER_B, MASTERS_A, MASTERS_B, authorize, build_world, signoff  # noqa: E402


def endpoint(path: str) -> str:
    path = re.sub(r"/repos/example-org/bench", "", path)  # the PR's own repository
    path = re.sub(r"[0-9a-f]{40}", "{sha}", path)
    return re.sub(r"/\d+", "/{n}", path)


def run_case(name: str, *, dry_run: bool, two: bool = False, skip: bool = False,
             again: bool = False, repeat: int = 1) -> None:  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        world = build_world(Path(tmp))
        try:
            files = None
            if two:
                files = {
                    "configs/a-master.yaml": MASTERS_A.replace(b"v0.10.0", b"v0.10.1"),
                    MASTER_B: MASTERS_B.replace(b"v0.5.0", b"v0.5.1"),
                }
            world.open_pr(files=files)
            authorize(world)
            if skip:
                cid = world.comment("Thanks, will look later.", "amd-a")
                event = {"action": "created", "issue": {"number": 7, "pull_request": {"url": ""}},
                         "comment": {"id": cid}}  # fmt: skip
            else:
                world.comment(signoff("amd-a"), "amd-a")
                if two:
                    world.comment(signoff("core-1"), "core-1")
                event = {}
            times = []
            for _i in range(repeat + (1 if again else 0)):
                start = len(world.fake.log)
                began = time.perf_counter()
                out = world.verify(None if skip else 7, dry_run=dry_run,
                                   event_name="issue_comment" if skip else None, event=event)  # fmt: skip
                times.append(time.perf_counter() - began)
                requests = world.fake.log[start:]
            verdict = out.skip.reason if out.skip else out.verdict.verdict  # type: ignore[union-attr]
            counts = Counter(f"{r.method} {endpoint(r.path)}" for r in requests)
            print(f"{name}: {len(requests)} requests (verdict: {verdict}); "
                  f"median {statistics.median(times) * 1000:.0f} ms over {len(times)} run(s)")  # fmt: skip
            for key, count in sorted(counts.items()):
                print(f"    {count:>3}  {key}")
        finally:
            world.fake.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    run_case("typical, first run (posts comment + status)", dry_run=False)
    run_case(
        "typical, later run (edits the comment)", dry_run=False, again=True, repeat=args.repeat
    )
    run_case("typical, --dry-run", dry_run=True, repeat=args.repeat)
    run_case("two sign-offs, one via a team", dry_run=True, two=True)
    run_case("comment without a sign-off (skip)", dry_run=False, skip=True)


if __name__ == "__main__":
    main()
