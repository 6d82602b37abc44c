"""The HTTP session under the GitHub transport: one request in, status/headers/JSON out.

A thin HTTP/1.1 client on the standard library's ``socket`` (and ``ssl`` for https): one
keep-alive connection to the API origin, opened on the first request (a command that decides
without asking GitHub never pays for it). Retries, rate limits, pagination and records live
above it, in :mod:`~changelog_tools.github.transport` and
:mod:`~changelog_tools.github.records`. That left PyGithub (with requests, urllib3,
cryptography, jwt and nacl) serving as little more than this session while its import cost
more than a whole `reuse-gate` decision; and ``http.client``, which replaced it, still cost
`reuse-gate` a fifth of its time at import (it loads the ``email`` package to parse headers),
about as much as all its requests (issue 14). What the tool sends and reads is a small,
fixed part of HTTP/1.1: a request line, headers and a JSON body out; a status line, headers
and a body framed by ``Content-Length``, chunked encoding or the end of the connection back.

Trust boundary: the token goes to the configured API origin only. An absolute URL on another
origin (a next-page link or a redirect) is refused before anything is sent, and redirects are
followed for reads only, within that origin.

Failures come out as two plain exceptions so the transport knows no HTTP-library types:
:class:`HTTPFailure` (the server answered with an error status) and :class:`ConnectionFailure`
(no answer: refused, reset, timed out, or an answer that is not HTTP). A body that claims to
be JSON but is not raises ``ValueError``.
"""

from __future__ import annotations

import os
import time
import urllib.parse
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from changelog_tools import __version__
from changelog_tools.errors import GitHubError

if TYPE_CHECKING:
    import socket
    import ssl

API_VERSION = "2022-11-28"  # the REST API version the records were written against
MAX_REDIRECTS = 5
_REDIRECTS = frozenset({301, 302, 307, 308})
_WRITES = frozenset({"POST", "PATCH", "PUT", "DELETE"})
_PROXY_VARIABLES = ("https_proxy", "http_proxy", "all_proxy")
# Bounds on what a server may send before the body (http.client's limits).
_MAX_LINE = 65536
_MAX_HEADERS = 100


class HTTPFailure(Exception):
    """GitHub answered with an error status."""

    def __init__(self, status: int, headers: Mapping[str, Any], data: Any) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status
        self.headers = {str(k).lower(): v for k, v in headers.items()}
        self.data = data


class ConnectionFailure(Exception):
    """No answer came back: the connection failed or timed out."""

    def __init__(self, *, timed_out: bool, kind: str) -> None:
        super().__init__(kind)
        self.timed_out = timed_out
        self.kind = kind  # the failure's type name, for messages


class HTTPException(Exception):
    """The server's answer is not HTTP/1.x as the client reads it (or a request could not be
    framed). This class and its subclasses carry ``http.client``'s names, which messages
    show (``could not connect (IncompleteRead)``)."""


class BadStatusLine(HTTPException):
    """The first line of the answer is no HTTP status line."""


class RemoteDisconnected(ConnectionResetError, BadStatusLine):
    """The server closed the connection without answering."""


class UnknownProtocol(HTTPException):
    """The answer speaks another HTTP version than 1.x."""


class LineTooLong(HTTPException):
    """A status, header or chunk-size line is longer than the limit."""


class IncompleteRead(HTTPException):
    """The body ended before its framing said it would."""


class InvalidURL(HTTPException):
    """A request target holding spaces or control characters (it would split the request)."""


def decode_body(raw: bytes) -> Any:
    """GitHub's JSON; None for an empty body; a non-JSON text body as ``{"data": text}``."""
    if not raw:
        return None
    import json

    text = raw.decode("utf-8", "replace")
    try:
        return json.loads(text)
    except ValueError:
        if text.lstrip().startswith(("{", "[")):
            raise  # it claims to be JSON: the transport reports invalid JSON
        return {"data": text}  # an HTML error page from a proxy, say


class Session:
    """An authenticated HTTP session bound to one API base URL."""

    def __init__(
        self, *, base_url: str, token: str, timeout: float, write_interval: float = 0.0
    ) -> None:
        split = urllib.parse.urlsplit(base_url)
        if split.scheme not in ("http", "https") or not split.hostname:
            raise GitHubError(f"GitHub API URL {base_url!r} is not an http(s) URL")
        self.timeout = timeout  # seconds per connect and per read
        self.write_interval = write_interval  # GitHub asks for a pause between two writes
        self._scheme = split.scheme
        self._host = split.hostname
        self._port = split.port or (443 if split.scheme == "https" else 80)
        self._prefix = split.path.rstrip("/")
        # GraphQL sits beside the REST prefix: /graphql, or /api/graphql beside /api/v3
        self.graphql_path = self._prefix.removesuffix("/v3") + "/graphql"
        self._headers = {
            "Authorization": f"Bearer {token}",
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": API_VERSION,
            "User-Agent": f"changelog-tools/{__version__}",
        }
        self._conn: _Connection | None = None
        self._last_write: float | None = None

    def __repr__(self) -> str:  # never shows the token
        return f"Session({self._scheme}://{self._host}:{self._port}{self._prefix})"

    # -- the request ----------------------------------------------------------------------------

    def send(
        self, verb: str, url: str, params: dict[str, Any] | None, body: Any
    ) -> tuple[dict[str, Any], Any]:
        """One HTTP request; (lower-case headers, decoded JSON) of a success status."""
        target = self._target(url)
        if params:
            target += ("&" if "?" in target else "?") + urllib.parse.urlencode(params)
        headers = dict(self._headers)
        payload: bytes | None = None
        if body is not None:
            import json

            payload = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if verb in _WRITES:
            self._throttle()
        for _hop in range(MAX_REDIRECTS + 1):
            status, answer, raw = self._checked_exchange(verb, target, payload, headers)
            location = answer.get("location")
            if status not in _REDIRECTS or verb != "GET" or not location:
                break
            # A renamed repository answers 301; follow it on this origin only (the token
            # must not travel anywhere else).
            target = self._target(urllib.parse.urljoin(self._url(target), location))
        data = decode_body(raw)
        if status >= 400 or status in _REDIRECTS:
            raise HTTPFailure(status, answer, data)
        return answer, data

    def locate(self, url: str) -> str:
        """The ``Location`` a GET of ``url`` redirects to, without following it: a download's
        signed storage URL, usually on another origin, where the token must not go."""
        target = self._target(url)
        status, answer, raw = self._checked_exchange("GET", target, None, dict(self._headers))
        location = answer.get("location")
        if status not in _REDIRECTS or not location:
            raise HTTPFailure(status if status >= 400 else 502, answer, decode_body(raw))
        return urllib.parse.urljoin(self._url(target), location)

    def fetch_unauthenticated(self, url: str) -> bytes:
        """GET ``url`` with no token and no GitHub headers (a signed storage URL)."""
        import urllib.error
        import urllib.request

        split = urllib.parse.urlsplit(url)
        if split.scheme not in ("http", "https"):
            raise ConnectionFailure(
                timed_out=False, kind=f"unsupported URL scheme {split.scheme!r}"
            )
        request = urllib.request.Request(url, headers={"User-Agent": self._headers["User-Agent"]})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                data: bytes = response.read()
                return data
        except urllib.error.HTTPError as exc:
            raise HTTPFailure(exc.code, dict(exc.headers or {}), None) from None
        except TimeoutError:
            raise ConnectionFailure(timed_out=True, kind="TimeoutError") from None
        except (OSError, urllib.error.URLError) as exc:
            raise ConnectionFailure(timed_out=False, kind=type(exc).__name__) from None

    def _url(self, target: str) -> str:
        return f"{self._scheme}://{self._host}:{self._port}{target}"

    def _target(self, url: str) -> str:
        """The request target (path and query) of ``url``: a path under the base, or an
        absolute URL that must be on the base's origin and under its path."""
        if url.startswith("/"):
            return self._prefix + url
        split = urllib.parse.urlsplit(url)
        port = split.port or (443 if split.scheme == "https" else 80)
        same = (split.scheme, split.hostname, port) == (self._scheme, self._host, self._port)
        inside = (split.path + "/").startswith(self._prefix + "/")
        if not same or not (inside or split.path == self.graphql_path):
            raise GitHubError(
                f"refusing to send the GitHub token to {split.scheme}://{split.netloc}"
                f"{split.path}: it is outside {self._url(self._prefix)}"
            )
        return split.path + (f"?{split.query}" if split.query else "")

    def _throttle(self) -> None:
        now = time.monotonic()
        if self._last_write is not None and self.write_interval > 0:
            wait = self._last_write + self.write_interval - now
            if wait > 0:
                time.sleep(wait)
                now = time.monotonic()
        self._last_write = now

    def _checked_exchange(
        self, verb: str, target: str, payload: bytes | None, headers: dict[str, str]
    ) -> tuple[int, dict[str, str], bytes]:
        """One exchange; a failure without an answer becomes ConnectionFailure."""
        try:
            return self._exchange(verb, target, payload, headers)
        except TimeoutError:
            self.close()
            raise ConnectionFailure(timed_out=True, kind="TimeoutError") from None
        except (OSError, HTTPException) as exc:
            self.close()
            raise ConnectionFailure(timed_out=False, kind=type(exc).__name__) from None

    def _exchange(
        self, verb: str, target: str, payload: bytes | None, headers: dict[str, str]
    ) -> tuple[int, dict[str, str], bytes]:
        request = _request_bytes(verb, target, self._host_header(), headers, payload)
        reused = self._conn is not None
        try:
            status, answer, raw, will_close = self._round_trip(verb, request)
        except (RemoteDisconnected, BrokenPipeError, ConnectionResetError):
            # A kept-alive connection the server closed as the request went out: nothing was
            # answered. A read is safe to send again, once, on a new connection (RFC 9110
            # 9.2.2); a write goes up to the transport, which knows how it may be repeated.
            self.close()
            if not (reused and verb == "GET"):
                raise
            status, answer, raw, will_close = self._round_trip(verb, request)
        if will_close:
            self.close()
        return status, answer, raw

    def _round_trip(self, verb: str, request: bytes) -> tuple[int, dict[str, str], bytes, bool]:
        conn = self._connection()
        conn.sock.settimeout(self.timeout)
        conn.sock.sendall(request)
        # A reader per answer, as http.client has: bytes a server sent past the end of one
        # answer (an interim answer's tail, a body longer than its Content-Length) are dropped
        # with it, never read as the answer to the next request.
        reader = conn.sock.makefile("rb")
        try:
            return _read_response(reader, verb)
        finally:
            reader.close()

    def _host_header(self) -> str:
        """The Host header as http.client writes it: IPv6 in brackets, a default port left out."""
        host = self._host
        try:
            host.encode("ascii")
        except UnicodeEncodeError:
            host = host.encode("idna").decode("ascii")
        if ":" in host:
            host = f"[{host}]"
        default = 443 if self._scheme == "https" else 80
        return host if self._port == default else f"{host}:{self._port}"

    # -- the connection -------------------------------------------------------------------------

    def _connection(self) -> _Connection:
        if self._conn is not None and _dropped(self._conn):
            self.close()  # the server closed the idle keep-alive connection
        if self._conn is None:
            self._conn = self._open()
        return self._conn

    def _open(self) -> _Connection:
        import socket

        proxy = _proxy_for(self._scheme, self._host)
        if proxy is None:
            sock = socket.create_connection(_address(self._host, self._port), self.timeout)
        else:
            # Through a proxy the requests go in a CONNECT tunnel (a plain-HTTP API too, so the
            # request line stays a path).
            sock = socket.create_connection(
                _address(proxy.hostname or "", proxy.port or 80), self.timeout
            )
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if proxy is not None:
                _tunnel(sock, self._host, self._port, _proxy_auth(proxy))
            if self._scheme == "https":
                sock = _tls_context().wrap_socket(sock, server_hostname=self._host)
        except BaseException:
            sock.close()
            raise
        return _Connection(sock)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


class _Connection:
    """An open socket to the API origin."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    def close(self) -> None:
        self.sock.close()


def _address(host: str, port: int) -> tuple[str, int]:
    # An ASCII name goes to getaddrinfo as bytes (which it accepts, though typeshed says str):
    # given text, it loads the IDNA codec (1-2 ms) only to encode ASCII.
    try:
        return host.encode("ascii"), port  # type: ignore[return-value]
    except UnicodeEncodeError:
        return host, port


def _request_bytes(
    verb: str, target: str, host: str, headers: Mapping[str, str], payload: bytes | None
) -> bytes:
    """The request as http.client frames it: request line, Host, Accept-Encoding: identity,
    the headers, Content-Length for a body (0 for a write without one), then the body."""
    if any(ch <= " " or ch == "\x7f" for ch in target):
        raise InvalidURL(f"URL can't contain control characters: {target!r}")
    lines = [f"{verb} {target} HTTP/1.1", f"Host: {host}", "Accept-Encoding: identity"]
    for name, value in headers.items():
        if "\r" in value or "\n" in value:
            raise ValueError(f"Invalid header value {value!r}")
        lines.append(f"{name}: {value}")
    if payload is not None:
        lines.append(f"Content-Length: {len(payload)}")
    elif verb in ("POST", "PUT", "PATCH"):
        lines.append("Content-Length: 0")
    head = "\r\n".join(lines[1:]) + "\r\n\r\n"
    # as http.client: the request line is ASCII (else UnicodeEncodeError), headers Latin-1
    return lines[0].encode("ascii") + b"\r\n" + head.encode("latin-1") + (payload or b"")


def _read_line(reader: Any, what: str) -> bytes:
    line: bytes = reader.readline(_MAX_LINE + 1)
    if len(line) > _MAX_LINE:
        raise LineTooLong(what)
    return line


def _read_headers(reader: Any) -> dict[str, str]:
    """Header lines up to the blank one: lower-case names; a repeated header (two Link lines,
    say) reads as one, joined as HTTP allows; a folded line continues the one before."""
    headers: dict[str, str] = {}
    last: str | None = None
    for _ in range(_MAX_HEADERS + 1):
        line = _read_line(reader, "header line")
        if line in (b"\r\n", b"\n", b""):
            return headers
        text = line.decode("iso-8859-1").rstrip("\r\n")
        if text[:1] in (" ", "\t"):
            if last is not None:
                headers[last] = f"{headers[last]} {text.strip()}"
            continue
        name, colon, value = text.partition(":")
        if not colon:
            continue  # not a header; http.client's parser skips it too
        key = name.strip().lower()
        value = value.strip()
        headers[key] = f"{headers[key]}, {value}" if key in headers else value
        last = key
    raise HTTPException(f"got more than {_MAX_HEADERS} headers")


def _read_status(reader: Any) -> tuple[int, int]:
    """(HTTP version as 10 or 11, status) of the status line."""
    line = _read_line(reader, "status line")
    if not line:
        raise RemoteDisconnected("Remote end closed connection without response")
    text = line.decode("iso-8859-1")
    version, _, rest = text.partition(" ")
    code = rest.partition(" ")[0].strip()
    if not version.startswith("HTTP/"):
        raise BadStatusLine(text.strip())
    if not (len(code) == 3 and code.isdigit() and 100 <= int(code) <= 999):
        raise BadStatusLine(text.strip())
    if version in ("HTTP/1.0", "HTTP/0.9"):
        return 10, int(code)
    if version.startswith("HTTP/1."):
        return 11, int(code)
    raise UnknownProtocol(version)


def _read_response(reader: Any, verb: str) -> tuple[int, dict[str, str], bytes, bool]:
    """(status, headers, body, whether the connection ends) of the next answer on ``reader``.

    Interim answers (1xx but ``101 Switching Protocols``, which the tool never asks for) are
    skipped; the body is framed by chunked transfer encoding, else ``Content-Length``, else
    the end of the connection."""
    while True:
        version, status = _read_status(reader)
        headers = _read_headers(reader)
        if not (100 <= status < 200 and status != 101):
            break
    connection = headers.get("connection", "").lower()
    if version == 11:
        will_close = "close" in connection
    else:
        will_close = not (
            "keep-alive" in headers
            or "keep-alive" in connection
            or "keep-alive" in headers.get("proxy-connection", "").lower()
        )
    if verb == "HEAD" or status in (204, 304) or 100 <= status < 200:
        return status, headers, b"", will_close
    if "chunked" in headers.get("transfer-encoding", "").lower():
        return status, headers, _read_chunked(reader), will_close
    length: int | None = None
    if "content-length" in headers:
        # A repeated header arrives joined ("2, 2"): the same value repeated is that value
        # (RFC 9110 8.6); different values frame the body no one way, so the answer is refused.
        values = {v.strip() for v in headers["content-length"].split(",")}
        if len(values) > 1:
            raise HTTPException(f"conflicting Content-Length values {headers['content-length']!r}")
        try:
            length = int(values.pop())
        except ValueError:
            length = None
    if length is None or length < 0:
        return status, headers, reader.read(), True  # the body ends with the connection
    body: bytes = reader.read(length)
    if len(body) < length:
        raise IncompleteRead(f"{len(body)} bytes read, {length - len(body)} more expected")
    return status, headers, body, will_close


def _read_chunked(reader: Any) -> bytes:
    parts: list[bytes] = []
    while True:
        line = _read_line(reader, "chunk size")
        try:
            size = int(line.split(b";", 1)[0].strip(), 16)
        except ValueError:
            raise IncompleteRead(f"bad chunk size {line[:40]!r}") from None
        if size < 0:
            raise IncompleteRead(f"bad chunk size {line[:40]!r}")
        if size == 0:
            break
        chunk: bytes = reader.read(size)
        if len(chunk) < size:
            raise IncompleteRead(f"{len(chunk)} bytes of a {size}-byte chunk")
        parts.append(chunk)
        reader.read(2)  # the CRLF after the chunk
    for _ in range(_MAX_HEADERS + 1):  # trailers, up to the blank line (or the end)
        if _read_line(reader, "trailer line") in (b"\r\n", b"\n", b""):
            return b"".join(parts)
    raise HTTPException(f"got more than {_MAX_HEADERS} trailers")


def _tunnel(sock: socket.socket, host: str, port: int, headers: Mapping[str, str]) -> None:
    """Ask the proxy on ``sock`` for a tunnel to ``host:port`` (CONNECT, as http.client does)."""
    where = f"[{host}]" if ":" in host else host
    lines = [f"CONNECT {where}:{port} HTTP/1.0", *(f"{k}: {v}" for k, v in headers.items())]
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
    reader = sock.makefile("rb")
    try:
        line = _read_line(reader, "status line").decode("iso-8859-1")
        _read_headers(reader)
    finally:
        reader.close()  # the socket stays open: the tunnel runs on it
    parts = line.split(None, 2)
    if len(parts) < 2 or parts[1] != "200":
        raise OSError(f"Tunnel connection failed: {line.strip()}")


def _dropped(conn: _Connection) -> bool:
    """True when an idle connection's socket is readable: the peer closed it (or sent junk)."""
    import select

    try:
        readable, _, _ = select.select([conn.sock], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


def _tls_context() -> ssl.SSLContext:
    import ssl

    # The system's trust store (SSL_CERT_FILE/SSL_CERT_DIR honoured by OpenSSL); a bundle
    # named for requests-based tools is honoured too, so an existing setup keeps working.
    context = ssl.create_default_context()
    bundle = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE")
    if bundle:
        context.load_verify_locations(cafile=bundle)
    return context


def _proxy_for(scheme: str, host: str) -> urllib.parse.SplitResult | None:
    """The proxy the environment names for ``scheme://host``, honouring NO_PROXY."""
    if not any(name in os.environ or name.upper() in os.environ for name in _PROXY_VARIABLES):
        return None  # the common case: no proxy, and no import of urllib.request
    import urllib.request

    proxies = urllib.request.getproxies()
    url = proxies.get(scheme) or proxies.get("all")
    if not url or urllib.request.proxy_bypass(host):
        return None
    return urllib.parse.urlsplit(url if "://" in url else f"http://{url}")


def _proxy_auth(proxy: urllib.parse.SplitResult) -> dict[str, str]:
    if not proxy.username:
        return {}
    import base64

    user = urllib.parse.unquote(proxy.username)
    password = urllib.parse.unquote(proxy.password or "")
    token = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
    return {"Proxy-Authorization": f"Basic {token}"}


def open_session(*, base_url: str, token: str, timeout: float, write_interval: float) -> Session:
    """A session on ``base_url`` authenticated with ``token``; it connects on first use."""
    return Session(base_url=base_url, token=token, timeout=timeout, write_interval=write_interval)
