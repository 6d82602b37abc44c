"""The HTTP session under the GitHub transport: one request in, status/headers/JSON out.

A thin client on the standard library's ``http.client``: one keep-alive connection to the API
origin, opened on the first request (a command that decides without asking GitHub never pays
for it). Retries, rate limits, pagination and records live above it, in
:mod:`~changelog_tools.github.transport` and :mod:`~changelog_tools.github.records`; that left
PyGithub (with requests, urllib3, cryptography, jwt and nacl) serving as little more than this
session while its import cost more than a whole `reuse-gate` decision (issue 14, numbers in
``bench/bench_startup.py``).

Trust boundary: the token goes to the configured API origin only. An absolute URL on another
origin (a next-page link or a redirect) is refused before anything is sent, and redirects are
followed for reads only, within that origin.

Failures come out as two plain exceptions so the transport knows no HTTP-library types:
:class:`HTTPFailure` (the server answered with an error status) and :class:`ConnectionFailure`
(no answer: refused, reset, timed out). A body that claims to be JSON but is not raises
``ValueError``.
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
    import http.client
    import ssl

API_VERSION = "2022-11-28"  # the REST API version the records were written against
MAX_REDIRECTS = 5
_REDIRECTS = frozenset({301, 302, 307, 308})
_WRITES = frozenset({"POST", "PATCH", "PUT", "DELETE"})
_PROXY_VARIABLES = ("https_proxy", "http_proxy", "all_proxy")


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
        self._conn: http.client.HTTPConnection | None = None
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
        import http.client

        try:
            return self._exchange(verb, target, payload, headers)
        except TimeoutError:
            self.close()
            raise ConnectionFailure(timed_out=True, kind="TimeoutError") from None
        except (OSError, http.client.HTTPException) as exc:
            self.close()
            raise ConnectionFailure(timed_out=False, kind=type(exc).__name__) from None

    def _exchange(
        self, verb: str, target: str, payload: bytes | None, headers: dict[str, str]
    ) -> tuple[int, dict[str, str], bytes]:
        import http.client

        reused = self._conn is not None
        try:
            response, raw = self._round_trip(verb, target, payload, headers)
        except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
            # A kept-alive connection the server closed as the request went out: nothing was
            # answered. A read is safe to send again, once, on a new connection (RFC 9110
            # 9.2.2); a write goes up to the transport, which knows how it may be repeated.
            self.close()
            if not (reused and verb == "GET"):
                raise
            response, raw = self._round_trip(verb, target, payload, headers)
        answer: dict[str, str] = {}
        for name, value in response.getheaders():
            key = name.lower()
            # repeated headers (two Link lines, say) read as one, joined as HTTP allows
            answer[key] = f"{answer[key]}, {value}" if key in answer else value
        if response.will_close:
            self.close()
        return response.status, answer, raw

    def _round_trip(
        self, verb: str, target: str, payload: bytes | None, headers: dict[str, str]
    ) -> tuple[http.client.HTTPResponse, bytes]:
        conn = self._connection()
        if conn.sock is not None:
            conn.sock.settimeout(self.timeout)
        conn.request(verb, target, body=payload, headers=headers)
        response = conn.getresponse()
        return response, response.read()

    # -- the connection -------------------------------------------------------------------------

    def _connection(self) -> http.client.HTTPConnection:
        if self._conn is not None and _dropped(self._conn):
            self.close()  # the server closed the idle keep-alive connection
        if self._conn is None:
            self._conn = self._open()
        return self._conn

    def _open(self) -> http.client.HTTPConnection:
        import http.client

        proxy = _proxy_for(self._scheme, self._host)
        if self._scheme == "https":
            context = _tls_context()
            if proxy is None:
                return http.client.HTTPSConnection(
                    self._host, self._port, timeout=self.timeout, context=context
                )
            conn: http.client.HTTPConnection = http.client.HTTPSConnection(
                proxy.hostname or "", proxy.port or 80, timeout=self.timeout, context=context
            )
            conn.set_tunnel(self._host, self._port, headers=_proxy_auth(proxy))
            return conn
        if proxy is None:
            return http.client.HTTPConnection(self._host, self._port, timeout=self.timeout)
        # A plain-HTTP API behind a proxy: tunnel too, so the request line stays a path.
        conn = http.client.HTTPConnection(
            proxy.hostname or "", proxy.port or 80, timeout=self.timeout
        )
        conn.set_tunnel(self._host, self._port, headers=_proxy_auth(proxy))
        return conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def _dropped(conn: http.client.HTTPConnection) -> bool:
    """True when an idle connection's socket is readable: the peer closed it (or sent junk)."""
    sock = conn.sock
    if sock is None:
        return False
    import select

    try:
        readable, _, _ = select.select([sock], [], [], 0)
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
