"""When a sign-off counts for a head commit.

A review or review comment counts only for the commit it was made on (``commit_id``). A
conversation comment has no commit, so it counts for head H only if it was written, or last
edited by its own author, after H appeared. Whatever its kind, a comment or review that anyone
but its author ever edited never counts, even after the author edits it again: the words are no
longer known to be the author's alone (the author can post a new sign-off). The time H appeared is the bot's first status on H
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


NEVER_COUNTS = (
    "an edit by anyone but the author never counts, even after the author edits it again: "
    "post a new sign-off"
)


def _foreign_editor(remark: Remark, edit: Edit) -> str | None:
    """Who, other than the author, edited ``remark`` ("someone else" when that is unknown);
    None when every edit is the author's own."""
    author = (remark.author or "").lower()
    editors = (*edit.editors, edit.editor) if edit.edited_at is not None else edit.editors
    for editor in editors:
        if editor is None or editor.lower() != author:
            return f"@{editor}" if editor else "someone else"
    if not edit.complete:
        return "someone else (its edit history is too long to read whole)"
    return None


def freshness(
    remark: Remark, *, head_sha: str, appeared: datetime | None, edit: Edit | None
) -> Freshness:
    """Whether ``remark`` counts for ``head_sha`` (see the module docstring)."""
    who = _foreign_editor(remark, edit) if edit is not None else None
    if who is not None:
        assert edit is not None
        return Freshness(
            False, edit.edited_at, f"edited by {who}, not by its author ({NEVER_COUNTS})"
        )
    if remark.kind in ("review", "review_comment"):
        if remark.commit_id == head_sha:
            return Freshness(True, remark.created_at)
        return Freshness(
            False,
            remark.created_at,
            f"made on commit {(remark.commit_id or '?')[:7]}, not on the head {head_sha[:7]}",
        )
    effective = remark.created_at
    if edit is not None and edit.edited_at is not None:
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
