"""GitHub endpoints for verifying reviews and sign-offs, a base of the adapter's GitHub class.

Everything a sign-off verifier reads: the three kinds of PR conversation as one record type
(:class:`Remark`), comment edit history (GraphQL: REST does not say who edited), statuses and
check suites per commit (the time a head appeared), team memberships and collaborator
permissions, workflow jobs, artifact contents and other repositories' pull requests.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from changelog_tools.errors import GitHubError
from changelog_tools.github import convert
from changelog_tools.github.connection import Connected
from changelog_tools.github.failures import NotFoundError
from changelog_tools.github.policy import Mode
from changelog_tools.github.records import (
    CheckSuite,
    CommitStatus,
    Edit,
    Job,
    PullRequest,
    Remark,
)

# GitHub's own caps on the PR list endpoints; a list this long may be cut short.
MAX_PULL_FILES = 3000
MAX_PULL_COMMITS = 250
# The most artifact bytes read from storage when the caller names no limit.
MAX_DOWNLOAD = 512 * 1024 * 1024

# The most edits of one comment read (GraphQL pages hold at most 100 nodes): a longer history
# is not read whole, and such a comment does not count (see freshness).
MAX_EDITS = 100
_EDIT_FIELDS = (
    "lastEditedAt editor { login } "
    f"userContentEdits(first: {MAX_EDITS}) {{ totalCount nodes {{ editor {{ login }} }} }}"
)
_EDITS_QUERY = (
    "query($ids: [ID!]!) { nodes(ids: $ids) { id "
    f"... on IssueComment {{ {_EDIT_FIELDS} }} "
    f"... on PullRequestReview {{ {_EDIT_FIELDS} }} "
    f"... on PullRequestReviewComment {{ {_EDIT_FIELDS} }} }} }}"
)


class ReviewingEndpoints(Connected):
    """The sign-off verifier's endpoints; GitHub (the adapter) inherits them."""

    def list_remarks(self, number: int) -> tuple[Remark, ...]:
        """Conversation comments, reviews and review comments of PR ``number`` (3 lists)."""
        issue, pull = self._nodes.issue(number), self._nodes.pull(number)
        return (
            *self._all(
                self._repo_path(f"/issues/{number}/comments"),
                issue.get_comments(),
                convert.comment_remark,
            ),
            *self._all(
                self._repo_path(f"/pulls/{number}/reviews"),
                pull.get_reviews(),
                convert.review_remark,
            ),
            *self._all(
                self._repo_path(f"/pulls/{number}/comments"),
                pull.get_review_comments(),
                convert.review_comment_remark,
            ),
        )

    def get_issue_comment(self, comment_id: int) -> Remark:
        node = self._nodes.issue_comment(comment_id)
        return self._read(
            self._repo_path(f"/issues/comments/{comment_id}"),
            lambda: convert.comment_remark(node.complete()),
        )

    def comment_edits(self, node_ids: list[str]) -> dict[str, Edit]:
        """Who last edited each comment and when, and who made every edit in its history
        (GraphQL, one request; REST does not say who)."""
        if not node_ids:
            return {}
        requester = self._requester
        body = {"query": _EDITS_QUERY, "variables": {"ids": node_ids}}
        with requester.writing(Mode.READ):  # a query: asking twice changes nothing
            _, data = requester.requestJsonAndCheck("POST", requester.graphql_url, input=body)
        nodes = data.get("data") if isinstance(data, dict) else None
        nodes = nodes.get("nodes") if isinstance(nodes, dict) else None
        errors = data.get("errors") if isinstance(data, dict) else None
        if not isinstance(data, dict) or not isinstance(nodes, list) or not _only_gone(errors):
            shown = str(data)[:300]
            raise GitHubError(
                self.traffic.redact(f"GitHub GraphQL query for comment edits failed: {shown}")
            )
        out: dict[str, Edit] = {}
        for error in errors or ():
            index = error["path"][1] if len(error["path"]) > 1 else None
            if isinstance(index, int) and 0 <= index < len(node_ids):
                out[node_ids[index]] = Edit(None, None, gone=True)
        for node in nodes:
            if isinstance(node, dict) and isinstance(node.get("id"), str):
                history = node.get("userContentEdits")
                history = history if isinstance(history, dict) else {}
                edits = [e for e in history.get("nodes") or () if isinstance(e, dict)]
                total = history.get("totalCount")
                out[node["id"]] = Edit(
                    _login(node.get("editor")),
                    _timestamp(node.get("lastEditedAt")),
                    tuple(_login(e.get("editor")) for e in edits),
                    not isinstance(total, int) or total <= len(edits),
                )
        return out

    def list_commit_statuses(self, sha: str) -> tuple[CommitStatus, ...]:
        """Every status ever set on ``sha`` (newest first, as GitHub lists them)."""
        return self._all(
            self._repo_path(f"/commits/{sha}/statuses"),
            self._nodes.statuses(sha),
            convert.status,
        )

    def force_push_times(self, number: int) -> tuple[datetime, ...]:
        """When PR ``number``'s head was force-pushed (its timeline's `head_ref_force_pushed`)."""
        times = self._all(
            self._repo_path(f"/issues/{number}/timeline"),
            self._nodes.issue(number).get_timeline(),
            convert.force_push_time,
        )
        return tuple(t for t in times if t is not None)

    def list_check_suites(self, sha: str) -> tuple[CheckSuite, ...]:
        return self._all(
            self._repo_path(f"/commits/{sha}/check-suites"),
            self._nodes.commit(sha).get_check_suites(),
            convert.check_suite,
            key="check_suites",
        )

    def is_team_member(self, team: str, login: str) -> bool:
        """Whether ``login`` is an active member of ``org/slug``: 404 means no; any other
        failure (403: the token cannot read the org) raises, so it is never a silent "no"."""
        org, _, slug = team.partition("/")
        node = self._nodes.team(org, slug)
        what = f"/orgs/{org}/teams/{slug}/memberships/{login}"
        try:
            state = self._read(what, lambda: convert.opt_str(node.get_team_membership(login).state))
        except NotFoundError:
            return False
        return state == "active"

    def collaborator_permission(self, login: str) -> str:
        """``admin``, ``maintain``, ``write``, ``triage``, ``read`` or ``none``.

        Read through the requester: PyGithub 2.6 returns only the older ``permission`` field,
        which says ``write`` for maintain and ``read`` for triage."""
        from changelog_tools.github.nodes import segment

        path = f"{self._nodes.repo_url}/collaborators/{segment(login)}/permission"
        try:
            _, data = self._requester.requestJsonAndCheck("GET", path)
        except NotFoundError:
            return "none"
        found: Any = data if isinstance(data, dict) else {}
        return (
            convert.opt_str(found.get("role_name"))
            or convert.opt_str(found.get("permission"))
            or "none"
        )

    def list_run_jobs(self, run_id: int) -> tuple[Job, ...]:
        """The jobs of a run's latest attempt."""
        return self._all(
            self._repo_path(f"/actions/runs/{run_id}/jobs"),
            self._nodes.run(run_id).jobs("latest"),
            convert.job,
            key="jobs",
        )

    def download_artifact(self, artifact_id: int, *, max_bytes: int = MAX_DOWNLOAD) -> bytes:
        """The zip of an artifact, at most ``max_bytes`` of it: GitHub answers 302 to a signed
        storage URL, which is fetched without the token."""
        from changelog_tools.github.download import fetch_bounded

        requester = self._requester
        location = requester.locate(f"{self._nodes.repo_url}/actions/artifacts/{artifact_id}/zip")
        self.traffic.requests += 1
        return fetch_bounded(
            location,
            what=f"downloading artifact {artifact_id}",
            max_bytes=max_bytes,
            timeout=self.policy.timeout,
            user_agent=requester.user_agent,
        )

    def get_foreign_pull(self, repository: str, number: int) -> PullRequest:
        """A pull request of another repository (for example an upstream recipe PR)."""
        node = self._nodes.pull(number, repository)
        return self._read(
            f"/repos/{repository}/pulls/{number}", lambda: convert.pull(node.complete())
        )


def _login(user: Any) -> str | None:
    return convert.opt_str(user.get("login")) if isinstance(user, dict) else None


def _only_gone(errors: object) -> bool:
    """No errors, or only GitHub's NOT_FOUND for single nodes: a comment or review deleted
    between the REST listing and this query comes back as a null node with such an error, and
    is gone (reported as such, never as an unedited comment)."""
    if not errors:
        return True
    return isinstance(errors, list) and all(
        isinstance(e, dict)
        and e.get("type") == "NOT_FOUND"
        and isinstance(e.get("path"), list)
        and e["path"][:1] == ["nodes"]
        for e in errors
    )


def _timestamp(value: object) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return convert.when(datetime.fromisoformat(value.replace("Z", "+00:00")))
    except ValueError:
        return None


__all__ = [
    "MAX_DOWNLOAD",
    "MAX_PULL_COMMITS",
    "MAX_PULL_FILES",
    "CheckSuite",
    "Edit",
    "Job",
    "Remark",
    "ReviewingEndpoints",
]
