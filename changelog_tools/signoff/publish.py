"""Publishing a verdict: one verdict comment per PR (created once, then edited in place) and
the commit status on the head. Nothing here decides anything."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from changelog_tools.config import Config
from changelog_tools.errors import GitHubError
from changelog_tools.github.adapter import GitHub
from changelog_tools.signoff.render import render_markdown, status_description
from changelog_tools.signoff.verdict import STATE_OF, Verdict


@dataclass(frozen=True)
class Published:
    comment_id: int | None
    comment_url: str | None
    created: bool
    state: str | None


def publish(gh: GitHub, config: Config, verdict: Verdict) -> Published:
    """Keep one verdict comment (edit it in place; create it once) and set the head's status."""
    from changelog_tools.signoff.markers import marker

    body = render_markdown(verdict)
    existing = verdict.details.get("verdict-comment-id")
    if isinstance(existing, int):
        comment = gh.edit_issue_comment(existing, body)
        created = False
    else:
        # upsert re-reads the comments before posting, so a lost answer never posts twice
        comment = gh.upsert_issue_comment(
            verdict.pr, body, marker=marker(verdict.pr), author=config.signoff_bot_login
        )
        created = True
    state = STATE_OF[verdict.verdict]
    gh.create_commit_status(
        verdict.head_sha,
        state=state,
        context=config.signoff_status_context,
        description=status_description(verdict),
        target_url=comment.html_url,
    )
    return Published(comment.id, comment.html_url, created, state)


def publish_failure(gh: GitHub, config: Config, head_sha: str, message: str) -> None:
    """Say on the head that verification failed, so the required check is not left without an
    answer; a failure to say so is not raised over the failure being reported."""
    with contextlib.suppress(GitHubError):
        gh.create_commit_status(
            head_sha,
            state="error",
            context=config.signoff_status_context,
            description=f"Could not verify: {message}"[:140],
        )
