"""The fake GitHub's state: plain records a test sets up and inspects, the request and answer
shapes, injected faults, and GitHub's error bodies."""

from __future__ import annotations

import dataclasses
import hashlib
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)


def stamp(minutes: int) -> str:
    """An ISO timestamp ``minutes`` after 2024-01-01T00:00:00Z (the fake's clock)."""
    return (_EPOCH + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ")


def fake_sha(*parts: object) -> str:
    """A deterministic 40-hex SHA for test data."""
    return hashlib.sha1("\0".join(map(str, parts)).encode()).hexdigest()


# ----------------------------------------------------------------------------------------------
# state: plain mutable records a test sets up and inspects


@dataclass
class FakeCommit:
    sha: str
    message: str = ""
    parents: list[str] = field(default_factory=list)


@dataclass
class FakePull:
    number: int
    head_ref: str
    head_sha: str = ""  # with a git origin: read from refs/heads/<head_ref> while open
    base_ref: str = "main"
    base_sha: str = ""  # with a git origin: read from refs/heads/<base_ref> while open
    state: str = "open"
    draft: bool = False
    title: str = ""
    body: str = ""
    author: str = "alice"
    labels: list[str] = field(default_factory=list)
    head_repo: str | None = None  # a fork's OWNER/NAME; None: the repository itself
    fork_deleted: bool = False
    merged: bool = False
    merged_at: str | None = None
    merge_commit_sha: str | None = None
    mergeable: bool | None = True
    commits: list[FakeCommit] = field(default_factory=list)  # default: just the head
    files: list[dict[str, Any]] = field(default_factory=list)
    merge_request: dict[str, Any] | None = None  # the body of the merge call that succeeded


@dataclass(kw_only=True)
class Authored:
    """Who wrote a body and who last edited it, when: what comments, reviews and review
    comments all show."""

    login: str | None = "alice"  # None: a deleted account (GitHub shows a null user)
    association: str = "MEMBER"
    editor: str | None = None  # who last edited the body (GraphQL `editor`); None: never
    last_edited_at: str | None = None
    # every edit's editor (None: a deleted account), oldest first
    edits: list[str | None] = field(default_factory=list)

    def edited(self, editor: str | None, when: str) -> None:
        """Record an edit by ``editor`` at ``when``."""
        self.editor = editor
        self.last_edited_at = when
        self.edits.append(editor)


@dataclass
class FakeComment(Authored):
    id: int
    issue: int
    body: str
    created_at: str = ""
    updated_at: str = ""


@dataclass
class FakeReview(Authored):
    id: int
    pull: int
    state: str = "COMMENTED"
    body: str = ""
    commit_id: str = ""
    submitted_at: str = ""


@dataclass
class FakeReviewComment(Authored):
    id: int
    pull: int
    body: str
    path: str = ""
    line: int | None = None
    commit_id: str = ""
    review_id: int | None = None
    created_at: str = ""
    updated_at: str = ""
    original_commit_id: str = ""  # where it was written (default: commit_id); commit_id moves


@dataclass
class FakeCheckRun:
    id: int
    head_sha: str
    name: str
    status: str = "completed"
    conclusion: str | None = "success"
    started_at: str | None = ""
    completed_at: str | None = None
    app: str = "github-actions"  # the app slug that created it


@dataclass
class FakeCheckSuite:
    """An explicit check suite; suites are also derived per (commit, app) from check runs."""

    id: int
    head_sha: str
    app: str = "github-actions"
    created_at: str = ""
    status: str = "queued"
    conclusion: str | None = None


@dataclass
class FakeJob:
    id: int
    name: str
    status: str = "completed"
    conclusion: str | None = "success"


@dataclass
class FakeStatus:
    id: int
    sha: str
    state: str
    context: str = "default"
    description: str | None = None
    target_url: str | None = None
    created_at: str = ""


@dataclass
class FakeArtifact:
    id: int
    name: str
    expired: bool = False
    size_in_bytes: int = 1024
    files: dict[str, str] | None = None  # the zip's members; None: an empty zip


@dataclass
class FakeWorkflow:
    id: int
    file: str
    name: str = ""
    path: str = ""  # default .github/workflows/<file>
    state: str = "active"


@dataclass
class FakeRun:
    id: int
    workflow: str  # the workflow's file name
    head_sha: str
    event: str = "pull_request"
    status: str | None = "completed"
    conclusion: str | None = "success"
    head_branch: str = ""
    run_attempt: int = 1
    run_number: int = 0
    created_at: str = ""
    path: str = ""  # default: the workflow's path
    artifacts: list[FakeArtifact] = field(default_factory=list)
    jobs: list[FakeJob] = field(default_factory=list)


# ----------------------------------------------------------------------------------------------
# requests, responses, faults


@dataclass(frozen=True)
class Request:
    """One request as the fake saw it; ``path`` is relative to the API prefix."""

    method: str
    path: str
    query: dict[str, str]
    body: Any
    headers: dict[str, str]


@dataclass(frozen=True)
class Response:
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes | None = None  # a non-JSON body (artifact zips)


@dataclass(frozen=True)
class Exchange:
    """One request and the answer the fake gave, as a contract test checks them.

    ``path`` is relative to the API prefix (``/graphql`` for GraphQL); ``faulted`` marks an
    answer an injected fault shaped (not the fake's own)."""

    method: str
    path: str
    query: dict[str, str]
    body: Any
    status: int
    headers: dict[str, str]
    response: Any
    faulted: bool = False


RECORD_ENV = "CHANGELOG_TOOLS_FAKE_GITHUB_RECORD"


@dataclass
class Fault:
    """Answer matching requests with ``status`` (None: answer normally) after ``delay`` seconds.

    ``times`` None means every matching request; ``apply`` runs the real handler first, so the
    state changes but the client sees the fault (a response lost on the way back). With
    ``status`` None, ``headers`` replace those of the normal answer (a broken ``Link``, say).
    """

    method: str | None
    pattern: str
    status: int | None = 502
    times: int | None = 1
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    apply: bool = False

    def matches(self, request: Request) -> bool:
        return (self.method is None or self.method == request.method) and bool(
            re.search(self.pattern, request.path)
        )


def _not_found() -> Response:
    return _error(404, "Not Found")


def _validation_failed(resource: str, field_name: str, code: str) -> Response:
    """GitHub's 422 for a bad field: the message, and an ``errors`` list naming the field."""
    return Response(
        422,
        {
            "message": "Validation Failed",
            "errors": [{"resource": resource, "field": field_name, "code": code}],
            "documentation_url": "https://docs.github.com/rest",
            "status": "422",
        },
    )


def _error(status: int, message: str) -> Response:
    """GitHub's error body: its message, a documentation link and the status (a string)."""
    return Response(
        status,
        {
            "message": message,
            "documentation_url": "https://docs.github.com/rest",
            "status": str(status),
        },
    )


# Field annotations (strings: `from __future__ import annotations`) -> the JSON types they accept.
_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "int": (int,),
    "str": (str,),
    "bool": (bool,),
    "str | None": (str, type(None)),
    "int | None": (int, type(None)),
    "bool | None": (bool, type(None)),
    "list[str]": (list,),
    "dict[str, str] | None": (dict, type(None)),
}


def _record(cls: type[Any], data: Any, what: str) -> Any:
    if not isinstance(data, dict):
        raise ValueError(f"{what}: expected an object, got {type(data).__name__}")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise ValueError(f"{what}: unknown field(s) {', '.join(unknown)}")
    for name, value in data.items():
        allowed = _JSON_TYPES.get(str(fields[name].type))
        # bool is an int in Python, but `"number": true` is no PR number
        wrong_bool = isinstance(value, bool) and bool not in (allowed or (bool,))
        if allowed is not None and (not isinstance(value, allowed) or wrong_bool):
            raise ValueError(f"{what}: field {name!r} must be {fields[name].type}, not {value!r}")
    try:
        return cls(**data)
    except TypeError as exc:
        raise ValueError(f"{what}: {exc}") from None
