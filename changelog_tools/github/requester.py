"""PyGithub's Requester with the checks PyGithub does not make, and the one place where a failure
becomes :class:`~changelog_tools.errors.GitHubError`.

Every request PyGithub's objects send (reads, writes, each page of a list) passes through
:meth:`GuardedRequester.requestJson`, which is where this module adds:

- the token's trust boundary: an absolute URL (a next-page ``Link``, a URL inside an answer) off
  the configured API origin or outside its path is refused before anything is sent. PyGithub
  itself would send the token to any host of GitHub's domains on a next-page link, and to
  another port or scheme of the API's host; it follows a 301 only on the API's own host and
  port, and no other redirect for the JSON calls the tool makes (requests is told not to);
- list walks (:class:`PageWalk`): a next-page link back at a page already read, or a list that
  goes on for ever, stops with exit 3 instead of looping (PyGithub follows any link);
- the REST API version and media type the records were written against (PyGithub 2.6 sends
  neither);
- failures: HTTP error statuses, lost connections, TLS, redirects, invalid or too deeply nested
  JSON all become one-line errors naming the request, with the token redacted.

Retries and rate limits are :mod:`~changelog_tools.github.retry`'s, applied below this by urllib3.
"""

from __future__ import annotations

import contextlib
import json
import urllib.parse
from collections.abc import Iterator, Mapping
from typing import Any

import requests
from github import Auth, GithubException
from github.Requester import Requester

from changelog_tools import __version__
from changelog_tools.errors import GitHubError
from changelog_tools.github.exchange import (
    AnswerTooLarge,
    BoundedHTTPConnection,
    BoundedHTTPSConnection,
    DeadlineExceeded,
)
from changelog_tools.github.failures import (
    AmbiguousWriteError,
    GaveUp,
    GitHubStatusError,
    NotFoundError,
)
from changelog_tools.github.policy import Mode
from changelog_tools.github.retry import (
    PolicyRetry,
    certificate_failure,
    describe_failure,
    failure_kind,
    never_sent,
    unresolvable,
)
from changelog_tools.github.traffic import Traffic

API_VERSION = "2022-11-28"  # the REST API version the records were written against
MEDIA_TYPE = "application/vnd.github+json"
_REDIRECTS = frozenset({301, 302, 303, 307, 308})


class PageWalk:
    """One list read page by page: what it has seen, so a loop or an endless list stops."""

    def __init__(self, key: str | None, max_pages: int) -> None:
        self.key = key  # the list inside an object answer ("workflow_runs"); None: a bare list
        self.max_pages = max_pages
        self.label = ""  # the list's path, for messages
        self._seen: set[tuple[str, frozenset[tuple[str, str]]]] = set()

    @property
    def started(self) -> bool:
        return bool(self._seen)

    def visit(self, shown: str, params: Mapping[str, Any] | None) -> None:
        """Record the page about to be read; GitHubError when it was read already or the list
        is longer than any list GitHub serves the tool."""
        key = _page_key(shown, params)
        if not self._seen:
            self.label = urllib.parse.urlsplit(shown).path
        elif key in self._seen:
            raise GitHubError(
                f"GitHub API GET {self.label}: the next-page link points back at a page "
                f"already read ({shown}); stopped instead of looping"
            )
        elif len(self._seen) >= self.max_pages:
            raise GitHubError(
                f"GitHub API GET {self.label}: the list goes on past {self.max_pages} pages; "
                "stopped"
            )
        self._seen.add(key)

    def check(self, data: Any, shown: str) -> None:
        """A page must hold a list of objects (under ``key`` when there is one)."""
        items = (
            data if self.key is None else (data.get(self.key) if isinstance(data, dict) else None)
        )
        if not isinstance(items, list):
            what = "no list" if self.key is None else f"no `{self.key}` list"
            raise GitHubError(f"GitHub API GET {shown} returned {what}")
        if not all(isinstance(item, dict) for item in items):
            raise GitHubError(f"GitHub API GET {shown} returned a list holding a non-object")


def _page_key(
    shown: str, params: Mapping[str, Any] | None
) -> tuple[str, frozenset[tuple[str, str]]]:
    """What identifies a page: its path and query, order-free, with GitHub's default page=1."""
    split = urllib.parse.urlsplit(shown)
    query = dict(urllib.parse.parse_qsl(split.query, keep_blank_values=True))
    query.update({k: str(v) for k, v in (params or {}).items()})
    query.setdefault("page", "1")
    return split.path, frozenset(query.items())


class GuardedRequester(Requester):
    """The requester PyGithub's objects are built on, configured on purpose (see __init__)."""

    def __init__(self, *, base_url: str, token: str, traffic: Traffic, page_size: int) -> None:
        split = urllib.parse.urlsplit(base_url)
        if split.scheme not in ("http", "https") or not split.hostname:
            raise GitHubError(f"GitHub API URL {base_url!r} is not an http(s) URL")
        policy = traffic.policy
        self.user_agent = f"changelog-tools/{__version__}"
        super().__init__(
            auth=Auth.Token(token),
            base_url=base_url,
            # requests takes fractional seconds; PyGithub's annotation says int
            timeout=policy.timeout,  # type: ignore[arg-type]
            user_agent=self.user_agent,
            per_page=page_size,
            # True lets requests verify against REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE when set
            verify=True,
            retry=PolicyRetry(traffic),
            pool_size=None,
            # The tool reads one request after another; PyGithub's default 0.25 s between any
            # two requests made a reuse-gate decision take seconds. Writes keep GitHub's advice.
            seconds_between_requests=0,
            seconds_between_writes=policy.write_interval,
            # No request until a value is read: objects are built from URLs, so a list costs
            # its pages and nothing more.
            lazy=True,
        )
        # PyGithub picks its connection class per scheme in __init__ and lets the caller choose
        # it; set on this instance only (injectConnectionClasses would change every Requester
        # and turn connection reuse off), so every exchange gets a total deadline and a body
        # limit (see exchange.py).
        bounded = BoundedHTTPSConnection if split.scheme == "https" else BoundedHTTPConnection
        setattr(self, "_Requester__connectionClass", bounded)  # noqa: B010 - a mangled name
        self.traffic = traffic
        self._base = base_url.rstrip("/")
        self._origin = (split.scheme, split.hostname, split.port or _default_port(split.scheme))
        self._prefix = split.path.rstrip("/")
        # GraphQL sits beside the REST prefix: /graphql, or /api/graphql beside /api/v3
        self.graphql_path = self._prefix.removesuffix("/v3") + "/graphql"
        self._walk: PageWalk | None = None
        self._mode = Mode.ONCE  # a write not declared otherwise is never repeated blindly
        self._redirect_ok = False

    def __repr__(self) -> str:  # never shows the token
        return f"GuardedRequester({self._base!r})"

    # -- what the adapter declares around a call -----------------------------------------------

    @contextlib.contextmanager
    def walking(self, walk: PageWalk) -> Iterator[None]:
        """The GETs sent inside are pages of ``walk``."""
        outer, self._walk = self._walk, walk
        try:
            yield
        finally:
            self._walk = outer

    @contextlib.contextmanager
    def writing(self, mode: Mode) -> Iterator[None]:
        """The writes sent inside may be repeated as ``mode`` says."""
        outer, self._mode = self._mode, mode
        try:
            yield
        finally:
            self._mode = outer

    # -- the two doors every request goes through ----------------------------------------------

    def requestJsonAndCheck(
        self,
        verb: str,
        url: str,
        parameters: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        input: Any | None = None,
        follow_302_redirect: bool = False,
    ) -> tuple[dict[str, Any], Any]:
        walk = self._walk if verb == "GET" else None
        self._refuse_foreign(url, paging=walk is not None and walk.started)
        shown = self.show(url)
        if walk is not None:
            walk.visit(shown, parameters)
        with self.failures(verb, url):
            answer, data = super().requestJsonAndCheck(
                verb, url, parameters, headers, input, follow_302_redirect
            )
        if walk is not None:
            walk.check(data, shown)
        return answer, data

    def requestJson(
        self,
        verb: str,
        url: str,
        parameters: dict[str, Any] | None = None,
        headers: dict[str, Any] | None = None,
        input: Any | None = None,
        cnx: Any = None,
        follow_302_redirect: bool = False,
    ) -> tuple[int, dict[str, Any], str]:
        self._refuse_foreign(url, paging=False)
        self.traffic.begin(verb, self.show(url), Mode.READ if verb == "GET" else self._mode)
        sent = {"Accept": MEDIA_TYPE, "X-GitHub-Api-Version": API_VERSION, **(headers or {})}
        status, answer, output = super().requestJson(
            verb, url, parameters, sent, input, cnx, follow_302_redirect
        )
        if status in _REDIRECTS and not self._redirect_ok:
            where = answer.get("location")
            raise GitHubStatusError(
                self.traffic.redact(
                    f"GitHub API {verb} {self.show(url)} answered HTTP {status}, a redirect"
                    + (f" to {where}" if where else "")
                    + " the tool does not follow"
                ),
                status=status,
            )
        return status, answer, output

    def locate(self, url: str) -> str:
        """Where a GET of ``url`` redirects (a download's signed storage URL, on another origin
        where the token must not go), without following it."""
        self._redirect_ok = True
        try:
            with self.failures("GET", url):
                status, answer, output = self.requestJson("GET", url)
        finally:
            self._redirect_ok = False
        location = answer.get("location")
        if status in _REDIRECTS and isinstance(location, str) and location:
            return urllib.parse.urljoin(self._base + "/", location)
        if status >= 400:
            raise self._status_error("GET", url, status, _json(output))
        raise GitHubError(self._say("GET", url, f"answered HTTP {status}, not a redirect"))

    # -- the trust boundary ---------------------------------------------------------------------

    def _refuse_foreign(self, url: str, *, paging: bool) -> None:
        if url.startswith("/"):
            return
        split = urllib.parse.urlsplit(url)
        origin = (split.scheme, split.hostname, split.port or _default_port(split.scheme))
        inside = (split.path + "/").startswith(
            self._prefix + "/"
        ) or split.path == self.graphql_path
        if origin == self._origin and inside:
            return
        if paging:
            raise GitHubError(
                self.traffic.redact(f"GitHub returned a next-page URL outside {self._base}: {url}")
            )
        # redacted: the refused URL comes from an answer (a lazy object's `url`), which may echo
        # the token back in its path
        raise GitHubError(
            self.traffic.redact(
                f"refusing to send the GitHub token to {split.scheme}://{split.netloc}"
                f"{split.path}: it is outside {self._base}"
            )
        )

    def show(self, url: str) -> str:
        """The request path for messages: relative to the API base, query kept."""
        split = urllib.parse.urlsplit(url)
        path = split.path
        if split.scheme and (path + "/").startswith(self._prefix + "/"):
            path = path[len(self._prefix) :]
        return path + (f"?{split.query}" if split.query else "")

    # -- failures -------------------------------------------------------------------------------

    @contextlib.contextmanager
    def failures(self, verb: str, url: str) -> Iterator[None]:
        """Whatever goes wrong inside becomes a one-line GitHubError about ``verb url``."""
        try:
            yield
        except GitHubError:
            raise
        except DeadlineExceeded as exc:
            raise self._deadline_error(verb, url, exc) from None
        except AnswerTooLarge as exc:
            raise GitHubError(self._say(verb, url, f"failed: {exc}")) from None
        except GaveUp as exc:
            raise GitHubError(self._say(verb, url, exc.reason), hint=exc.hint) from None
        except GithubException as exc:
            raise self._status_error(verb, url, exc.status, exc.data) from None
        except requests.RequestException as exc:
            raise self._connection_error(verb, url, exc) from None
        except RecursionError:
            raise GitHubError(
                self._say(verb, url, "returned JSON nested too deeply to read")
            ) from None
        except json.JSONDecodeError as exc:  # a body that claims to be JSON but is not
            raise GitHubError(self._say(verb, url, f"returned invalid JSON: {exc}")) from None
        except ValueError as exc:
            # Bare ValueErrors, no JSONDecodeError nor RequestException: json.loads refusing an
            # integer of more than 4300 digits, requests parsing a redirect's malformed Location
            # ("http://[bad", a port over 65535) even when told not to follow it. The callers
            # that use the requester directly (GraphQL, a collaborator's permission, an
            # artifact's location) have no `_reading` around them to catch it.
            raise GitHubError(
                self._say(verb, url, f"returned an answer that cannot be read ({str(exc)[:200]})")
            ) from None
        except RuntimeError as exc:  # PyGithub refusing a 301 to another host or scheme
            raise GitHubError(self._say(verb, url, f"could not be sent: {exc}")) from None

    def _say(self, verb: str, url: str, what: str) -> str:
        return self.traffic.redact(f"GitHub API {verb} {self.show(url)} {what}")

    def _status_error(self, verb: str, url: str, status: int, data: Any) -> GitHubError:
        message = data.get("message") if isinstance(data, dict) else None
        text = str(message or "").strip()
        detail = f"HTTP {status}" + (f" ({text})" if text else "")
        traffic = self.traffic
        if status >= 500:
            if not traffic.mode.repeatable and verb != "GET":
                return AmbiguousWriteError(
                    self._say(
                        verb, url, f"failed: {detail}; the write may or may not have been applied"
                    )
                )
            attempts = traffic.attempts
            return GitHubStatusError(
                self._say(verb, url, f"failed after {_count(attempts)}: {detail}"), status=status
            )
        cls = NotFoundError if status == 404 else GitHubStatusError
        hint = None
        if status == 401:
            hint = "check that GH_TOKEN or GITHUB_TOKEN holds a valid token"
        elif status == 403:
            hint = "the token may lack a permission this step needs"
        return cls(self._say(verb, url, f"failed: {detail}"), status=status, hint=hint)

    def _deadline_error(self, verb: str, url: str, exc: DeadlineExceeded) -> GitHubError:
        what = f"timed out: {exc} (the total deadline, twice `github-timeout`)"
        if verb != "GET" and not self.traffic.mode.repeatable:
            return AmbiguousWriteError(
                self._say(verb, url, f"{what}; the write may or may not have been applied")
            )
        return GitHubError(self._say(verb, url, what))

    def _connection_error(self, verb: str, url: str, exc: requests.RequestException) -> GitHubError:
        traffic = self.traffic
        if certificate_failure(exc):
            return GitHubError(
                self._say(
                    verb,
                    url,
                    f"failed: the TLS certificate of {self._origin[1]} could not be verified "
                    f"({failure_kind(exc)}); not retried",
                ),
                hint="trust the CA that signed it: REQUESTS_CA_BUNDLE=/path/to/ca-bundle.pem",
            )
        failure = traffic.failure
        if failure is not None and unresolvable(failure):
            return GitHubError(
                self._say(verb, url, describe_failure(failure)),
                hint="check the API URL (`github-api-url`, GITHUB_API_URL) and this machine's DNS",
            )
        if failure is None:  # no attempt failed: the answer came, its body did not
            what = "while reading the answer" if traffic.answers else "before sending"
            return GitHubError(self._say(verb, url, f"failed {what} ({failure_kind(exc)})"))
        kind = describe_failure(failure)
        if not traffic.mode.repeatable and not never_sent(failure):
            return AmbiguousWriteError(
                self._say(verb, url, f"{kind}; the write may or may not have been applied")
            )
        return GitHubError(self._say(verb, url, f"{kind} after {_count(traffic.attempts)}"))


def _json(output: str) -> Any:
    try:
        return json.loads(output) if output else None
    except (ValueError, RecursionError):
        return None


def _count(attempts: int) -> str:
    return f"{attempts} attempt{'s' * (attempts != 1)}"


def _default_port(scheme: str) -> int:
    return 443 if scheme == "https" else 80
