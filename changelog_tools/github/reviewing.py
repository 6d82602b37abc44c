"""GitHub endpoints for verifying reviews and sign-offs, mixed into the adapter's GitHub class.

Everything a sign-off verifier reads: the three kinds of PR conversation as one record type
(:class:`Remark`), comment edit history (GraphQL: REST does not say who edited), statuses and
check suites per commit (the time a head appeared), team memberships and collaborator
permissions, workflow jobs, artifact contents and other repositories' pull requests.
"""

from __future__ import annotations

import functools
import urllib.parse
from datetime import datetime
from typing import TYPE_CHECKING, Any

from changelog_tools.errors import GitHubError
from changelog_tools.github.records import (
    CommitStatus,
    PullRequest,
    _login,
    _req_int,
    _req_str,
    _time,
    opt_str,
    parse_pull,
    parse_status,
    value_of,
)
from changelog_tools.github.transport import NotFoundError
from changelog_tools.record import Record

if TYPE_CHECKING:
    from changelog_tools.github.transport import Transport

# GitHub's own caps on the PR list endpoints; a list this long may be cut short.
MAX_PULL_FILES = 3000
MAX_PULL_COMMITS = 250

_EDITS_QUERY = (
    "query($ids: [ID!]!) { nodes(ids: $ids) { id "
    "... on IssueComment { lastEditedAt editor { login } } "
    "... on PullRequestReview { lastEditedAt editor { login } } "
    "... on PullRequestReviewComment { lastEditedAt editor { login } } } }"
)


class Remark(Record):
    """A conversation comment, a review or a review comment, as the verifier needs it."""

    kind: str  # "issue_comment" | "review" | "review_comment"
    id: int
    author: str | None
    author_type: str  # "User" | "Bot" | ...
    association: str
    body: str
    created_at: datetime | None
    updated_at: datetime | None
    commit_id: str | None  # reviews and review comments only
    html_url: str | None
    node_id: str | None
    state: str | None = None  # reviews: APPROVED, COMMENTED, ...


class Edit(Record):
    editor: str | None
    edited_at: datetime | None


class CheckSuite(Record):
    id: int
    head_sha: str
    app: str | None
    created_at: datetime | None


class Job(Record):
    id: int
    name: str
    status: str | None
    conclusion: str | None
    html_url: str | None


def _user_type(data: Any) -> str:
    user = value_of(data, "user")
    return (opt_str(user, "type") or "User") if isinstance(user, dict) else "User"


def parse_remark(kind: str, data: Any) -> Remark:
    created = _time(data, "submitted_at") if kind == "review" else _time(data, "created_at")
    return Remark(
        kind=kind,
        id=_req_int(data, "id"),
        author=_login(data),
        author_type=_user_type(data),
        association=opt_str(data, "author_association") or "NONE",
        body=opt_str(data, "body") or "",
        created_at=created,
        updated_at=_time(data, "updated_at") if kind != "review" else created,
        # a review comment's `commit_id` follows later pushes while its line is unchanged;
        # `original_commit_id` is the commit it was written on
        commit_id=(opt_str(data, "original_commit_id") if kind == "review_comment" else None)
        or opt_str(data, "commit_id"),
        html_url=opt_str(data, "html_url"),
        node_id=opt_str(data, "node_id"),
        state=opt_str(data, "state"),
    )


def _parse_suite(data: Any) -> CheckSuite:
    app = value_of(data, "app")
    return CheckSuite(
        id=_req_int(data, "id"),
        head_sha=_req_str(data, "head_sha"),
        app=opt_str(app, "slug") if isinstance(app, dict) else None,
        created_at=_time(data, "created_at"),
    )


def _parse_job(data: Any) -> Job:
    return Job(
        id=_req_int(data, "id"),
        name=_req_str(data, "name"),
        status=opt_str(data, "status"),
        conclusion=opt_str(data, "conclusion"),
        html_url=opt_str(data, "html_url"),
    )


class ReviewingEndpoints:
    """The sign-off verifier's endpoints; GitHub (the adapter) inherits them."""

    _t: Transport
    repository: str

    def _repo_path(self, path: str) -> str:
        return f"/repos/{self.repository}{path}"

    def list_remarks(self, number: int) -> tuple[Remark, ...]:
        """Conversation comments, reviews and review comments of PR ``number`` (3 lists)."""
        out: list[Remark] = []
        for kind, path in (
            ("issue_comment", f"/issues/{number}/comments"),
            ("review", f"/pulls/{number}/reviews"),
            ("review_comment", f"/pulls/{number}/comments"),
        ):
            out.extend(
                self._t.parse_all(functools.partial(parse_remark, kind), self._repo_path(path))
            )
        return tuple(out)

    def get_issue_comment(self, comment_id: int) -> Remark:
        path = self._repo_path(f"/issues/comments/{comment_id}")
        _, data = self._t.request("GET", path)
        remark: Remark = self._t.parse(functools.partial(parse_remark, "issue_comment"), data, path)
        return remark

    def comment_edits(self, node_ids: list[str]) -> dict[str, Edit]:
        """Who last edited each comment and when (GraphQL; REST does not say who)."""
        if not node_ids:
            return {}
        url = self._graphql_url()
        _, data = self._t.request(
            "POST", url, body={"query": _EDITS_QUERY, "variables": {"ids": node_ids}}
        )
        if (
            not isinstance(data, dict)
            or data.get("errors")
            or not isinstance(value_of(data.get("data"), "nodes"), list)
        ):
            raise self._t.fail(
                GitHubError, f"GitHub GraphQL query for comment edits failed: {data}"
            )
        out: dict[str, Edit] = {}
        for node in data["data"]["nodes"]:
            if isinstance(node, dict) and isinstance(node.get("id"), str):
                editor = node.get("editor")
                out[node["id"]] = Edit(
                    opt_str(editor, "login") if isinstance(editor, dict) else None,
                    _time(node, "lastEditedAt"),
                )
        return out

    def _graphql_url(self) -> str:
        # api.github.com/graphql; GitHub Enterprise: https://HOST/api/graphql beside /api/v3
        split = urllib.parse.urlsplit(self._t.base_url)
        return f"{split.scheme}://{split.netloc}{self._t.session.graphql_path}"

    def list_commit_statuses(self, sha: str) -> tuple[CommitStatus, ...]:
        """Every status ever set on ``sha`` (newest first, as GitHub lists them)."""
        return self._t.parse_all(parse_status, self._repo_path(f"/commits/{sha}/statuses"))

    def force_push_times(self, number: int) -> tuple[datetime, ...]:
        """When PR ``number``'s head was force-pushed (its timeline's `head_ref_force_pushed`)."""
        times = self._t.parse_all(
            lambda e: (
                _time(e, "created_at") if opt_str(e, "event") == "head_ref_force_pushed" else None
            ),
            self._repo_path(f"/issues/{number}/timeline"),
        )
        return tuple(t for t in times if t is not None)

    def list_check_suites(self, sha: str) -> tuple[CheckSuite, ...]:
        return self._t.parse_all(
            _parse_suite, self._repo_path(f"/commits/{sha}/check-suites"), key="check_suites"
        )

    def is_team_member(self, team: str, login: str) -> bool:
        """Whether ``login`` is an active member of ``org/slug``: 404 means no; any other
        failure (403: the token cannot read the org) raises, so it is never a silent "no"."""
        org, _, slug = team.partition("/")
        path = f"/orgs/{org}/teams/{slug}/memberships/{login}"
        try:
            _, data = self._t.request("GET", path)
        except NotFoundError:
            return False
        return opt_str(data, "state") == "active"

    def collaborator_permission(self, login: str) -> str:
        """``admin``, ``maintain``, ``write``, ``triage``, ``read`` or ``none``."""
        path = self._repo_path(f"/collaborators/{login}/permission")
        try:
            _, data = self._t.request("GET", path)
        except NotFoundError:
            return "none"
        return opt_str(data, "role_name") or opt_str(data, "permission") or "none"

    def list_run_jobs(self, run_id: int) -> tuple[Job, ...]:
        """The jobs of a run's latest attempt."""
        return self._t.parse_all(
            _parse_job,
            self._repo_path(f"/actions/runs/{run_id}/jobs"),
            {"filter": "latest"},
            key="jobs",
        )

    def download_artifact(self, artifact_id: int) -> bytes:
        """The zip of an artifact: GitHub answers 302 to a signed URL, fetched without token."""
        from changelog_tools.github.client import ConnectionFailure, HTTPFailure

        path = self._repo_path(f"/actions/artifacts/{artifact_id}/zip")
        try:
            location = self._t.session.locate(path)
            return self._t.session.fetch_unauthenticated(location)
        except HTTPFailure as exc:
            raise self._t.fail(
                GitHubError, f"downloading artifact {artifact_id} failed: HTTP {exc.status}"
            ) from None
        except ConnectionFailure as exc:
            raise self._t.fail(
                GitHubError, f"downloading artifact {artifact_id} failed: {exc.kind}"
            ) from None

    def get_foreign_pull(self, repository: str, number: int) -> PullRequest:
        """A pull request of another repository (for example an upstream recipe PR)."""
        path = f"/repos/{repository}/pulls/{number}"
        _, data = self._t.request("GET", path)
        pull: PullRequest = self._t.parse(parse_pull, data, path)
        return pull


__all__ = [
    "MAX_PULL_COMMITS",
    "MAX_PULL_FILES",
    "CheckSuite",
    "Edit",
    "Job",
    "Remark",
    "ReviewingEndpoints",
]
