"""Benchmark: how many GitHub requests `reuse-gate` makes, and how long the whole command takes.

Run: python bench/bench_reuse_gate.py [--repeat N] [--latency MS] [--reference DIR]

Request counts matter more than time (they spend the rate limit, and each one is a round trip
to the API), so each decision below is made against the fake GitHub and the requests it received
are counted:

- pull_request synchronize (one comments page);
- push to main, unpinned, the newest run eligible (the typical merge-with-reuse case);
- push to main, unpinned, behind 40 failed runs and 250 comments (pages of 100);
- push to main, pinned run.

Then the command runs as a whole process for the typical push (drift guard included, against a
real git clone), with ``--latency MS`` (default 100) added to every request the fake answers
(`_util.add_latency`): on loopback the fake answers in well under a millisecond, which hides what
each request costs a workflow step talking to api.github.com. Printed per command: requests per
run, median wall time (what the workflow step waits) and median CPU time (user + system of the
process and the git processes it waits for), over ``--repeat`` rounds, every command once per
round so load hits all alike. Target: at most 5 requests for the typical push.

Each case runs twice: under a clean interpreter (a venv without pip whose ``.pth`` names this
source tree and the development venv's site-packages, with a console script like pip's), which
pays what an installed package pays, and under the development venv, whose editable install
imports a finder at every start-up (~20 ms, and modules such as ``re`` and ``pathlib`` that
then look free). To time another checkout (before and after a change), put it first on
PYTHONPATH.

Side by side with the reference: InferenceX's ``find_reusable_sweep_run.py`` (not part of this
repository), found in ``--reference DIR`` (default: $CHANGELOG_TOOLS_REFERENCE, else /tmp/ref; a
path to the script itself also works), decides the same push against the same fake under the
same interpreter and latency: its requests, wall and CPU time. Target: ``reuse-gate`` at or
under the reference's wall time, with no more requests (the CPU ratio is printed too: both are
mostly interpreter start-up). The reference has its API base hard-coded,
so it runs through a small loader that points it at the fake. When it is missing, the
comparison is skipped with the reason.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import add_latency, clean_interpreter, console_script, run_measured

from changelog_tools import config as config_mod
from changelog_tools.github.adapter import RetryPolicy, make_github
from changelog_tools.reuse.gate import Event, Policy, decide
from changelog_tools.testing.fakegithub import FakeCommit, FakeGitHub, fake_sha

REPO = "octo/widgets"
WORKFLOW = "run-sweep.yml"
REFERENCE_SCRIPT = "find_reusable_sweep_run.py"


def _scenario(fake: FakeGitHub, *, failed_runs: int, comments: int, pinned: bool) -> Event:
    shas = [fake_sha("c", i) for i in range(3)]
    merge = fake_sha("merge")
    fake.add_pull(
        7, "feature", head_sha=shas[-1], state="closed", merged=True,
        merged_at="2024-02-01T00:00:00Z", merge_commit_sha=merge, labels=["full-sweep-enabled"],
        commits=[FakeCommit(s) for s in shas],
    )  # fmt: skip
    for i in range(comments):
        fake.add_comment(7, f"comment {i}", "eve", "NONE")
    good = fake.add_run(WORKFLOW, shas[1], head_branch="feature", artifacts=["results_bmk"])
    for _ in range(failed_runs):
        fake.add_run(WORKFLOW, shas[2], head_branch="feature", conclusion="failure")
    fake.add_comment(7, f"/reuse-sweep-run {good.id}" if pinned else "/reuse-sweep-run", "bob")
    return Event("push", sha=merge, ref="refs/heads/main")


def count_requests() -> None:
    cases = [
        ("pull_request synchronize", None),
        ("push, unpinned, newest run eligible", {"failed_runs": 0, "comments": 2, "pinned": False}),
        ("push, unpinned, 40 failed runs, 250 comments", {"failed_runs": 40, "comments": 250,
                                                          "pinned": False}),
        ("push, pinned run", {"failed_runs": 5, "comments": 2, "pinned": True}),
    ]  # fmt: skip
    policy = Policy.from_config(config_mod.defaults())
    for label, options in cases:
        with FakeGitHub(REPO) as fake:
            if options is None:
                fake.add_comment(7, "/reuse-sweep-run", "bob")
                event = Event("pull_request", action="synchronize", pr_number=7)
            else:
                event = _scenario(fake, **options)  # type: ignore[arg-type]
            env = {"GH_TOKEN": "t", "GITHUB_API_URL": fake.base_url, "GITHUB_REPOSITORY": REPO}
            gh = make_github(config_mod.defaults(), env=env, policy=RetryPolicy(write_interval=0))
            decision = decide(event, policy, gh)
            what = "reuse" if decision.reuse_enabled else "skip PR sweep" * decision.skip_pr_sweep
            print(f"{label:<48} {fake.count():>3} requests   ({what or 'no reuse'})")


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


# Runs the reference with its hard-coded API base replaced by the fake's (argv: script, base,
# then the script's own arguments).
REFERENCE_LOADER = """
import runpy, sys
script, base, *args = sys.argv[1:]
namespace = runpy.run_path(script)
namespace["main"].__globals__["API_BASE"] = base
sys.argv = [script, *args]
raise SystemExit(namespace["main"]())
"""


def interleaved(
    fake: FakeGitHub, commands: dict[str, tuple[list[str], Path]], repeat: int
) -> dict[str, tuple[float, float, float]]:
    """Run every command once per round (after one warm-up round), so load hits all alike:
    name -> (median wall seconds, median CPU seconds, requests per run)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # time the package, not the bytecode compiler
    wall: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    requests: dict[str, list[int]] = {name: [] for name in commands}
    for round_ in range(repeat + 1):
        for name, (args, cwd) in commands.items():
            before = fake.count()
            code, out, err, elapsed, used = run_measured(args, cwd=cwd, env=env)
            if code != 0:
                sys.exit(f"{' '.join(args)} exited {code}:\n{out.decode()[-2000:]}{err.decode()}")
            if round_:  # the first round warms the page cache and .pyc files
                wall[name].append(elapsed)
                cpu[name].append(used)
                requests[name].append(fake.count() - before)
    return {
        n: (statistics.median(wall[n]), statistics.median(cpu[n]), statistics.median(requests[n]))
        for n in commands
    }


def _reference_script(given: Path) -> tuple[Path | None, str]:
    """The reference script in ``given`` (a directory or the script), or None and why not."""
    script = given / REFERENCE_SCRIPT if given.is_dir() else given
    if not script.is_file():
        return None, f"{REFERENCE_SCRIPT} not found at {given} (give --reference DIR)"
    return script, ""


def time_command_run(repeat: int, reference: Path | None, latency: float) -> None:
    env_git = {
        "GIT_AUTHOR_NAME": "B", "GIT_AUTHOR_EMAIL": "b@example.invalid",
        "GIT_COMMITTER_NAME": "B", "GIT_COMMITTER_EMAIL": "b@example.invalid",
    }  # fmt: skip
    os.environ.update(env_git)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        origin = root / "origin.git"
        _git(root, "init", "-q", "--bare", "-b", "main", str(origin))
        work = root / "work"
        _git(root, "clone", "-q", str(origin), str(work))
        _git(work, "checkout", "-q", "-b", "main")
        (work / "benchmarks").mkdir()
        (work / "benchmarks/run.sh").write_text("echo v1\n")
        _git(work, "add", "-A")
        _git(work, "commit", "-q", "-m", "base")
        _git(work, "push", "-q", "origin", "main")
        _git(work, "checkout", "-q", "-b", "feature")
        (work / "notes.txt").write_text("pr\n")
        _git(work, "add", "-A")
        _git(work, "commit", "-q", "-m", "pr")
        _git(work, "push", "-q", "origin", "feature")
        swept = _git(work, "rev-parse", "HEAD")
        clean_python, clean_script = clean_interpreter(root / "clean-venv")
        with FakeGitHub(REPO, git_origin=origin) as fake:
            fake.add_pull(7, "feature", labels=["full-sweep-enabled"])
            fake.add_run(WORKFLOW, swept, head_branch="feature", artifacts=["results_bmk"])
            fake.add_comment(7, "/reuse-sweep-run", "bob")
            _, _, body = fake.handle(
                "PUT", f"{fake.prefix}/repos/{REPO}/pulls/7/merge", {},
                json.dumps({"merge_method": "squash", "sha": swept}).encode(),
            )  # fmt: skip
            merge = json.loads(body)["sha"]
            add_latency(fake, latency)  # after the set-up above, which went through fake.handle
            ci = root / "ci"
            _git(root, "clone", "-q", "--no-local", str(origin), str(ci))
            (ci / ".changelog-tools.yaml").write_text("github-write-interval: 0\n")
            # The same decision with no configuration file (InferenceX needs none): reading a
            # YAML file costs the YAML parser's import, which nothing else here needs.
            bare = root / "ci-bare"
            _git(root, "clone", "-q", "--no-local", str(origin), str(bare))
            os.environ.update(GH_TOKEN="t", GITHUB_API_URL=fake.base_url, GITHUB_REPOSITORY=REPO)
            # As a workflow step runs: both tools append their outputs to $GITHUB_OUTPUT
            # (and reuse-gate its summary to $GITHUB_STEP_SUMMARY).
            os.environ.update(
                GITHUB_OUTPUT=str(root / "outputs"), GITHUB_STEP_SUMMARY=str(root / "summary.md")
            )
            ours = ["reuse-gate", "--event-name", "push", "--ref", "refs/heads/main",
                    "--commit-sha", merge]  # fmt: skip
            theirs = ["-c", REFERENCE_LOADER, str(reference), fake.base_url, "--repo", REPO,
                      "--commit-sha", merge, "--event-name", "push", "--ref", "refs/heads/main",
                      "--workflow-id", WORKFLOW]  # fmt: skip
            interpreters = [
                ("clean interpreter (what an installed package pays)", clean_python,
                 clean_script),
                ("development venv (editable finder at start-up)", sys.executable,
                 console_script()),
            ]  # fmt: skip
            commands: dict[str, tuple[list[str], Path]] = {}
            for key, (_, python, script) in zip(("clean", "dev"), interpreters, strict=True):
                commands[f"{key} ours"] = ([script, *ours], ci)
                commands[f"{key} ours bare"] = ([script, *ours], bare)
                if reference is not None:
                    commands[f"{key} reference"] = ([python, *theirs], ci)
            results = interleaved(fake, commands, repeat)
            print(f"\nwhole command, typical push, {latency * 1000:.0f} ms added to every request")
            for key, (what, python, _) in zip(("clean", "dev"), interpreters, strict=True):
                print(f"\n{what}: {python}")
                rows = [
                    ("reuse-gate push (whole process, drift guard)", f"{key} ours"),
                    ("  the same, no configuration file", f"{key} ours bare"),
                    ("reference find_reusable_sweep_run.py", f"{key} reference"),
                ]
                for label, name in rows:
                    if name in results:
                        wall, cpu, requests = results[name]
                        print(f"{label:<48} {requests:>3.0f} requests   wall {wall:.3f} s   "
                              f"CPU {cpu:.3f} s")  # fmt: skip
                if reference is None:
                    continue
                ref_wall, ref_cpu, ref_requests = results[f"{key} reference"]
                for label, name in (("with a config file", f"{key} ours"),
                                    ("without", f"{key} ours bare")):  # fmt: skip
                    wall, cpu, requests = results[name]
                    met = wall <= ref_wall and requests <= ref_requests
                    print(
                        f"reuse-gate / reference ({label}): wall {wall / ref_wall:.2f}x, "
                        f"CPU {cpu / ref_cpu:.2f}x, requests {requests:.0f} vs "
                        f"{ref_requests:.0f}: target (wall <= 1x, no more requests) "
                        f"{'met' if met else 'MISSED'}"
                    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=11, help="timed rounds (median)")
    parser.add_argument(
        "--latency",
        type=float,
        default=100.0,
        metavar="MS",
        help="milliseconds added to every request of the fake GitHub in the whole-command runs "
        "(default: 100; 0 for none)",
    )
    parser.add_argument(
        "--reference",
        type=Path,
        default=Path(os.environ.get("CHANGELOG_TOOLS_REFERENCE", "/tmp/ref")),
        help=f"directory holding InferenceX's {REFERENCE_SCRIPT}, or the script (default: "
        "$CHANGELOG_TOOLS_REFERENCE or /tmp/ref)",
    )
    args = parser.parse_args()
    reference, why = _reference_script(args.reference)
    count_requests()
    if reference is None:
        print(f"\nreference comparison skipped: {why}")
    time_command_run(args.repeat, reference, args.latency / 1000)


if __name__ == "__main__":
    from _header import print_header  # the date and machine of every figure below

    print_header(__file__)
    main()
