"""The plain frozen records the GitHub adapter hands the rest of the tool.

Nothing outside ``changelog_tools/github/`` sees a PyGithub object: the adapter copies what the
tool needs into these records (:mod:`~changelog_tools.github.convert` does the copying), so the
core is written against values that cannot change under it, fetch anything lazily, or depend on
the PyGithub version installed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class PullRequest:
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


@dataclass(frozen=True, slots=True)
class PullCommit:
    """One commit of a pull request, oldest first in its list."""

    sha: str
    message: str
    parents: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PullFile:
    """One file a pull request changes."""

    filename: str
    status: str
    previous_filename: str | None


@dataclass(frozen=True, slots=True)
class Comment:
    """An issue (or pull-request conversation) comment."""

    id: int
    body: str
    author: str | None
    author_association: str
    created_at: datetime | None
    updated_at: datetime | None
    html_url: str | None


@dataclass(frozen=True, slots=True)
class Review:
    """A pull-request review."""

    id: int
    author: str | None
    author_association: str
    state: str
    body: str
    commit_id: str | None
    submitted_at: datetime | None


@dataclass(frozen=True, slots=True)
class ReviewComment:
    """A comment on a pull request's diff."""

    id: int
    author: str | None
    author_association: str
    body: str
    path: str | None
    line: int | None
    commit_id: str | None
    review_id: int | None


@dataclass(frozen=True, slots=True)
class Remark:
    """A conversation comment, a review or a review comment, as the sign-off verifier needs it."""

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


@dataclass(frozen=True, slots=True)
class Edit:
    """Who last edited a comment's body, and when (None, None: never edited); ``editors``: who
    made each edit in its history (None: a deleted account); ``complete``: whether that history
    was read whole; ``gone`` when GitHub no longer knows the comment (deleted since it was
    listed)."""

    editor: str | None
    edited_at: datetime | None
    editors: tuple[str | None, ...] = ()
    complete: bool = True
    gone: bool = False


@dataclass(frozen=True, slots=True)
class Workflow:
    """An Actions workflow."""

    id: int
    name: str
    path: str
    state: str


@dataclass(frozen=True, slots=True)
class WorkflowRun:
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


@dataclass(frozen=True, slots=True)
class Job:
    """A job of a workflow run."""

    id: int
    name: str
    status: str | None
    conclusion: str | None
    html_url: str | None


@dataclass(frozen=True, slots=True)
class Artifact:
    """An artifact a workflow run uploaded."""

    id: int
    name: str
    expired: bool
    size_in_bytes: int | None


@dataclass(frozen=True, slots=True)
class CheckRun:
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


@dataclass(frozen=True, slots=True)
class CheckSuite:
    """A check suite on a commit: when an app first saw that commit."""

    id: int
    head_sha: str
    app: str | None
    created_at: datetime | None


@dataclass(frozen=True, slots=True)
class CommitStatus:
    """One commit status (a context's latest state)."""

    context: str
    state: str
    description: str | None
    target_url: str | None
    created_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class CombinedStatus:
    """A commit's combined status and the statuses it combines."""

    sha: str
    state: str
    statuses: tuple[CommitStatus, ...]


@dataclass(frozen=True, slots=True)
class MergeResult:
    """What a merge call answered: merged or not, and the merge commit."""

    merged: bool
    sha: str
    message: str
