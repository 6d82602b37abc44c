"""Measure `recover`'s scope and append steps on a real history: for every squash-merged pull
request that changed the changelog, would its entries be recoverable today?

Run: python scripts/measure_recover_scope.py REPO [--branch main] [--limit N]

REPO is a clone (bare is fine) of the benchmark repository (InferenceX: `git clone --bare
https://github.com/SemiAnalysisAI/InferenceX`). For each first-parent commit of the branch whose
subject ends in ``(#N)`` and that changed the changelog, as if its ingest had been lost:

1. scope: the entries that merge appended (`recover`'s own `read_scope`): recoverable, or
   refused (not a clean append, an entry linking another PR) with the reason;
2. append: those entries appended to the branch tip's changelog with a new PR's link
   (`recovery_changelog`), checked by `check` in PR mode against the tip's master configs,
   exactly as `recover` checks before its first write.

Prints the counts and the reasons, and how long the whole run took (in-process: the numbers are
the steps', not start-up time). No GitHub involved: the target, source and merge steps need one.
"""

from __future__ import annotations

import argparse
import collections
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _history import squash_merges  # noqa: E402

from changelog_tools.config import defaults  # noqa: E402
from changelog_tools.errors import DataError  # noqa: E402
from changelog_tools.flows.recover.scope import read_scope, recovery_changelog  # noqa: E402
from changelog_tools.gitrepo import open_repo  # noqa: E402
from changelog_tools.ledger.check import check_change  # noqa: E402

NEW_PR = 999_999


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
    current = repo.read_blob(tip, config.changelog) or b""
    masters = {p: repo.read_blob(tip, p) for p in config.master_configs}
    started = time.perf_counter()
    refused: collections.Counter[str] = collections.Counter()
    failing: collections.Counter[str] = collections.Counter()
    unlinkable: collections.Counter[str] = collections.Counter()
    recoverable = passing = 0
    entries = 0
    for sha, pr in merges:
        try:
            scope = read_scope(repo, config, pr=pr, merge_sha=sha)
        except DataError as exc:
            found = re.search(r"\b(CL\d{3})\b", exc.message)
            if found:
                refused[f"not a clean append: {found.group(1)}"] += 1
            elif "links PR" in exc.message:
                refused["an appended entry links another PR"] += 1
            else:
                refused[exc.message.split(": ", 1)[-1][:80]] += 1
            continue
        recoverable += 1
        entries += len(scope.entries)
        link = config.canonical_link(NEW_PR)
        try:
            data = recovery_changelog(current, scope, link=link, path=config.changelog)
        except DataError as exc:
            unlinkable[exc.message.split(" has ", 1)[-1][:80]] += 1
            continue
        result = check_change(
            base=current, head=data, config=config, mode="pr", pr=NEW_PR,
            path=config.changelog, masters_base=masters, masters_head=masters,
        )  # fmt: skip
        codes = sorted({d.code for d in result.report.errors})
        if codes:
            failing[" ".join(codes)] += 1
        else:
            passing += 1
    seconds = time.perf_counter() - started
    print(f"{len(merges)} squash merges changed {config.changelog} on {args.branch} "
          f"({tip[:12]}); {seconds:.1f} s in all")  # fmt: skip
    print(
        f"  scope recoverable: {recoverable} ({entries} entries); refused: {sum(refused.values())}"
    )
    for reason, count in refused.most_common():
        print(f"    {count:4}  {reason}")
    for reason, count in unlinkable.most_common():
        print(f"  not appended: {count} with an entry that has {reason}")
    print(f"  appended to today's changelog, `check` in PR mode: {passing} pass, "
          f"{sum(failing.values())} fail")  # fmt: skip
    for codes, count in failing.most_common():
        print(f"    {count:4}  {codes}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    from _header import print_header  # the date and machine of every figure below

    print_header(__file__)
    sys.exit(main())
