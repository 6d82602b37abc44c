"""PyGithub's objects copied into the adapter's records, every field checked.

PyGithub parses GitHub's JSON into typed attributes but accepts what it is given: a field of the
wrong type surfaces only when read (``BadAttributeException``), and a missing one makes a lazy
object fetch itself. Each function here reads only fields GitHub's documented answer for that
endpoint holds (a pull request in a list has no ``merged`` or ``mergeable``, so a listed pull
request is read without them: reading them would cost one request per pull request), and turns
a value of the wrong type into :class:`Malformed`, which the adapter reports as a one-line
GitHubError.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from changelog_tools.github.records import (
    Artifact,
    CheckRun,
    CheckSuite,
    Comment,
    CommitStatus,
    Job,
    MergeResult,
    PullCommit,
    PullFile,
    PullRequest,
    Remark,
    Review,
    ReviewComment,
    Workflow,
    WorkflowRun,
)

if TYPE_CHECKING:
    from github.Artifact import Artifact as GhArtifact
    from github.CheckRun import CheckRun as GhCheckRun
    from github.CheckSuite import CheckSuite as GhCheckSuite
    from github.Commit import Commit as GhCommit
    from github.CommitStatus import CommitStatus as GhCommitStatus
    from github.File import File as GhFile
    from github.IssueComment import IssueComment as GhIssueComment
    from github.NamedUser import NamedUser
    from github.Organization import Organization
    from github.PullRequest import PullRequest as GhPullRequest
    from github.PullRequestComment import PullRequestComment as GhReviewComment
    from github.PullRequestMergeStatus import PullRequestMergeStatus
    from github.PullRequestPart import PullRequestPart
    from github.PullRequestReview import PullRequestReview as GhReview
    from github.TimelineEvent import TimelineEvent
    from github.Workflow import Workflow as GhWorkflow
    from github.WorkflowJob import WorkflowJob
    from github.WorkflowRun import WorkflowRun as GhWorkflowRun


class Malformed(Exception):
    """GitHub's answer lacks a field a record needs, or holds it with the wrong type."""


# -- checked fields ----------------------------------------------------------------------------


def req_int(value: object, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise Malformed(f"field '{name}' is missing or not an integer")
    return value


def opt_int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def req_str(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise Malformed(f"field '{name}' is missing or not a string")
    return value


def opt_str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def when(value: object) -> datetime | None:
    """A timestamp PyGithub parsed; one without an offset means UTC (a naive value would make
    sorting against aware ones raise TypeError)."""
    if not isinstance(value, datetime):
        return None
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def login(user: NamedUser | Organization | None) -> str | None:
    return opt_str(user.login) if user is not None else None


def _user_type(user: NamedUser | Organization | None) -> str:
    return (opt_str(user.type) or "User") if user is not None else "User"


def _repo_name(part: PullRequestPart) -> str | None:
    repo = part.repo
    return opt_str(repo.full_name) if repo is not None else None


def _raw(obj: Any, key: str) -> object:
    """A field PyGithub 2.6 has no attribute for, from an object that never fetches itself."""
    data = obj.raw_data
    return data.get(key) if isinstance(data, dict) else None


# -- the records -------------------------------------------------------------------------------


def pull(pr: GhPullRequest, *, listed: bool = False) -> PullRequest:
    """A pull request; ``listed`` when it came from a list, whose items lack `merged` and
    `mergeable` (GitHub's `merged_at` says the same as `merged`)."""
    head, base = pr.head, pr.base
    merged_at = when(pr.merged_at)
    merged: object = None if listed else pr.merged
    return PullRequest(
        number=req_int(pr.number, "number"),
        state=req_str(pr.state, "state"),
        draft=bool(pr.draft),
        merged=merged if isinstance(merged, bool) else merged_at is not None,
        merged_at=merged_at,
        merge_commit_sha=opt_str(pr.merge_commit_sha),
        title=opt_str(pr.title) or "",
        author=login(pr.user),
        labels=tuple(req_str(label.name, "name") for label in pr.labels or ()),
        head_ref=req_str(head.ref, "head.ref"),
        head_sha=req_str(head.sha, "head.sha"),
        head_repo=_repo_name(head),
        base_ref=req_str(base.ref, "base.ref"),
        base_sha=req_str(base.sha, "base.sha"),
        base_repo=_repo_name(base),
        html_url=opt_str(pr.html_url),
        mergeable=None if listed else _opt_bool(pr.mergeable),
        mergeable_state=None if listed else opt_str(pr.mergeable_state),
    )


def _opt_bool(value: object) -> bool | None:
    return value if isinstance(value, bool) else None


def pull_commit(commit: GhCommit) -> PullCommit:
    return PullCommit(
        sha=req_str(commit.sha, "sha"),
        message=opt_str(commit.commit.message) or "",
        parents=tuple(req_str(p.sha, "parents.sha") for p in commit.parents or ()),
    )


def pull_file(file: GhFile) -> PullFile:
    return PullFile(
        filename=req_str(file.filename, "filename"),
        status=opt_str(file.status) or "",
        previous_filename=opt_str(file.previous_filename),
    )


def comment(c: GhIssueComment) -> Comment:
    return Comment(
        id=req_int(c.id, "id"),
        body=opt_str(c.body) or "",
        author=login(c.user),
        author_association=opt_str(c.author_association) or "NONE",
        created_at=when(c.created_at),
        updated_at=when(c.updated_at),
        html_url=opt_str(c.html_url),
    )


def review(r: GhReview) -> Review:
    return Review(
        id=req_int(r.id, "id"),
        author=login(r.user),
        author_association=opt_str(_raw(r, "author_association")) or "NONE",
        state=opt_str(r.state) or "",
        body=opt_str(r.body) or "",
        commit_id=opt_str(r.commit_id),
        submitted_at=when(r.submitted_at),
    )


def review_comment(c: GhReviewComment) -> ReviewComment:
    return ReviewComment(
        id=req_int(c.id, "id"),
        author=login(c.user),
        author_association=opt_str(c.author_association) or "NONE",
        body=opt_str(c.body) or "",
        path=opt_str(c.path),
        line=opt_int(c.line),
        commit_id=opt_str(c.commit_id),
        review_id=opt_int(c.pull_request_review_id),
    )


def comment_remark(c: GhIssueComment) -> Remark:
    return Remark(
        kind="issue_comment",
        id=req_int(c.id, "id"),
        author=login(c.user),
        author_type=_user_type(c.user),
        association=opt_str(c.author_association) or "NONE",
        body=opt_str(c.body) or "",
        created_at=when(c.created_at),
        updated_at=when(c.updated_at),
        commit_id=None,
        html_url=opt_str(c.html_url),
        node_id=opt_str(c.node_id),
    )


def review_remark(r: GhReview) -> Remark:
    submitted = when(r.submitted_at)
    return Remark(
        kind="review",
        id=req_int(r.id, "id"),
        author=login(r.user),
        author_type=_user_type(r.user),
        association=opt_str(_raw(r, "author_association")) or "NONE",
        body=opt_str(r.body) or "",
        created_at=submitted,
        updated_at=submitted,  # REST says nothing of a review's edits (GraphQL does)
        commit_id=opt_str(r.commit_id),
        html_url=opt_str(r.html_url),
        node_id=opt_str(_raw(r, "node_id")),
        state=opt_str(r.state),
    )


def review_comment_remark(c: GhReviewComment) -> Remark:
    return Remark(
        kind="review_comment",
        id=req_int(c.id, "id"),
        author=login(c.user),
        author_type=_user_type(c.user),
        association=opt_str(c.author_association) or "NONE",
        body=opt_str(c.body) or "",
        created_at=when(c.created_at),
        updated_at=when(c.updated_at),
        # `commit_id` follows later pushes while the line is unchanged; `original_commit_id` is
        # the commit the comment was written on
        commit_id=opt_str(c.original_commit_id) or opt_str(c.commit_id),
        html_url=opt_str(c.html_url),
        node_id=opt_str(c.node_id),
    )


def workflow(w: GhWorkflow) -> Workflow:
    return Workflow(
        id=req_int(w.id, "id"),
        name=opt_str(w.name) or "",
        path=opt_str(w.path) or "",
        state=opt_str(w.state) or "",
    )


def run(r: GhWorkflowRun) -> WorkflowRun:
    return WorkflowRun(
        id=req_int(r.id, "id"),
        name=opt_str(r.name),
        event=opt_str(r.event) or "",
        status=opt_str(r.status),
        conclusion=opt_str(r.conclusion),
        head_sha=opt_str(r.head_sha),
        head_branch=opt_str(r.head_branch),
        path=opt_str(r.path),
        run_attempt=opt_int(r.run_attempt) or 1,
        run_number=opt_int(r.run_number),
        html_url=opt_str(r.html_url),
        created_at=when(r.created_at),
        workflow_id=opt_int(r.workflow_id),
    )


def job(j: WorkflowJob) -> Job:
    return Job(
        id=req_int(j.id, "id"),
        name=req_str(j.name, "name"),
        status=opt_str(j.status),
        conclusion=opt_str(j.conclusion),
        html_url=opt_str(j.html_url),
    )


def artifact(a: GhArtifact) -> Artifact:
    return Artifact(
        id=req_int(a.id, "id"),
        name=req_str(a.name, "name"),
        expired=bool(a.expired),
        size_in_bytes=opt_int(a.size_in_bytes),
    )


def check_run(c: GhCheckRun) -> CheckRun:
    return CheckRun(
        id=req_int(c.id, "id"),
        name=req_str(c.name, "name"),
        status=opt_str(c.status),
        conclusion=opt_str(c.conclusion),
        head_sha=opt_str(c.head_sha),
        started_at=when(c.started_at),
        completed_at=when(c.completed_at),
        details_url=opt_str(c.details_url),
        html_url=opt_str(c.html_url),
    )


def check_suite(s: GhCheckSuite) -> CheckSuite:
    app = s.app
    return CheckSuite(
        id=req_int(s.id, "id"),
        head_sha=req_str(s.head_sha, "head_sha"),
        app=opt_str(app.slug) if app is not None else None,
        created_at=when(s.created_at),
    )


def status(s: GhCommitStatus) -> CommitStatus:
    return CommitStatus(
        context=opt_str(s.context) or "default",
        state=req_str(s.state, "state"),
        description=opt_str(s.description),
        target_url=opt_str(s.target_url),
        created_at=when(s.created_at),
    )


def status_json(item: object) -> CommitStatus:
    """A status from GitHub's JSON (the combined status is paged by number, not by PyGithub)."""
    if not isinstance(item, dict):
        raise Malformed(f"a status is {type(item).__name__}, not an object")
    created = item.get("created_at")
    try:
        stamp = datetime.fromisoformat(created.replace("Z", "+00:00")) if created else None
    except (AttributeError, ValueError):
        raise Malformed(f"a status's created_at is not a time: {str(created)[:40]!r}") from None
    return CommitStatus(
        context=opt_str(item.get("context")) or "default",
        state=req_str(item.get("state"), "state"),
        description=opt_str(item.get("description")),
        target_url=opt_str(item.get("target_url")),
        created_at=when(stamp),
    )


def force_push_time(event: TimelineEvent) -> datetime | None:
    """When the event is a force push of the PR's head, its time."""
    return when(event.created_at) if opt_str(event.event) == "head_ref_force_pushed" else None


def merge_result(m: PullRequestMergeStatus) -> MergeResult:
    """What a merge answered; an empty ``sha`` when it named no merge commit."""
    return MergeResult(bool(m.merged), opt_str(m.sha) or "", opt_str(m.message) or "")
