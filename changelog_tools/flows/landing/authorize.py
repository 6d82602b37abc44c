"""Authorization of the merge flow: whether to post `/reuse-sweep-run`, and posting it once.

The newest authorized command is kept when it already says what the merge needs (a
maintainer's pin is never replaced silently); a post whose answer is lost is looked for before
it is posted once more, so a flaky POST neither fails the flow nor leaves two comments.
"""

from __future__ import annotations

from changelog_tools.config import Config
from changelog_tools.errors import AbortedError, GitHubError
from changelog_tools.flows.landing.plan import MergeRequest, Plan, SourceRun
from changelog_tools.flows.landing.ports import MergeGitHub, Say
from changelog_tools.github.adapter import AmbiguousWriteError, Comment
from changelog_tools.reuse.gate import Authorization


def authorize_body(command: str, run_id: int | None) -> str:
    return command if run_id is None else f"{command} {run_id}"


def authorization_needed(
    *, command: str, auth: Authorization | None, source: SourceRun, request: MergeRequest
) -> str | None:
    """The comment to post, or None when the newest authorization already says it."""
    if auth is not None and request.run_id is None:
        return None  # a bare command, or a maintainer's pin: keep it as it is
    if auth is not None and auth.run_id == request.run_id:
        return None
    if auth is not None and auth.run_id is None and source.latest:
        return None  # --run named the run a bare command selects anyway
    return authorize_body(command, None if source.latest and request.run_id is None else source.id)


def post_authorization(
    *, plan: Plan, github: MergeGitHub, config: Config, say: Say
) -> Comment | None:
    """Post ``plan.authorize_body`` (unless it is None) and make sure it authorizes.

    Returns the comment posted, None when the authorization was already in place.
    """
    if plan.authorize_body is None:
        say(
            "authorize",
            f"already authorized (comment {plan.authorization.comment_id if plan.authorization else '?'})",
        )
        return None
    known = plan.authorization.comment_id if plan.authorization else 0
    return post_command(
        pr=plan.pr, body=plan.authorize_body, known=known, github=github, config=config, say=say
    )


def post_command(
    *,
    pr: int,
    body: str,
    known: int,
    github: MergeGitHub,
    config: Config,
    say: Say,
    nothing_else: str = "Nothing was pushed or merged",
) -> Comment:
    """Post the reuse command ``body`` on PR ``pr`` once and make sure it authorizes.

    ``known`` is the newest authorizing comment id seen before (0: none): a comment after it
    with the same body is ours when the post's answer was lost.
    """
    say("authorize", f"posting `{body}` on PR #{pr}")
    try:
        comment = github.create_issue_comment(pr, body)
    except AmbiguousWriteError:
        # The answer was lost: the comment may exist. Look before posting once more.
        found = _posted_authorization(pr, body, known, github=github, config=config)
        if found is None:
            say("authorize", "the post did not land; posting once more")
            found = github.create_issue_comment(pr, body)
        else:
            say("authorize", f"the post landed as comment {found.id}")
        comment = found
    allowed = {a.upper() for a in config.reuse_allowed_associations}
    if comment.author_association.upper() not in allowed:
        # It authorizes nothing; left in place, every re-run would add another one.
        try:
            github.delete_issue_comment(comment.id)
            left = "it was deleted again"
        except GitHubError as exc:
            left = f"deleting it failed ({exc.message}); delete comment {comment.id} by hand"
        raise AbortedError(
            f"the authorization comment was posted as {comment.author or 'unknown'} "
            f"({comment.author_association}), which `reuse-allowed-associations` does not "
            f"accept; {left}. {nothing_else}",
            hint="run it again with a maintainer's token",
        )
    return comment


def _posted_authorization(
    pr: int, body: str, known: int, *, github: MergeGitHub, config: Config
) -> Comment | None:
    """The comment a lost POST of ``body`` created, if it exists.

    Only comments that authorize count: someone else's identical but powerless comment
    (a PR author asking for reuse) must not pass for ours.
    """
    body = body.strip()
    allowed = {a.upper() for a in config.reuse_allowed_associations}
    mine = [
        c
        for c in github.list_issue_comments(pr)
        if c.id > known and c.body.strip() == body and c.author_association.upper() in allowed
    ]
    return max(mine, key=lambda c: c.id) if mine else None
