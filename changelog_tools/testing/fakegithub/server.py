"""The fake GitHub's server: HTTP, routing, paging, faults, the request log and recording
(its objects are in :mod:`.objects`, what tests set up in :mod:`.seeding`)."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import threading
import time
import urllib.parse
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar, Self

from changelog_tools.testing.background import Background
from changelog_tools.testing.fakegithub.seeding import FakeSeeding
from changelog_tools.testing.fakegithub.state import (
    RECORD_ENV,
    Exchange,
    Fault,
    Request,
    Response,
    _error,
    _not_found,
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


class FakeServer(Background, FakeSeeding):
    """The server over the fake's objects: listening, routing, paging, faults, the request
    log and recording."""

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
        super().__init__(
            repository,
            git_origin=git_origin,
            actor=actor,
            actor_association=actor_association,
        )
        # Recording is opt-in: every exchange kept in `exchanges`; with the environment variable
        # naming a directory, they are also written there (JSON lines) when the fake stops, so
        # a fake started by a command or the demo can be checked afterwards.
        self._record_dir = os.environ.get(RECORD_ENV) or None
        self.exchanges: list[Exchange] | None = (
            [] if (record if record is not None else self._record_dir is not None) else None
        )
        self.prefix = prefix.rstrip("/")
        self.host = host
        self.token = token  # when set, requests must carry it
        self.log: list[Request] = []
        self.unhandled: list[tuple[str, str]] = []
        self.errors: list[str] = []  # exceptions raised by handlers (answered as 500)
        self.faults: list[Fault] = []
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

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
        # a fake already started (to read its URL first) is entered as it is
        return self.start() if self._server is None else self

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

    # -- answered by the resource parts (FakeGitHub combines them) -----------------------------

    def _foreign_pull(self, repo: str, number: str) -> Response:
        raise NotImplementedError

    def _blob(self, request: Request) -> Response:
        raise NotImplementedError

    def _graphql(self, request: Request) -> Response:
        raise NotImplementedError
