"""Which pull request an Actions event is about, and whether the run has anything to do.

These are the cheap decisions, taken before the pull request is read: a run that can end here
costs at most one request.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from changelog_tools.errors import UsageError
from changelog_tools.github.adapter import GitHub, NotFoundError, PullRequest
from changelog_tools.signoff import checklist as cl


@dataclass(frozen=True)
class Skip:
    """Why a run has nothing to decide (exit 0, nothing written)."""

    reason: str


def pr_from_event(event_name: str | None, event: Mapping[str, Any]) -> int | Skip:
    """The PR number an event is about, or why the run has nothing to do."""
    if event_name == "issue_comment":
        issue = event.get("issue") if isinstance(event.get("issue"), dict) else {}
        assert isinstance(issue, dict)
        if issue.get("pull_request") is None:  # GitHub sets it (an object) only on PRs
            return Skip("a comment on an issue, not a pull request")
        number = issue.get("number")
    elif event_name in (
        "pull_request_review",
        "pull_request_review_comment",
        "pull_request_target",
        "pull_request",
    ):
        pull = event.get("pull_request") if isinstance(event.get("pull_request"), dict) else {}
        assert isinstance(pull, dict)
        number = pull.get("number")
    elif event_name == "workflow_dispatch":
        inputs = event.get("inputs") if isinstance(event.get("inputs"), dict) else {}
        assert isinstance(inputs, dict)
        number = inputs.get("pr") or inputs.get("pr_number")
    else:
        raise UsageError(
            f"event {event_name or '(none)'} names no pull request; pass --pr N",
        )
    from changelog_tools.numbers import parse_number

    # A JSON number, or the text of a dispatch input: ASCII digits only (int() would read
    # "٥" or "1_0" as a number).
    if isinstance(number, int) and not isinstance(number, bool):
        value: int | None = number
    else:
        value = parse_number(str(number).strip())
    if value is None:
        raise UsageError(f"the {event_name} event names no pull request number; pass --pr N")
    if value < 1:
        raise UsageError(f"pull request number {value} is not positive")
    return value


def _body_has_signoff(body: str, header: str) -> bool:
    return cl.find_signoff(body, header=header).checklist is not None


def _matters(body: str, *, header: str, reuse_command: str) -> bool:
    """``body`` holds a sign-off (as GitHub shows it) or a use of the reuse command: a change to
    it may change the verdict."""
    from changelog_tools.reuse.authorization import command_runs

    if reuse_command and command_runs(body, reuse_command):
        return True
    return _body_has_signoff(body, header)


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


# The events whose payload holds the body of the comment or review they are about.
_BODY_EVENTS = {
    "issue_comment": "comment",
    "pull_request_review": "review",
    "pull_request_review_comment": "comment",
}


def _edit_skip(
    event_name: str, event: Mapping[str, Any], *, header: str, reuse_command: str
) -> Skip | None:
    """An edit or deletion whose old and new bodies both hold no sign-off and no reuse command
    cannot change the verdict: skipped from the payload alone, with no request.

    The payload has both bodies: an edit's previous one in ``changes.body.from`` (absent when
    the body did not change) and its new one; a deleted comment's last one.
    """
    item = event.get(_BODY_EVENTS[event_name])
    item = item if isinstance(item, Mapping) else {}
    if "body" not in item:
        return None  # nothing to judge by: evaluate
    bodies = [_text(item.get("body"))]
    changes = event.get("changes")
    change = changes.get("body") if isinstance(changes, Mapping) else None
    if isinstance(change, Mapping) and "from" in change:
        bodies.append(_text(change.get("from")))
    if any(_matters(b, header=header, reuse_command=reuse_command) for b in bodies):
        return None
    what = "deleted" if event.get("action") == "deleted" else "edited"
    return Skip(
        f"the {what} {'review' if event_name == 'pull_request_review' else 'comment'} held no "
        "sign-off and no reuse command before or after (quotes, code, struck and hidden text do "
        "not count)"
    )


def comment_skip(
    gh: GitHub,
    event_name: str | None,
    event: Mapping[str, Any],
    *,
    reuse_command: str = "",
    header: str = cl.HEADER,
) -> Skip | None:
    """A comment or review event that cannot change the verdict is skipped.

    A new comment is re-read through the API (one request) and skipped when it holds no
    sign-off in its own visible text, unless it uses ``reuse_command`` (it decides the
    reuse-authorization check). A new review is judged from the payload. An edit or deletion
    (of a comment, a review comment or a review's body) is skipped with no request when its
    old and new bodies both hold neither: otherwise it runs in full, since it may withdraw a
    sign-off that counted.
    """
    action = event.get("action")
    if event_name in _BODY_EVENTS and action in ("edited", "deleted"):
        return _edit_skip(event_name, event, header=header, reuse_command=reuse_command)
    if event_name == "issue_comment" and action == "created":
        comment = event.get("comment") if isinstance(event.get("comment"), dict) else {}
        assert isinstance(comment, dict)
        cid = comment.get("id")
        if isinstance(cid, int):
            try:
                body = gh.get_issue_comment(cid).body
            except NotFoundError:
                return None  # deleted since: evaluate
            if not _matters(body, header=header, reuse_command=reuse_command):
                return Skip(
                    "the comment holds no sign-off in its own text (quotes, code, struck and "
                    "hidden text do not count)"
                )
    if event_name in ("pull_request_review", "pull_request_review_comment") and action in (
        "submitted",
        "created",
    ):
        item = event.get("review") or event.get("comment") or {}
        text = item.get("body") if isinstance(item, dict) else None
        if not _body_has_signoff(text if isinstance(text, str) else "", header):
            return Skip(
                "the review holds no sign-off in its own text (quotes, code, struck and hidden "
                "text do not count)"
            )
    return None


def pull_skip(pr: PullRequest) -> Skip | None:
    if pr.state != "open":
        return Skip(f"PR #{pr.number} is {'merged' if pr.merged else 'closed'}")
    if pr.draft:
        return Skip(f"PR #{pr.number} is a draft")
    return None
