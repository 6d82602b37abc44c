"""Measure `check` and `fix` on a real changelog history: how many landed changes fail, by class,
and how many `fix` turns into a pass.

Run: python scripts/measure_fix_history.py REPO [--branch main] [--repository OWNER/NAME]
     [--changelog perf-changelog.yaml] [--limit N]

REPO is a clone of the benchmark repository (InferenceX: `git clone
https://github.com/SemiAnalysisAI/InferenceX`). Every first-parent commit of the branch that
changed the changelog and whose subject ends in ``(#N)`` (a squash-merged pull request) is one
change: its parent's changelog is the base, its own the head, checked as pull request N would be
(`check --pr N --no-config-keys`: the byte, entry and link rules). For each failing change,
`fix --pr N` is applied to the head and the result checked again.

Prints, per diagnostic code: changes failing with it, changes where `fix` made it go away, and
changes that pass outright after `fix`; then the totals and the refusals. In-process, no
subprocess per change: the numbers are the rules', not start-up time.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from changelog_tools import diagnostics as dx  # noqa: E402
from changelog_tools.config import defaults  # noqa: E402
from changelog_tools.ledger.check import check_change  # noqa: E402
from changelog_tools.ledger.fix import fix_change  # noqa: E402
from changelog_tools.ledger.guard import Refusal  # noqa: E402

SQUASH = re.compile(r"\(#(\d+)\)\s*$")


def git(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True).stdout


def blob(repo: Path, rev: str, path: str) -> bytes | None:
    proc = subprocess.run(
        ["git", "-C", str(repo), "show", f"{rev}:{path}"], capture_output=True, check=False
    )
    return proc.stdout if proc.returncode == 0 else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--branch", default="main")
    parser.add_argument("--repository", default="SemiAnalysisAI/InferenceX")
    parser.add_argument("--changelog", default="perf-changelog.yaml")
    parser.add_argument("--limit", type=int, default=0, help="only the newest N changes")
    args = parser.parse_args()
    config = dataclasses.replace(
        defaults(args.repo), repository=args.repository, changelog=args.changelog
    )
    log = git(args.repo, "log", "--first-parent", "--format=%H %s", args.branch, "--",
              args.changelog).decode("utf-8", "replace").splitlines()  # fmt: skip
    changes = []
    for line in log:
        sha, _, subject = line.partition(" ")
        found = SQUASH.search(subject)
        if found:
            changes.append((sha, int(found.group(1))))
    if args.limit:
        changes = changes[: args.limit]
    failing: collections.Counter[str] = collections.Counter()
    gone: collections.Counter[str] = collections.Counter()
    passes_by_code: collections.Counter[str] = collections.Counter()
    refused: collections.Counter[str] = collections.Counter()
    failed = passed_after = 0
    started = time.perf_counter()
    for sha, pr in changes:
        base, head = (
            blob(args.repo, f"{sha}^", args.changelog),
            blob(args.repo, sha, args.changelog),
        )
        if head is None:
            continue
        result = check_change(
            base=base, head=head, config=config, mode="pr", pr=pr, path=args.changelog
        )
        codes = {d.code for d in result.report.errors}
        if not codes:
            continue
        failed += 1
        failing.update(codes)
        try:
            out = fix_change(base, head, config=config, path=args.changelog, base_label="base",
                             pr=pr)  # fmt: skip
        except Refusal as refusal:
            refused[refusal.code] += 1
            continue
        after = check_change(
            base=base, head=out.data, config=config, mode="pr", pr=pr, path=args.changelog
        )
        left = {d.code for d in after.report.errors}
        gone.update(codes - left)
        if not left:
            passed_after += 1
            passes_by_code.update(codes)
    seconds = time.perf_counter() - started
    print(f"{len(changes)} squash-merged changes of {args.changelog} on {args.branch}: "
          f"{failed} fail `check --pr N --no-config-keys`; after `fix --pr N` "
          f"{passed_after} of them pass ({seconds:.1f} s)")  # fmt: skip
    print(f"{'code':<7} {'name':<26} {'failing':>8} {'gone':>6} {'passes':>7}")
    for code, count in failing.most_common():
        name = dx.CODES[code].name if code in dx.CODES else ""
        print(f"{code:<7} {name:<26} {count:>8} {gone[code]:>6} {passes_by_code[code]:>7}")
    for code, count in refused.most_common():
        print(f"refused by fix: {code} {count}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    from _header import print_header  # the date and machine of every figure below

    print_header(__file__)
    raise SystemExit(main())
