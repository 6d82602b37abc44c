"""The GitHub transport: retries, rate limits and pagination over one HTTP session.

Every request the adapter makes goes through :class:`Transport`, which turns every failure into
:class:`~changelog_tools.errors.GitHubError` (exit 3) with a one-line reason and never shows
the token. It retries itself rather than leaving that to an HTTP library, because the usual library
defaults (PyGithub's, which this tool once used) do not fit a CI gate that must fail closed and explain itself: they retry POSTs
blindly (a lost response duplicates a comment), never retry PATCH, never back off between 5xx
attempts, do not retry a 429 without ``Retry-After``, raise a ``requests`` ``RetryError``
instead of a GitHub exception when they give up, and wait out a primary rate limit for as long
as it takes. Doing it here keeps every rule explicit, bounded by configuration and testable
with an injected clock; list pages are retried one at a time, so request counts are
predictable.
"""

from __future__ import annotations

import enum
import re
import time
import urllib.parse
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from changelog_tools.errors import GitHubError
from changelog_tools.github.client import ConnectionFailure, HTTPFailure
from changelog_tools.github.records import Malformed
from changelog_tools.record import Record

if TYPE_CHECKING:
    from changelog_tools.config import Config
    from changelog_tools.github.client import Session

DEFAULT_PAGE_SIZE = 100  # GitHub's maximum; fewer pages means fewer requests
_LINK_RE = re.compile(r'<([^>]*)>\s*;\s*rel="([^"]*)"')
# Pause after a secondary rate limit that names no time (GitHub asks for "at least a minute").
SECONDARY_RATE_LIMIT_WAIT = 60.0
# However short the waits a server asks for, stop after this many rate-limit answers in a row.
MAX_RATE_LIMIT_RETRIES = 6
# Pages one list may take (100 items each): far beyond any list the tool reads (a PR lists at
# most 250 commits), so only a server that never stops paginating reaches it.
MAX_PAGES = 1000


# ----------------------------------------------------------------------------------------------
# errors


class GitHubStatusError(GitHubError):
    """GitHub answered with an HTTP error status that retrying cannot fix."""

    def __init__(self, message: str, *, status: int, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.status = status


class NotFoundError(GitHubStatusError):
    """404: the object does not exist (or the token may not see it)."""


class MergeRejectedError(GitHubStatusError):
    """GitHub refused the merge (405 not mergeable, 409 head moved, 422 invalid)."""


class AmbiguousWriteError(GitHubError):
    """A write failed in a way that leaves unknown whether GitHub applied it."""


# ----------------------------------------------------------------------------------------------
# retry policy


class RetryPolicy(Record):
    """How hard the adapter tries before it gives up with exit 3."""

    retries: int = 4  # extra attempts after a 5xx, a connection error or a timeout
    backoff: float = 1.0  # first pause in seconds; doubles with every attempt
    max_backoff: float = 30.0
    rate_limit_wait: float = 300.0  # total seconds this process may spend waiting out rate limits
    timeout: int = 30  # seconds per connect and per read of one HTTP request
    write_interval: float = 1.0  # the pause between two writes (GitHub's advice)

    @classmethod
    def from_config(cls, config: Config) -> RetryPolicy:
        return cls(
            retries=config.github_retries,
            backoff=float(config.github_retry_backoff),
            rate_limit_wait=float(config.github_rate_limit_wait),
            timeout=int(config.github_timeout),
            write_interval=float(config.github_write_interval),
        )

    def pause(self, attempt: int) -> float:
        """Seconds to wait before retry number ``attempt`` (1-based)."""
        return float(min(self.backoff * 2 ** (attempt - 1), self.max_backoff))


class Mode(enum.Enum):
    """How a request may be repeated."""

    READ = "read"  # safe to repeat
    IDEMPOTENT = "idempotent"  # a write whose repetition changes nothing (PATCH body, status)
    ONCE = "once"  # a write that must not be repeated blindly (POST comment, PUT merge)


class _RateLimit(Record):
    """The wait a rate-limit answer asks for, and what said so."""

    wait: float
    what: str


# ----------------------------------------------------------------------------------------------
# the transport


class Transport:
    """Requests to one API base URL, retried as each request's :class:`Mode` allows."""

    def __init__(
        self,
        *,
        session: Session,
        base_url: str,
        policy: RetryPolicy,
        secret: str = "",
        page_size: int = DEFAULT_PAGE_SIZE,
        max_pages: int = MAX_PAGES,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.session = session
        self.max_pages = max_pages
        self.base_url = base_url
        self.policy = policy
        self._secret = secret
        self.page_size = page_size
        self._sleep = sleep
        self._clock = clock
        self._log = log
        self.requests = 0  # HTTP requests sent, retries included
        self.rate_limit_waited = 0.0
        split = urllib.parse.urlsplit(base_url)
        self._origin = (split.scheme, split.hostname, split.port, split.path.rstrip("/"))

    def __repr__(self) -> str:  # never shows the token
        return f"Transport(base_url={self.base_url!r})"

    def say(self, message: str) -> None:
        """Progress for the user (token redacted), when a log was given."""
        if self._log is not None:
            self._log(self._redact(message))

    def _redact(self, text: str) -> str:
        return text.replace(self._secret, "***") if self._secret else text

    def fail(
        self, cls: type[GitHubError], message: str, hint: str | None = None, **kw: Any
    ) -> GitHubError:
        """The error to raise, with the token redacted from its message."""
        return cls(self._redact(message), hint=hint, **kw)

    def _send(
        self, verb: str, url: str, params: dict[str, Any] | None, body: Any
    ) -> tuple[dict[str, Any], Any]:
        self.requests += 1
        return self.session.send(verb, url, params, body)

    def _rate_limit(
        self, status: int, headers: Mapping[str, Any], message: str
    ) -> _RateLimit | None:
        """The wait a rate-limit answer asks for, or None when the answer is not one.

        GitHub's documented order: ``Retry-After`` if present; else, when
        ``X-RateLimit-Remaining`` is 0, until ``X-RateLimit-Reset``; else at least a minute.
        """
        if status not in (403, 429):
            return None
        lower = message.lower()
        remaining = str(headers.get("x-ratelimit-remaining", ""))
        retry_after = headers.get("retry-after")
        limited = (
            status == 429
            or retry_after is not None
            or remaining == "0"
            or lower.startswith("api rate limit exceeded")
            or "secondary rate limit" in lower
            or lower.endswith("please wait a few minutes before you try again.")
            or lower.endswith("please retry your request again later.")
        )
        if not limited:
            return None  # a plain permission problem
        if retry_after is not None:
            try:
                return _RateLimit(max(0.0, float(retry_after)), f"Retry-After: {retry_after}")
            except ValueError:
                pass
        if remaining == "0":
            try:
                reset = float(headers.get("x-ratelimit-reset", ""))
            except ValueError:
                reset = None
            if reset is not None:
                return _RateLimit(max(0.0, reset - self._clock()) + 1.0, "primary rate limit")
        return _RateLimit(SECONDARY_RATE_LIMIT_WAIT, "secondary rate limit")

    def request(
        self,
        verb: str,
        url: str,
        *,
        params: dict[str, Any] | None = None,
        body: Any = None,
        mode: Mode = Mode.READ,
    ) -> tuple[dict[str, Any], Any]:
        """Send one request, retrying as ``mode`` allows; return (lower-case headers, JSON)."""
        shown = self.show(url)
        attempt = 0
        limited = 0
        while True:
            try:
                return self._send(verb, url, params, body)
            except HTTPFailure as exc:
                status = exc.status
                data = exc.data if isinstance(exc.data, dict) else {}
                message = str(data.get("message") or "").strip()
                limit = self._rate_limit(status, exc.headers, message)
                detail = f"HTTP {status}" + (f" ({message})" if message else "")
                if limit is not None:
                    limited += 1
                    self._wait_for_rate_limit(verb, shown, limit, limited, detail)
                    continue
                if status >= 500:
                    if mode is Mode.ONCE:
                        raise self.fail(
                            AmbiguousWriteError,
                            f"GitHub API {verb} {shown} failed: {detail}; the write may or may "
                            "not have been applied",
                        ) from None
                    attempt += 1
                    if attempt <= self.policy.retries:
                        self.back_off(verb, shown, detail, attempt)
                        continue
                    raise self.fail(
                        GitHubStatusError,
                        f"GitHub API {verb} {shown} failed after {_attempts(attempt)}: {detail}",
                        status=status,
                    ) from None
                cls: type[GitHubStatusError] = NotFoundError if status == 404 else GitHubStatusError
                hint = None
                if status == 401:
                    hint = "check that GH_TOKEN or GITHUB_TOKEN holds a valid token"
                elif status == 403:
                    hint = "the token may lack a permission this step needs"
                raise self.fail(
                    cls, f"GitHub API {verb} {shown} failed: {detail}", hint, status=status
                ) from None
            except ConnectionFailure as exc:
                kind = "timed out" if exc.timed_out else f"could not connect ({exc.kind})"
                if mode is Mode.ONCE:
                    raise self.fail(
                        AmbiguousWriteError,
                        f"GitHub API {verb} {shown} {kind}; the write may or may not have been "
                        "applied",
                    ) from None
                attempt += 1
                if attempt <= self.policy.retries:
                    self.back_off(verb, shown, kind, attempt)
                    continue
                raise self.fail(
                    GitHubError, f"GitHub API {verb} {shown} {kind} after {_attempts(attempt)}"
                ) from None
            except ValueError as exc:  # a body that claims to be JSON but is not
                raise self.fail(
                    GitHubError, f"GitHub API {verb} {shown} returned invalid JSON: {exc}"
                ) from None

    def back_off(self, verb: str, shown: str, detail: str, attempt: int) -> None:
        pause = self.policy.pause(attempt)
        self.say(
            f"GitHub API {verb} {shown}: {detail}; retry {attempt}/{self.policy.retries} "
            f"in {pause:g}s"
        )
        self._sleep(pause)

    def _wait_for_rate_limit(
        self, verb: str, shown: str, limit: _RateLimit, count: int, detail: str
    ) -> None:
        budget = self.policy.rate_limit_wait - self.rate_limit_waited
        if count > MAX_RATE_LIMIT_RETRIES or limit.wait > budget:
            why = (
                f"still rate limited after {count - 1} waits"
                if count > MAX_RATE_LIMIT_RETRIES
                else f"{limit.what} asks for a {limit.wait:.0f}s wait but only {budget:.0f}s of "
                f"the {self.policy.rate_limit_wait:.0f}s budget is left"
            )
            raise self.fail(
                GitHubError,
                f"GitHub API {verb} {shown} is rate limited ({detail}): {why}",
                hint="retry later, or raise `github-rate-limit-wait` in the configuration",
            )
        self.say(f"GitHub API {verb} {shown}: rate limited ({limit.what}); waiting {limit.wait:g}s")
        self.rate_limit_waited += limit.wait
        self._sleep(limit.wait)

    def show(self, url: str) -> str:
        """The request path for messages: relative to the API base, query kept."""
        split = urllib.parse.urlsplit(url)
        path = split.path
        if split.scheme and path.startswith(self._origin[3]):
            path = path[len(self._origin[3]) :]
        return path + (f"?{split.query}" if split.query else "")

    def _check_next(self, url: str) -> str:
        split = urllib.parse.urlsplit(url)
        origin = (split.scheme, split.hostname, split.port, self._origin[3])
        if origin != self._origin or not split.path.startswith(self._origin[3] + "/"):
            raise self.fail(
                GitHubError,
                f"GitHub returned a next-page URL outside {self.base_url}: {url}",
            )
        return url

    def pages(self, path: str, params: dict[str, Any] | None = None) -> Iterator[Any]:
        """Yield the JSON of every page, following ``Link: rel="next"`` only as far as consumed.

        A next link back to a page already read (a server bug or a hostile proxy) and a list
        longer than ``max_pages`` end the walk with GitHubError instead of a loop forever.
        """
        query = {"per_page": self.page_size, **(params or {})}
        seen = {_page_key(path, query)}
        headers, data = self.request("GET", path, params=query)
        while True:
            yield data
            following = next_link(str(headers.get("link") or ""))
            if following is None:
                return
            following = self._check_next(following)
            key = _page_key(self.show(following), None)
            if key in seen:
                raise self.fail(
                    GitHubError,
                    f"GitHub API GET {self.show(path)}: the next-page link points back at a page "
                    f"already read ({self.show(following)}); stopped instead of looping",
                )
            if len(seen) >= self.max_pages:
                raise self.fail(
                    GitHubError,
                    f"GitHub API GET {self.show(path)}: the list goes on past {self.max_pages} "
                    "pages; stopped",
                )
            seen.add(key)
            headers, data = self.request("GET", following)

    def page_list(self, data: Any, key: str | None, path: str) -> list[Any]:
        items = data if key is None else (data.get(key) if isinstance(data, dict) else None)
        if not isinstance(items, list):
            what = "no list" if key is None else f"no `{key}` list"
            raise self.fail(GitHubError, f"GitHub API GET {self.show(path)} returned {what}")
        return items

    def items(
        self, path: str, params: dict[str, Any] | None = None, *, key: str | None = None
    ) -> Iterator[Any]:
        for data in self.pages(path, params):
            yield from self.page_list(data, key, path)

    def parse(self, parser: Callable[[Any], Any], data: Any, what: str) -> Any:
        try:
            return parser(data)
        except Malformed as exc:
            raise self.fail(GitHubError, f"unexpected GitHub answer for {what}: {exc}") from None

    def parse_all(
        self,
        parser: Callable[[Any], Any],
        path: str,
        params: dict[str, Any] | None = None,
        *,
        key: str | None = None,
    ) -> tuple[Any, ...]:
        return tuple(self.parse(parser, item, path) for item in self.items(path, params, key=key))


def _page_key(url: str, params: Mapping[str, Any] | None) -> tuple[str, frozenset[tuple[str, str]]]:
    """What identifies a page: its path and query, order-free, with GitHub's default page=1."""
    split = urllib.parse.urlsplit(url)
    query = dict(urllib.parse.parse_qsl(split.query, keep_blank_values=True))
    query.update({k: str(v) for k, v in (params or {}).items()})
    query.setdefault("page", "1")
    return split.path, frozenset(query.items())


def _attempts(count: int) -> str:
    return f"{count} attempt{'s' * (count != 1)}"


def next_link(header: str) -> str | None:
    """The ``rel="next"`` URL of a ``Link`` header, or None."""
    for url, rel in _LINK_RE.findall(header):
        if rel == "next":
            return str(url)
    return None
