"""The retry policy PyGithub's HTTP session applies to every request it sends.

A :class:`github.GithubRetry` whose decisions follow :class:`~changelog_tools.github.policy.
RetryPolicy` rather than urllib3's defaults, because a CI gate must fail closed and explain
itself:

- a primary rate limit waits until ``X-RateLimit-Reset``, a secondary one for ``Retry-After``
  or a minute, a 429 likewise; every wait comes out of one budget for the whole process, and
  one that would overdraw it stops at once instead of sleeping for an hour;
- a 5xx, a timeout or a dropped connection is retried with doubling pauses, but never for a
  write that may have reached GitHub unless repeating it changes nothing (the adapter declares
  which writes those are): a lost answer to a comment post must not post it twice;
- a connection that was never made is retried whatever the request;
- a TLS certificate that fails verification is not retried: waiting does not fix it;
- a 403 that is not a rate limit (a missing permission) is not retried either.

urllib3 calls :meth:`is_retry` with every answer and :meth:`increment` with every failure, so
this is also where requests are counted.
"""

from __future__ import annotations

import json
import socket
import ssl
from typing import TYPE_CHECKING, Any, Self

from github import GithubRetry
from github.Requester import Requester
from urllib3.exceptions import ConnectTimeoutError, MaxRetryError, ProxyError, ResponseError

from changelog_tools.github.exchange import deadline_passed
from changelog_tools.github.policy import SECONDARY_RATE_LIMIT_WAIT
from changelog_tools.github.traffic import RateLimit, Traffic

if TYPE_CHECKING:
    from types import TracebackType

    from urllib3.connectionpool import ConnectionPool
    from urllib3.response import BaseHTTPResponse

_SERVER_ERRORS = list(range(500, 600))


class PolicyRetry(GithubRetry):
    """Retries as the adapter's policy allows; its state lives in the shared :class:`Traffic`."""

    def __init__(self, traffic: Traffic, *, wait: float = 0.0, **kwargs: Any) -> None:
        self.traffic = traffic
        self.wait = wait  # the pause urllib3 asks for, decided when the failure was counted
        kwargs.setdefault("secondary_rate_wait", SECONDARY_RATE_LIMIT_WAIT)
        kwargs.setdefault("status_forcelist", [429, *_SERVER_ERRORS])  # GithubRetry adds 403
        kwargs.setdefault("allowed_methods", None)  # which request may repeat is its Mode's call
        kwargs.setdefault("total", None)  # the counting is ours (Traffic)
        kwargs.setdefault("raise_on_status", False)  # when giving up, hand PyGithub the answer
        super().__init__(**kwargs)

    def new(self, **kw: Any) -> Self:
        kw.setdefault("traffic", self.traffic)
        kw.setdefault("wait", 0.0)
        return super().new(**kw)

    def is_retry(self, method: str, status_code: int, has_retry_after: bool = False) -> bool:
        self.traffic.answered()
        if status_code in (403, 429):
            return True  # increment reads the answer to tell a rate limit from a refusal
        return status_code >= 500 and self.traffic.mode.repeatable

    def increment(
        self,
        method: str | None = None,
        url: str | None = None,
        response: BaseHTTPResponse | None = None,
        error: Exception | None = None,
        _pool: ConnectionPool | None = None,
        _stacktrace: TracebackType | None = None,
    ) -> Self:
        traffic = self.traffic
        if error is not None or response is None:
            failure = error or ConnectionError("no answer")
            traffic.failed(failure)
            # never for a certificate that does not verify, nor for a write that may have
            # reached GitHub and must not be repeated blindly
            # nor once the exchange's total deadline has passed: a new connection would be
            # shut at once (exchange.Watchdog), so a retry could only print noise
            final = (
                certificate_failure(failure)
                or unresolvable(failure)
                or deadline_passed()
                or not (never_sent(failure) or traffic.mode.repeatable)
            )
            pause = None if final else traffic.next_pause(describe_failure(failure))
            if pause is None:
                raise MaxRetryError(_pool, url or "", failure) from failure  # type: ignore[arg-type]
            return self.new(wait=pause)
        status = response.status
        if status in (403, 429):
            data = _answer(response, url or "")
            message = data.get("message") if isinstance(data, dict) else None
            text = str(message or "").strip()
            limit = self._rate_limit(status, response, text)
            if limit is None:  # a refusal: its body is read now, so the answer is raised here
                raise Requester.createException(status, dict(response.headers), data)
            detail = f"HTTP {status}" + (f" ({text})" if text else "")
            return self.new(wait=traffic.admit(limit, detail))
        pause = traffic.next_pause(f"HTTP {status}")
        if pause is None:
            raise MaxRetryError(_pool, url or "", ResponseError(f"HTTP {status}"))  # type: ignore[arg-type]
        return self.new(wait=pause)

    def sleep(self, response: BaseHTTPResponse | None = None) -> None:
        self.traffic.sleep(self.wait)

    def _rate_limit(
        self, status: int, response: BaseHTTPResponse, message: str
    ) -> RateLimit | None:
        """The wait a 403/429 asks for, or None when it is no rate limit.

        GitHub's documented order: ``Retry-After`` if present; else, when
        ``X-RateLimit-Remaining`` is 0, until ``X-RateLimit-Reset``; else at least a minute.
        """
        headers = response.headers
        remaining = str(headers.get("x-ratelimit-remaining", ""))
        retry_after = headers.get("retry-after")
        limited = (
            status == 429
            or retry_after is not None
            or remaining == "0"
            or Requester.isRateLimitError(message)
        )
        if not limited:
            return None
        if retry_after is not None:
            try:
                return RateLimit(max(0.0, float(retry_after)), f"Retry-After: {retry_after}")
            except ValueError:
                pass
        if remaining == "0":
            try:
                reset = float(headers.get("x-ratelimit-reset", ""))
            except ValueError:
                reset = None
            if reset is not None:
                wait = max(0.0, reset - self.traffic.clock()) + 1.0
                return RateLimit(wait, "primary rate limit")
        return RateLimit(float(self.secondary_rate_wait), "secondary rate limit")


def _answer(response: BaseHTTPResponse, url: str) -> Any:
    """The JSON of a refusal's body (read through GithubRetry's own reader), or None."""
    try:
        return json.loads(GithubRetry.get_content(response, url))  # type: ignore[arg-type]
    except (ValueError, RecursionError, OSError):
        return None
    except Exception as exc:  # requests wraps read failures in its own types
        if _is_requests_error(exc):
            return None
        raise


def _is_requests_error(exc: BaseException) -> bool:
    import requests

    return isinstance(exc, requests.RequestException)


def _causes(error: BaseException) -> list[BaseException]:
    """``error`` and what it wraps (urllib3 and requests wrap in ``reason``, ``args`` and
    ``__cause__``), outermost first."""
    found: list[BaseException] = []
    todo = [error]
    while todo and len(found) < 20:
        item = todo.pop(0)
        if any(item is seen for seen in found):
            continue
        found.append(item)
        nested = [
            getattr(item, "reason", None),
            getattr(item, "original_error", None),
            item.__cause__,
            item.__context__,
            *item.args,
        ]
        todo.extend(n for n in nested if isinstance(n, BaseException))
    return found


def certificate_failure(error: BaseException) -> bool:
    return any(
        isinstance(e, ssl.SSLCertVerificationError) or type(e).__name__ == "CertificateError"
        for e in _causes(error)
    )


def unresolvable(error: BaseException) -> bool:
    """The API's host name does not resolve: a typo in `github-api-url` or no DNS here, which
    waiting out the retries (15 s with the defaults) would not fix."""
    return any(
        isinstance(e, socket.gaierror) or type(e).__name__ == "NameResolutionError"
        for e in _causes(error)
    )


def never_sent(error: BaseException) -> bool:
    """True when the connection was never made, so the request cannot have reached GitHub."""
    if isinstance(error, ProxyError) and error.original_error is not None:
        return never_sent(error.original_error)
    return isinstance(error, ConnectTimeoutError)  # NewConnectionError included


def failure_kind(error: BaseException) -> str:
    """The name of the innermost failure (``ConnectionRefusedError``, ``SSLCertVerificationError``,
    ``IncompleteRead``)."""
    return type(_causes(error)[-1]).__name__


def timed_out(error: BaseException) -> bool:
    return any(isinstance(e, TimeoutError) or "Timeout" in type(e).__name__ for e in _causes(error))


def describe_failure(error: BaseException) -> str:
    """``timed out``, ``could not resolve the host name`` or ``could not connect (KIND)``, as
    messages say it."""
    if timed_out(error):
        return "timed out"
    if unresolvable(error):
        return "could not resolve the host name (not retried)"
    return f"could not connect ({failure_kind(error)})"
