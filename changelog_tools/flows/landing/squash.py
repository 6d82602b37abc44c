"""The squash merge of the merge flow: pinned to the pushed commit, never a guess.

The PR is re-read first: merged meanwhile is success, a moved head or branch protection stops
the flow (exit 4) with nothing merged. A merge whose answer is lost is settled by reading the PR
again; when even that fails, the error says the request was sent and to check the PR, never that
the merge failed.
"""

from __future__ import annotations

from changelog_tools.errors import AbortedError, GitHubError
from changelog_tools.flows.landing.plan import MergeRequest, Plan
from changelog_tools.flows.landing.ports import MergeGitHub, Say
from changelog_tools.github.adapter import MergeRejectedError


def squash_merge(*, plan: Plan, request: MergeRequest, github: MergeGitHub, say: Say) -> str:
    """Squash-merge ``plan.pr`` pinned to ``plan.candidate``; return the merge commit's SHA."""
    reuses = f"sweep run {plan.source.id}" + (f" ({plan.source.url})" if plan.source.url else "")
    return squash_pinned(
        pr=plan.pr,
        sha=plan.candidate,
        title=plan.squash_title,
        message=plan.squash_message,
        admin=request.admin,
        github=github,
        say=say,
        reuses=reuses,
        rerun=f"changelog-tools merge {plan.pr}",
    )


def squash_pinned(
    *,
    pr: int,
    sha: str,
    title: str,
    message: str,
    admin: bool,
    github: MergeGitHub,
    say: Say,
    reuses: str,
    rerun: str,
    conflict_hint: str | None = None,
) -> str:
    """Squash-merge PR ``pr`` only while its head is ``sha``; return the merge commit's SHA.

    ``reuses`` names the sweep main reuses (for the last progress line); ``rerun`` is the
    command a user runs again after a failure; ``conflict_hint`` what to do when GitHub says the
    PR conflicts with its base.
    """
    n = pr
    pull = github.get_pull(n)
    if pull.merged:
        say("merge", f"PR #{n} was merged meanwhile as {pull.merge_commit_sha}")
        return pull.merge_commit_sha or ""
    if pull.head_sha != sha:
        raise AbortedError(
            f"PR #{n}'s head changed to {pull.head_sha[:12]}; expected {sha[:12]}. "
            "Nothing was merged",
            hint=f"someone pushed while the checks ran; re-run `{rerun}`",
        )
    if pull.mergeable is False:
        raise AbortedError(
            f"GitHub reports PR #{n} as conflicting with {pull.base_ref}; nothing was merged",
            hint=conflict_hint or f"re-run `{rerun}`: it merges {pull.base_ref} in first",
        )
    if pull.mergeable_state == "blocked" and not admin:
        raise AbortedError(
            f"GitHub reports PR #{n} as blocked by branch protection; nothing was merged",
            hint="get the missing approvals or statuses, or re-run with --admin if you may "
            "bypass them",
        )
    say("merge", f"squash-merging PR #{n} at {sha[:12]}")
    try:
        result = github.merge_pull(n, sha=sha, method="squash", title=title, message=message)
    except MergeRejectedError as exc:
        raise AbortedError(
            f"GitHub refused to merge PR #{n}: {exc.message}. Nothing was merged",
            hint=f"re-run `{rerun}`" if exc.status == 409 else exc.hint,
        ) from None
    except GitHubError as exc:
        # The request went out; whether GitHub merged is unknown until the PR is read.
        merged = _confirm_lost_merge(n, exc, url=pull.html_url, github=github, say=say, rerun=rerun)
    else:
        if not result.merged:
            raise GitHubError(f"GitHub did not merge PR #{n}: {result.message}")
        merged = result.sha
    say("merge", f"merged PR #{n} as {merged}; main reuses {reuses}")
    return merged


def _confirm_lost_merge(
    n: int, exc: GitHubError, *, url: str | None, github: MergeGitHub, say: Say, rerun: str
) -> str:
    """The merge commit when a re-read shows the lost merge landed; else the truth, as an error.

    "The merge failed" would be a lie when only its answer was lost: someone would merge the
    PR by hand a second time, or give up on a PR that is in fact merged.
    """
    try:
        pull = github.get_pull(n)
    except GitHubError as reread:
        detail = exc.message
        if reread.message != exc.message:
            detail += f"; reading PR #{n} again: {reread.message}"
        raise GitHubError(
            f"the merge request for PR #{n} was sent, but its result could not be read "
            f"({detail}); check PR #{n}" + (f" at {url}" if url else "") + " before merging "
            "it again: it may be merged",
            hint=f"re-run `{rerun}` once GitHub answers: it reads the PR first, reports a "
            "merge that landed, and never merges twice",
        ) from None
    if pull.merged and pull.merge_commit_sha:
        say("merge", f"the answer was lost, but PR #{n} is merged as {pull.merge_commit_sha}")
        return pull.merge_commit_sha
    raise GitHubError(
        f"{exc.message}; PR #{n} is not merged (read again just now)",
        hint=exc.hint or f"re-run `{rerun}`",
    ) from None
