"""What a push run of the sweep did about its ingest, read from its jobs.

GitHub's API does not show a job's outputs, so the run is judged by its jobs' names and
conclusions: the ingest jobs (``recover-ingest-jobs``) and the sweep's benchmark jobs
(``recover-sweep-jobs``, skipped whenever the run reuses a sweep). The ingest is lost when no
ingest job succeeded, or when one did after benchmark jobs ran and did not all succeed: a
cancelled sweep ingested as if complete (the "bogus ingest"). Shared by `merge` (did main's push
run ingest the merge?) and `recover` (which run lost its ingest, and did the recovery's run
ingest?); :func:`recover_command` words the command that recovers a lost one.
"""

from __future__ import annotations

import fnmatch
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from changelog_tools.config import Config
from changelog_tools.github.adapter import Job

_SETTLED = ("success", "skipped", "neutral")


@dataclass(frozen=True)
class IngestState:
    """What a push run's jobs say about its ingest."""

    ingest: tuple[tuple[str, str], ...]  # (job name, conclusion or status)
    sweep_ran: tuple[tuple[str, str], ...]  # benchmark jobs that were not skipped
    lost: bool
    why: str

    @property
    def reuse_enabled(self) -> bool:
        """No benchmark job ran: the run reused a sweep (or had nothing to sweep)."""
        return not self.sweep_ran

    def ingest_succeeded(self) -> tuple[str, ...]:
        return tuple(name for name, state in self.ingest if state == "success")


def _matches(name: str, patterns: Sequence[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)


def ingest_state(jobs: Sequence[Job], config: Config) -> IngestState:
    """Judge a completed push run's ingest from its jobs."""
    ingest = tuple(
        (j.name, j.conclusion or j.status or "unknown")
        for j in jobs
        if _matches(j.name, config.recover_ingest_jobs)
    )
    sweep_ran = tuple(
        (j.name, j.conclusion or j.status or "unknown")
        for j in jobs
        if _matches(j.name, config.recover_sweep_jobs) and j.conclusion != "skipped"
    )
    ok = [name for name, state in ingest if state == "success"]
    listed = ", ".join(f"{name} {state}" for name, state in ingest)
    if not ingest:
        names = ", ".join(config.recover_ingest_jobs)
        return IngestState(ingest, sweep_ran, True, f"no ingest job ({names}) is in the run")
    if not ok:
        return IngestState(ingest, sweep_ran, True, f"no ingest job succeeded ({listed})")
    bad = [(name, state) for name, state in sweep_ran if state not in _SETTLED]
    if bad:
        shown = ", ".join(f"{name} {state}" for name, state in bad[:3])
        more = f" and {len(bad) - 3} more" if len(bad) > 3 else ""
        return IngestState(
            ingest,
            sweep_ran,
            True,
            f"{', '.join(ok)} succeeded, but reuse was off and the sweep it ingested did not "
            f"complete ({shown}{more}): a bogus ingest",
        )
    how = "reusing a sweep" if not sweep_ran else "after a complete sweep"
    return IngestState(ingest, sweep_ran, False, f"{', '.join(ok)} succeeded {how}")


def recover_command(
    *, target: str | None = None, pr: int | None = None, source_run: int | None = None
) -> str:
    """The `recover` command line for a run URL ``target`` or the original pull request ``pr``,
    optionally pinning the sweep run to reuse: what a report prints for a lost ingest."""
    parts = ["changelog-tools", "recover"]
    parts += [target] if target else ["--pr", str(pr)]
    if source_run is not None:
        parts += ["--source-run", str(source_run)]
    return shlex.join(parts)
