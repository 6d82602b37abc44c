"""One HTTP exchange with a total deadline and a body limit, under PyGithub and the downloads.

requests and urllib3 bound each connect and each socket read, never an exchange as a whole:
a server that drips its headers one line a second, or answers ``100 Continue`` for ever, keeps
every read short and holds the tool without end; and requests reads a body whole, however
large, before PyGithub sees it. Neither library offers a total deadline or a size limit, so
this module adds the two things they lack and nothing else:

- :class:`Watchdog`: a timer armed around one exchange (request, headers and body). The
  connections urllib3 uses in this thread register with it when they send; when the deadline
  passes it shuts their sockets down, which ends whatever read is blocked, and the exchange
  fails as timed out. Shutting the socket is the only way to interrupt a blocking read from
  outside it; a read timeout cannot, since each drip resets it.
- :func:`read_body`: the body read in chunks (after any ``Content-Encoding`` is undone) and cut
  at a limit; a declared ``Content-Length`` over the limit is refused before reading.
- :class:`BoundedHTTPConnection` / :class:`BoundedHTTPSConnection`: PyGithub's own connection
  classes (it lets a requester choose them) with both bounds, and GitHub's "202, ask again"
  answered through the adapter's retry policy instead of PyGithub's fixed, uncounted sleep.

Proxies: the socket a proxy connection uses is urllib3's too, so HTTP(S) proxies are covered;
a SOCKS proxy keeps only urllib3's per-read timeouts.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import socket
import threading
import time
from typing import TYPE_CHECKING, Any

import requests
import requests.adapters
from github.Requester import (
    HTTPRequestsConnectionClass,
    HTTPSRequestsConnectionClass,
    RequestsResponse,
)
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

from changelog_tools.github.failures import GaveUp

if TYPE_CHECKING:
    from changelog_tools.github.traffic import Traffic

# The largest answer the API is read to: GitHub's largest JSON pages are a few MiB (a list of
# 100 pull requests with their bodies); a body past this is no answer the tool can use.
MAX_ANSWER = 32 * 1024 * 1024
_CHUNK = 64 * 1024

_current = threading.local()


class AnswerTooLarge(Exception):
    """The body is larger than the limit (declared or counted); the message says which."""


class DeadlineExceeded(Exception):
    """The exchange did not complete within its total deadline."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"no complete answer within {seconds:g}s")
        self.seconds = seconds


class Watchdog:
    """A deadline for one exchange: on expiry, the sockets used for it are shut down."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds
        self.fired = False
        self.done = False
        self._connections: list[HTTPConnection] = []
        self._lock = threading.Lock()

    def __enter__(self) -> Watchdog:
        self._outer = getattr(_current, "watchdog", None)
        _current.watchdog = self
        _CLOCK.arm(self)
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self.done = True
        _current.watchdog = self._outer

    def track(self, connection: HTTPConnection) -> None:
        with self._lock:
            if self.fired:
                _shut(connection)
            else:
                self._connections.append(connection)

    def fire(self) -> None:
        with self._lock:
            if self.done:
                return
            self.fired = True
            for connection in self._connections:
                _shut(connection)


class _Clock:
    """One thread for every deadline of the process (a thread per exchange cost more than the
    exchange itself against a local server); it lingers a moment after the last one, so a run
    of requests shares it, then ends."""

    LINGER = 2.0

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int, Watchdog]] = []
        self._order = itertools.count()
        self._running = False

    def arm(self, watchdog: Watchdog) -> None:
        with self._cond:
            heapq.heappush(self._heap, (watchdog.deadline, next(self._order), watchdog))
            if not self._running:
                self._running = True
                threading.Thread(target=self._run, name="changelog-tools-deadlines",
                                 daemon=True).start()  # fmt: skip
            self._cond.notify()

    def _run(self) -> None:
        with self._cond:
            idle_since: float | None = None
            while True:
                while self._heap and self._heap[0][2].done:
                    heapq.heappop(self._heap)
                now = time.monotonic()
                if not self._heap:
                    idle_since = idle_since or now
                    if now - idle_since >= self.LINGER:
                        self._running = False
                        return
                    self._cond.wait(self.LINGER)
                    continue
                idle_since = None
                deadline, _, watchdog = self._heap[0]
                if now < deadline:
                    # wake at the deadline, or sooner to drop finished exchanges
                    self._cond.wait(min(deadline - now, self.LINGER))
                    continue
                heapq.heappop(self._heap)
                watchdog.fire()


_CLOCK = _Clock()


def _shut(connection: HTTPConnection) -> None:
    sock = getattr(connection, "sock", None)
    if sock is None:
        return
    with contextlib.suppress(OSError):  # already closed: nothing left to interrupt
        sock.shutdown(socket.SHUT_RDWR)


def deadline_passed() -> bool:
    """Whether the exchange under way in this thread has run out of time."""
    watchdog = getattr(_current, "watchdog", None)
    return watchdog is not None and watchdog.fired


def _track(connection: HTTPConnection) -> None:
    watchdog = getattr(_current, "watchdog", None)
    if watchdog is not None:
        watchdog.track(connection)


class _TrackedHTTPConnection(HTTPConnection):
    def request(self, *args: Any, **kwargs: Any) -> None:
        _track(self)
        super().request(*args, **kwargs)


class _TrackedHTTPSConnection(HTTPSConnection):
    def request(self, *args: Any, **kwargs: Any) -> None:
        _track(self)
        super().request(*args, **kwargs)


class _TrackedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _TrackedHTTPConnection


class _TrackedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _TrackedHTTPSConnection


_TRACKED_POOLS = {"http": _TrackedHTTPPool, "https": _TrackedHTTPSPool}


class WatchedAdapter(requests.adapters.HTTPAdapter):
    """requests' adapter whose connections report to the exchange's :class:`Watchdog`."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = _TRACKED_POOLS

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> Any:
        # An HTTP(S) proxy gets a pool manager of its own (HTTPS_PROXY in CI): its connections
        # must report to the watchdog too. A SOCKS proxy's manager brings its own connection
        # classes and keeps only urllib3's per-read timeouts.
        manager = super().proxy_manager_for(proxy, **proxy_kwargs)
        if not proxy.lower().startswith("socks"):
            manager.pool_classes_by_scheme = _TRACKED_POOLS
        return manager


def read_body(response: requests.Response, limit: int, what: str) -> bytes:
    """The whole body of a streamed ``response``, at most ``limit`` bytes once decoded."""
    declared = str(response.headers.get("Content-Length", "")).strip()
    if declared.isdigit() and int(declared) > limit:
        raise AnswerTooLarge(f"{what} declares {declared} bytes, more than the {limit} allowed")
    body = bytearray()
    for chunk in response.iter_content(_CHUNK):
        body += chunk
        if len(body) > limit:
            raise AnswerTooLarge(
                f"{what} holds more than the {limit} bytes allowed; stopped reading"
            )
    return bytes(body)


def exchange_deadline(timeout: float) -> float:
    """The total seconds one exchange may take: twice the per-read timeout, so an answer that
    arrives steadily but slowly still completes, and one that never completes stops."""
    return 2 * timeout


class _Bounded:
    """What both of PyGithub's connection classes get: the deadline, the limit, the 202 rule.

    PyGithub builds one with ``retry=`` the adapter's :class:`~changelog_tools.github.retry.
    PolicyRetry`, which carries the :class:`Traffic` the 202 retries are counted in.
    """

    session: requests.Session
    adapter: requests.adapters.HTTPAdapter
    retry: Any
    timeout: Any
    verify: Any
    protocol: str
    host: str
    port: int
    verb: str
    url: str
    input: Any
    headers: dict[str, str]

    def _watch(self) -> None:
        # the same pool sizes PyGithub gave its own adapter
        self.adapter = WatchedAdapter(
            max_retries=self.retry,
            pool_connections=self.adapter._pool_connections,
            pool_maxsize=self.adapter._pool_maxsize,
        )
        self.session.mount("http://", self.adapter)
        self.session.mount("https://", self.adapter)

    def getresponse(self) -> RequestsResponse:
        traffic: Traffic | None = getattr(self.retry, "traffic", None)
        while True:
            response = self._exchange()
            if response.status_code != 202 or self.verb not in ("GET", "HEAD") or traffic is None:
                return RequestsResponse(response)
            # GitHub is still computing the answer: ask again as any retry is asked, counted
            # and paused by the policy, instead of PyGithub's fixed sleep repeated without end.
            pause = traffic.next_pause('HTTP 202 ("still computing, ask again")')
            if pause is None:
                raise GaveUp(
                    f'still answered HTTP 202 ("ask again") after {traffic.attempts} attempts'
                )
            traffic.sleep(pause)

    def _exchange(self) -> requests.Response:
        url = f"{self.protocol}://{self.host}:{self.port}{self.url}"
        seconds = exchange_deadline(float(self.timeout))
        with Watchdog(seconds) as watchdog:
            try:
                response = self.session.request(
                    self.verb,
                    url,
                    headers=self.headers,
                    data=self.input,
                    timeout=self.timeout,
                    verify=self.verify,
                    allow_redirects=False,
                    stream=True,
                )
                try:
                    body = read_body(response, MAX_ANSWER, "the answer")
                except BaseException:
                    response.close()  # cut off: this connection is not reused
                    raise
                # read to the end: urllib3 has put the connection back in the pool (closing
                # the response here would close the connection and cost a new one per request)
            except (requests.RequestException, OSError) as exc:
                if watchdog.fired:
                    raise DeadlineExceeded(seconds) from exc
                raise
            # A shut socket can also read as a clean end: headers cut short look complete and a
            # body without a declared length ends there. Whatever arrived is not the answer.
            if watchdog.fired:
                raise DeadlineExceeded(seconds)
        response._content = body
        response._content_consumed = True
        return response


class BoundedHTTPSConnection(_Bounded, HTTPSRequestsConnectionClass):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._watch()


class BoundedHTTPConnection(_Bounded, HTTPRequestsConnectionClass):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._watch()
