"""Benchmark: a 20-commit `git rebase main` whose every step conflicts in the changelog, resolved
by the installed merge driver, beside plain rebases of the same shape.

Run: python bench/bench_rebase.py [--repeat N] [--commits N] [--main-commits N]
         [--python PY | --dev-venv] [--also SOURCE-ROOT]

A contributor who rebases a long-lived branch onto main pays the driver once per replayed
commit: every commit that appended to the changelog conflicts with main's appends, git runs the
driver (a Python process: start-up, reading three versions, resolving, checking the result), and
the rebase waits for it. This measures that wait as a whole: wall time of `git rebase main`
(and CPU time, user + system of git and every process it waits for, the driver included), in
total and per replayed commit.

The repository: the real 772-entry InferenceX changelog and its real master configs (synthetic
stand-ins when absent) at the merge-base; a branch of ``--commits`` (20) commits, each appending
one entry with an `XXX` placeholder link, as a PR's author writes them; main advanced by
``--main-commits`` (5) commits, each appending an entry of its own. The driver is installed with
`changelog-tools install-merge-driver` (its `.gitattributes` line committed at the merge-base,
its git config in the clone), so every one of the replayed commits conflicts and is resolved by
the driver. The result is checked: main's file with the branch's entries appended in order.

Two baselines, the same rebase without our driver, show what the driver adds:

- union: the same repository and commits with git's built-in ``merge=union`` driver for the
  changelog. Every step still conflicts, but git resolves it in-process by keeping both sides'
  lines and validating nothing. Its result is not the right file (the blank line shared by
  both sides is kept once, so main's last entry and the branch's first end up with no blank
  line between them, which the changelog rules reject; the bench says so when the result
  differs), but it is the floor for a rebase that resolves the same conflicts: the difference
  is the cost of running and trusting our driver.
- no conflict: an equivalent branch whose commits append to a second file of the same size that
  main never touches, so nothing conflicts and git only replays commits: the rebase itself.

`-X theirs` is not a baseline: it would drop main's entries, a wrong result. Every case runs
``--repeat`` times after one warm-up round, interleaved round by round so load on the machine
hits all alike; the branch is reset before each run (not timed). The tool runs from a clean
interpreter (`_util.clean_interpreter`, as a wheel install starts) unless ``--python PY`` or
``--dev-venv`` says otherwise; to time another checkout, put it first on PYTHONPATH (git passes
the environment to the driver). ``--also SOURCE-ROOT`` times another checkout's driver (an
exported tree of an older commit, say) in the same rounds as this one, on a repository of its
own built the same way, and prints the ratio of the two round by round: the before/after figure
that load on a shared machine moves least.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import INFERENCEX, clean_interpreter, console_script, run_measured

from changelog_tools.testing import synth

CHANGELOG = "perf-changelog.yaml"
SIDE_FILE = "pr-notes.yaml"  # the no-conflict branch appends here instead
MASTERS = ("configs/amd-master.yaml", "configs/nvidia-master.yaml")
PR_KEY = "dsr1-fp8-b200-sglang"
MAIN_KEY = "dsr1-fp4-mi355x-sglang"


def _entry(key: str, description: str, link: str) -> bytes:
    return (
        f'- config-keys:\n    - {key}\n  description:\n    - "{description}"\n  pr-link: {link}\n'
    ).encode()


def _inputs() -> tuple[bytes, dict[str, bytes], str, str]:
    """The real changelog + master configs, or synthetic stand-ins; and a PR and a main key."""
    real = INFERENCEX / CHANGELOG
    if real.is_file() and all((INFERENCEX / m).is_file() for m in MASTERS):
        masters = {m: (INFERENCEX / m).read_bytes() for m in MASTERS}
        return real.read_bytes(), masters, PR_KEY, MAIN_KEY
    print(f"(real InferenceX files not found under {INFERENCEX}; using synthetic stand-ins)")
    history = synth.ledger_of_size(395_528, seed=1, repository="SemiAnalysisAI/InferenceX")
    keys = sorted({synth.config_key(__import__("random").Random(i)) for i in range(300)})
    half = len(keys) // 2
    masters = {
        MASTERS[0]: synth.master_config(keys[:half]),
        MASTERS[1]: synth.master_config(keys[half:]),
    }
    return history, masters, keys[0], keys[-1]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(
        GIT_AUTHOR_NAME="Bench", GIT_AUTHOR_EMAIL="bench@example.invalid",
        GIT_COMMITTER_NAME="Bench", GIT_COMMITTER_EMAIL="bench@example.invalid",
        GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull,
    )  # fmt: skip
    return env


ENV = _env()


def _git(cwd: Path, *args: str, check: bool = True) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, env=ENV, capture_output=True, text=True)
    if check and done.returncode != 0:
        sys.exit(f"git {' '.join(args)} failed in {cwd}:\n{done.stdout}{done.stderr}")
    return done.stdout.strip()


def _commit(repo: Path, files: dict[str, bytes], message: str) -> None:
    for rel, data in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_bytes(data)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", message)


def build(
    root: Path,
    *,
    driver: str,
    tool: list[str],
    history: bytes,
    masters: dict[str, bytes],
    keys: tuple[str, str],
    commits: int,
    main_commits: int,
) -> tuple[Path, str, bytes]:
    """A clone with `main` advanced and branch `feature` (see the module docstring).

    ``driver``: "ours" (install-merge-driver), "union" (git's union driver) or "none" (the
    branch appends to another file). Returns (repository, the branch's tip, the expected
    changelog after the rebase).
    """
    pr_key, main_key = keys
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    _commit(root, {CHANGELOG: history, SIDE_FILE: history, **masters}, "base")
    if driver == "ours":
        done = subprocess.run(
            [*tool, "install-merge-driver"], cwd=root, env=ENV, capture_output=True, text=True
        )
        if done.returncode != 0:
            sys.exit(f"install-merge-driver failed:\n{done.stdout}{done.stderr}")
    elif driver == "union":
        (root / ".gitattributes").write_text(f"/{CHANGELOG} merge=union\n")
    if driver != "none":
        _git(root, "add", ".gitattributes")
        _git(root, "commit", "-q", "-m", "merge driver for the changelog")
    _git(root, "checkout", "-q", "-b", "feature")
    target = SIDE_FILE if driver == "none" else CHANGELOG
    text = history
    added: list[bytes] = []
    for i in range(commits):
        new = _entry(pr_key, f"PR step {i + 1}: add a search-space row", "XXX")
        added.append(new)
        text = text + b"\n" + new
        _commit(root, {target: text}, f"PR step {i + 1}")
    tip = _git(root, "rev-parse", "HEAD")
    _git(root, "checkout", "-q", "main")
    text = history
    for i in range(main_commits):
        link = f"https://github.com/SemiAnalysisAI/InferenceX/pull/{3001 + i}"
        text = text + b"\n" + _entry(main_key, f"Main {i + 1}: bump the image", link)
        _commit(root, {CHANGELOG: text}, f"main {i + 1}")
    expected = text if driver == "none" else b"\n".join([text, *added])
    return root, tip, expected


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per case (median)")
    parser.add_argument("--commits", type=int, default=20, help="commits on the rebased branch")
    parser.add_argument("--main-commits", type=int, default=5, help="commits main is ahead by")
    parser.add_argument(
        "--python", help="run the tool as PY -m changelog_tools (default: a clean interpreter)"
    )
    parser.add_argument(
        "--dev-venv", action="store_true", help="run this venv's console script instead"
    )
    parser.add_argument(
        "--also",
        type=Path,
        help="another checkout's source root, its driver timed in the same rounds",
    )
    args = parser.parse_args()
    history, masters, *keys = _inputs()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if args.python:
            tool = [args.python, "-m", "changelog_tools"]
        elif args.dev_venv:
            tool = [console_script()]
        else:
            tool = [clean_interpreter(work / "clean-venv")[1]]
        print(f"the tool: {' '.join(tool)}")
        cases = {
            "our merge driver": "ours",
            "baseline: git's union driver": "union",
            "baseline: no conflict": "none",
        }
        envs = {label: ENV for label in cases}
        also = f"our merge driver, {args.also}" if args.also else ""
        if args.also:
            cases[also] = "ours"
            envs[also] = {**ENV, "PYTHONPATH": str(args.also.resolve())}
        repos = {
            label: build(work / f"case{i}-{driver}", driver=driver, tool=tool, history=history,
                         masters=masters, keys=(keys[0], keys[1]), commits=args.commits,
                         main_commits=args.main_commits)
            for i, (label, driver) in enumerate(cases.items())
        }  # fmt: skip
        wall: dict[str, list[float]] = {label: [] for label in cases}
        cpu: dict[str, list[float]] = {label: [] for label in cases}
        matches: dict[str, bool] = {}
        for round_ in range(args.repeat + 1):
            for label, (repo, tip, expected) in repos.items():
                _git(repo, "checkout", "-q", "-B", "work", tip)
                code, out, err, elapsed, used = run_measured(
                    ["git", "rebase", "main"], cwd=repo, env=envs[label]
                )
                if code != 0:
                    _git(repo, "rebase", "--abort", check=False)
                    sys.exit(f"{label}: git rebase main exited {code}:\n"
                             f"{out.decode()[-2000:]}{err.decode()[-3000:]}")  # fmt: skip
                replayed = int(_git(repo, "rev-list", "--count", "main..HEAD"))
                if replayed != args.commits:
                    sys.exit(f"{label}: {replayed} commits replayed, expected {args.commits}")
                matches[label] = (repo / CHANGELOG).read_bytes() == expected
                if label in ("our merge driver", also) and not matches[label]:
                    sys.exit("the rebase with our driver left an unexpected changelog")
                if round_:  # the first round warms the page cache and .pyc files
                    wall[label].append(elapsed)
                    cpu[label].append(used)
        n = args.commits
        print(
            f"git rebase main: {n} commits onto main ahead by {args.main_commits}, "
            f"{len(history) / 1024:.0f} KiB history; medians of {args.repeat}"
        )
        medians: dict[str, float] = {}
        for label in cases:
            w, c = statistics.median(wall[label]), statistics.median(cpu[label])
            medians[label] = w
            note = "" if matches[label] else "   (changelog differs from the expected result)"
            print(
                f"  {label:<30} total wall {w:.3f} s   per commit {w / n * 1000:6.1f} ms   "
                f"CPU {c:.3f} s{note}"
            )
        ours = medians["our merge driver"]
        for label in ("baseline: git's union driver", "baseline: no conflict"):
            extra = (ours - medians[label]) / n
            print(f"  our driver minus {label}: {extra * 1000:.1f} ms per commit")
        if also:
            for name, times in (("wall", wall), ("CPU", cpu)):
                ratios = [
                    a / b for a, b in zip(times["our merge driver"], times[also], strict=True)
                ]
                print(
                    f"  this checkout / {args.also}, {name}, round by round: "
                    + ", ".join(f"{r:.2f}" for r in ratios)
                    + f"  (median {statistics.median(ratios):.2f})"
                )


if __name__ == "__main__":
    from _header import print_header  # the date and machine of every figure below

    print_header(__file__)
    main()
