"""When a sign-off counts for a head commit.

A review or review comment counts only for the commit it was made on (``commit_id``). A
conversation comment has no commit, so it counts for head H only if it was written, or last
edited by its own author, after H appeared. The time H appeared is the bot's first status on H
for this PR (the ``synchronize`` run posts ``pending``) since the PR's last force push; other
statuses and check suites may date from H's time as another PR's head. A commit
date says when the commit was made, not when it was pushed, and can be set to anything.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from changelog_tools.github.adapter import Edit, Remark


def head_appeared(times: Iterable[datetime | None]) -> datetime | None:
    """The earliest of the given status times on a head (None: nothing there yet)."""
    known = [t for t in times if t is not None]
    return min(known) if known else None


@dataclass(frozen=True)
class Freshness:
    fresh: bool
    effective_at: datetime | None
    why_not: str | None = None


def edited(remark: Remark) -> bool:
    return (
        remark.kind == "issue_comment"
        and remark.updated_at is not None
        and remark.created_at is not None
        and remark.updated_at > remark.created_at
    )


def _by_author(remark: Remark, edit: Edit) -> bool:
    return edit.editor is not None and (remark.author or "").lower() == edit.editor.lower()


def freshness(
    remark: Remark, *, head_sha: str, appeared: datetime | None, edit: Edit | None
) -> Freshness:
    """Whether ``remark`` counts for ``head_sha`` (see the module docstring)."""
    if remark.kind in ("review", "review_comment"):
        if edit is not None and edit.edited_at is not None and not _by_author(remark, edit):
            who = f"@{edit.editor}" if edit.editor else "someone else"
            return Freshness(False, edit.edited_at, f"edited by {who}, not by its author")
        if remark.commit_id == head_sha:
            return Freshness(True, remark.created_at)
        return Freshness(
            False,
            remark.created_at,
            f"made on commit {(remark.commit_id or '?')[:7]}, not on the head {head_sha[:7]}",
        )
    effective = remark.created_at
    if edit is not None and edit.edited_at is not None:
        if edit.editor is None or (remark.author or "").lower() != edit.editor.lower():
            who = f"@{edit.editor}" if edit.editor else "someone else"
            return Freshness(False, edit.edited_at, f"edited by {who}, not by its author")
        effective = edit.edited_at  # the author's own edit re-signs
    elif edited(remark):
        return Freshness(False, remark.updated_at, "edited, and who edited it is unknown")
    if appeared is None:
        return Freshness(False, effective, f"the head {head_sha[:7]} has no status or check yet")
    if effective is None or effective <= appeared:
        return Freshness(
            False,
            effective,
            f"written before the head {head_sha[:7]} was pushed (sign again for this head)",
        )
    return Freshness(True, effective)
