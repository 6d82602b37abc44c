"""Main's push run of a squash commit: wait for it, then read from its jobs what it did.

Shared by `merge` (did main reuse the PR's sweep and dispatch the ingest?) and `recover` (did
the recovery's merge do so?). The wait is bounded; progress is one line when the run appears and
one each time its status changes, never one per look. What the run did is judged from its jobs
by :func:`~changelog_tools.flows.landing.ingest.ingest_state` (GitHub's API does not show a
job's outputs): benchmark jobs skipped means the sweep was reused; an ingest job that succeeded
dispatched the ingest.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from changelog_tools.config import Config
from changelog_tools.flows.landing.ingest import IngestState, ingest_state, recover_command
from changelog_tools.flows.landing.plan import PushRunReport
from changelog_tools.flows.landing.ports import RunsGitHub, Say
from changelog_tools.flows.landing.progress import duration
from changelog_tools.github.adapter import WorkflowRun


@dataclass(frozen=True)
class PushRun:
    """The push run found for a commit (None: none started in time) and, once it completed,
    what its jobs say (None: it had not completed when the wait ended)."""

    run: WorkflowRun | None
    state: IngestState | None
    waited: float

    @property
    def completed(self) -> bool:
        return self.run is not None and self.state is not None


def wait_push_run(
    github: RunsGitHub,
    config: Config,
    sha: str,
    *,
    timeout: float,
    interval: float,
    say: Say,
    sleep: Callable[[float], None],
    clock: Callable[[], float],
    step: str = "ingest",
) -> PushRun:
    """Look for the push run of the sweep workflow on ``sha`` until it completed or
    ``timeout`` seconds passed; then read its jobs (one request) if it completed."""
    start = clock()
    say(
        step,
        f"waiting for the push run of {config.sweep_workflow} on {sha[:12]}; a look every "
        f"{duration(interval)}, for at most {duration(timeout)}",
    )
    seen: tuple[int, str | None] | None = None
    while True:
        runs = github.iter_workflow_runs(config.sweep_workflow, event="push", head_sha=sha)
        run = next(iter(runs), None)
        if run is not None and (run.id, run.status) != seen:
            # a line when the run appears and each time its status changes, not per look
            first = seen is None or seen[0] != run.id
            seen = (run.id, run.status)
            url = f" ({run.html_url})" if first and run.html_url else ""
            say(step, f"push run {run.id}{url} is {run.status or 'in an unknown state'}")
        if run is not None and run.status == "completed":
            state = ingest_state(github.list_run_jobs(run.id), config)
            return PushRun(run, state, clock() - start)
        now = clock()
        if now - start >= timeout:
            return PushRun(run, None, now - start)
        sleep(min(interval, max(0.0, start + timeout - now)))


def push_run_report(found: PushRun, *, sha: str, source_run: int | None, pr: int) -> PushRunReport:
    """`merge`'s report of the push run :func:`wait_push_run` found for its squash commit.

    Not ok (exit 5, with the `recover` command) when the run did not complete in time, or
    completed without an ingest (no ingest job succeeded, or it ingested a sweep that did not
    complete). A run that swept again instead of reusing and ingested its own complete sweep
    lost nothing: reported as not reused, and ok.
    """
    run, state = found.run, found.state
    recover = recover_command(pr=pr, source_run=source_run)
    report = PushRunReport(True, sha, source_run, recover=recover, waited_seconds=found.waited)
    if run is None:
        return replace(report, why=f"had not started after {duration(found.waited)}")
    report = replace(
        report, run_id=run.id, url=run.html_url, status=run.status, conclusion=run.conclusion
    )
    if state is None:
        return replace(
            report,
            why=f"was still {run.status or 'running'} after {duration(found.waited)}; whether "
            "it ingests is not known yet (once it completes without an ingest, recover it)",
        )
    why = state.why
    if not state.reuse_enabled:
        ran = ", ".join(f"{n} {c}" for n, c in state.sweep_ran[:3])
        more = f" and {len(state.sweep_ran) - 3} more" if len(state.sweep_ran) > 3 else ""
        why = f"did not reuse the sweep: benchmark jobs ran ({ran}{more}); {state.why}"
        if not state.lost:
            why += " (its own sweep's results)"
    return replace(
        report,
        reused=state.reuse_enabled,
        ingest_jobs=state.ingest,
        ok=not state.lost,
        why=why,
        recover=recover if state.lost else None,
    )
