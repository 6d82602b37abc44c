"""A world for `recover` tests: the merge-flow world, plus an original PR merged without reuse
whose push run lost its ingest, and CI that adds a push run for every later merge."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from changelog_tools.testing.fakegithub import FakeRun
from changelog_tools.testing.fakesweep import ci_push_runs, lost_ingest_run, merge_now
from tests.conftest import git
from tests.mergeworld import REPOSITORY, World, build_world, entry

LINK = f"https://github.com/{REPOSITORY}/pull/"
CHECKS = ("check-changelog", "reuse-sweep-gate")


@dataclass
class Lost:
    """The original PR #1 and what happened to it."""

    head: str  # the PR head its sweep ran on
    source: FakeRun  # that sweep run
    merge_sha: str
    target: FakeRun  # the push run that lost the ingest
    main_before: bytes  # main's changelog before the recovery


def lost_world(tmp: Path, *, how: str = "cancelled") -> Iterator[tuple[World, Lost]]:
    from changelog_tools.testing.fakeci import all_green

    for w in build_world(tmp, all_green(CHECKS)):
        # PR #1's push run is the one below, not the one CI would add for its merge
        w.ci.on_merge = None
        head = w.open_pr(
            1,
            "feat-a",
            {},
            title="Tune llama TP sizes",
            append=entry("Tune the TP sizes", f"{LINK}1"),
        )
        source = next(r for r in w.fake.runs.values() if r.head_sha == head)
        merge_sha = merge_now(w.fake, 1)
        target = lost_ingest_run(w.fake, merge_sha, how=how)
        # CI: every later merge gets the push run the gate's rules give it (PR #1's is above)
        w.ci.on_merge = ci_push_runs(w.fake)
        lost = Lost(head, source, merge_sha, target, w.origin_file("main"))
        yield w, lost


def writes(w: World) -> list[tuple[str, str]]:
    return [(r.method, r.path) for r in w.fake.log if r.method != "GET"]


def branch_parents(w: World, ref: str) -> list[str]:
    return git(w.origin, "rev-list", "--parents", "-n", "1", ref).split()[1:]
