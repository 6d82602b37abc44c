"""Waiting for checks in the merge flow: the changelog check, then every check, fail fast.

A check run that concluded badly or a failing commit status stops the wait at once (exit 1);
checks that never finish stop it at the timeout (exit 4). Re-runs add check runs under the same
name, and only the newest counts.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from changelog_tools.config import Config
from changelog_tools.errors import AbortedError, DataError
from changelog_tools.flows.landing.plan import MergeRequest
from changelog_tools.flows.landing.ports import MergeGitHub, Say
from changelog_tools.flows.landing.progress import WaitReporter, WaitStatus, duration
from changelog_tools.github.adapter import CheckRun

# Conclusions of a completed check run that block a merge (GitHub's list).
FAILING_CONCLUSIONS = frozenset(
    {"failure", "cancelled", "timed_out", "action_required", "startup_failure", "stale"}
)


@dataclass
class CheckWaiter:
    """Polls the checks of one commit until all pass, one fails, or the time is up.

    While it waits, ``reporter`` shows which checks are pending, the time elapsed and when the
    next look comes (``sleep`` and ``clock`` are injected, so tests need no wall clock).
    """

    config: Config
    github: MergeGitHub
    say: Say
    reporter: WaitReporter
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    extra_required: tuple[str, ...] = ()  # checks a caller needs besides the configured ones
    rerun: str | None = None  # the command that keeps waiting (default: `merge PR`)

    def wait(self, *, sha: str, pr: int, request: MergeRequest) -> None:
        """Wait for the changelog check, then every check, on ``sha``; fail fast."""
        cfg = self.config
        timeout = float(cfg.check_timeout if request.timeout is None else request.timeout)
        interval = float(
            cfg.check_poll_interval if request.poll_interval is None else request.poll_interval
        )
        start = self.clock()
        deadline = start + timeout
        required = tuple(
            dict.fromkeys((cfg.changelog_check_name, *cfg.required_checks, *self.extra_required))
        )
        self.say(
            "wait",
            f"waiting for {', '.join(required)} and every other check on {sha[:12]} "
            f"(PR #{pr}'s head) to pass; a look every {duration(interval)}, "
            f"for at most {duration(timeout)}",
        )
        try:
            while True:
                pending = pending_checks(self.github, sha, required, admin=request.admin)
                now = self.clock()
                if not pending:
                    self.reporter.done()
                    self.say(
                        "wait", f"all checks passed on {sha[:12]} after {duration(now - start)}"
                    )
                    return
                if now >= deadline:
                    self.reporter.done()
                    raise AbortedError(
                        f"timed out after {duration(timeout)} waiting for {', '.join(pending)} on "
                        f"{sha[:12]}; nothing was merged",
                        hint=f"re-run `{self.rerun or f'changelog-tools merge {pr}'}` to keep "
                        "waiting",
                    )
                # The last look falls on the deadline, not up to an interval after it.
                pause = min(interval, deadline - now)
                status = WaitStatus(sha, pending, now - start, timeout, pause)
                self.reporter.update(status)
                self._pause(status, start=start)
        finally:
            self.reporter.done()

    def _pause(self, status: WaitStatus, *, start: float) -> None:
        """Sleep until the next look; a live reporter is updated every tick meanwhile."""
        remaining = status.next_look
        tick = self.reporter.tick
        while remaining > 0:
            step = remaining if tick is None else min(tick, remaining)
            self.sleep(step)
            remaining -= step
            if tick is not None and remaining > 1e-9:
                elapsed = self.clock() - start
                self.reporter.update(replace(status, elapsed=elapsed, next_look=remaining))


def pending_checks(
    github: MergeGitHub, sha: str, required: Sequence[str], *, admin: bool
) -> tuple[str, ...]:
    """Names of the checks and statuses still running on ``sha``; DataError on a failure."""
    runs: dict[str, CheckRun] = {}
    for run in github.list_check_runs(sha):
        # Re-runs add check runs under the same name; the newest one counts.
        prev = runs.get(run.name)
        if prev is None or _newer(run, prev):
            runs[run.name] = run
    pending: list[str] = []
    for name, run in sorted(runs.items()):
        if run.status != "completed":
            pending.append(name)
        elif (run.conclusion or "") in FAILING_CONCLUSIONS:
            raise DataError(
                f"check {name} concluded {run.conclusion} on {sha[:12]}"
                + (
                    f" - {run.details_url or run.html_url}"
                    if (run.details_url or run.html_url)
                    else ""
                ),
                hint="fix the failure and re-run the merge",
            )
    status = github.get_combined_status(sha)
    contexts = {s.context: s for s in status.statuses}
    for context, s in sorted(contexts.items()):
        if s.state in ("failure", "error"):
            if admin and context not in required:
                continue
            raise DataError(
                f"status {context} is {s.state} on {sha[:12]}"
                + (f" - {s.target_url}" if s.target_url else ""),
                hint="fix it and re-run the merge",
            )
        if s.state == "pending":
            pending.append(context)
    for name in required:
        if name not in runs and name not in contexts:
            pending.append(name)
    return tuple(dict.fromkeys(pending))


# -- step 5: merge --------------------------------------------------------------------------


def _newer(a: CheckRun, b: CheckRun) -> bool:
    if a.started_at is not None and b.started_at is not None and a.started_at != b.started_at:
        return a.started_at > b.started_at
    return a.id > b.id
