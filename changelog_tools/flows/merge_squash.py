"""The squash merge of the merge flow: pinned to the pushed commit, never a guess.

The PR is re-read first: merged meanwhile is success, a moved head or branch protection stops
the flow (exit 4) with nothing merged.
"""

from __future__ import annotations

from changelog_tools.errors import AbortedError, GitHubError
from changelog_tools.flows.merge_plan import MergeRequest, Plan
from changelog_tools.flows.merge_ports import MergeGitHub, Say
from changelog_tools.github.adapter import MergeRejectedError


def squash_merge(*, plan: Plan, request: MergeRequest, github: MergeGitHub, say: Say) -> str:
    """Squash-merge ``plan.pr`` pinned to ``plan.candidate``; return the merge commit's SHA."""
    n = plan.pr
    pull = github.get_pull(n)
    if pull.merged:
        say("merge", f"PR #{n} was merged meanwhile as {pull.merge_commit_sha}")
        return pull.merge_commit_sha or ""
    if pull.head_sha != plan.candidate:
        raise AbortedError(
            f"PR #{n}'s head changed to {pull.head_sha[:12]}; expected {plan.candidate[:12]}. "
            "Nothing was merged",
            hint="someone pushed while the checks ran; re-run the merge",
        )
    if pull.mergeable_state == "blocked" and not request.admin:
        raise AbortedError(
            f"GitHub reports PR #{n} as blocked by branch protection; nothing was merged",
            hint="get the missing approvals or statuses, or re-run with --admin if you may "
            "bypass them",
        )
    say("merge", f"squash-merging PR #{n} at {plan.candidate[:12]}")
    try:
        result = github.merge_pull(
            n,
            sha=plan.candidate,
            method="squash",
            title=plan.squash_title,
            message=plan.squash_message,
        )
    except MergeRejectedError as exc:
        raise AbortedError(
            f"GitHub refused to merge PR #{n}: {exc.message}. Nothing was merged",
            hint="re-run the merge" if exc.status == 409 else exc.hint,
        ) from None
    if not result.merged:
        raise GitHubError(f"GitHub did not merge PR #{n}: {result.message}")
    say(
        "merge",
        f"merged PR #{n} as {result.sha}; main reuses sweep run {plan.source.id}"
        + (f" ({plan.source.url})" if plan.source.url else ""),
    )
    return result.sha
