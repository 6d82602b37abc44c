"""Measure the staleness rule on a real history: of the pull requests merged after main moved
past their sweep, how many would `merge`, `reuse-gate` and `recover` now refuse to reuse?

Run: python scripts/measure_reuse_staleness.py REPO [--branch main] [--limit N]

REPO is a clone (bare is fine) of the benchmark repository that holds GitHub's pull-request
refs (InferenceX: `git clone --mirror https://github.com/SemiAnalysisAI/InferenceX`, which
fetches ``refs/pull/N/head``). For each first-parent commit of the branch whose subject ends in
``(#N)``, that appended changelog entries, and whose PR head is in the clone:

- the source commit is the PR head's newest commit not marked ``[skip-sweep]`` (CI sweeps
  every other head; the merge tooling's own main-merge and refresh commits are marked), the
  closest a clone comes to the commit the PR's last sweep ran on;
- main before the merge is the squash commit's first parent; main "moved" when the source
  commit lacks some of it;
- the rule is :func:`changelog_tools.reuse.staleness.check_staleness`, exactly as the tools run
  it.

The git history cannot tell which merges reused a sweep (that is the authorization comment on
GitHub and the push run's gate outputs): every PR that appended entries is counted, and, apart,
the ones whose commits say they were refreshed "for sweep reuse" (the earlier reuse script's
marker), a lower bound of the reused merges. Prints the counts, the reasons, and the time taken.
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _history import squash_merges  # noqa: E402

from changelog_tools.config import defaults  # noqa: E402
from changelog_tools.errors import ChangelogToolsError  # noqa: E402
from changelog_tools.gitrepo import open_repo  # noqa: E402
from changelog_tools.reuse.staleness import check_staleness, swept_keys  # noqa: E402

SKIP = "[skip-sweep]"
REUSE_MARK = "for sweep reuse"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--branch", default="main")
    parser.add_argument("--limit", type=int, default=0, help="only the newest N merges")
    args = parser.parse_args()
    config = defaults(args.repo)
    repo = open_repo(args.repo)
    tip = repo.rev_parse(args.branch)
    merges = squash_merges(repo, tip, config.changelog, limit=args.limit)
    started = time.perf_counter()
    counts: collections.Counter[str] = collections.Counter()
    reasons: collections.Counter[str] = collections.Counter()
    marked: collections.Counter[str] = collections.Counter()
    examples: list[str] = []
    for sha, pr in merges:
        head = repo.try_rev_parse(f"refs/pull/{pr}/head")
        if head is None:
            counts["no PR head in the clone"] += 1
            continue
        base = repo.rev_parse(f"{sha}^1")
        subjects = repo.git("log", "--first-parent", "--format=%H %s", f"{base}..{head}")
        rows = [(line[:40], line[41:]) for line in subjects.splitlines()]
        if not rows:
            counts["PR head already on main"] += 1
            continue
        source = next((c for c, s in rows if SKIP not in s), rows[-1][0])
        reused_mark = any(REUSE_MARK in s for _c, s in rows)
        try:
            fork = repo.merge_base(source, base)
            if not swept_keys(repo, fork_point=fork, source=source, changelog=config.changelog):
                counts["no entry appended at the source commit"] += 1
                continue
            counts["appended entries"] += 1
            marked["appended entries"] += reused_mark
            if fork == base:
                counts["main had not moved"] += 1
                marked["main had not moved"] += reused_mark
                continue
            counts["main moved"] += 1
            marked["main moved"] += reused_mark
            report = check_staleness(repo, source=source, base=base, config=config)
        except ChangelogToolsError as exc:
            counts["error"] += 1
            reasons[f"error: {exc.message[:80]}"] += 1
            continue
        if report.ok:
            continue
        counts["refused (stale)"] += 1
        marked["refused (stale)"] += reused_mark
        kinds = sorted({k for s in report.stale for k in s.what.split(", ")})
        reasons[" + ".join(kinds)] += 1
        if len(examples) < 8:
            examples.append(f"#{pr} ({sha[:9]}): {report.items()[0]}")
    elapsed = time.perf_counter() - started
    print(f"{len(merges)} squash merges of {args.branch} that changed {config.changelog}")
    for name in (
        "no PR head in the clone",
        "PR head already on main",
        "no entry appended at the source commit",
        "appended entries",
        "main had not moved",
        "main moved",
        "refused (stale)",
        "error",
    ):
        print(f"  {name}: {counts[name]} (marked 'for sweep reuse': {marked[name]})")
    print("what made them stale (per merge):")
    for reason, n in reasons.most_common():
        print(f"  {n:4d}  {reason}")
    print("examples:")
    for line in examples:
        print(f"  {line}")
    print(f"{elapsed:.1f} s")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    from _header import print_header  # the date and machine of every figure below

    print_header(__file__)
    raise SystemExit(main())
