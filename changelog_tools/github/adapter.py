"""The GitHub adapter: every call the tool makes to the GitHub REST API goes through here.

It hands the core plain frozen records (:class:`PullRequest`, :class:`Comment`,
:class:`WorkflowRun`, ...), never PyGithub objects, and turns every failure into
:class:`~changelog_tools.errors.GitHubError` (exit 3) with a one-line reason.

Design: PyGithub supplies the HTTP session, authentication, the base-URL (GitHub Enterprise)
handling, the check that every absolute URL the server hands back stays on that base, and the
write throttle. Its retry machinery is switched off (``retry=None``) and the adapter retries
itself, because PyGithub's defaults do not fit a CI gate that must fail closed and explain
itself: they retry POSTs blindly (a lost response duplicates a comment), never retry PATCH,
never back off between 5xx attempts, do not retry a 429 without ``Retry-After``, raise a
``requests`` ``RetryError`` instead of a GitHub exception when they give up, and wait out a
primary rate limit for as long as it takes. Doing it here keeps every rule explicit, bounded by
configuration and testable with an injected clock. Requests go through the ``Requester`` (the
public escape hatch PyGithub documents) rather than its lazy objects, so each HTTP request is
visible: list pages are retried one at a time and request counts are predictable.
"""

from __future__ import annotations

import contextlib
import enum
import logging
import os
import re
import secrets
import time
import urllib.parse
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from changelog_tools.errors import ConfigError, GitHubError

if TYPE_CHECKING:
    from github.Requester import Requester

    from changelog_tools.config import Config

PUBLIC_API_URL = "https://api.github.com"
DEFAULT_PAGE_SIZE = 100  # GitHub's maximum; fewer pages means fewer requests
_REPO_RE = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
_LINK_RE = re.compile(r'<([^>]*)>\s*;\s*rel="([^"]*)"')
# Pause after a secondary rate limit that names no time (GitHub asks for "at least a minute").
SECONDARY_RATE_LIMIT_WAIT = 60.0
# However short the waits a server asks for, stop after this many rate-limit answers in a row.
MAX_RATE_LIMIT_RETRIES = 6
_EARLIEST = datetime.min.replace(tzinfo=UTC)  # sorts before every (aware) timestamp


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
# records handed to the core


@dataclass(frozen=True)
class PullRequest:
    number: int
    state: str  # "open" or "closed"
    draft: bool
    merged: bool
    merged_at: datetime | None
    merge_commit_sha: str | None
    title: str
    author: str | None
    labels: tuple[str, ...]
    head_ref: str
    head_sha: str
    head_repo: str | None  # None when the fork was deleted
    base_ref: str
    base_sha: str
    base_repo: str | None
    html_url: str | None
    mergeable: bool | None = None
    mergeable_state: str | None = None

    @property
    def is_fork(self) -> bool:
        """True when the head branch lives in another repository (or its fork was deleted)."""
        return self.head_repo != self.base_repo


@dataclass(frozen=True)
class PullCommit:
    sha: str
    message: str
    parents: tuple[str, ...]


@dataclass(frozen=True)
class PullFile:
    filename: str
    status: str
    previous_filename: str | None


@dataclass(frozen=True)
class Comment:
    id: int
    body: str
    author: str | None
    author_association: str
    created_at: datetime | None
    updated_at: datetime | None
    html_url: str | None


@dataclass(frozen=True)
class Review:
    id: int
    author: str | None
    author_association: str
    state: str
    body: str
    commit_id: str | None
    submitted_at: datetime | None


@dataclass(frozen=True)
class ReviewComment:
    id: int
    author: str | None
    author_association: str
    body: str
    path: str | None
    line: int | None
    commit_id: str | None
    review_id: int | None


@dataclass(frozen=True)
class Workflow:
    id: int
    name: str
    path: str
    state: str


@dataclass(frozen=True)
class WorkflowRun:
    id: int
    name: str | None
    event: str
    status: str | None
    conclusion: str | None
    head_sha: str | None
    head_branch: str | None
    path: str | None
    run_attempt: int
    run_number: int | None
    html_url: str | None
    created_at: datetime | None
    workflow_id: int | None


@dataclass(frozen=True)
class Artifact:
    id: int
    name: str
    expired: bool
    size_in_bytes: int | None


@dataclass(frozen=True)
class CheckRun:
    id: int
    name: str
    status: str | None
    conclusion: str | None
    head_sha: str | None
    started_at: datetime | None
    completed_at: datetime | None
    details_url: str | None
    html_url: str | None


@dataclass(frozen=True)
class CommitStatus:
    context: str
    state: str
    description: str | None
    target_url: str | None
    created_at: datetime | None = None


@dataclass(frozen=True)
class CombinedStatus:
    sha: str
    state: str
    statuses: tuple[CommitStatus, ...]


@dataclass(frozen=True)
class MergeResult:
    merged: bool
    sha: str
    message: str


# ----------------------------------------------------------------------------------------------
# parsing JSON into records


class _Malformed(Exception):
    pass


def _get(data: Any, key: str) -> Any:
    if not isinstance(data, dict):
        raise _Malformed(f"expected an object holding '{key}'")
    return data.get(key)


def _req_str(data: Any, key: str) -> str:
    value = _get(data, key)
    if not isinstance(value, str):
        raise _Malformed(f"field '{key}' is missing or not a string")
    return value


def _opt_str(data: Any, key: str) -> str | None:
    value = _get(data, key)
    return value if isinstance(value, str) else None


def _req_int(data: Any, key: str) -> int:
    value = _get(data, key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise _Malformed(f"field '{key}' is missing or not an integer")
    return value


def _opt_int(data: Any, key: str) -> int | None:
    value = _get(data, key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _time(data: Any, key: str) -> datetime | None:
    value = _get(data, key)
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise _Malformed(f"field '{key}' is not a timestamp: {value!r}") from None
    # A server that leaves out the offset means UTC; a naive value would make sorting
    # against aware ones raise TypeError.
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def _login(data: Any, key: str = "user") -> str | None:
    user = _get(data, key)
    return _opt_str(user, "login") if isinstance(user, dict) else None


def _repo_name(part: Any) -> str | None:
    repo = _get(part, "repo")
    return _opt_str(repo, "full_name") if isinstance(repo, dict) else None


def parse_pull(data: Any) -> PullRequest:
    head, base = _get(data, "head"), _get(data, "base")
    labels = _get(data, "labels") or []
    merged_at = _time(data, "merged_at")
    merged = _get(data, "merged")
    mergeable = _get(data, "mergeable")
    return PullRequest(
        number=_req_int(data, "number"),
        state=_req_str(data, "state"),
        draft=bool(_get(data, "draft")),
        # list endpoints omit `merged`; `merged_at` says the same thing
        merged=bool(merged) if isinstance(merged, bool) else merged_at is not None,
        merged_at=merged_at,
        merge_commit_sha=_opt_str(data, "merge_commit_sha"),
        title=_opt_str(data, "title") or "",
        author=_login(data),
        labels=tuple(_req_str(label, "name") for label in labels),
        head_ref=_req_str(head, "ref"),
        head_sha=_req_str(head, "sha"),
        head_repo=_repo_name(head),
        base_ref=_req_str(base, "ref"),
        base_sha=_req_str(base, "sha"),
        base_repo=_repo_name(base),
        html_url=_opt_str(data, "html_url"),
        mergeable=mergeable if isinstance(mergeable, bool) else None,
        mergeable_state=_opt_str(data, "mergeable_state"),
    )


def parse_pull_commit(data: Any) -> PullCommit:
    parents = _get(data, "parents") or []
    return PullCommit(
        sha=_req_str(data, "sha"),
        message=_opt_str(_get(data, "commit"), "message") or "",
        parents=tuple(_req_str(p, "sha") for p in parents),
    )


def parse_pull_file(data: Any) -> PullFile:
    return PullFile(
        filename=_req_str(data, "filename"),
        status=_opt_str(data, "status") or "",
        previous_filename=_opt_str(data, "previous_filename"),
    )


def parse_comment(data: Any) -> Comment:
    return Comment(
        id=_req_int(data, "id"),
        body=_opt_str(data, "body") or "",
        author=_login(data),
        author_association=_opt_str(data, "author_association") or "NONE",
        created_at=_time(data, "created_at"),
        updated_at=_time(data, "updated_at"),
        html_url=_opt_str(data, "html_url"),
    )


def parse_review(data: Any) -> Review:
    return Review(
        id=_req_int(data, "id"),
        author=_login(data),
        author_association=_opt_str(data, "author_association") or "NONE",
        state=_opt_str(data, "state") or "",
        body=_opt_str(data, "body") or "",
        commit_id=_opt_str(data, "commit_id"),
        submitted_at=_time(data, "submitted_at"),
    )


def parse_review_comment(data: Any) -> ReviewComment:
    return ReviewComment(
        id=_req_int(data, "id"),
        author=_login(data),
        author_association=_opt_str(data, "author_association") or "NONE",
        body=_opt_str(data, "body") or "",
        path=_opt_str(data, "path"),
        line=_opt_int(data, "line"),
        commit_id=_opt_str(data, "commit_id"),
        review_id=_opt_int(data, "pull_request_review_id"),
    )


def parse_workflow(data: Any) -> Workflow:
    return Workflow(
        id=_req_int(data, "id"),
        name=_opt_str(data, "name") or "",
        path=_opt_str(data, "path") or "",
        state=_opt_str(data, "state") or "",
    )


def parse_run(data: Any) -> WorkflowRun:
    return WorkflowRun(
        id=_req_int(data, "id"),
        name=_opt_str(data, "name"),
        event=_opt_str(data, "event") or "",
        status=_opt_str(data, "status"),
        conclusion=_opt_str(data, "conclusion"),
        head_sha=_opt_str(data, "head_sha"),
        head_branch=_opt_str(data, "head_branch"),
        path=_opt_str(data, "path"),
        run_attempt=_opt_int(data, "run_attempt") or 1,
        run_number=_opt_int(data, "run_number"),
        html_url=_opt_str(data, "html_url"),
        created_at=_time(data, "created_at"),
        workflow_id=_opt_int(data, "workflow_id"),
    )


def parse_artifact(data: Any) -> Artifact:
    return Artifact(
        id=_req_int(data, "id"),
        name=_req_str(data, "name"),
        expired=bool(_get(data, "expired")),
        size_in_bytes=_opt_int(data, "size_in_bytes"),
    )


def parse_check_run(data: Any) -> CheckRun:
    return CheckRun(
        id=_req_int(data, "id"),
        name=_req_str(data, "name"),
        status=_opt_str(data, "status"),
        conclusion=_opt_str(data, "conclusion"),
        head_sha=_opt_str(data, "head_sha"),
        started_at=_time(data, "started_at"),
        completed_at=_time(data, "completed_at"),
        details_url=_opt_str(data, "details_url"),
        html_url=_opt_str(data, "html_url"),
    )


def parse_status(data: Any) -> CommitStatus:
    return CommitStatus(
        context=_opt_str(data, "context") or "default",
        state=_req_str(data, "state"),
        description=_opt_str(data, "description"),
        target_url=_opt_str(data, "target_url"),
        created_at=_time(data, "created_at"),
    )


# ----------------------------------------------------------------------------------------------
# retry policy


@dataclass(frozen=True)
class RetryPolicy:
    """How hard the adapter tries before it gives up with exit 3."""

    retries: int = 4  # extra attempts after a 5xx, a connection error or a timeout
    backoff: float = 1.0  # first pause in seconds; doubles with every attempt
    max_backoff: float = 30.0
    rate_limit_wait: float = 300.0  # total seconds this process may spend waiting out rate limits
    timeout: int = 30  # whole seconds per HTTP request (PyGithub insists on an int)
    write_interval: float = 1.0  # PyGithub's pause between two writes (GitHub's advice)

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


@dataclass(frozen=True)
class _RateLimit:
    wait: float
    what: str


# ----------------------------------------------------------------------------------------------
# the adapter


class GitHub:
    """One repository on one GitHub API endpoint, with retries and full pagination."""

    def __init__(
        self,
        *,
        requester: Requester,
        base_url: str,
        repository: str,
        policy: RetryPolicy,
        secret: str = "",
        page_size: int = DEFAULT_PAGE_SIZE,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self._requester = requester
        self.base_url = base_url
        self.repository = repository
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
        return f"GitHub(base_url={self.base_url!r}, repository={self.repository!r})"

    # -- plumbing -------------------------------------------------------------------------------

    def _say(self, message: str) -> None:
        if self._log is not None:
            self._log(self._redact(message))

    def _redact(self, text: str) -> str:
        return text.replace(self._secret, "***") if self._secret else text

    def _fail(
        self, cls: type[GitHubError], message: str, hint: str | None = None, **kw: Any
    ) -> GitHubError:
        return cls(self._redact(message), hint=hint, **kw)

    def _repo_path(self, path: str) -> str:
        return f"/repos/{self.repository}{path}"

    def _send(
        self, verb: str, url: str, params: dict[str, Any] | None, body: Any
    ) -> tuple[dict[str, Any], Any]:
        self.requests += 1
        return self._requester.requestJsonAndCheck(verb, url, parameters=params, input=body)

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

    def _request(
        self,
        verb: str,
        url: str,
        *,
        params: dict[str, Any] | None = None,
        body: Any = None,
        mode: Mode = Mode.READ,
    ) -> tuple[dict[str, Any], Any]:
        """Send one request, retrying as ``mode`` allows; return (lower-case headers, JSON)."""
        import requests
        from github import GithubException

        shown = self._show(url)
        attempt = 0
        limited = 0
        while True:
            try:
                return self._send(verb, url, params, body)
            except GithubException as exc:
                status = exc.status
                data = exc.data if isinstance(exc.data, dict) else {}
                message = str(data.get("message") or "").strip()
                headers = {str(k).lower(): v for k, v in (exc.headers or {}).items()}
                limit = self._rate_limit(status, headers, message)
                detail = f"HTTP {status}" + (f" ({message})" if message else "")
                if limit is not None:
                    limited += 1
                    self._wait_for_rate_limit(verb, shown, limit, limited, detail)
                    continue
                if status >= 500:
                    if mode is Mode.ONCE:
                        raise self._fail(
                            AmbiguousWriteError,
                            f"GitHub API {verb} {shown} failed: {detail}; the write may or may "
                            "not have been applied",
                        ) from None
                    attempt += 1
                    if attempt <= self.policy.retries:
                        self._back_off(verb, shown, detail, attempt)
                        continue
                    raise self._fail(
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
                raise self._fail(
                    cls, f"GitHub API {verb} {shown} failed: {detail}", hint, status=status
                ) from None
            except requests.exceptions.RequestException as exc:
                kind = (
                    "timed out"
                    if isinstance(exc, requests.exceptions.Timeout)
                    else f"could not connect ({type(exc).__name__})"
                )
                if mode is Mode.ONCE:
                    raise self._fail(
                        AmbiguousWriteError,
                        f"GitHub API {verb} {shown} {kind}; the write may or may not have been "
                        "applied",
                    ) from None
                attempt += 1
                if attempt <= self.policy.retries:
                    self._back_off(verb, shown, kind, attempt)
                    continue
                raise self._fail(
                    GitHubError, f"GitHub API {verb} {shown} {kind} after {_attempts(attempt)}"
                ) from None
            except ValueError as exc:  # a body that claims to be JSON but is not
                raise self._fail(
                    GitHubError, f"GitHub API {verb} {shown} returned invalid JSON: {exc}"
                ) from None

    def _back_off(self, verb: str, shown: str, detail: str, attempt: int) -> None:
        pause = self.policy.pause(attempt)
        self._say(
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
            raise self._fail(
                GitHubError,
                f"GitHub API {verb} {shown} is rate limited ({detail}): {why}",
                hint="retry later, or raise `github-rate-limit-wait` in the configuration",
            )
        self._say(
            f"GitHub API {verb} {shown}: rate limited ({limit.what}); waiting {limit.wait:g}s"
        )
        self.rate_limit_waited += limit.wait
        self._sleep(limit.wait)

    def _show(self, url: str) -> str:
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
            raise self._fail(
                GitHubError,
                f"GitHub returned a next-page URL outside {self.base_url}: {url}",
            )
        return url

    def _pages(self, path: str, params: dict[str, Any] | None = None) -> Iterator[Any]:
        """Yield the JSON of every page, following ``Link: rel="next"`` only as far as consumed."""
        query = {"per_page": self.page_size, **(params or {})}
        headers, data = self._request("GET", path, params=query)
        while True:
            yield data
            following = next_link(str(headers.get("link") or ""))
            if following is None:
                return
            headers, data = self._request("GET", self._check_next(following))

    def _page_list(self, data: Any, key: str | None, path: str) -> list[Any]:
        items = data if key is None else (data.get(key) if isinstance(data, dict) else None)
        if not isinstance(items, list):
            what = "no list" if key is None else f"no `{key}` list"
            raise self._fail(GitHubError, f"GitHub API GET {self._show(path)} returned {what}")
        return items

    def _items(
        self, path: str, params: dict[str, Any] | None = None, *, key: str | None = None
    ) -> Iterator[Any]:
        for data in self._pages(path, params):
            yield from self._page_list(data, key, path)

    def _parse(self, parser: Callable[[Any], Any], data: Any, what: str) -> Any:
        try:
            return parser(data)
        except _Malformed as exc:
            raise self._fail(GitHubError, f"unexpected GitHub answer for {what}: {exc}") from None

    def _all(
        self,
        parser: Callable[[Any], Any],
        path: str,
        params: dict[str, Any] | None = None,
        *,
        key: str | None = None,
    ) -> tuple[Any, ...]:
        return tuple(self._parse(parser, item, path) for item in self._items(path, params, key=key))

    # -- pull requests --------------------------------------------------------------------------

    def get_pull(self, number: int) -> PullRequest:
        path = self._repo_path(f"/pulls/{number}")
        _, data = self._request("GET", path)
        pull: PullRequest = self._parse(parse_pull, data, path)
        return pull

    def list_pulls(
        self, *, state: str = "open", base: str | None = None, head: str | None = None
    ) -> tuple[PullRequest, ...]:
        params: dict[str, Any] = {"state": state}
        if base:
            params["base"] = base
        if head:
            params["head"] = head
        return self._all(parse_pull, self._repo_path("/pulls"), params)

    def list_pull_commits(self, number: int) -> tuple[PullCommit, ...]:
        """The PR's commits, oldest first (GitHub lists at most 250)."""
        return self._all(parse_pull_commit, self._repo_path(f"/pulls/{number}/commits"))

    def list_pull_files(self, number: int) -> tuple[PullFile, ...]:
        return self._all(parse_pull_file, self._repo_path(f"/pulls/{number}/files"))

    def list_reviews(self, number: int) -> tuple[Review, ...]:
        return self._all(parse_review, self._repo_path(f"/pulls/{number}/reviews"))

    def list_review_comments(self, number: int) -> tuple[ReviewComment, ...]:
        return self._all(parse_review_comment, self._repo_path(f"/pulls/{number}/comments"))

    def pulls_for_commit(self, sha: str) -> tuple[PullRequest, ...]:
        """Pull requests GitHub associates with commit ``sha`` (merged ones for main commits)."""
        return self._all(parse_pull, self._repo_path(f"/commits/{sha}/pulls"))

    def merge_pull(
        self,
        number: int,
        *,
        sha: str,
        method: str = "squash",
        title: str | None = None,
        message: str | None = None,
    ) -> MergeResult:
        """Merge PR ``number`` only if its head is still ``sha``; return the merge commit.

        A merge whose response is lost is not repeated blindly: the PR is re-read, and when it
        is already merged that merge is the result.
        """
        path = self._repo_path(f"/pulls/{number}/merge")
        body: dict[str, Any] = {"merge_method": method, "sha": sha}
        if title is not None:
            body["commit_title"] = title
        if message is not None:
            body["commit_message"] = message
        attempt = 0
        while True:
            try:
                _, data = self._request("PUT", path, body=body, mode=Mode.ONCE)
            except AmbiguousWriteError as exc:
                pull = self.get_pull(number)
                if pull.merged and pull.merge_commit_sha:
                    return MergeResult(
                        True, pull.merge_commit_sha, "merged (confirmed by re-reading)"
                    )
                attempt += 1
                if attempt > self.policy.retries or pull.state != "open":
                    raise exc
                self._back_off("PUT", self._show(path), "outcome unknown, PR not merged", attempt)
                continue
            except GitHubStatusError as exc:
                if exc.status in (405, 409, 422):
                    raise self._fail(
                        MergeRejectedError, exc.message, exc.hint, status=exc.status
                    ) from None
                raise
            sha_out = _opt_str(data, "sha")
            if not sha_out:
                raise self._fail(GitHubError, f"GitHub API PUT {path} returned no merge sha")
            return MergeResult(bool(_get(data, "merged")), sha_out, _opt_str(data, "message") or "")

    # -- comments -------------------------------------------------------------------------------

    def list_issue_comments(self, number: int) -> tuple[Comment, ...]:
        return self._all(parse_comment, self._repo_path(f"/issues/{number}/comments"))

    def create_issue_comment(self, number: int, body: str) -> Comment:
        """Post a comment once; a lost response raises AmbiguousWriteError (never re-posted)."""
        path = self._repo_path(f"/issues/{number}/comments")
        _, data = self._request("POST", path, body={"body": body}, mode=Mode.ONCE)
        comment: Comment = self._parse(parse_comment, data, path)
        return comment

    def edit_issue_comment(self, comment_id: int, body: str) -> Comment:
        path = self._repo_path(f"/issues/comments/{comment_id}")
        _, data = self._request("PATCH", path, body={"body": body}, mode=Mode.IDEMPOTENT)
        comment: Comment = self._parse(parse_comment, data, path)
        return comment

    def delete_issue_comment(self, comment_id: int) -> None:
        """Delete a comment; one that is already gone counts as deleted (safe to repeat)."""
        path = self._repo_path(f"/issues/comments/{comment_id}")
        with contextlib.suppress(NotFoundError):
            self._request("DELETE", path, mode=Mode.IDEMPOTENT)

    def upsert_issue_comment(
        self, number: int, body: str, *, marker: str, author: str | None = None
    ) -> Comment:
        """Make sure exactly one comment holding ``marker`` says ``body``; never posts twice.

        Looks for the newest comment containing ``marker`` (by ``author`` when given) first and
        edits it if needed; only when there is none is a comment posted. If the post fails
        without a clear answer, the comments are read again before trying once more.
        """
        attempt = 0
        while True:
            existing = self._find_marked(number, marker, author)
            if existing is not None:
                if existing.body == body:
                    return existing
                return self.edit_issue_comment(existing.id, body)
            try:
                return self.create_issue_comment(number, body)
            except AmbiguousWriteError:
                attempt += 1
                if attempt > self.policy.retries:
                    raise
                self._back_off("POST", f"issues/{number}/comments", "outcome unknown", attempt)

    def _find_marked(self, number: int, marker: str, author: str | None) -> Comment | None:
        found = [
            c
            for c in self.list_issue_comments(number)
            if marker in c.body and (author is None or c.author == author)
        ]
        return max(found, key=lambda c: (c.created_at or _EARLIEST, c.id)) if found else None

    # -- commits, checks and statuses -----------------------------------------------------------

    def list_check_runs(
        self, sha: str, *, check_name: str | None = None, status: str | None = None
    ) -> tuple[CheckRun, ...]:
        params: dict[str, Any] = {}
        if check_name:
            params["check_name"] = check_name
        if status:
            params["status"] = status
        return self._all(
            parse_check_run, self._repo_path(f"/commits/{sha}/check-runs"), params, key="check_runs"
        )

    def get_combined_status(self, sha: str) -> CombinedStatus:
        """The combined state of ``sha`` and every status it lists (all pages)."""
        path = self._repo_path(f"/commits/{sha}/status")
        state: str | None = None
        statuses: list[CommitStatus] = []
        for data in self._pages(path):
            state = state or _opt_str(data, "state")
            statuses.extend(
                self._parse(parse_status, s, path) for s in self._page_list(data, "statuses", path)
            )
        return CombinedStatus(sha, state or self._combined_state(statuses), tuple(statuses))

    @staticmethod
    def _combined_state(statuses: list[CommitStatus]) -> str:
        states = {s.state for s in statuses}
        if not statuses:
            return "pending"
        if states & {"failure", "error"}:
            return "failure"
        if "pending" in states:
            return "pending"
        return "success"

    def create_commit_status(
        self,
        sha: str,
        *,
        state: str,
        context: str,
        description: str | None = None,
        target_url: str | None = None,
    ) -> CommitStatus:
        """Set a commit status; repeating it is harmless, so it is retried like a read."""
        body: dict[str, Any] = {"state": state, "context": context}
        if description is not None:
            body["description"] = description[:140]  # GitHub's limit
        if target_url is not None:
            body["target_url"] = target_url
        path = self._repo_path(f"/statuses/{sha}")
        _, data = self._request("POST", path, body=body, mode=Mode.IDEMPOTENT)
        status: CommitStatus = self._parse(parse_status, data, path)
        return status

    # -- actions --------------------------------------------------------------------------------

    def get_workflow(self, workflow: str | int) -> Workflow:
        path = self._repo_path(f"/actions/workflows/{workflow}")
        _, data = self._request("GET", path)
        result: Workflow = self._parse(parse_workflow, data, path)
        return result

    def iter_workflow_runs(
        self,
        workflow: str | int,
        *,
        event: str | None = None,
        branch: str | None = None,
        status: str | None = None,
        head_sha: str | None = None,
    ) -> Iterator[WorkflowRun]:
        """Runs of ``workflow``, newest first, fetched page by page only as far as consumed."""
        params: dict[str, Any] = {}
        for name, value in (
            ("event", event),
            ("branch", branch),
            ("status", status),
            ("head_sha", head_sha),
        ):
            if value:
                params[name] = value
        path = self._repo_path(f"/actions/workflows/{workflow}/runs")
        for item in self._items(path, params, key="workflow_runs"):
            yield self._parse(parse_run, item, path)

    def get_workflow_run(self, run_id: int) -> WorkflowRun:
        path = self._repo_path(f"/actions/runs/{run_id}")
        _, data = self._request("GET", path)
        run: WorkflowRun = self._parse(parse_run, data, path)
        return run

    def list_run_artifacts(self, run_id: int) -> tuple[Artifact, ...]:
        return self._all(
            parse_artifact, self._repo_path(f"/actions/runs/{run_id}/artifacts"), key="artifacts"
        )


def _attempts(count: int) -> str:
    return f"{count} attempt{'s' * (count != 1)}"


def next_link(header: str) -> str | None:
    """The ``rel="next"`` URL of a ``Link`` header, or None."""
    for url, rel in _LINK_RE.findall(header):
        if rel == "next":
            return str(url)
    return None


# ----------------------------------------------------------------------------------------------
# the factory


def _silence_pygithub() -> None:
    # `import github` attaches an INFO StreamHandler to its logger; its retry chatter would land
    # on stderr beside our own messages. Warnings and errors still show.
    logging.getLogger("github").setLevel(logging.WARNING)


def resolve_api_url(config: Config, env: Mapping[str, str]) -> str:
    """API base URL: configuration, else ``GITHUB_API_URL`` (set by Actions), else public."""
    url = config.github_api_url or env.get("GITHUB_API_URL") or PUBLIC_API_URL
    split = urllib.parse.urlsplit(url)
    if split.scheme not in ("http", "https") or not split.hostname:
        raise ConfigError(f"GitHub API URL {url!r} is not an http(s) URL")
    return url.rstrip("/")


def resolve_repository(config: Config, env: Mapping[str, str], explicit: str | None) -> str:
    """OWNER/NAME: ``explicit``, else ``GITHUB_REPOSITORY`` (set by Actions), else config."""
    repo = explicit or env.get("GITHUB_REPOSITORY") or config.repository
    if not _REPO_RE.match(repo):
        raise ConfigError(f"repository {repo!r} is not OWNER/NAME")
    return repo


def resolve_token(env: Mapping[str, str]) -> str:
    token = (env.get("GH_TOKEN") or env.get("GITHUB_TOKEN") or "").strip()
    if not token:
        raise ConfigError(
            "GH_TOKEN or GITHUB_TOKEN must hold a GitHub token",
            hint="in a workflow: env: GH_TOKEN: ${{ github.token }}",
        )
    if not all("!" <= ch <= "~" for ch in token):
        # Such a token cannot go into an HTTP header: every request would fail with a
        # misleading transport error. The token itself is never shown.
        name = "GH_TOKEN" if env.get("GH_TOKEN", "").strip() else "GITHUB_TOKEN"
        raise ConfigError(
            f"{name} holds whitespace or non-ASCII characters, so it cannot be a GitHub token",
            hint="check how the variable is set (a pasted line break or quote?)",
        )
    return token


def make_github(
    config: Config,
    *,
    env: Mapping[str, str] | None = None,
    repository: str | None = None,
    policy: RetryPolicy | None = None,
    page_size: int = DEFAULT_PAGE_SIZE,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.time,
    log: Callable[[str], None] | None = None,
) -> GitHub:
    """Build the adapter from configuration and the environment (token from GH_TOKEN/GITHUB_TOKEN)."""
    env = os.environ if env is None else env
    base_url = resolve_api_url(config, env)
    repo = resolve_repository(config, env, repository)
    token = resolve_token(env)
    policy = policy or RetryPolicy.from_config(config)

    import github
    from github import Auth

    _silence_pygithub()
    client = github.Github(
        auth=Auth.Token(token),
        base_url=base_url,
        timeout=policy.timeout,
        retry=None,
        per_page=page_size,
        # Sequential reads need no spacing; GitHub asks for a pause between writes.
        seconds_between_requests=None,
        seconds_between_writes=policy.write_interval or None,
        lazy=True,
    )
    return GitHub(
        requester=client.requester,
        base_url=base_url,
        repository=repo,
        policy=policy,
        secret=token,
        page_size=page_size,
        sleep=sleep,
        clock=clock,
        log=log,
    )


# ----------------------------------------------------------------------------------------------
# GitHub Actions step files


def write_step_outputs(path: Path, outputs: Mapping[str, str]) -> None:
    """Append ``outputs`` to a ``$GITHUB_OUTPUT`` file, each as a heredoc with a random delimiter.

    The delimiter is fresh per value and checked against it, so no value (even a multi-line
    one) can end its block early or inject another output.
    """
    chunks: list[str] = []
    for key, value in outputs.items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", key):
            raise ValueError(f"invalid output name {key!r}")
        while True:
            delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
            if delimiter not in value:
                break
        chunks.append(f"{key}<<{delimiter}\n{value}\n{delimiter}\n")
    with path.open("a", encoding="utf-8") as handle:
        handle.write("".join(chunks))


def read_step_outputs(text: str) -> dict[str, str]:
    """Parse a ``$GITHUB_OUTPUT`` file (both ``k=v`` and heredoc forms), as the runner does."""
    out: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            key, delimiter = line.split("<<", 1)
            value: list[str] = []
            while i < len(lines) and lines[i] != delimiter:
                value.append(lines[i])
                i += 1
            if i >= len(lines):
                raise ValueError(f"output {key!r}: delimiter {delimiter!r} never closes")
            i += 1
            out[key] = "\n".join(value)
        else:
            key, _, val = line.partition("=")
            out[key] = val
    return out


def append_step_summary(path: Path, markdown: str) -> None:
    """Append Markdown to a ``$GITHUB_STEP_SUMMARY`` file."""
    with path.open("a", encoding="utf-8") as handle:
        handle.write(markdown if markdown.endswith("\n") else markdown + "\n")
