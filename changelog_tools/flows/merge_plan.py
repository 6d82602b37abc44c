"""The merge flow's plan and report: what was asked, what was decided, what came of it.

Plain records (the JSON of `merge --format json`) and the text rendering of stdout; nothing here
talks to git or GitHub.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from changelog_tools.github.reuse import Authorization
from changelog_tools.ledger.canonicalize import Substitution


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
class Outcome:
    plan: Plan | None  # None when the PR was already merged
    merged: bool
    merge_commit: str | None
    dry_run: bool
    already_merged: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "dry-run": self.dry_run,
            "merged": self.merged,
            "already-merged": self.already_merged,
            "merge-commit": self.merge_commit,
            "plan": None if self.plan is None else self.plan.to_json(),
        }


def render_outcome(outcome: Outcome) -> str:
    """The plan and the result as text (stdout)."""
    if outcome.plan is None:
        return f"already merged as {outcome.merge_commit}\n"
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
        lines.append(f"merged as {outcome.merge_commit}; main reuses sweep run {p.source.id}")
    return "\n".join(lines) + "\n"
