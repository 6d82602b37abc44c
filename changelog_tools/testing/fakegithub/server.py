"""The fake GitHub's core: the HTTP server, routing, paging, faults, the request log and
recording, and the objects every resource shares (users, repositories, commits, labels)."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import itertools
import json
import os
import re
import threading
import time
import urllib.parse
from collections.abc import Callable
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, ClassVar, Self

from changelog_tools.testing.fakegithub.examples import _URL_START, EXAMPLES, _examples, _merged
from changelog_tools.testing.fakegithub.gitdata import GitOrigin
from changelog_tools.testing.fakegithub.state import (
    _EPOCH,
    RECORD_ENV,
    Exchange,
    FakeArtifact,
    FakeCheckRun,
    FakeCheckSuite,
    FakeComment,
    FakeCommit,
    FakeJob,
    FakePull,
    FakeReview,
    FakeReviewComment,
    FakeRun,
    FakeStatus,
    FakeWorkflow,
    Fault,
    Request,
    Response,
    _error,
    _not_found,
    fake_sha,
    stamp,
)

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


class FakeServer:
    """The server, its state and what every resource shares: ids, clock, routing, paging,
    faults, the request log and recording, and GitHub's objects built from its examples."""

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

    def start(self, port: int = 0) -> Self:
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

    def __enter__(self) -> Self:
        return self.start() if self._server is None else self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

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

    def _workflow(self, ref: str) -> FakeWorkflow | None:
        if ref in self.workflows:
            return self.workflows[ref]
        return next((w for w in self.workflows.values() if str(w.id) == ref), None)

    def _find_pull(self, number: str) -> FakePull | None:
        return self.pulls.get(int(number))

    # -- answered by the resource parts (FakeGitHub combines them) -----------------------------

    def _foreign_pull(self, repo: str, number: str) -> Response:
        raise NotImplementedError

    def _blob(self, request: Request) -> Response:
        raise NotImplementedError

    def _graphql(self, request: Request) -> Response:
        raise NotImplementedError
