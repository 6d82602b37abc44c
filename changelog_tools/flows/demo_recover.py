"""The demo's recovery chapter: a pull request merged without reuse, and its ingest recovered.

Bob's PR #3 is swept, then merged with GitHub's button and nobody posted `/reuse-sweep-run`:
main's push run sweeps again, is cancelled, and skips the ingest. `recover --pr 3 --dry-run`
shows the plan; `recover --pr 3 --yes` opens recovery PR #4, authorizes reuse of PR #3's sweep,
appends PR #3's entry with #4's link, carries the sweep's commit, merges, and finds the push run
that reused the sweep and ingested.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from changelog_tools.errors import DataError

if TYPE_CHECKING:
    from changelog_tools.testing.fakegithub import FakeGitHub

LOST_PR = 3
RECOVERY_PR = 4


def recover_story(
    step: Callable[[str, Path, Sequence[str], int], Any],
    fake: FakeGitHub,
    *,
    open_pr: Callable[[], str],
    sweep: Callable[[str], int],
    maintainer: Path,
    say: Callable[[str], None],
) -> None:
    """Lose PR #3's ingest, then recover it with the real command; check what it reports."""
    from changelog_tools.testing.fakesweep import lost_ingest_run, merge_now

    head = open_pr()
    run = sweep(head)
    with fake._lock:  # the merge and its push run at once: CI adds no run of its own
        merge_sha = merge_now(fake, LOST_PR)
        lost = lost_ingest_run(fake, merge_sha, how="cancelled")
    say("")
    say(
        f"== 8. PR #{LOST_PR} (swept by run {run}) is merged with GitHub's button, and nobody "
        "posted /reuse-sweep-run"
    )
    say(
        f"   main's push run {lost.id} swept again, was cancelled, and skipped the ingest: "
        "the results are lost"
    )
    step(
        "9. the maintainer looks at the recovery first (--dry-run changes nothing)",
        maintainer, ["recover", "--pr", str(LOST_PR), "--dry-run"], 0,
    )  # fmt: skip
    done = step(
        f"10. ... and recovers PR #{LOST_PR}'s ingest: a recovery PR that reuses run {run}",
        maintainer, ["recover", "--pr", str(LOST_PR), "--yes"], 0,
    )  # fmt: skip
    wanted = f"reused source run {run}"
    if wanted not in done.stdout or f"recovery PR #{RECOVERY_PR} merged" not in done.stdout:
        raise DataError(f"demo: recover did not report a merged recovery that {wanted}")
