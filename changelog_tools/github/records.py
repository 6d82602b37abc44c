"""The plain frozen records the GitHub adapter hands the core, and the parsers that build them.

Every parser takes GitHub's decoded JSON and either returns a record or raises
:class:`Malformed`; the transport turns that into a one-line GitHubError naming the request.
Nothing here knows about HTTP.

The records are :class:`~changelog_tools.record.Record` subclasses rather than frozen
dataclasses: the GitHub commands define some thirty records, whose generated methods cost
`reuse-gate` more than all of its requests (issue 14). Nothing uses ``dataclasses.replace``,
``fields`` or ``asdict`` on them.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from changelog_tools.record import Record


class PullRequest(Record):
    """A pull request as the tool needs it (list endpoints leave out `merged`/`mergeable`)."""

    number: int
    state: str  # "open" or "closed"
    draft: bool
    merged: bool
    merged_at: datetime | None
    merge_commit_sha: str | None
    title: str
    author: str | None
    labels: tuple[str, ...]
    head_ref: str
    head_sha: str
    head_repo: str | None  # None when the fork was deleted
    base_ref: str
    base_sha: str
    base_repo: str | None
    html_url: str | None
    mergeable: bool | None = None
    mergeable_state: str | None = None

    @property
    def is_fork(self) -> bool:
        """True when the head branch lives in another repository (or its fork was deleted)."""
        return self.head_repo != self.base_repo


class PullCommit(Record):
    """One commit of a pull request, oldest first in its list."""

    sha: str
    message: str
    parents: tuple[str, ...]


class PullFile(Record):
    """One file a pull request changes."""

    filename: str
    status: str
    previous_filename: str | None


class Comment(Record):
    """An issue (or pull-request conversation) comment."""

    id: int
    body: str
    author: str | None
    author_association: str
    created_at: datetime | None
    updated_at: datetime | None
    html_url: str | None


class Review(Record):
    """A pull-request review."""

    id: int
    author: str | None
    author_association: str
    state: str
    body: str
    commit_id: str | None
    submitted_at: datetime | None


class ReviewComment(Record):
    """A comment on a pull request's diff."""

    id: int
    author: str | None
    author_association: str
    body: str
    path: str | None
    line: int | None
    commit_id: str | None
    review_id: int | None


class Workflow(Record):
    """An Actions workflow."""

    id: int
    name: str
    path: str
    state: str


class WorkflowRun(Record):
    """One run of an Actions workflow."""

    id: int
    name: str | None
    event: str
    status: str | None
    conclusion: str | None
    head_sha: str | None
    head_branch: str | None
    path: str | None
    run_attempt: int
    run_number: int | None
    html_url: str | None
    created_at: datetime | None
    workflow_id: int | None


class Artifact(Record):
    """An artifact a workflow run uploaded."""

    id: int
    name: str
    expired: bool
    size_in_bytes: int | None


class CheckRun(Record):
    """A check run on a commit."""

    id: int
    name: str
    status: str | None
    conclusion: str | None
    head_sha: str | None
    started_at: datetime | None
    completed_at: datetime | None
    details_url: str | None
    html_url: str | None


class CommitStatus(Record):
    """One commit status (a context's latest state)."""

    context: str
    state: str
    description: str | None
    target_url: str | None
    created_at: datetime | None = None


class CombinedStatus(Record):
    """A commit's combined status and the statuses it combines."""

    sha: str
    state: str
    statuses: tuple[CommitStatus, ...]


class MergeResult(Record):
    """What a merge call answered: merged or not, and the merge commit."""

    merged: bool
    sha: str
    message: str


# ----------------------------------------------------------------------------------------------
# parsing JSON into records


class Malformed(Exception):
    """GitHub's JSON lacks a field a record needs, or holds it with the wrong type."""


def value_of(data: Any, key: str) -> Any:
    """``data[key]`` (None when absent); Malformed when ``data`` is not an object."""
    if not isinstance(data, dict):
        raise Malformed(f"expected an object holding '{key}'")
    return data.get(key)


def _req_str(data: Any, key: str) -> str:
    value = value_of(data, key)
    if not isinstance(value, str):
        raise Malformed(f"field '{key}' is missing or not a string")
    return value


def opt_str(data: Any, key: str) -> str | None:
    """``data[key]`` when it is a string, else None."""
    value = value_of(data, key)
    return value if isinstance(value, str) else None


def _req_int(data: Any, key: str) -> int:
    value = value_of(data, key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise Malformed(f"field '{key}' is missing or not an integer")
    return value


def _opt_int(data: Any, key: str) -> int | None:
    value = value_of(data, key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _time(data: Any, key: str) -> datetime | None:
    value = value_of(data, key)
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise Malformed(f"field '{key}' is not a timestamp: {value!r}") from None
    # A server that leaves out the offset means UTC; a naive value would make sorting
    # against aware ones raise TypeError.
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def _login(data: Any, key: str = "user") -> str | None:
    user = value_of(data, key)
    return opt_str(user, "login") if isinstance(user, dict) else None


def _repo_name(part: Any) -> str | None:
    repo = value_of(part, "repo")
    return opt_str(repo, "full_name") if isinstance(repo, dict) else None


def parse_pull(data: Any) -> PullRequest:
    head, base = value_of(data, "head"), value_of(data, "base")
    labels = value_of(data, "labels") or []
    merged_at = _time(data, "merged_at")
    merged = value_of(data, "merged")
    mergeable = value_of(data, "mergeable")
    return PullRequest(
        number=_req_int(data, "number"),
        state=_req_str(data, "state"),
        draft=bool(value_of(data, "draft")),
        # list endpoints omit `merged`; `merged_at` says the same thing
        merged=bool(merged) if isinstance(merged, bool) else merged_at is not None,
        merged_at=merged_at,
        merge_commit_sha=opt_str(data, "merge_commit_sha"),
        title=opt_str(data, "title") or "",
        author=_login(data),
        labels=tuple(_req_str(label, "name") for label in labels),
        head_ref=_req_str(head, "ref"),
        head_sha=_req_str(head, "sha"),
        head_repo=_repo_name(head),
        base_ref=_req_str(base, "ref"),
        base_sha=_req_str(base, "sha"),
        base_repo=_repo_name(base),
        html_url=opt_str(data, "html_url"),
        mergeable=mergeable if isinstance(mergeable, bool) else None,
        mergeable_state=opt_str(data, "mergeable_state"),
    )


def parse_pull_commit(data: Any) -> PullCommit:
    parents = value_of(data, "parents") or []
    return PullCommit(
        sha=_req_str(data, "sha"),
        message=opt_str(value_of(data, "commit"), "message") or "",
        parents=tuple(_req_str(p, "sha") for p in parents),
    )


def parse_pull_file(data: Any) -> PullFile:
    return PullFile(
        filename=_req_str(data, "filename"),
        status=opt_str(data, "status") or "",
        previous_filename=opt_str(data, "previous_filename"),
    )


def parse_comment(data: Any) -> Comment:
    return Comment(
        id=_req_int(data, "id"),
        body=opt_str(data, "body") or "",
        author=_login(data),
        author_association=opt_str(data, "author_association") or "NONE",
        created_at=_time(data, "created_at"),
        updated_at=_time(data, "updated_at"),
        html_url=opt_str(data, "html_url"),
    )


def parse_review(data: Any) -> Review:
    return Review(
        id=_req_int(data, "id"),
        author=_login(data),
        author_association=opt_str(data, "author_association") or "NONE",
        state=opt_str(data, "state") or "",
        body=opt_str(data, "body") or "",
        commit_id=opt_str(data, "commit_id"),
        submitted_at=_time(data, "submitted_at"),
    )


def parse_review_comment(data: Any) -> ReviewComment:
    return ReviewComment(
        id=_req_int(data, "id"),
        author=_login(data),
        author_association=opt_str(data, "author_association") or "NONE",
        body=opt_str(data, "body") or "",
        path=opt_str(data, "path"),
        line=_opt_int(data, "line"),
        commit_id=opt_str(data, "commit_id"),
        review_id=_opt_int(data, "pull_request_review_id"),
    )


def parse_workflow(data: Any) -> Workflow:
    return Workflow(
        id=_req_int(data, "id"),
        name=opt_str(data, "name") or "",
        path=opt_str(data, "path") or "",
        state=opt_str(data, "state") or "",
    )


def parse_run(data: Any) -> WorkflowRun:
    return WorkflowRun(
        id=_req_int(data, "id"),
        name=opt_str(data, "name"),
        event=opt_str(data, "event") or "",
        status=opt_str(data, "status"),
        conclusion=opt_str(data, "conclusion"),
        head_sha=opt_str(data, "head_sha"),
        head_branch=opt_str(data, "head_branch"),
        path=opt_str(data, "path"),
        run_attempt=_opt_int(data, "run_attempt") or 1,
        run_number=_opt_int(data, "run_number"),
        html_url=opt_str(data, "html_url"),
        created_at=_time(data, "created_at"),
        workflow_id=_opt_int(data, "workflow_id"),
    )


def parse_artifact(data: Any) -> Artifact:
    return Artifact(
        id=_req_int(data, "id"),
        name=_req_str(data, "name"),
        expired=bool(value_of(data, "expired")),
        size_in_bytes=_opt_int(data, "size_in_bytes"),
    )


def parse_check_run(data: Any) -> CheckRun:
    return CheckRun(
        id=_req_int(data, "id"),
        name=_req_str(data, "name"),
        status=opt_str(data, "status"),
        conclusion=opt_str(data, "conclusion"),
        head_sha=opt_str(data, "head_sha"),
        started_at=_time(data, "started_at"),
        completed_at=_time(data, "completed_at"),
        details_url=opt_str(data, "details_url"),
        html_url=opt_str(data, "html_url"),
    )


def parse_status(data: Any) -> CommitStatus:
    return CommitStatus(
        context=opt_str(data, "context") or "default",
        state=_req_str(data, "state"),
        description=opt_str(data, "description"),
        target_url=opt_str(data, "target_url"),
        created_at=_time(data, "created_at"),
    )
