"""A stateful fake of the GitHub REST API, served over real HTTP on 127.0.0.1.

Tests (and the demo) set up plain Python objects (pull requests, comments, workflow runs,
artifacts, check runs, statuses) and point the tool at :attr:`FakeGitHub.base_url`. The fake
answers the routes the tool uses the way GitHub does, with the details clients depend on:

- every ``url``/``*_url`` field and every ``Link`` header is built from the one ``base_url``
  (PyGithub refuses absolute URLs whose host, port or path prefix differ);
- lists are paginated with ``page``/``per_page`` and exact ``Link: <...>; rel="next"`` headers;
- every request is logged (:attr:`FakeGitHub.log`) so tests can count them, and a request no
  route answers is a 404 recorded in :attr:`FakeGitHub.unhandled`;
- faults can be injected per route: 5xx n times (optionally after applying the request, as a
  lost response), primary/secondary rate limits with their headers, and stalls.

Tied to a bare git repository (``git_origin``), pull-request head SHAs, commit lists and
mergeability come from real refs, and ``PUT /pulls/N/merge`` squashes for real with
``git merge-tree --write-tree``, ``commit-tree`` and a compare-and-swap ``update-ref``. Like
GitHub, that merge ignores merge drivers named in ``.gitattributes``.

Command line (for the demo): ``python -m changelog_tools.testing.fakegithub --state FILE``
serves the JSON state file and prints its base URL on the first line of stdout.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import hashlib
import io
import itertools
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.parse
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from types import TracebackType
from typing import Any, ClassVar

from changelog_tools.gitrepo import GIT_LOCAL_VARS

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


@dataclass
class FakeComment:
    id: int
    issue: int
    body: str
    login: str | None = "alice"  # None: a deleted account (GitHub shows a null user)
    association: str = "MEMBER"
    created_at: str = ""
    updated_at: str = ""
    editor: str | None = None  # who last edited the body (GraphQL `editor`); None: never
    last_edited_at: str | None = None
    edits: list[str] = field(default_factory=list)  # every edit's editor, oldest first


@dataclass
class FakeReview:
    id: int
    pull: int
    login: str | None = "alice"  # None: a deleted account (GitHub shows a null user)
    association: str = "MEMBER"
    state: str = "COMMENTED"
    body: str = ""
    commit_id: str = ""
    submitted_at: str = ""
    editor: str | None = None  # who last edited the body (GraphQL `editor`); None: never
    last_edited_at: str | None = None
    edits: list[str] = field(default_factory=list)  # every edit's editor, oldest first


@dataclass
class FakeReviewComment:
    id: int
    pull: int
    body: str
    login: str | None = "alice"  # None: a deleted account (GitHub shows a null user)
    association: str = "MEMBER"
    path: str = ""
    line: int | None = None
    commit_id: str = ""
    review_id: int | None = None
    created_at: str = ""
    updated_at: str = ""
    original_commit_id: str = ""  # where it was written (default: commit_id); commit_id moves
    editor: str | None = None  # who last edited the body (GraphQL `editor`); None: never
    last_edited_at: str | None = None
    edits: list[str] = field(default_factory=list)  # every edit's editor, oldest first


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


_R_DOC = "/repos/{owner}/{repo}"
_URL_START = re.compile(r"[a-z+]+://[^/]+|git@[^:]+:|[a-z]+:")
# Where each kind of object's template is in GitHub's examples: (operation, steps into it).
EXAMPLES: dict[str, tuple[str, tuple[str | int, ...]]] = {
    "pull": (f"GET {_R_DOC}/pulls/{{pull_number}}", ()),
    "pull_listed": (f"GET {_R_DOC}/pulls", (0,)),
    "user": (f"GET {_R_DOC}/pulls/{{pull_number}}", ("user",)),
    "repository": (f"GET {_R_DOC}/pulls/{{pull_number}}", ("base", "repo")),
    "full_repository": (f"GET {_R_DOC}", ()),
    "private_user": ("GET /user", ()),
    "public_user": ("GET /users/{username}", ()),
    "comment": (f"GET {_R_DOC}/issues/comments/{{comment_id}}", ()),
    "review": (f"GET {_R_DOC}/pulls/{{pull_number}}/reviews", (0,)),
    "review_comment": (f"GET {_R_DOC}/pulls/{{pull_number}}/comments", (0,)),
    "commit": (f"GET {_R_DOC}/pulls/{{pull_number}}/commits", (0,)),
    "full_commit": (f"GET {_R_DOC}/commits/{{ref}}", ()),
    "file": (f"GET {_R_DOC}/pulls/{{pull_number}}/files", (0,)),
    "label": (f"GET {_R_DOC}/issues/{{issue_number}}/labels", (0,)),
    "issue_event": (f"GET {_R_DOC}/issues/{{issue_number}}/timeline", (0,)),
    "workflow": (f"GET {_R_DOC}/actions/workflows/{{workflow_id}}", ()),
    "run": (f"GET {_R_DOC}/actions/runs/{{run_id}}", ()),
    "artifact": (f"GET {_R_DOC}/actions/runs/{{run_id}}/artifacts", ("artifacts", 0)),
    "job": (f"GET {_R_DOC}/actions/runs/{{run_id}}/jobs", ("jobs", 0)),
    "check_run": (f"GET {_R_DOC}/commits/{{ref}}/check-runs", ("check_runs", 0)),
    "check_suite": (f"GET {_R_DOC}/commits/{{ref}}/check-suites", ("check_suites", 0)),
    "status": (f"GET {_R_DOC}/commits/{{ref}}/statuses", (0,)),
    "combined_status": (f"GET {_R_DOC}/commits/{{ref}}/status", ()),
    "membership": ("GET /orgs/{org}/teams/{team_slug}/memberships/{username}", ()),
    "permission": (f"GET {_R_DOC}/collaborators/{{username}}/permission", ()),
    "merged": (f"PUT {_R_DOC}/pulls/{{pull_number}}/merge", ()),
}


@functools.cache
def _examples() -> dict[str, Any]:
    """GitHub's example answers per operation and status (vendored from its API description)."""
    text = resources.files("changelog_tools.testing").joinpath("github_examples.json")
    data: dict[str, Any] = json.loads(text.read_text(encoding="utf-8"))
    return {key: statuses[min(statuses)] for key, statuses in data.items() if key != "source"}


def _merged(template: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """A fresh copy of ``template`` with ``overrides`` merged in (objects into objects)."""
    out = {k: v for k, v in template.items() if k not in overrides}
    for key, value in out.items():
        if isinstance(value, dict | list):
            out[key] = _copy(value)
    for key, value in overrides.items():
        kept = template.get(key)
        out[key] = (
            _merged(kept, value) if isinstance(value, dict) and isinstance(kept, dict) else value
        )
    return out


def _copy(value: Any) -> Any:
    # JSON only: several times faster than copy.deepcopy, which answers pay for on every item
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


# ----------------------------------------------------------------------------------------------
# the optional real git origin


class GitOrigin:
    """A bare repository standing in for GitHub's copy of the code."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def _env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in GIT_LOCAL_VARS}
        env.update(extra or {})
        return env

    def git(
        self, *args: str, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", "--git-dir", str(self.path), *args],
            capture_output=True,
            text=True,
            env=self._env(env),
            check=False,
        )

    def _out(self, *args: str) -> str:
        proc = self.git(*args)
        if proc.returncode != 0:
            raise RuntimeError(f"git {' '.join(args)} failed: {proc.stderr.strip()}")
        return proc.stdout.strip()

    def resolve(self, ref: str) -> str | None:
        proc = self.git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
        return proc.stdout.strip() if proc.returncode == 0 else None

    def set_ref(self, ref: str, sha: str) -> None:
        self._out("update-ref", ref, sha)

    def commits(self, base: str, head: str) -> list[FakeCommit]:
        """Commits reachable from ``head`` but not ``base``, oldest first (GitHub's PR list)."""
        out = self._out("log", "--reverse", "--format=%H%x1f%P%x1f%B%x1e", f"{base}..{head}")
        commits = []
        for record in out.split("\x1e"):
            record = record.strip("\n")
            if not record:
                continue
            sha, parents, message = record.split("\x1f", 2)
            commits.append(FakeCommit(sha, message.strip(), parents.split()))
        return commits

    def files(self, base: str, head: str) -> list[dict[str, Any]]:
        """What ``GET /pulls/N/files`` lists: the diff from the merge base, renames found."""
        merge_base = self._out("merge-base", base, head)
        out = self._out("diff", "--name-status", "-M", "-z", merge_base, head)
        fields = [f for f in out.split("\0") if f]
        names = {"A": "added", "D": "removed", "M": "modified", "R": "renamed", "T": "changed"}
        files: list[dict[str, Any]] = []
        i = 0
        while i < len(fields):
            code = fields[i]
            if code.startswith("R") or code.startswith("C"):
                files.append(
                    {
                        "filename": fields[i + 2],
                        "previous_filename": fields[i + 1],
                        "status": "renamed" if code[0] == "R" else "copied",
                    }
                )
                i += 3
            else:
                files.append({"filename": fields[i + 1], "status": names.get(code[0], "modified")})
                i += 2
        return files

    def merge_tree(self, base: str, head: str) -> str | None:
        """The tree of merging ``head`` into ``base``, or None when they conflict."""
        proc = self.git("merge-tree", "--write-tree", "--no-messages", base, head)
        if proc.returncode == 1:
            return None
        if proc.returncode != 0:
            raise RuntimeError(f"git merge-tree failed: {proc.stderr.strip()}")
        return proc.stdout.split("\n", 1)[0].strip()

    def squash(
        self, base_ref: str, head: str, *, title: str, message: str, author: str
    ) -> tuple[str, str] | None:
        """Squash ``head`` onto ``base_ref``; return (old base, new commit) or None on conflict."""
        ref = f"refs/heads/{base_ref}"
        base = self.resolve(ref)
        if base is None:
            raise RuntimeError(f"the git origin has no branch {base_ref}")
        tree = self.merge_tree(base, head)
        if tree is None:
            return None
        identity = {
            "GIT_AUTHOR_NAME": author,
            "GIT_AUTHOR_EMAIL": f"{author}@users.noreply.github.invalid",
            "GIT_COMMITTER_NAME": "GitHub",
            "GIT_COMMITTER_EMAIL": "noreply@github.invalid",
        }
        text = title + (f"\n\n{message}" if message else "")
        proc = self.git("commit-tree", tree, "-p", base, "-m", text, env=identity)
        if proc.returncode != 0:
            raise RuntimeError(f"git commit-tree failed: {proc.stderr.strip()}")
        new = proc.stdout.strip()
        # compare-and-swap: fails if the branch moved since we read it
        self._out("update-ref", ref, new, base)
        return base, new


# ----------------------------------------------------------------------------------------------
# the fake

Handler = Callable[..., Response]
_ROUTES: list[tuple[str, re.Pattern[str], str]] = []


def route(method: str, pattern: str) -> Callable[[Handler], Handler]:
    """Register a handler for ``method`` and a path (relative to /repos/OWNER/NAME when it
    starts with ``/repos``)."""

    def register(func: Handler) -> Handler:
        _ROUTES.append((method, re.compile(pattern), func.__name__))
        return func

    return register


_R = r"/repos/(?P<repo>[^/]+/[^/]+)"
COMMENT_LIMIT = 65536  # characters GitHub accepts in a comment body (422 beyond)


class FakeGitHub:
    """The fake server and its state. Use as a context manager, or call start()/stop()."""

    DEFAULT_PAGE: ClassVar[int] = 30

    def __init__(
        self,
        repository: str = "octo/widgets",
        *,
        prefix: str = "/api/v3",
        host: str = "127.0.0.1",
        git_origin: Path | None = None,
        token: str | None = None,
        actor: str = "maintainer",
        actor_association: str = "MEMBER",
        record: bool | None = None,
    ) -> None:
        self.repository = repository
        # Recording is opt-in: every exchange kept in `exchanges`; with the environment variable
        # naming a directory, they are also written there (JSON lines) when the fake stops, so
        # a fake started by a command or the demo can be checked afterwards.
        self._record_dir = os.environ.get(RECORD_ENV) or None
        self.exchanges: list[Exchange] | None = (
            [] if (record if record is not None else self._record_dir is not None) else None
        )
        self.prefix = prefix.rstrip("/")
        self.host = host
        self.git = GitOrigin(git_origin) if git_origin is not None else None
        self.token = token  # when set, requests must carry it
        self.actor = actor  # who the token belongs to: author of comments the tool posts
        self.actor_association = actor_association
        self.pulls: dict[int, FakePull] = {}
        self.comments: dict[int, FakeComment] = {}
        self.reviews: list[FakeReview] = []
        self.review_comments: list[FakeReviewComment] = []
        self.check_runs: list[FakeCheckRun] = []
        self.statuses: list[FakeStatus] = []
        self.workflows: dict[str, FakeWorkflow] = {}
        self.runs: dict[int, FakeRun] = {}
        self.commit_pulls: dict[str, list[int]] = {}  # explicit commit -> PR numbers
        self.check_suites: list[FakeCheckSuite] = []
        self.timeline: dict[int, list[dict[str, Any]]] = {}  # PR number -> timeline events
        self.teams: dict[str, set[str]] = {}  # "org/slug" -> active members' logins
        self.permissions: dict[str, str] = {}  # login -> admin | maintain | write | triage | read
        self.foreign_pulls: dict[str, dict[int, FakePull]] = {}  # other repositories' PRs
        self.log: list[Request] = []
        self.unhandled: list[tuple[str, str]] = []
        self.errors: list[str] = []  # exceptions raised by handlers (answered as 500)
        self.faults: list[Fault] = []
        self._ids = itertools.count(1001)
        self._minutes = itertools.count(1)
        self._lock = threading.RLock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.base_url = ""
        self.root_url = ""
        self._templates: dict[str, Any] = {}  # GitHub's examples, on this server's URLs

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self, port: int = 0) -> FakeGitHub:
        """Listen on ``host:port`` (0: any free port) in a background thread."""
        fake = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, like the real API
            disable_nagle_algorithm = True  # else each keep-alive answer waits ~40 ms

            def log_message(self, format: str, *args: Any) -> None:
                return

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                status, headers, payload = fake.handle(
                    self.command, self.path, {k: v for k, v in self.headers.items()}, raw
                )
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                try:
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True  # the client gave up (a stall outlasted it)

            do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _serve

        server = ThreadingHTTPServer((self.host, port), _Handler)
        server.daemon_threads = True
        self._server = server
        self.root_url = f"http://{self.host}:{server.server_address[1]}"
        self.base_url = self.root_url + self.prefix
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
            self._write_exchanges()

    def _write_exchanges(self) -> None:
        if self._record_dir is None or not self.exchanges:
            return
        folder = Path(self._record_dir)
        folder.mkdir(parents=True, exist_ok=True)
        name = f"{os.getpid()}-{id(self):x}-{time.monotonic_ns()}.jsonl"
        with (folder / name).open("w", encoding="utf-8") as out:
            for exchange in self.exchanges:
                out.write(json.dumps(dataclasses.asdict(exchange)) + "\n")

    def __enter__(self) -> FakeGitHub:
        return self.start() if self._server is None else self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- setting up state -----------------------------------------------------------------------

    def next_id(self) -> int:
        return next(self._ids)

    def now(self) -> str:
        """The next tick of the fake's clock (strictly increasing timestamps)."""
        return stamp(next(self._minutes))

    def _continue_after(self, state: Any) -> None:
        """Start ids and the clock after every id and timestamp in ``state``.

        GitHub's ids and clock only grow: a saved :meth:`snapshot` loaded again (the kept demo
        sandbox), with or without objects added by hand, must not hand out an id it already
        holds, nor stamp a new comment or check run older than the loaded ones ("newest"
        decisions read those stamps).
        """
        ids: list[int] = []
        minutes: list[int] = []
        stack = [state]
        while stack:
            item = stack.pop()
            if isinstance(item, list):
                stack.extend(item)
            elif isinstance(item, dict):
                for key, value in item.items():
                    if key == "id" and isinstance(value, int):
                        ids.append(value)
                    elif key.endswith("_at") and isinstance(value, str):
                        with contextlib.suppress(ValueError):
                            when = datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ")
                            seconds = (when.replace(tzinfo=UTC) - _EPOCH).total_seconds()
                            minutes.append(int(seconds // 60))
                    else:
                        stack.append(value)
        self._ids = itertools.count(max([next(self._ids), *(i + 1 for i in ids)]))
        self._minutes = itertools.count(max([next(self._minutes), *(m + 1 for m in minutes)]))

    # The add_* builders take the lock: tests and the demo add state while the server runs.

    def add_pull(self, number: int, head_ref: str, **fields: Any) -> FakePull:
        pull = FakePull(number, head_ref, **fields)
        with self._lock:
            self.pulls[number] = pull
        return pull

    def add_comment(
        self, issue: int, body: str, login: str | None = "alice", association: str = "MEMBER"
    ) -> FakeComment:
        when = self.now()
        comment = FakeComment(self.next_id(), issue, body, login, association, when, when)
        with self._lock:
            self.comments[comment.id] = comment
        return comment

    def add_workflow(
        self, file: str, name: str = "", workflow_id: int | None = None
    ) -> FakeWorkflow:
        wf = FakeWorkflow(workflow_id or self.next_id(), file, name or file)
        with self._lock:
            self.workflows[file] = wf
        return wf

    def add_run(
        self,
        workflow: str,
        head_sha: str,
        *,
        artifacts: list[str | tuple[str, bool]] | None = None,
        artifact_files: dict[str, dict[str, str]] | None = None,
        jobs: list[tuple[str, str | None]] | None = None,
        **fields: Any,
    ) -> FakeRun:
        """Add a run; ``artifacts`` are names, or (name, expired) pairs; ``artifact_files``
        maps an artifact name to its zip members; ``jobs`` are (name, conclusion) pairs, each
        also a check run of the github-actions app on ``head_sha``, as on GitHub."""
        if workflow not in self.workflows:
            self.add_workflow(workflow)
        run_id = fields.pop("id", None) or self.next_id()
        fields.setdefault("created_at", self.now())
        fields.setdefault("run_number", len(self.runs) + 1)
        run = FakeRun(run_id, workflow, head_sha, **fields)
        for item in artifacts or []:
            name, expired = (item, False) if isinstance(item, str) else item
            files = (artifact_files or {}).get(name)
            run.artifacts.append(FakeArtifact(self.next_id(), name, expired, files=files))
        for name, files in (artifact_files or {}).items():
            if not any(a.name == name for a in run.artifacts):
                run.artifacts.append(FakeArtifact(self.next_id(), name, files=files))
        for job_name, conclusion in jobs or []:
            status = "completed" if conclusion is not None else "in_progress"
            run.jobs.append(FakeJob(self.next_id(), job_name, status, conclusion))
            self.add_check_run(head_sha, job_name, status=status, conclusion=conclusion)
        with self._lock:
            self.runs[run_id] = run
        return run

    def add_check_run(self, head_sha: str, name: str, **fields: Any) -> FakeCheckRun:
        fields.setdefault("started_at", self.now())
        check = FakeCheckRun(self.next_id(), head_sha, name, **fields)
        with self._lock:
            self.check_runs.append(check)
        return check

    def add_status(
        self, sha: str, state: str, context: str = "default", **fields: Any
    ) -> FakeStatus:
        status = FakeStatus(self.next_id(), sha, state, context, created_at=self.now(), **fields)
        with self._lock:
            self.statuses.append(status)
        return status

    def add_review(self, pull: int, **fields: Any) -> FakeReview:
        fields.setdefault("submitted_at", self.now())
        review = FakeReview(self.next_id(), pull, **fields)
        with self._lock:
            self.reviews.append(review)
        return review

    def add_review_comment(self, pull: int, body: str, **fields: Any) -> FakeReviewComment:
        when = self.now()
        fields.setdefault("created_at", when)
        fields.setdefault("updated_at", fields["created_at"])
        comment = FakeReviewComment(self.next_id(), pull, body, **fields)
        with self._lock:
            self.review_comments.append(comment)
        return comment

    def edit_comment(self, comment_id: int, body: str, *, editor: str | None = None) -> FakeComment:
        """Edit a conversation comment as ``editor`` (default: its author), like the web UI."""
        with self._lock:
            comment = self.comments[comment_id]
            comment.body = body
            comment.updated_at = comment.last_edited_at = self.now()
            comment.editor = editor or comment.login
            comment.edits.append(editor or comment.login)
        return comment

    def edit_review(self, review_id: int, body: str, *, editor: str | None = None) -> FakeReview:
        """Edit a review's body as ``editor`` (default: its author); REST shows no edit time."""
        with self._lock:
            review = next(r for r in self.reviews if r.id == review_id)
            review.body = body
            review.last_edited_at = self.now()
            review.editor = editor or review.login
            review.edits.append(editor or review.login)
        return review

    def edit_review_comment(
        self, comment_id: int, body: str, *, editor: str | None = None
    ) -> FakeReviewComment:
        """Edit a review comment as ``editor`` (default: its author), like the web UI."""
        with self._lock:
            comment = next(c for c in self.review_comments if c.id == comment_id)
            comment.body = body
            comment.updated_at = comment.last_edited_at = self.now()
            comment.editor = editor or comment.login
            comment.edits.append(editor or comment.login)
        return comment

    def add_force_push(self, pull: int, *, before: str, after: str, actor: str = "contrib") -> None:
        """A `head_ref_force_pushed` event on PR ``pull``'s timeline (the push itself is git's)."""
        event_id = self.next_id()
        event = {
            "id": event_id,
            "node_id": f"HRFPE_{event_id}",
            "url": self.api(f"/repos/{self.repository}/issues/events/{event_id}"),
            "event": "head_ref_force_pushed",
            "actor": self.user_json(actor),
            "created_at": self.now(),
            "commit_id": None,  # GitHub names neither commit in the REST timeline
            "commit_url": None,
            "performed_via_github_app": None,
            "before": before,  # kept for tests; not served
            "after": after,
        }
        with self._lock:
            self.timeline.setdefault(pull, []).append(event)

    def add_check_suite(
        self, head_sha: str, app: str = "github-actions", **fields: Any
    ) -> FakeCheckSuite:
        fields.setdefault("created_at", self.now())
        suite = FakeCheckSuite(self.next_id(), head_sha, app, **fields)
        with self._lock:
            self.check_suites.append(suite)
        return suite

    def add_team(self, team: str, members: list[str]) -> None:
        """Team ``org/slug`` with these active members."""
        with self._lock:
            self.teams[team.lower()] = {m.lower() for m in members}

    def set_permission(self, login: str, permission: str) -> None:
        with self._lock:
            self.permissions[login.lower()] = permission

    def add_foreign_pull(self, repository: str, number: int, **fields: Any) -> FakePull:
        """A pull request of another repository (read-only: ``GET /repos/OTHER/pulls/N``)."""
        fields.setdefault("head_sha", fake_sha(repository, number))
        fields.setdefault("base_sha", fake_sha(repository, "base"))
        pull = FakePull(number, fields.pop("head_ref", f"topic-{number}"), **fields)
        with self._lock:
            self.foreign_pulls.setdefault(repository.lower(), {})[number] = pull
        return pull

    # -- faults ---------------------------------------------------------------------------------

    def fault(self, fault: Fault) -> Fault:
        with self._lock:
            self.faults.append(fault)
        return fault

    def fail(
        self,
        method: str | None,
        pattern: str,
        status: int = 502,
        *,
        times: int | None = 1,
        apply: bool = False,
        message: str | None = None,
    ) -> Fault:
        """Answer ``status`` to the next ``times`` matching requests (None: all of them)."""
        body = {"message": message or f"injected {status}"}
        return self.fault(Fault(method, pattern, status, times, body, apply=apply))

    def rate_limit(
        self,
        method: str | None,
        pattern: str,
        *,
        kind: str = "secondary",
        retry_after: float | None = None,
        reset_in: float | None = None,
        times: int | None = 1,
    ) -> Fault:
        """Answer like GitHub's ``primary`` (403), ``secondary`` (403) or ``429`` rate limits."""
        headers: dict[str, str] = {}
        if kind == "primary":
            status, message = 403, "API rate limit exceeded for installation ID 1."
            headers["X-RateLimit-Remaining"] = "0"
            headers["X-RateLimit-Reset"] = str(int(time.time() + (reset_in or 3600)))
        elif kind == "secondary":
            status = 403
            message = (
                "You have exceeded a secondary rate limit. Please wait a few minutes before "
                "you try again."
            )
        elif kind == "429":
            status, message = 429, "API rate limit exceeded"
        else:
            raise ValueError(f"unknown rate limit kind {kind!r}")
        if retry_after is not None:
            headers["Retry-After"] = f"{retry_after:g}"
        return self.fault(Fault(method, pattern, status, times, {"message": message}, headers))

    def next_link(
        self, method: str | None, pattern: str, url: str, *, times: int | None = None
    ) -> Fault:
        """Answer matching requests normally but with ``Link: <url>; rel="next"``: a server
        whose pagination never ends (``url`` a page already served makes a loop)."""
        return self.fault(
            Fault(method, pattern, None, times, headers={"Link": f'<{url}>; rel="next"'})
        )

    def stall(self, method: str | None, pattern: str, seconds: float, *, times: int = 1) -> Fault:
        """Delay the answer to the next ``times`` matching requests by ``seconds``."""
        return self.fault(Fault(method, pattern, None, times, delay=seconds))

    def _take_fault(self, request: Request) -> Fault | None:
        for fault in self.faults:
            if fault.matches(request):
                if fault.times is not None:
                    fault.times -= 1
                    if fault.times <= 0:
                        self.faults.remove(fault)
                return fault
        return None

    # -- request log ----------------------------------------------------------------------------

    def requests(self, method: str | None = None, pattern: str | None = None) -> list[Request]:
        """Logged requests, optionally filtered by method and a regex searched in the path."""
        with self._lock:
            return [
                r
                for r in self.log
                if (method is None or r.method == method)
                and (pattern is None or re.search(pattern, r.path))
            ]

    def count(self, method: str | None = None, pattern: str | None = None) -> int:
        return len(self.requests(method, pattern))

    # -- HTTP -----------------------------------------------------------------------------------

    def api(self, path: str) -> str:
        """Absolute API URL of ``path``, built from the exact base URL."""
        return self.base_url + path

    def html(self, path: str) -> str:
        return f"{self.root_url}/{self.repository}{path}"

    def handle(
        self, method: str, target: str, headers: dict[str, str], raw: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        """Answer one request: (status, headers, body bytes)."""
        split = urllib.parse.urlsplit(target)
        query = {k: v[-1] for k, v in urllib.parse.parse_qs(split.query).items()}
        inside = split.path.startswith(self.prefix + "/") or split.path == self.prefix
        rel = split.path[len(self.prefix) :] if inside else split.path
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        if not inside and split.path == self.graphql_path:
            rel = "/graphql"  # logged like a REST path so tests can count and fault it
        request = Request(method, rel, query, body, dict(headers))
        with self._lock:
            self.log.append(request)
            fault = self._take_fault(request)
        if fault is not None and fault.delay:
            time.sleep(fault.delay)
        if fault is not None and fault.status is not None and not fault.apply:
            return self._encode(Response(fault.status, fault.body, fault.headers), request, True)
        try:
            response = self._answer(request, inside, headers)
        except Exception as exc:  # a bug in the fake: answer 500 and keep it for the test
            self.errors.append(f"{method} {rel}: {type(exc).__name__}: {exc}")
            response = _error(500, f"fake GitHub failed: {type(exc).__name__}: {exc}")
        if fault is not None and fault.status is not None:
            response = Response(fault.status, fault.body, fault.headers)
        elif fault is not None and fault.headers:
            response = Response(
                response.status, response.body, {**response.headers, **fault.headers}
            )
        shaped = fault is not None and (fault.status is not None or bool(fault.headers))
        return self._encode(response, request, shaped)

    @property
    def graphql_path(self) -> str:
        """Where GitHub serves GraphQL: ``/graphql`` beside ``/api/v3`` is ``/api/graphql``."""
        return self.prefix.removesuffix("/v3") + "/graphql"

    def _answer(self, request: Request, inside: bool, headers: dict[str, str]) -> Response:
        if not inside and request.path.startswith("/_blobs/"):
            # signed storage URLs carry their own authorization: no token is needed (or sent)
            return self._blob(request)
        if self.token is not None:
            auth = next((v for k, v in headers.items() if k.lower() == "authorization"), "")
            if auth.split(" ", 1)[-1] != self.token:
                return _error(401, "Bad credentials")
        if request.path == "/graphql" and request.method == "POST":
            with self._lock:
                return self._graphql(request)
        if not inside:
            self.unhandled.append((request.method, request.path))
            return _not_found()
        with self._lock:
            for method, pattern, name in _ROUTES:
                match = pattern.fullmatch(request.path)
                if method != request.method or match is None:
                    continue
                # GitHub decodes percent-encoded path segments (a workflow file name with a
                # space arrives as %20); the log keeps the path as it was sent
                groups = {
                    k: urllib.parse.unquote(v) if isinstance(v, str) else v
                    for k, v in match.groupdict().items()
                }
                repo = groups.pop("repo", None)
                if repo is not None and repo.lower() != self.repository.lower():
                    if name == "_get_pull" and repo.lower() in self.foreign_pulls:
                        return self._foreign_pull(repo, groups["number"])
                    break
                handler: Handler = getattr(self, name)
                return handler(request, **groups)
            self.unhandled.append((request.method, request.path))
            return _not_found()

    def _encode(
        self, response: Response, request: Request | None = None, faulted: bool = False
    ) -> tuple[int, dict[str, str], bytes]:
        if response.raw is not None:
            payload = response.raw
        else:
            payload = b"" if response.body is None else json.dumps(response.body).encode()
        merged: dict[str, tuple[str, str]] = {}
        defaults = {
            "Content-Type": "application/json; charset=utf-8",
            "X-RateLimit-Limit": "5000",
            "X-RateLimit-Remaining": "4999",
            "X-RateLimit-Reset": str(int(time.time()) + 3600),
            "X-RateLimit-Resource": "core",
        }
        # A fault's header replaces the default of the same name rather than adding a second
        # copy: a duplicated X-RateLimit-Reset reaches clients joined as "a, b".
        if response.raw is not None:
            defaults = {"Content-Type": "application/zip"}
        for name, value in [*defaults.items(), *response.headers.items()]:
            merged[name.lower()] = (name, value)
        merged["content-length"] = ("Content-Length", str(len(payload)))
        headers = dict(merged.values())
        if self.exchanges is not None and request is not None:
            with self._lock:
                self.exchanges.append(
                    Exchange(
                        request.method,
                        request.path,
                        request.query,
                        request.body,
                        response.status,
                        headers,
                        None if response.raw is not None else response.body,
                        faulted,
                    )
                )
        return response.status, headers, payload

    def _page(self, request: Request, items: list[Any], key: str | None = None) -> Response:
        try:
            per_page = max(1, min(100, int(request.query.get("per_page", self.DEFAULT_PAGE))))
            page = max(1, int(request.query.get("page", "1")))
        except ValueError:
            return _error(422, "page and per_page must be integers")
        last = max(1, -(-len(items) // per_page))
        chunk = items[(page - 1) * per_page : page * per_page]

        def link(number: int) -> str:
            query = dict(request.query, page=str(number), per_page=str(per_page))
            return f"<{self.api(request.path)}?{urllib.parse.urlencode(query)}>"

        rels = []
        if page < last:
            rels += [f'{link(page + 1)}; rel="next"', f'{link(last)}; rel="last"']
        if page > 1:
            rels += [f'{link(1)}; rel="first"', f'{link(page - 1)}; rel="prev"']
        body = chunk if key is None else {"total_count": len(items), key: chunk}
        return Response(200, body, {"Link": ", ".join(rels)} if rels else {})

    # -- JSON of each object --------------------------------------------------------------------

    def example(self, kind: str, **overrides: Any) -> dict[str, Any]:
        """GitHub's own example of ``kind`` (see :data:`EXAMPLES`), its URLs on this server,
        with ``overrides`` merged in: every documented field is there with GitHub's types, and
        a scenario sets only what it controls."""
        template = self._templates.get(kind)
        if template is None:
            key, where = EXAMPLES[kind]
            found: Any = _examples()[key]
            for step in where:
                found = found[step]
            template = self._templates[kind] = self._rebase(found)
        merged: dict[str, Any] = _merged(template, overrides)
        return merged

    def _rebase(self, value: Any, key: str = "") -> Any:
        """``value`` with every URL on this server (clients refuse to follow other hosts)."""
        if isinstance(value, dict):
            return {k: self._rebase(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self._rebase(v, key) for v in value]
        if isinstance(value, str):
            if value.startswith("https://api.github.com"):
                return self.base_url + value.removeprefix("https://api.github.com")
            if value.startswith("https://github.com"):
                return self.root_url + value.removeprefix("https://github.com")
            if key in ("url", "href") or key.endswith("_url"):
                scheme = _URL_START.match(value)  # git://, git@host:, a CDN's https://
                if scheme is not None:
                    return f"{self.root_url}/{value[scheme.end() :].lstrip('/')}"
        return value

    def user_json(self, login: str | None) -> dict[str, Any] | None:
        """A user (None: a deleted account, which GitHub shows as ``null``)."""
        if login is None:
            return None
        return self.example("user", **self._user_fields(login))

    def _user_fields(self, login: str) -> dict[str, Any]:
        return {
            "login": login,
            "type": "Bot" if login.endswith("[bot]") else "User",
            "id": int(hashlib.sha1(login.encode()).hexdigest()[:7], 16),
            "url": self.api(f"/users/{login}"),
            "html_url": f"{self.root_url}/{login}",
            "avatar_url": f"{self.root_url}/avatars/{login}",
        }

    def _repo_json(self, full: str) -> dict[str, Any]:
        owner, name = full.split("/", 1)
        found = self.example(
            "repository",
            full_name=full,
            name=name,
            owner=self.user_json(owner),
            fork=full.lower() != self.repository.lower(),
            url=self.api(f"/repos/{full}"),
            html_url=f"{self.root_url}/{full}",
            default_branch="main",
        )
        template = self._templates["repository"]["full_name"]
        for key, value in found.items():  # the example's own name in its other URLs
            if key.endswith("_url") and isinstance(value, str):
                found[key] = value.replace(f"/{template}", f"/{full}")
        return found

    def head_sha(self, pull: FakePull) -> str:
        """The PR's head: from the git origin while open, else as recorded."""
        if self.git is not None and pull.state == "open":
            sha = None
            if pull.head_repo is None:
                sha = self.git.resolve(f"refs/heads/{pull.head_ref}")
            sha = sha or self.git.resolve(f"refs/pull/{pull.number}/head")
            if sha:
                if pull.head_sha != sha:
                    # GitHub keeps refs/pull/N/head following the branch
                    self.git.set_ref(f"refs/pull/{pull.number}/head", sha)
                pull.head_sha = sha
        return pull.head_sha

    def base_sha(self, pull: FakePull) -> str:
        """The base branch's tip: from the git origin while open, else as recorded (or a
        stable made-up SHA when the test did not care)."""
        if self.git is not None and pull.state == "open":
            pull.base_sha = self.git.resolve(f"refs/heads/{pull.base_ref}") or pull.base_sha
        return pull.base_sha or fake_sha("base", self.repository, pull.base_ref)

    def pull_commits(self, pull: FakePull) -> list[FakeCommit]:
        if self.git is not None and pull.state == "open":
            head, base = self.head_sha(pull), self.base_sha(pull)
            if head and base:
                return self.git.commits(base, head)
        return pull.commits or [FakeCommit(self.head_sha(pull))]

    def _mergeable(self, pull: FakePull, head: str, base: str) -> bool | None:
        if pull.state != "open":
            return None
        if self.git is not None and pull.mergeable is not False and head and base:
            return self.git.merge_tree(base, head) is not None
        return pull.mergeable

    def pull_json(self, pull: FakePull, *, listed: bool = False) -> dict[str, Any]:
        """A pull request as GitHub's single-PR answer, or (``listed``) as a list item, which
        has fewer fields (no ``merged``, ``mergeable``, ``mergeable_state``)."""
        return self._pull_json(pull, self.repository, listed=listed)

    def _pull_json(self, pull: FakePull, full: str, *, listed: bool = False) -> dict[str, Any]:
        n = pull.number
        head_full = pull.head_repo or full
        if full.lower() == self.repository.lower():
            head, base = self.head_sha(pull), self.base_sha(pull)
            mergeable = self._mergeable(pull, head, base)
        else:  # another repository's: no git origin behind it
            head, base = pull.head_sha, pull.base_sha
            mergeable = pull.mergeable if pull.state == "open" else None
        api, html = self.api(f"/repos/{full}"), f"{self.root_url}/{full}"
        found = self.example(
            "pull_listed" if listed else "pull",
            url=f"{api}/pulls/{n}",
            html_url=f"{html}/pull/{n}",
            issue_url=f"{api}/issues/{n}",
            commits_url=f"{api}/pulls/{n}/commits",
            comments_url=f"{api}/issues/{n}/comments",
            review_comments_url=f"{api}/pulls/{n}/comments",
            statuses_url=f"{api}/statuses/{head}",
            id=10_000 + n,
            node_id=f"PR_{n}",
            number=n,
            state=pull.state,
            draft=pull.draft,
            title=pull.title,
            body=pull.body,
            user=self.user_json(pull.author),
            labels=[self._label_json(name) for name in pull.labels],
            # nobody asked: the example's reviewers and teams are someone else's story
            requested_reviewers=[],
            requested_teams=[],
            assignees=[],
            assignee=None,
            milestone=None,
            merged=pull.merged,
            merged_at=pull.merged_at,
            closed_at=pull.merged_at,
            merge_commit_sha=pull.merge_commit_sha,
            mergeable=mergeable,
            mergeable_state={True: "clean", False: "dirty", None: "unknown"}[mergeable],
            head={
                "ref": pull.head_ref,
                "sha": head,
                "label": f"{head_full.split('/')[0]}:{pull.head_ref}",
                "repo": None if pull.fork_deleted else self._repo_json(head_full),
                "user": self.user_json(head_full.split("/")[0]),
            },
            base={
                "ref": pull.base_ref,
                "sha": base,
                "label": f"{full.split('/')[0]}:{pull.base_ref}",
                "repo": self._repo_json(full),
                "user": self.user_json(full.split("/")[0]),
            },
        )
        template = self._templates["pull_listed" if listed else "pull"]
        return {k: v for k, v in found.items() if k in template}

    def comment_json(self, c: FakeComment) -> dict[str, Any]:
        full = self.repository
        return self.example(
            "comment",
            id=c.id,
            node_id=f"IC_{c.id}",
            url=self.api(f"/repos/{full}/issues/comments/{c.id}"),
            html_url=self.html(f"/pull/{c.issue}#issuecomment-{c.id}"),
            issue_url=self.api(f"/repos/{full}/issues/{c.issue}"),
            body=c.body,
            user=self.user_json(c.login),
            author_association=c.association,
            created_at=c.created_at,
            updated_at=c.updated_at or c.created_at,
        )

    def commit_json(self, commit: FakeCommit, *, kind: str = "commit") -> dict[str, Any]:
        full = self.repository
        return self.example(
            kind,
            sha=commit.sha,
            node_id=f"C_{commit.sha}",
            url=self.api(f"/repos/{full}/commits/{commit.sha}"),
            html_url=self.html(f"/commit/{commit.sha}"),
            comments_url=self.api(f"/repos/{full}/commits/{commit.sha}/comments"),
            commit={
                "message": commit.message,
                "author": {"name": "Test", "email": "test@example.invalid", "date": stamp(0)},
            },
            parents=[
                {
                    "sha": p,
                    "url": self.api(f"/repos/{full}/commits/{p}"),
                    "html_url": self.html(f"/commit/{p}"),
                }
                for p in commit.parents
            ],
        )

    def workflow_json(self, wf: FakeWorkflow) -> dict[str, Any]:
        return self.example(
            "workflow",
            id=wf.id,
            node_id=f"W_{wf.id}",
            name=wf.name or wf.file,
            path=wf.path or f".github/workflows/{wf.file}",
            state=wf.state,
            url=self.api(f"/repos/{self.repository}/actions/workflows/{wf.id}"),
            html_url=self.html(f"/actions/workflows/{wf.file}"),
        )

    def run_json(self, run: FakeRun) -> dict[str, Any]:
        full = self.repository
        wf = self.workflows.get(run.workflow)
        path = run.path or (wf.path if wf and wf.path else f".github/workflows/{run.workflow}")
        url = self.api(f"/repos/{full}/actions/runs/{run.id}")
        return self.example(
            "run",
            id=run.id,
            node_id=f"WFR_{run.id}",
            name=(wf.name if wf else "") or run.workflow,
            display_title=(wf.name if wf else "") or run.workflow,
            path=path,
            event=run.event,
            status=run.status,
            conclusion=run.conclusion,
            head_sha=run.head_sha,
            head_branch=run.head_branch,
            run_attempt=run.run_attempt,
            run_number=run.run_number,
            created_at=run.created_at,
            updated_at=run.created_at,
            run_started_at=run.created_at,
            workflow_id=wf.id if wf else 0,
            url=url,
            html_url=self.html(f"/actions/runs/{run.id}"),
            artifacts_url=f"{url}/artifacts",
            jobs_url=f"{url}/jobs",
            logs_url=f"{url}/logs",
            cancel_url=f"{url}/cancel",
            rerun_url=f"{url}/rerun",
            check_suite_url=self.api(f"/repos/{full}/check-suites/{run.id + 500_000}"),
            workflow_url=self.api(f"/repos/{full}/actions/workflows/{wf.id if wf else 0}"),
            pull_requests=[],
            head_commit={"id": run.head_sha},
            repository=self._repo_json(full),
            head_repository=self._repo_json(full),
        )

    def artifact_json(self, a: FakeArtifact) -> dict[str, Any]:
        full = self.repository
        return self.example(
            "artifact",
            id=a.id,
            node_id=f"A_{a.id}",
            name=a.name,
            expired=a.expired,
            size_in_bytes=a.size_in_bytes,
            url=self.api(f"/repos/{full}/actions/artifacts/{a.id}"),
            archive_download_url=self.api(f"/repos/{full}/actions/artifacts/{a.id}/zip"),
        )

    def check_run_json(self, c: FakeCheckRun) -> dict[str, Any]:
        full = self.repository
        return self.example(
            "check_run",
            id=c.id,
            node_id=f"CR_{c.id}",
            name=c.name,
            status=c.status,
            conclusion=c.conclusion,
            head_sha=c.head_sha,
            started_at=c.started_at,
            completed_at=c.completed_at,
            url=self.api(f"/repos/{full}/check-runs/{c.id}"),
            html_url=self.html(f"/runs/{c.id}"),
            details_url=self.html(f"/runs/{c.id}"),
            app={"slug": c.app, "name": c.app},
            pull_requests=[],
        )

    def status_json(self, s: FakeStatus) -> dict[str, Any]:
        return self.example(
            "status",
            id=s.id,
            node_id=f"S_{s.id}",
            state=s.state,
            context=s.context,
            description=s.description,
            target_url=s.target_url,
            created_at=s.created_at,
            updated_at=s.created_at,
            url=self.api(f"/repos/{self.repository}/statuses/{s.sha}"),
            creator=self.user_json(self.actor),
        )

    def _workflow(self, ref: str) -> FakeWorkflow | None:
        if ref in self.workflows:
            return self.workflows[ref]
        return next((w for w in self.workflows.values() if str(w.id) == ref), None)

    def _find_pull(self, number: str) -> FakePull | None:
        return self.pulls.get(int(number))

    # -- routes ---------------------------------------------------------------------------------

    @route("GET", r"/user")
    def _get_user(self, request: Request) -> Response:
        return Response(200, self.example("private_user", **self._user_fields(self.actor)))

    @route("GET", r"/users/(?P<login>[^/]+)")
    def _get_login(self, request: Request, login: str) -> Response:
        return Response(200, self.example("public_user", **self._user_fields(login)))

    @route("GET", _R)
    def _get_repo(self, request: Request) -> Response:
        found = self.example("full_repository", **self._repo_json(self.repository))
        for key in ("parent", "source", "template_repository"):  # the example's: a fork's
            found.pop(key, None)
        return Response(200, found)

    @route("GET", _R + r"/pulls")
    def _list_pulls(self, request: Request) -> Response:
        state = request.query.get("state", "open")
        base = request.query.get("base")
        head = request.query.get("head")
        items = [
            self.pull_json(p, listed=True)
            for p in sorted(self.pulls.values(), key=lambda p: -p.number)
            if (state == "all" or p.state == state)
            and (base is None or p.base_ref == base)
            and (head is None or head.split(":")[-1] == p.head_ref)
        ]
        return self._page(request, items)

    @route("GET", _R + r"/pulls/(?P<number>\d+)")
    def _get_pull(self, request: Request, number: str) -> Response:
        pull = self._find_pull(number)
        return Response(200, self.pull_json(pull)) if pull else _not_found()

    @route("GET", _R + r"/pulls/(?P<number>\d+)/commits")
    def _pull_commits(self, request: Request, number: str) -> Response:
        pull = self._find_pull(number)
        if pull is None:
            return _not_found()
        commits = self.pull_commits(pull)[:250]  # GitHub's cap
        return self._page(request, [self.commit_json(c) for c in commits])

    @route("GET", _R + r"/pulls/(?P<number>\d+)/files")
    def _pull_files(self, request: Request, number: str) -> Response:
        pull = self._find_pull(number)
        if pull is None:
            return _not_found()
        files = pull.files
        if not files and self.git is not None and pull.state == "open":
            head, base = self.head_sha(pull), self.base_sha(pull)
            if head and base:
                files = self.git.files(base, head)
        return self._page(request, [self._file_json(f) for f in files[:3000]])  # GitHub's cap

    def _file_json(self, file: dict[str, Any]) -> dict[str, Any]:
        overrides = {"previous_filename": None, **file}
        found = self.example("file", **overrides)
        if found["previous_filename"] is None:
            del found["previous_filename"]  # GitHub names it for renames only
        return found

    @route("GET", _R + r"/pulls/(?P<number>\d+)/reviews")
    def _pull_reviews(self, request: Request, number: str) -> Response:
        items = [
            self.example(
                "review",
                id=r.id,
                user=self.user_json(r.login),
                author_association=r.association,
                state=r.state,
                body=r.body,
                commit_id=r.commit_id or None,
                submitted_at=r.submitted_at,
                pull_request_url=self.api(f"/repos/{self.repository}/pulls/{r.pull}"),
                html_url=self.html(f"/pull/{r.pull}#pullrequestreview-{r.id}"),
                node_id=f"PRR_{r.id}",
                _links={
                    "html": {"href": self.html(f"/pull/{r.pull}#pullrequestreview-{r.id}")},
                    "pull_request": {"href": self.api(f"/repos/{self.repository}/pulls/{r.pull}")},
                },
            )
            for r in self.reviews
            if r.pull == int(number)
        ]
        return self._page(request, items)

    @route("GET", _R + r"/pulls/(?P<number>\d+)/comments")
    def _pull_review_comments(self, request: Request, number: str) -> Response:
        items = [
            self.example(
                "review_comment",
                id=c.id,
                url=self.api(f"/repos/{self.repository}/pulls/comments/{c.id}"),
                body=c.body,
                path=c.path,
                line=c.line,
                commit_id=c.commit_id,
                original_commit_id=c.original_commit_id or c.commit_id,
                user=self.user_json(c.login),
                author_association=c.association,
                pull_request_review_id=c.review_id,
                created_at=c.created_at,
                updated_at=c.updated_at or c.created_at,
                html_url=self.html(f"/pull/{c.pull}#discussion_r{c.id}"),
                pull_request_url=self.api(f"/repos/{self.repository}/pulls/{c.pull}"),
                node_id=f"PRRC_{c.id}",
            )
            for c in self.review_comments
            if c.pull == int(number)
        ]
        return self._page(request, items)

    @route("PUT", _R + r"/pulls/(?P<number>\d+)/merge")
    def _merge_pull(self, request: Request, number: str) -> Response:
        pull = self._find_pull(number)
        if pull is None:
            return _not_found()
        body = request.body if isinstance(request.body, dict) else {}
        method = body.get("merge_method", "merge")
        if method not in ("merge", "squash", "rebase"):
            return _error(422, f"Invalid merge_method: {method}")
        if pull.state != "open" or pull.merged or pull.draft:
            return _error(405, "Pull Request is not mergeable")
        head = self.head_sha(pull)
        if body.get("sha") and body["sha"] != head:
            return _error(409, "Head branch was modified. Review and try the merge again.")
        if pull.mergeable is False:
            return _error(405, "Pull Request is not mergeable")
        title = body.get("commit_title") or f"{pull.title or pull.head_ref} (#{pull.number})"
        message = body.get("commit_message") or ""
        if self.git is not None:
            if method != "squash":
                return _error(422, "this fake merges through its git origin with squash only")
            commits = self.pull_commits(pull)
            result = self.git.squash(
                pull.base_ref, head, title=title, message=message, author=pull.author
            )
            if result is None:
                return _error(405, "Pull Request is not mergeable")
            pull.base_sha, sha = result
            pull.commits = commits  # frozen: the PR's list no longer follows the branch
        else:
            sha = fake_sha(self.repository, pull.number, head, method)
        pull.head_sha = head
        pull.state = "closed"
        pull.merged = True
        pull.merged_at = self.now()
        pull.merge_commit_sha = sha
        pull.merge_request = dict(body)
        return Response(
            200, self.example("merged", sha=sha, message="Pull Request successfully merged")
        )

    @route("POST", _R + r"/pulls")
    def _create_pull(self, request: Request) -> Response:
        body = request.body if isinstance(request.body, dict) else {}
        head, base = body.get("head"), body.get("base")
        if not isinstance(head, str) or not isinstance(base, str) or not head or not base:
            return _validation_failed(
                "PullRequest", "head" if not head else "base", "missing_field"
            )
        owner = self.repository.split("/")[0]
        branch = head.split(":", 1)[1] if head.startswith(f"{owner}:") else head
        if ":" in branch:
            return _validation_failed("PullRequest", "head", "invalid")  # a fork: not modelled
        if any(p.state == "open" and p.head_ref == branch for p in self.pulls.values()):
            return _error(422, f"A pull request already exists for {owner}:{branch}.")
        if self.git is not None:
            head_sha = self.git.resolve(f"refs/heads/{branch}")
            base_sha = self.git.resolve(f"refs/heads/{base}")
            if head_sha is None or base_sha is None:
                return _validation_failed(
                    "PullRequest", "head" if head_sha is None else "base", "invalid"
                )
            if not self.git.commits(base_sha, head_sha):
                return _error(422, f"No commits between {base} and {branch}")
        number = max([*self.pulls, *(c.issue for c in self.comments.values()), 0]) + 1
        pull = self.add_pull(
            number,
            branch,
            base_ref=base,
            title=str(body.get("title") or ""),
            body=str(body.get("body") or ""),
            draft=bool(body.get("draft")),
            author=self.actor,
        )
        return Response(201, self.pull_json(pull))

    @route("GET", _R + r"/issues/(?P<number>\d+)/labels")
    def _list_labels(self, request: Request, number: str) -> Response:
        pull = self._find_pull(number)
        if pull is None:
            return _not_found()
        return self._page(request, [self._label_json(name) for name in pull.labels])

    @route("POST", _R + r"/issues/(?P<number>\d+)/labels")
    def _add_labels(self, request: Request, number: str) -> Response:
        pull = self._find_pull(number)
        if pull is None:
            return _not_found()
        # GitHub takes a bare array of names or {"labels": [...]} (PyGithub sends the array)
        names = request.body.get("labels") if isinstance(request.body, dict) else request.body
        if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
            return _validation_failed("Label", "labels", "invalid")
        for name in names:
            if name not in pull.labels:
                pull.labels.append(name)
        return Response(200, [self._label_json(name) for name in pull.labels])

    def _label_json(self, name: str) -> dict[str, Any]:
        number = int(hashlib.sha1(name.encode()).hexdigest()[:8], 16)
        return self.example(
            "label",
            id=number,
            node_id=f"LA_{number}",
            name=name,
            color="ededed",
            default=False,
            description="",
            url=self.api(f"/repos/{self.repository}/labels/{urllib.parse.quote(name)}"),
        )

    @route("GET", _R + r"/issues/(?P<number>\d+)/comments")
    def _list_comments(self, request: Request, number: str) -> Response:
        items = [
            self.comment_json(c)
            for c in sorted(self.comments.values(), key=lambda c: (c.created_at, c.id))
            if c.issue == int(number)
        ]
        return self._page(request, items)

    @route("GET", _R + r"/issues/(?P<number>\d+)/timeline")
    def _timeline(self, request: Request, number: str) -> Response:
        if int(number) not in self.pulls:
            return _not_found()
        items = [
            {k: v for k, v in e.items() if k not in ("before", "after")}
            for e in self.timeline.get(int(number), [])
        ]
        return self._page(request, items)

    @route("POST", _R + r"/issues/(?P<number>\d+)/comments")
    def _create_comment(self, request: Request, number: str) -> Response:
        body = request.body if isinstance(request.body, dict) else {}
        if not isinstance(body.get("body"), str):
            return _error(422, "body is required")
        if len(body["body"]) > COMMENT_LIMIT:
            return _error(422, f"Body is too long (maximum is {COMMENT_LIMIT} characters)")
        comment = self.add_comment(int(number), body["body"], self.actor, self.actor_association)
        return Response(201, self.comment_json(comment))

    @route("GET", _R + r"/issues/comments/(?P<cid>\d+)")
    def _get_comment(self, request: Request, cid: str) -> Response:
        comment = self.comments.get(int(cid))
        return Response(200, self.comment_json(comment)) if comment else _not_found()

    @route("PATCH", _R + r"/issues/comments/(?P<cid>\d+)")
    def _edit_comment(self, request: Request, cid: str) -> Response:
        comment = self.comments.get(int(cid))
        body = request.body if isinstance(request.body, dict) else {}
        if comment is None:
            return _not_found()
        if not isinstance(body.get("body"), str):
            return _error(422, "body is required")
        if len(body["body"]) > COMMENT_LIMIT:
            return _error(422, f"Body is too long (maximum is {COMMENT_LIMIT} characters)")
        comment.body = body["body"]
        comment.updated_at = comment.last_edited_at = self.now()
        comment.editor = self.actor
        comment.edits.append(self.actor)
        return Response(200, self.comment_json(comment))

    @route("DELETE", _R + r"/issues/comments/(?P<cid>\d+)")
    def _delete_comment(self, request: Request, cid: str) -> Response:
        if self.comments.pop(int(cid), None) is None:
            return _not_found()
        return Response(204)

    @route("GET", _R + r"/commits/(?P<sha>[^/]+)")
    def _get_commit(self, request: Request, sha: str) -> Response:
        resolved = self.git.resolve(sha) if self.git is not None else sha
        if not resolved:
            return _error(422, f"No commit found for SHA: {sha}")
        return Response(200, self.commit_json(FakeCommit(resolved), kind="full_commit"))

    @route("GET", _R + r"/commits/(?P<sha>[^/]+)/pulls")
    def _commit_pulls(self, request: Request, sha: str) -> Response:
        if sha in self.commit_pulls:
            numbers = list(self.commit_pulls[sha])
        else:
            numbers = [
                p.number
                for p in self.pulls.values()
                if (p.merged and p.merge_commit_sha == sha)
                or any(c.sha == sha for c in self.pull_commits(p))
            ]
        items = [self.pull_json(self.pulls[n], listed=True) for n in numbers if n in self.pulls]
        return self._page(request, items)

    @route("GET", _R + r"/commits/(?P<sha>[^/]+)/check-runs")
    def _check_runs(self, request: Request, sha: str) -> Response:
        name = request.query.get("check_name")
        status = request.query.get("status")
        items = [
            self.check_run_json(c)
            for c in sorted(self.check_runs, key=lambda c: -c.id)
            if c.head_sha == sha
            and (name is None or c.name == name)
            and (status is None or c.status == status)
        ]
        return self._page(request, items, "check_runs")

    def _suites_of(self, sha: str) -> list[FakeCheckSuite]:
        """Explicit suites plus one per app that has check runs on ``sha`` (as GitHub makes)."""
        suites = [s for s in self.check_suites if s.head_sha == sha]
        apps = {s.app for s in suites}
        for check in sorted(self.check_runs, key=lambda c: c.id):
            if check.head_sha == sha and check.app not in apps:
                apps.add(check.app)
                suites.append(
                    FakeCheckSuite(
                        check.id + 500_000,
                        sha,
                        check.app,
                        check.started_at or stamp(0),
                        check.status,
                        check.conclusion,
                    )
                )
        return suites

    @route("GET", _R + r"/commits/(?P<sha>[^/]+)/check-suites")
    def _check_suites(self, request: Request, sha: str) -> Response:
        items = [
            self.example(
                "check_suite",
                id=s.id,
                node_id=f"CS_{s.id}",
                head_sha=s.head_sha,
                status=s.status,
                conclusion=s.conclusion,
                created_at=s.created_at,
                updated_at=s.created_at,
                app={"slug": s.app, "name": s.app},
                url=self.api(f"/repos/{self.repository}/check-suites/{s.id}"),
                check_runs_url=self.api(f"/repos/{self.repository}/check-suites/{s.id}/check-runs"),
                pull_requests=[],
                repository=self._repo_json(self.repository),
            )
            for s in self._suites_of(sha)
        ]
        return self._page(request, items, "check_suites")

    @route("GET", r"/orgs/(?P<org>[^/]+)/teams/(?P<slug>[^/]+)/memberships/(?P<login>[^/]+)")
    def _team_membership(self, request: Request, org: str, slug: str, login: str) -> Response:
        members = self.teams.get(f"{org}/{slug}".lower())
        if members is None or login.lower() not in members:
            return _not_found()  # GitHub answers 404 both for "no such team" and "not a member"
        return Response(
            200,
            self.example(
                "membership",
                url=self.api(f"/orgs/{org}/teams/{slug}/memberships/{login}"),
                role="member",
                state="active",
            ),
        )

    @route("GET", _R + r"/collaborators/(?P<login>[^/]+)/permission")
    def _collaborator_permission(self, request: Request, login: str) -> Response:
        permission = self.permissions.get(login.lower(), "none")
        legacy = {"maintain": "write", "triage": "read"}.get(permission, permission)
        return Response(
            200,
            self.example(
                "permission",
                permission=legacy,
                role_name=permission,
                user={**self._user_fields(login), "role_name": permission},
            ),
        )

    @route("GET", _R + r"/actions/runs/(?P<run_id>\d+)/jobs")
    def _run_jobs(self, request: Request, run_id: str) -> Response:
        run = self.runs.get(int(run_id))
        if run is None:
            return _not_found()
        items = [
            self.example(
                "job",
                id=j.id,
                node_id=f"J_{j.id}",
                run_id=run.id,
                run_url=self.api(f"/repos/{self.repository}/actions/runs/{run.id}"),
                run_attempt=run.run_attempt,
                name=j.name,
                status=j.status,
                conclusion=j.conclusion,
                head_sha=run.head_sha,
                head_branch=run.head_branch,
                workflow_name=(
                    self.workflows[run.workflow].name
                    if run.workflow in self.workflows
                    else run.workflow
                ),
                url=self.api(f"/repos/{self.repository}/actions/jobs/{j.id}"),
                html_url=self.html(f"/actions/runs/{run.id}/job/{j.id}"),
                check_run_url=self.api(f"/repos/{self.repository}/check-runs/{j.id}"),
                created_at=run.created_at,
                started_at=run.created_at,
                completed_at=None if j.conclusion is None else run.created_at,
                steps=[],
            )
            for j in run.jobs
        ]
        return self._page(request, items, "jobs")

    def _artifact(self, artifact_id: int) -> FakeArtifact | None:
        for run in self.runs.values():
            for a in run.artifacts:
                if a.id == artifact_id:
                    return a
        return None

    @route("GET", _R + r"/actions/artifacts/(?P<aid>\d+)/zip")
    def _artifact_zip(self, request: Request, aid: str) -> Response:
        artifact = self._artifact(int(aid))
        if artifact is None:
            return _not_found()
        if artifact.expired:
            return _error(410, "Artifact has expired")
        # GitHub answers 302 to a short-lived signed URL of its blob storage
        return Response(302, None, {"Location": f"{self.root_url}/_blobs/artifact-{aid}.zip"})

    def _blob(self, request: Request) -> Response:
        match = re.fullmatch(r"/_blobs/artifact-(\d+)\.zip", request.path)
        artifact = self._artifact(int(match.group(1))) if match else None
        if artifact is None:
            return _not_found()
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            for name, text in (artifact.files or {}).items():
                archive.writestr(name, text)
        return Response(200, raw=buffer.getvalue())

    def _foreign_pull(self, repo: str, number: str) -> Response:
        pull = self.foreign_pulls.get(repo.lower(), {}).get(int(number))
        if pull is None:
            return _not_found()
        return Response(200, self._pull_json(pull, repo))

    def _graphql(self, request: Request) -> Response:
        """The one GraphQL query the tool sends: ``nodes(ids:)`` for comment edit history."""
        body = request.body if isinstance(request.body, dict) else {}
        ids = (body.get("variables") or {}).get("ids")
        if "nodes(" not in str(body.get("query", "")) or not isinstance(ids, list):
            return Response(200, {"errors": [{"message": "the fake answers only nodes(ids:)"}]})
        nodes: list[Any] = []
        errors: list[dict[str, Any]] = []
        for index, node_id in enumerate(ids):
            kind, _, number = str(node_id).partition("_")
            comment: Any = None
            if number.isdigit() and kind == "IC":
                comment = self.comments.get(int(number))
            elif number.isdigit() and kind in ("PRR", "PRRC"):
                pool: list[Any] = self.reviews if kind == "PRR" else self.review_comments
                comment = next((c for c in pool if c.id == int(number)), None)
            if comment is None:
                # GitHub's answer for an id that names nothing (a comment deleted since it was
                # listed): the node is null and an error of type NOT_FOUND says which
                nodes.append(None)
                errors.append(
                    {
                        "type": "NOT_FOUND",
                        "path": ["nodes", index],
                        "locations": [{"line": 1, "column": 27}],
                        "message": f"Could not resolve to a node with the global id of "
                        f"'{node_id}'.",
                    }
                )
                continue
            typename = {"IC": "IssueComment", "PRR": "PullRequestReview"}.get(
                kind, "PullRequestReviewComment"
            )
            if f"on {typename} " not in str(body.get("query")):
                nodes.append({"id": node_id})  # as GitHub: only fields the query asks for
                continue
            answer: dict[str, Any] = {
                "id": node_id,
                "lastEditedAt": comment.last_edited_at,
                "editor": {"login": comment.editor} if comment.editor else None,
            }
            if "userContentEdits(" in str(body.get("query")):
                newest = list(reversed(comment.edits))  # as GitHub lists them
                answer["userContentEdits"] = {
                    "totalCount": len(newest),
                    "nodes": [{"editor": {"login": e}} for e in newest[:100]],
                }
            nodes.append(answer)
        result: dict[str, Any] = {"data": {"nodes": nodes}}
        if errors:
            result["errors"] = errors
        return Response(200, result)

    def _statuses_of(self, sha: str) -> list[FakeStatus]:
        return sorted((s for s in self.statuses if s.sha == sha), key=lambda s: -s.id)

    @route("GET", _R + r"/commits/(?P<sha>[^/]+)/statuses")
    def _list_statuses(self, request: Request, sha: str) -> Response:
        return self._page(request, [self.status_json(s) for s in self._statuses_of(sha)])

    @route("GET", _R + r"/commits/(?P<sha>[^/]+)/status")
    def _combined_status(self, request: Request, sha: str) -> Response:
        latest: dict[str, FakeStatus] = {}
        for s in self._statuses_of(sha):  # newest first: keep the first per context
            latest.setdefault(s.context, s)
        states = {s.state for s in latest.values()}
        # GitHub's order: any failure or error wins over pending
        if states & {"failure", "error"}:
            state = "failure"
        elif not latest or "pending" in states:
            state = "pending"
        else:
            state = "success"
        response = self._page(request, [self.status_json(s) for s in latest.values()], "statuses")
        api = self.api(f"/repos/{self.repository}/commits/{sha}")
        body = self.example(
            "combined_status",
            state=state,
            sha=sha,
            total_count=len(latest),
            statuses=response.body["statuses"],
            commit_url=api,
            url=f"{api}/status",
            repository=self._repo_json(self.repository),
        )
        return Response(200, body)  # paged by number: GitHub documents no Link header here

    @route("POST", _R + r"/statuses/(?P<sha>[0-9a-f]{40})")
    def _create_status(self, request: Request, sha: str) -> Response:
        body = request.body if isinstance(request.body, dict) else {}
        if body.get("state") not in ("error", "failure", "pending", "success"):
            return _error(422, "state must be error, failure, pending or success")
        status = self.add_status(
            sha,
            body["state"],
            body.get("context") or "default",
            description=body.get("description"),
            target_url=body.get("target_url"),
        )
        return Response(201, self.status_json(status))

    @route("GET", _R + r"/actions/workflows/(?P<ref>[^/]+)")
    def _get_workflow(self, request: Request, ref: str) -> Response:
        wf = self._workflow(ref)
        return Response(200, self.workflow_json(wf)) if wf else _not_found()

    def _runs(self, request: Request, runs: list[FakeRun]) -> Response:
        q = request.query

        def keep(run: FakeRun) -> bool:
            status = q.get("status")
            return (
                (not q.get("event") or run.event == q["event"])
                and (not q.get("branch") or run.head_branch == q["branch"])
                and (not q.get("head_sha") or run.head_sha == q["head_sha"])
                and (not status or status in (run.status, run.conclusion))
            )

        newest_first = sorted(runs, key=lambda r: (r.created_at, r.id), reverse=True)
        items = [self.run_json(r) for r in newest_first if keep(r)]
        return self._page(request, items, "workflow_runs")

    @route("GET", _R + r"/actions/workflows/(?P<ref>[^/]+)/runs")
    def _workflow_runs(self, request: Request, ref: str) -> Response:
        wf = self._workflow(ref)
        if wf is None:
            return _not_found()
        return self._runs(request, [r for r in self.runs.values() if r.workflow == wf.file])

    @route("GET", _R + r"/actions/runs")
    def _repo_runs(self, request: Request) -> Response:
        return self._runs(request, list(self.runs.values()))

    @route("GET", _R + r"/actions/runs/(?P<run_id>\d+)")
    def _get_run(self, request: Request, run_id: str) -> Response:
        run = self.runs.get(int(run_id))
        return Response(200, self.run_json(run)) if run else _not_found()

    @route("GET", _R + r"/actions/runs/(?P<run_id>\d+)/artifacts")
    def _run_artifacts(self, request: Request, run_id: str) -> Response:
        run = self.runs.get(int(run_id))
        if run is None:
            return _not_found()
        name = request.query.get("name")
        items = [self.artifact_json(a) for a in run.artifacts if name is None or a.name == name]
        return self._page(request, items, "artifacts")

    # -- state files ----------------------------------------------------------------------------

    @classmethod
    def from_state(cls, state: dict[str, Any], **options: Any) -> FakeGitHub:
        """Build a fake from a JSON-style dict (the ``--state`` file format; see docs/github.md)."""
        if not isinstance(state, dict):
            raise ValueError(f"the state must be a JSON object, not {type(state).__name__}")
        state = dict(state)
        options.setdefault("repository", state.pop("repository", "octo/widgets"))
        for key in ("actor", "actor_association"):
            if key in state:
                options.setdefault(key, state.pop(key))
        fake = cls(**options)
        fake._continue_after(state)
        for item in state.pop("pulls", []):
            item = dict(item)
            commits = [_record(FakeCommit, c, "commit") for c in item.pop("commits", [])]
            pull = _record(FakePull, item, "pull")
            pull.commits = commits
            fake.pulls[pull.number] = pull
        for item in state.pop("comments", []):
            when = fake.now()
            comment = _record(
                FakeComment,
                {"id": fake.next_id(), "created_at": when, "updated_at": when, **item},
                "comment",
            )
            fake.comments[comment.id] = comment
        for item in state.pop("workflows", []):
            wf = _record(FakeWorkflow, {"id": fake.next_id(), **item}, "workflow")
            fake.workflows[wf.file] = wf
        for item in state.pop("runs", []):
            item = dict(item)
            artifacts = [
                _record(FakeArtifact, {"id": fake.next_id(), **a}, "artifact")
                for a in item.pop("artifacts", [])
            ]
            jobs = [
                _record(FakeJob, {"id": fake.next_id(), **j}, "job") for j in item.pop("jobs", [])
            ]
            if item.get("workflow") not in fake.workflows:
                fake.add_workflow(str(item.get("workflow")))
            run = _record(
                FakeRun,
                {"id": fake.next_id(), "created_at": fake.now(), **item},
                "run",
            )
            run.artifacts = artifacts
            run.jobs = jobs
            fake.runs[run.id] = run
        for item in state.pop("check_runs", []):
            fake.check_runs.append(
                _record(
                    FakeCheckRun,
                    {"id": fake.next_id(), "started_at": fake.now(), **item},
                    "check run",
                )
            )
        for item in state.pop("statuses", []):
            fake.statuses.append(
                _record(
                    FakeStatus, {"id": fake.next_id(), "created_at": fake.now(), **item}, "status"
                )
            )
        fake.commit_pulls.update(state.pop("commit_pulls", {}))
        fake._more_state(state)
        if state:
            raise ValueError(f"unknown state keys: {', '.join(sorted(state))}")
        return fake

    def _more_state(self, state: dict[str, Any]) -> None:
        """The sign-off parts of a state file: reviews, review comments, teams, permissions,
        check suites, other repositories' pull requests, and run jobs and artifact files."""
        for key in ("teams", "permissions", "foreign_pulls", "jobs"):
            if not isinstance(state.get(key, {}), dict):
                raise ValueError(f"{key}: expected an object")
        for item in state.pop("reviews", []):
            self.reviews.append(
                _record(
                    FakeReview, {"id": self.next_id(), "submitted_at": self.now(), **item}, "review"
                )
            )
        for item in state.pop("review_comments", []):
            when = self.now()
            self.review_comments.append(
                _record(
                    FakeReviewComment,
                    {"id": self.next_id(), "created_at": when, "updated_at": when, **item},
                    "review comment",
                )
            )
        for item in state.pop("check_suites", []):
            self.check_suites.append(
                _record(
                    FakeCheckSuite,
                    {"id": self.next_id(), "created_at": self.now(), **item},
                    "check suite",
                )
            )
        for team, members in state.pop("teams", {}).items():
            self.add_team(team, list(members))
        for login, permission in state.pop("permissions", {}).items():
            self.set_permission(login, str(permission))
        for repo, pulls in state.pop("foreign_pulls", {}).items():
            for item in pulls:
                self.add_foreign_pull(repo, **item)
        for run_id, jobs in state.pop("jobs", {}).items():
            run = self.runs[int(run_id)]
            for job in jobs:
                run.jobs.append(_record(FakeJob, {"id": self.next_id(), **job}, "job"))

    def snapshot(self) -> dict[str, Any]:
        """The current state as plain data (pulls, comments, runs, statuses, ...)."""
        with self._lock:
            return {
                "repository": self.repository,
                "pulls": [dataclasses.asdict(p) for p in self.pulls.values()],
                "comments": [dataclasses.asdict(c) for c in self.comments.values()],
                "workflows": [dataclasses.asdict(w) for w in self.workflows.values()],
                "runs": [dataclasses.asdict(r) for r in self.runs.values()],
                "check_runs": [dataclasses.asdict(c) for c in self.check_runs],
                "statuses": [dataclasses.asdict(s) for s in self.statuses],
                "commit_pulls": dict(self.commit_pulls),
                "reviews": [dataclasses.asdict(r) for r in self.reviews],
                "review_comments": [dataclasses.asdict(c) for c in self.review_comments],
            }


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


# ----------------------------------------------------------------------------------------------
# command line


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m changelog_tools.testing.fakegithub",
        description="Serve a fake GitHub REST API from a JSON state file on 127.0.0.1 and print "
        "its base URL (the first line of stdout). Stop it with Ctrl-C or SIGTERM.",
    )
    parser.add_argument("--state", required=True, type=Path, help="JSON state file")
    parser.add_argument("--port", type=int, default=0, help="port (default: any free port)")
    parser.add_argument("--prefix", default="/api/v3", help="API path prefix (default /api/v3)")
    parser.add_argument("--git-origin", type=Path, help="bare repository backing PRs and merges")
    parser.add_argument("--token", help="require this token on every request")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Serve ``--state`` until interrupted; print the base URL first."""
    args = _parse_args(argv)
    if args.git_origin is not None and GitOrigin(args.git_origin).git("rev-parse").returncode:
        # a typo here would only show later, as a 500 on every pull-request read
        print(f"error: --git-origin {args.git_origin}: not a git repository", file=sys.stderr)
        return 2
    try:
        state = json.loads(args.state.read_text(encoding="utf-8"))
        fake = FakeGitHub.from_state(
            state, prefix=args.prefix, git_origin=args.git_origin, token=args.token
        )
    except (OSError, ValueError, TypeError) as exc:  # TypeError: a list where an object goes
        print(f"error: {args.state}: {exc}", file=sys.stderr)
        return 2
    stop = threading.Event()

    def _stop(signum: int, frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    fake.start(args.port)
    print(fake.base_url, flush=True)
    try:
        while not stop.wait(0.2):
            pass
    finally:
        fake.stop()
    return 0


def iter_routes() -> Iterator[tuple[str, str]]:
    """(method, path pattern) of every route the fake answers, for documentation."""
    for method, pattern, _name in _ROUTES:
        yield method, pattern.pattern.replace(_R, "/repos/{owner}/{repo}")


if __name__ == "__main__":
    sys.exit(main())
