"""Measure `check` and `fix` on a real changelog history: how many landed changes fail, by class,
and how many `fix` turns into a pass. Prints the date, the machine and the time taken.

Run: python scripts/measure_fix_history.py REPO [--branch main] [--repository OWNER/NAME]
     [--changelog perf-changelog.yaml] [--limit N] [--config-keys]

REPO is a clone of the benchmark repository (InferenceX: `git clone
https://github.com/SemiAnalysisAI/InferenceX`). The replay is `changelog-tools replay`'s
(changelog_tools/ledger/replay.py); this script only fixes the options a measurement of another
repository needs (its name, no configuration file of its own) and times the run. By default the
master-config rules are skipped (`--no-config-keys`): the master configs of an old commit name
keys that have been renamed since, which says nothing about the byte, entry and link rules.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from changelog_tools.commands.replay import render_text  # noqa: E402
from changelog_tools.config import defaults  # noqa: E402
from changelog_tools.gitrepo import open_repo  # noqa: E402
from changelog_tools.ledger.replay import replay_history  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--branch", default="main")
    parser.add_argument("--repository", default="SemiAnalysisAI/InferenceX")
    parser.add_argument("--changelog", default="perf-changelog.yaml")
    parser.add_argument("--limit", type=int, default=100_000, help="only the newest N changes")
    parser.add_argument("--config-keys", action="store_true", help="apply the master-config rules")
    args = parser.parse_args()
    root = args.repo.resolve()
    config = dataclasses.replace(
        defaults(root), repository=args.repository, changelog=args.changelog
    )
    started = time.perf_counter()
    result = replay_history(
        open_repo(root),
        config,
        limit=args.limit,
        branch=args.branch,
        config_keys=args.config_keys,
        progress=lambda msg: print(msg, file=sys.stderr),
    )
    seconds = time.perf_counter() - started
    print(f"{datetime.date.today()} on {platform.node()} ({platform.machine()}, "
          f"Python {platform.python_version()}): {seconds:.1f} s")  # fmt: skip
    print(render_text(result), end="")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    from _header import print_header  # the date and machine of every figure below

    print_header(__file__)
    raise SystemExit(main())
