"""The merge flow's plan and report: what was asked, what was decided, what came of it.

Plain records (the JSON of `merge --format json`) and the text rendering of stdout; nothing here
talks to git or GitHub.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from changelog_tools.ledger.canonicalize import Substitution
from changelog_tools.reuse.gate import Authorization


@dataclass(frozen=True)
class SourceRun:
    """The pull-request sweep run main will reuse."""

    id: int
    attempt: int
    url: str | None
    head_sha: str | None
    conclusion: str | None
    latest: bool  # the newest eligible run (what a bare command selects)


@dataclass(frozen=True)
class Resolution:
    """How the changelog conflict was resolved (for the plan)."""

    data: bytes
    kept: int  # PR entries carried over
    dropped: int  # PR entries already on main
    detail: Mapping[str, Any] = field(default_factory=dict)
    substitutions: tuple[Substitution, ...] = ()


@dataclass(frozen=True)
class MergeRequest:
    """What the user asked for."""

    pr: int
    dry_run: bool = False
    admin: bool = False
    run_id: int | None = None  # --run: reuse this run (posted as a pin when not the latest)
    timeout: float | None = None  # seconds to wait for checks; None: config `check-timeout`
    poll_interval: float | None = None  # None: config `check-poll-interval`
    wait_ingest: bool = True  # wait for main's push run of the squash commit and report it
    ingest_timeout: float | None = None  # None: config `ingest-timeout`


@dataclass(frozen=True)
class Plan:
    """Everything the flow decided before touching anything remote."""

    pr: int
    title: str
    head_branch: str
    start_head: str
    main_sha: str
    merged_main: bool
    conflicted: tuple[str, ...]
    resolution: Resolution | None
    substitutions: tuple[Substitution, ...]
    commit_kind: str  # merge | merge+canonicalize | canonicalize | refresh | resume
    candidate: str  # the head the PR will have when merged
    source: SourceRun
    authorization: Authorization | None
    authorize_body: str | None  # the comment to post, None when already authorized
    squash_title: str
    squash_message: str

    @property
    def push_needed(self) -> bool:
        return self.candidate != self.start_head

    def to_json(self) -> dict[str, Any]:
        res = self.resolution
        return {
            "pr": self.pr,
            "title": self.title,
            "head-branch": self.head_branch,
            "start-head": self.start_head,
            "main-sha": self.main_sha,
            "merge-main": {
                "merged": self.merged_main,
                "conflicted": list(self.conflicted),
                "resolution": None
                if res is None
                else {"kept": res.kept, "dropped": res.dropped, "detail": dict(res.detail)},
            },
            "substitutions": [s.as_json() for s in self.substitutions],
            "commit": self.commit_kind,
            "candidate": self.candidate,
            "push": self.push_needed,
            "source-run": {
                "id": self.source.id,
                "attempt": self.source.attempt,
                "url": self.source.url,
                "head-sha": self.source.head_sha,
                "latest": self.source.latest,
            },
            "authorization": None
            if self.authorization is None
            else {
                "comment-id": self.authorization.comment_id,
                "run-id": self.authorization.run_id,
                "author": self.authorization.author,
                "url": self.authorization.url,
            },
            "authorize-comment": self.authorize_body,
            "squash-title": self.squash_title,
            "squash-message": self.squash_message,
        }


@dataclass(frozen=True)
class PushRunReport:
    """What main's push run of the squash commit did (or that it was not awaited / not done).

    ``ok`` is the one fact that matters: the run completed, reused the sweep (no benchmark job
    ran) and its ingest job succeeded (the ingest was dispatched). Otherwise ``recover`` is the
    exact command that ingests the sweep's results for main.
    """

    waited: bool
    sha: str
    source_run: int | None
    run_id: int | None = None
    url: str | None = None
    status: str | None = None  # the run's status when the wait ended
    conclusion: str | None = None
    reused: bool | None = None  # None: not known (not awaited, no run, not completed)
    ingest_jobs: tuple[tuple[str, str], ...] = ()  # (job, conclusion)
    ok: bool = False
    why: str = ""
    recover: str | None = None
    waited_seconds: float = 0.0

    @property
    def ingest_dispatched(self) -> bool | None:
        """An ingest job ran (was not skipped); None before the run completed."""
        if self.reused is None:
            return None
        return any(state not in ("skipped", "unknown") for _n, state in self.ingest_jobs)

    @property
    def ingest_finished(self) -> bool | None:
        """An ingest job ran to success; None before the run completed."""
        if self.reused is None:
            return None
        return any(state == "success" for _n, state in self.ingest_jobs)

    def to_json(self) -> dict[str, Any]:
        return {
            "waited": self.waited,
            "commit": self.sha,
            "id": self.run_id,
            "url": self.url,
            "status": self.status,
            "conclusion": self.conclusion,
            "expected-source-run": self.source_run,
            "reused-sweep": self.reused,
            "ingest-dispatched": self.ingest_dispatched,
            "ingest-finished": self.ingest_finished,
            "ingest-jobs": [{"name": n, "conclusion": c} for n, c in self.ingest_jobs],
            "ok": self.ok,
            "reason": self.why,
            "recover-command": self.recover,
            "waited-seconds": round(self.waited_seconds, 3),
        }

    def sentence(self) -> str:
        """What main's push run did, plainly (for stdout)."""
        source = f"sweep run {self.source_run}" if self.source_run is not None else "the sweep"
        if not self.waited:
            return (
                f"main's push run was not awaited (--no-wait-ingest); it should reuse {source} "
                "and dispatch the ingest"
            )
        run = (
            f"main's push run {self.run_id}" + (f" ({self.url})" if self.url else "")
            if self.run_id is not None
            else "main's push run"
        )
        if self.ok:
            jobs = ", ".join(n for n, c in self.ingest_jobs if c == "success")
            return f"{run} reused {source}; {jobs} succeeded: the ingest was dispatched"
        return f"{run} {self.why}: the results of {source} are not ingested for main"


@dataclass(frozen=True)
class Outcome:
    plan: Plan | None  # None when the PR was already merged
    merged: bool
    merge_commit: str | None
    dry_run: bool
    already_merged: bool = False
    push_run: PushRunReport | None = None  # main's push run of the squash (after a merge)

    @property
    def ingest_missing(self) -> bool:
        """Merged, and main's push run was awaited but did not reuse and ingest."""
        return self.push_run is not None and self.push_run.waited and not self.push_run.ok

    def to_json(self) -> dict[str, Any]:
        return {
            "dry-run": self.dry_run,
            "merged": self.merged,
            "already-merged": self.already_merged,
            "merge-commit": self.merge_commit,
            "push-run": None if self.push_run is None else self.push_run.to_json(),
            "plan": None if self.plan is None else self.plan.to_json(),
        }


def render_outcome(outcome: Outcome) -> str:
    """The plan and the result as text (stdout)."""
    if outcome.plan is None:
        text = f"already merged as {outcome.merge_commit}\n"
        if outcome.push_run is not None:
            text += outcome.push_run.sentence() + "\n"
            if outcome.push_run.recover:
                text += f"recover with:  {outcome.push_run.recover}\n"
        return text
    p = outcome.plan
    dry = outcome.dry_run
    lines = [f"PR #{p.pr}: {p.title}"]
    if p.merged_main:
        how = "merged"
        if p.resolution is not None:
            how += (
                f"; {', '.join(p.conflicted)} conflict resolved (kept {p.resolution.kept} PR "
                f"entr{'y' if p.resolution.kept == 1 else 'ies'}, dropped {p.resolution.dropped})"
            )
        lines.append(f"  main ({p.main_sha[:12]}):  {how}")
    else:
        lines.append(f"  main ({p.main_sha[:12]}):  already merged into the PR")
    if p.substitutions:
        for s in p.substitutions:
            lines.append(f"  pr-link:  line {s.line}: {s.old} -> {s.new}")
    else:
        lines.append("  pr-links:  already canonical")
    verb = ("would push" if dry else "pushed") if p.push_needed else "kept"
    lines.append(f"  head:  {verb} {p.candidate[:12]} ({p.commit_kind}) to {p.head_branch}")
    run = f"{p.source.id}" + (f" ({p.source.url})" if p.source.url else "")
    lines.append(f"  source run:  {run}")
    if p.authorize_body is None:
        who = p.authorization.author if p.authorization else None
        lines.append("  authorization:  already in place" + (f" (by {who})" if who else ""))
    else:
        lines.append(f"  authorization:  {'would post' if dry else 'posted'} `{p.authorize_body}`")
    lines.append(f"  squash title:  {p.squash_title}")
    lines.append("  squash message:")
    lines.extend(f"    {line}".rstrip() for line in p.squash_message.splitlines())
    if dry:
        lines.append("dry run: nothing was posted, pushed or merged")
    elif outcome.merged:
        lines.append(f"merged as {outcome.merge_commit}")
        if outcome.push_run is not None:
            lines.append(outcome.push_run.sentence())
            if outcome.push_run.recover:
                lines.append(f"recover with:  {outcome.push_run.recover}")
    return "\n".join(lines) + "\n"
