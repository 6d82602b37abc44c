"""The stdlib HTTP session under the transport, against small real servers on 127.0.0.1.

The fake GitHub covers the API; these cover what a client must get right below it: redirects
(followed for reads on the API origin only), an idle keep-alive connection the server closed,
and a proxy named by the environment.
"""

from __future__ import annotations

import json
import select
import socket
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from changelog_tools.errors import GitHubError
from changelog_tools.github.client import HTTPFailure, Session

Route = Callable[[BaseHTTPRequestHandler], tuple[int, dict[str, str], Any]]


class Server:
    """A threaded HTTP/1.1 server answering every request with ``route``; logs what it saw."""

    def __init__(self, route: Route, *, close_after_each: bool = False) -> None:
        self.seen: list[tuple[str, str, str]] = []  # (method, path, authorization)
        self.connections = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def setup(self) -> None:
                super().setup()
                server.connections += 1

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                server.seen.append((self.command, self.path, self.headers["Authorization"] or ""))
                status, headers, body = route(self)
                payload = b"" if body is None else json.dumps(body).encode()
                self.send_response(status)
                for name, value in {**headers, "Content-Length": str(len(payload))}.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)
                # close without saying so: the client believes the connection is kept alive
                self.close_connection = close_after_each

            do_GET = do_POST = _serve

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}/api/v3"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def serve() -> Iterator[Callable[..., Server]]:
    started: list[Server] = []

    def start(route: Route, **kw: Any) -> Server:
        started.append(Server(route, **kw))
        return started[-1]

    yield start
    for s in started:
        s.stop()


def session(base: str) -> Session:
    return Session(base_url=base, token="tok", timeout=5)


def test_a_read_follows_a_redirect_on_the_api_origin(serve: Callable[..., Server]) -> None:
    def route(h: BaseHTTPRequestHandler) -> tuple[int, dict[str, str], Any]:
        if h.path.startswith("/api/v3/repos/o/old/"):  # a renamed repository
            return 301, {"Location": h.path.replace("/o/old/", "/o/new/")}, {"message": "Moved"}
        return 200, {}, {"number": 1}

    s = serve(route)
    _, data = session(s.base).send("GET", "/repos/o/old/pulls/1", {"per_page": 1}, None)
    assert data == {"number": 1}
    assert [p for _, p, _ in s.seen] == [
        "/api/v3/repos/o/old/pulls/1?per_page=1",
        "/api/v3/repos/o/new/pulls/1?per_page=1",
    ]
    assert all(auth == "Bearer tok" for _, _, auth in s.seen)


def test_a_redirect_off_the_api_origin_is_refused_before_the_token_leaves(
    serve: Callable[..., Server],
) -> None:
    other = serve(lambda h: (200, {}, {"stolen": True}))
    first = serve(lambda h: (302, {"Location": other.base.replace("127.0.0.1", "localhost")}, None))
    with pytest.raises(GitHubError, match="refusing to send the GitHub token to http://localhost"):
        session(first.base).send("GET", "/repos/o/r", None, None)
    assert len(first.seen) == 1 and other.seen == []


def test_a_write_is_never_redirected(serve: Callable[..., Server]) -> None:
    s = serve(lambda h: (307, {"Location": "/api/v3/elsewhere"}, {"message": "Temporary"}))
    with pytest.raises(HTTPFailure) as info:
        session(s.base).send("POST", "/repos/o/r/issues/1/comments", None, {"body": "x"})
    assert info.value.status == 307 and [m for m, _, _ in s.seen] == ["POST"]


def test_an_idle_connection_the_server_closed_is_reopened_without_a_failure(
    serve: Callable[..., Server],
) -> None:
    s = serve(lambda h: (200, {}, {"ok": True}), close_after_each=True)
    client = session(s.base)
    for _ in range(3):
        assert client.send("GET", "/rate_limit", None, None)[1] == {"ok": True}
    assert len(s.seen) == 3 and s.connections == 3


def test_a_kept_alive_connection_is_reused(serve: Callable[..., Server]) -> None:
    s = serve(lambda h: (200, {}, []))
    client = session(s.base)
    for _ in range(3):
        client.send("GET", "/repos/o/r/pulls", None, None)
    assert len(s.seen) == 3 and s.connections == 1


def test_an_error_status_carries_headers_and_message(serve: Callable[..., Server]) -> None:
    s = serve(lambda h: (403, {"X-RateLimit-Remaining": "0"}, {"message": "API rate limit"}))
    with pytest.raises(HTTPFailure) as info:
        session(s.base).send("GET", "/repos/o/r", None, None)
    assert info.value.status == 403 and info.value.headers["x-ratelimit-remaining"] == "0"
    assert info.value.data == {"message": "API rate limit"}


def _pipe(a: socket.socket, b: socket.socket) -> None:
    sockets = [a, b]
    while True:
        readable, _, _ = select.select(sockets, [], [], 5)
        if not readable:
            return
        for sock in readable:
            data = sock.recv(65536)
            if not data:
                return
            (b if sock is a else a).sendall(data)


class ConnectProxy:
    """A minimal HTTP CONNECT proxy on 127.0.0.1 that records the tunnels asked of it."""

    def __init__(self) -> None:
        self.tunnels: list[str] = []
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._tunnel, args=(client,), daemon=True).start()

    def _tunnel(self, client: socket.socket) -> None:
        with client:
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = client.recv(4096)
                if not chunk:
                    return
                head += chunk
            method, target, _ = head.split(b"\r\n", 1)[0].decode().split(" ", 2)
            self.tunnels.append(f"{method} {target}")
            host, port = target.rsplit(":", 1)
            with socket.create_connection((host, int(port))) as upstream:
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                _pipe(client, upstream)

    def stop(self) -> None:
        self.listener.close()


def test_a_proxy_from_the_environment_tunnels_the_requests(
    serve: Callable[..., Server], monkeypatch: pytest.MonkeyPatch
) -> None:
    s = serve(lambda h: (200, {}, {"via": "proxy"}))
    proxy = ConnectProxy()
    try:
        for name in ("no_proxy", "NO_PROXY", "all_proxy", "ALL_PROXY"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("http_proxy", proxy.url)
        assert session(s.base).send("GET", "/repos/o/r", None, None)[1] == {"via": "proxy"}
        assert proxy.tunnels == [f"CONNECT {s.base.split('/')[2]}"]
        monkeypatch.setenv("no_proxy", "127.0.0.1")  # and NO_PROXY is honoured
        assert session(s.base).send("GET", "/repos/o/r", None, None)[1] == {"via": "proxy"}
        assert len(proxy.tunnels) == 1 and len(s.seen) == 2
    finally:
        proxy.stop()


class RawServer:
    """Answers each request on a connection with the next of ``answers`` (raw bytes), as is."""

    def __init__(self, answers: list[bytes], *, close_after: bool = False) -> None:
        self.answers = list(answers)
        self.requests: list[bytes] = []
        self.connections = 0
        self.close_after = close_after
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.base = f"http://127.0.0.1:{self.listener.getsockname()[1]}/api/v3"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            with conn:
                data = b""
                while self.answers:
                    while b"\r\n\r\n" not in data:
                        chunk = conn.recv(65536)
                        if not chunk:
                            break
                        data += chunk
                    if b"\r\n\r\n" not in data:
                        break
                    head, _, data = data.partition(b"\r\n\r\n")
                    self.requests.append(head)
                    conn.sendall(self.answers.pop(0))
                    if self.close_after:
                        break

    def stop(self) -> None:
        self.listener.close()


def test_a_chunked_answer_is_read_whole_on_a_kept_alive_connection() -> None:
    chunked = (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
        b'Link: <a>; rel="next"\r\nlink: <b>; rel="last"\r\n\r\n'
        b'5;ext=1\r\n{"a":\r\n3\r\n 1}\r\n0\r\nTrailer: x\r\n\r\n'
    )
    raw = RawServer([chunked, chunked])
    try:
        client = session(raw.base)
        for _ in range(2):
            headers, data = client.send("GET", "/repos/o/r", None, None)
            assert data == {"a": 1}
            assert headers["link"] == '<a>; rel="next", <b>; rel="last"'
        assert raw.connections == 1
        first = raw.requests[0].decode().split("\r\n")
        assert first[0] == "GET /api/v3/repos/o/r HTTP/1.1"
        assert f"Host: {raw.base.split('/')[2]}" in first and "Authorization: Bearer tok" in first
    finally:
        raw.stop()


def test_an_http_1_0_answer_without_a_length_ends_with_the_connection() -> None:
    raw = RawServer([b"HTTP/1.0 200 OK\r\n\r\n[1, 2]"] * 2, close_after=True)
    try:
        client = session(raw.base)
        assert client.send("GET", "/x", None, None)[1] == [1, 2]
        assert client.send("GET", "/x", None, None)[1] == [1, 2]
        assert raw.connections == 2
    finally:
        raw.stop()


@pytest.mark.parametrize(
    ("answer", "kind"),
    [
        (b"", "RemoteDisconnected"),
        (b"SSH-2.0-OpenSSH\r\n\r\n", "BadStatusLine"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n[1]", "IncompleteRead"),
        (b"HTTP/1.1 200 OK\r\n" + b"X: y\r\n" * 101 + b"\r\n", "HTTPException"),
        (b"HTTP/1.1 200 OK\r\nX: " + b"y" * 70000 + b"\r\n\r\n", "LineTooLong"),
    ],
)
def test_an_answer_that_is_not_http_is_a_connection_failure(answer: bytes, kind: str) -> None:
    from changelog_tools.github.client import ConnectionFailure

    raw = RawServer([answer], close_after=True)
    try:
        with pytest.raises(ConnectionFailure) as info:
            session(raw.base).send("GET", "/x", None, None)
        assert info.value.kind == kind and not info.value.timed_out
    finally:
        raw.stop()


def test_https_is_verified_against_the_configured_bundle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ssl
    import subprocess

    from changelog_tools.github.client import ConnectionFailure

    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True,
    )  # fmt: skip
    s = Server(lambda h: (200, {}, {"tls": True}))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    s.httpd.socket = context.wrap_socket(s.httpd.socket, server_side=True)
    base = s.base.replace("http://", "https://")
    try:
        for name in ("https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv("CURL_CA_BUNDLE", raising=False)
        monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(cert))
        client = session(base)
        assert client.send("GET", "/repos/o/r", None, None)[1] == {"tls": True}
        assert client.send("GET", "/repos/o/r", None, None)[1] == {"tls": True}
        assert s.connections == 1  # kept alive over TLS too
        monkeypatch.delenv("REQUESTS_CA_BUNDLE")
        monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "none.pem"))
        with pytest.raises(ConnectionFailure) as info:  # an untrusted certificate
            session(base).send("GET", "/repos/o/r", None, None)
        assert info.value.kind == "SSLCertVerificationError"
    finally:
        s.stop()


def _ok(body: bytes) -> bytes:
    return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)


def test_interim_answers_are_skipped_and_leave_nothing_for_the_next_request() -> None:
    # A 103 and the real answer in one packet: the 200 answers this request, and nothing of
    # it is left to be read as the answer to the next one.
    first = b"HTTP/1.1 103 Early Hints\r\nLink: </s.css>\r\n\r\n" + _ok(b'{"for": "one"}')
    raw = RawServer([first, _ok(b'{"for": "two"}')])
    try:
        client = session(raw.base)
        assert client.send("GET", "/one", None, None)[1] == {"for": "one"}
        assert client.send("GET", "/two", None, None)[1] == {"for": "two"}
    finally:
        raw.stop()


def test_bytes_past_an_answers_length_are_not_the_next_answer() -> None:
    raw = RawServer([_ok(b"{}") + b"junk after the body", _ok(b'{"n": 2}')])
    try:
        client = session(raw.base)
        assert client.send("GET", "/one", None, None)[1] == {}
        assert client.send("GET", "/two", None, None)[1] == {"n": 2}
    finally:
        raw.stop()


def test_a_repeated_content_length_is_one_length_and_conflicting_ones_are_refused() -> None:
    from changelog_tools.github.client import ConnectionFailure

    same = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}"
    raw = RawServer([same])
    try:
        assert session(raw.base).send("GET", "/x", None, None)[1] == {}
    finally:
        raw.stop()
    conflicting = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}x"
    raw = RawServer([conflicting], close_after=True)
    try:
        with pytest.raises(ConnectionFailure) as caught:
            session(raw.base).send("GET", "/x", None, None)
        assert caught.value.kind == "HTTPException" and not caught.value.timed_out
    finally:
        raw.stop()
