"""Benchmark: how many GitHub requests a typical `signoff verify` makes, and how long it takes.

Run: python bench/bench_signoff.py [--repeat N] [--latency MS]

Requests spend the rate limit and each one is a round trip to the API, so they are counted from
the fake GitHub's request log, grouped by endpoint, for (in process, no added latency):

- a typical verification: one valid sign-off, a sweep run with jobs and an eval artifact, a
  reuse authorization, first run (posts the verdict comment) and a second run (edits it);
- the same with --dry-run (reads only);
- two sign-offs, one of them through a team owner;
- a comment event with no sign-off (the cheap skip).

Then the typical verification runs as a whole process (`changelog-tools signoff verify --pr 7`
in the trusted clone, from a clean interpreter as a wheel install starts), with ``--latency MS``
(default 100) added to every request the fake answers (`_util.add_latency`): on loopback the
fake answers in well under a millisecond, which hides what each request costs a workflow step
talking to api.github.com. Printed: requests per run, wall time (what the workflow step waits)
and CPU time (user + system of the process and the git processes it waits for) of the first run,
and medians over ``--repeat`` later runs and dry runs. InferenceX has no sign-off script to compare
with (its codeowner-signoff-verify workflow asks an LLM agent to check the sign-off, which cannot
run against the fake), so only ours is printed.

Each case runs against real git (a bare origin, a trusted clone) in a temporary directory, built
by the test suite's sign-off world (``tests/signoff/world.py``) of the checkout whose package is
imported: to time another checkout (before and after a change), put it first on PYTHONPATH.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import add_latency, clean_interpreter, run_measured

# The checkout whose package is imported (PYTHONPATH first, else the editable install) also
# provides the test world, so the two always match.
_spec = importlib.util.find_spec("changelog_tools")
assert _spec is not None and _spec.origin is not None, "install the package first"
ROOT = Path(_spec.origin).resolve().parent.parent
sys.path.insert(0, str(ROOT))

for who in ("AUTHOR", "COMMITTER"):  # the world commits; keep the user's identity out of it
    os.environ[f"GIT_{who}_NAME"] = "Bench"
    os.environ[f"GIT_{who}_EMAIL"] = "bench@example.invalid"
os.environ["GIT_CONFIG_NOSYSTEM"] = "1"

from tests.signoff.world import MASTER_B, MASTERS_A, MASTERS_B, authorize, build_world, signoff  # noqa: E402

NOW = "2026-08-20T13:00:00Z"  # the time the world's verifications are evaluated at


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


def whole_command(repeat: int, latency: float) -> None:
    """The typical verification as a whole process, every request ``latency`` seconds slower."""
    with tempfile.TemporaryDirectory() as tmp:
        _, launcher = clean_interpreter(Path(tmp) / "clean-venv")
        (Path(tmp) / "world").mkdir()
        world = build_world(Path(tmp) / "world")
        try:
            world.open_pr()
            authorize(world)
            world.comment(signoff("amd-a"), "amd-a")
            add_latency(world.fake, latency)
            env = {**os.environ, **world.env}
            env.pop("PYTHONDONTWRITEBYTECODE", None)  # time the package, not the compiler
            for name in ("GITHUB_EVENT_PATH", "GITHUB_EVENT_NAME", "GITHUB_OUTPUT"):
                env.pop(name, None)
            args = [launcher, "signoff", "verify", "--pr", "7", "--now", NOW, "--format", "json"]

            def run(extra: list[str]) -> tuple[float, float, int, str]:
                start = len(world.fake.log)
                code, out, err, wall, cpu = run_measured([*args, *extra], cwd=world.trusted,
                                                         env=env)  # fmt: skip
                if code != 0:
                    sys.exit(f"signoff verify exited {code}:\n{out.decode()}{err.decode()}")
                verdict = json.loads(out).get("verdict", "?")
                return wall, cpu, len(world.fake.log) - start, str(verdict)

            print(f"\nwhole command (clean interpreter), typical sign-off, "
                  f"{latency * 1000:.0f} ms added to every request:")  # fmt: skip
            wall, cpu, requests, verdict = run([])
            print(f"  {'first run (posts comment + status)':<44} {requests:>3} requests   "
                  f"wall {wall:.3f} s   CPU {cpu:.3f} s   ({verdict}, 1 run)")  # fmt: skip
            for label, extra in (("later run (edits the comment)", []),
                                 ("--dry-run", ["--dry-run"])):  # fmt: skip
                runs = [run(extra) for _ in range(repeat)]
                print(
                    f"  {label:<44} {statistics.median(r[2] for r in runs):>3.0f} requests   "
                    f"wall {statistics.median(r[0] for r in runs):.3f} s   "
                    f"CPU {statistics.median(r[1] for r in runs):.3f} s   "
                    f"({runs[-1][3]}, median of {repeat})"
                )
            print("  reference: none (InferenceX's sign-off check is an LLM agent in a workflow, "
                  "not a script that can run against the fake)")  # fmt: skip
        finally:
            world.fake.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--latency",
        type=float,
        default=100.0,
        metavar="MS",
        help="milliseconds added to every request of the fake GitHub in the whole-command runs "
        "(default: 100; 0 for none)",
    )
    args = parser.parse_args()
    print(f"package: {ROOT}")
    run_case("typical, first run (posts comment + status)", dry_run=False)
    run_case(
        "typical, later run (edits the comment)", dry_run=False, again=True, repeat=args.repeat
    )
    run_case("typical, --dry-run", dry_run=True, repeat=args.repeat)
    run_case("two sign-offs, one via a team", dry_run=True, two=True)
    run_case("comment without a sign-off (skip)", dry_run=False, skip=True)
    whole_command(args.repeat, args.latency / 1000)


if __name__ == "__main__":
    from _header import print_header  # the date and machine of every figure below

    print_header(__file__)
    main()
