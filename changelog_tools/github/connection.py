"""The adapter's connection to GitHub: PyGithub, loaded and configured on the first request.

:class:`Connected` is the base of the adapter's endpoint classes. It holds what they share: the
:class:`~changelog_tools.github.traffic.Traffic` counters, PyGithub's objects (built on first
use, so a command that decides without asking GitHub never imports PyGithub or requests), lists
read page by page under the requester's watch, and :meth:`Connected._reading`, which reports
PyGithub choking on an answer as a one-line GitHubError instead of a traceback.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, TypeVar

from changelog_tools.errors import GitHubError
from changelog_tools.github.policy import DEFAULT_PAGE_SIZE, MAX_PAGES, RetryPolicy
from changelog_tools.github.traffic import Traffic

if TYPE_CHECKING:
    from changelog_tools.github.nodes import Nodes
    from changelog_tools.github.requester import GuardedRequester

T = TypeVar("T")
R = TypeVar("R")

# What PyGithub raises, or lets through, on an answer of a shape it did not expect: a field of
# the wrong type (BadAttributeException, by name: PyGithub is not imported until needed), an
# object where a list belongs, an object without the URL to complete it.
_ANSWER_PROBLEMS = (TypeError, ValueError, KeyError, AttributeError, IndexError, RecursionError)
_PYGITHUB_PROBLEMS = frozenset({"BadAttributeException", "IncompletableObject"})


class Connected:
    """One repository on one GitHub API endpoint, connected on first use."""

    def __init__(
        self,
        *,
        base_url: str,
        token: str,
        repository: str,
        traffic: Traffic,
        page_size: int = DEFAULT_PAGE_SIZE,
        max_pages: int = MAX_PAGES,
    ) -> None:
        self.repository = repository
        self.traffic = traffic
        self.max_pages = max_pages
        self._base_url = base_url.rstrip("/")
        self._token = token
        self._page_size = page_size
        self._connected: Nodes | None = None

    def __repr__(self) -> str:  # never shows the token
        return f"{type(self).__name__}(base_url={self.base_url!r}, repository={self.repository!r})"

    @property
    def base_url(self) -> str:
        return self._base_url

    @property
    def policy(self) -> RetryPolicy:
        return self.traffic.policy

    @property
    def page_size(self) -> int:
        return self._page_size

    @property
    def requests(self) -> int:
        """HTTP requests sent so far, retries included."""
        return self.traffic.requests

    @property
    def rate_limit_waited(self) -> float:
        """Seconds spent waiting out rate limits so far."""
        return self.traffic.rate_limit_waited

    def _repo_path(self, path: str) -> str:
        return f"/repos/{self.repository}{path}"

    # -- PyGithub, on first use -----------------------------------------------------------------

    @property
    def _nodes(self) -> Nodes:
        if self._connected is None:
            from changelog_tools.github.nodes import Nodes
            from changelog_tools.github.requester import GuardedRequester

            # PyGithub 2.6 sends its INFO chatter (redirects followed, retries) to stderr; the
            # adapter says what it does itself.
            logging.getLogger("github").setLevel(logging.WARNING)
            requester = GuardedRequester(
                base_url=self._base_url,
                token=self._token,
                traffic=self.traffic,
                page_size=self._page_size,
            )
            self._connected = Nodes(requester, self.repository)
        return self._connected

    @property
    def _requester(self) -> GuardedRequester:
        return self._nodes.requester

    # -- reading answers ------------------------------------------------------------------------

    @contextlib.contextmanager
    def _reading(self, what: str) -> Iterator[None]:
        """PyGithub choking on GitHub's answer for ``what`` becomes a one-line GitHubError."""
        try:
            yield
        except GitHubError:
            raise
        except Exception as exc:
            from changelog_tools.github.convert import Malformed

            if isinstance(exc, Malformed):
                why = str(exc)
            elif isinstance(exc, _ANSWER_PROBLEMS) or type(exc).__name__ in _PYGITHUB_PROBLEMS:
                why = f"{type(exc).__name__}: {str(exc)[:200]}"
            else:
                raise
            raise GitHubError(
                self.traffic.redact(f"unexpected GitHub answer for {what}: {why}")
            ) from None

    def _walk(
        self,
        what: str,
        pages: Iterable[T],
        convert: Callable[[T], R],
        *,
        key: str | None = None,
    ) -> Iterator[R]:
        """The records of a list, fetched page by page only as far as they are consumed."""
        from changelog_tools.github.requester import PageWalk

        walk = PageWalk(key, self.max_pages)
        items = iter(pages)
        while True:
            with self._requester.walking(walk), self._reading(what):
                try:
                    item = next(items)
                except StopIteration:
                    return
            with self._reading(what):
                record = convert(item)
            yield record

    def _all(
        self,
        what: str,
        pages: Iterable[T],
        convert: Callable[[T], R],
        *,
        key: str | None = None,
    ) -> tuple[R, ...]:
        return tuple(self._walk(what, pages, convert, key=key))

    def _read(self, what: str, read: Callable[[], R]) -> R:
        """One value read from PyGithub (the request it sends included), checked."""
        with self._reading(what):
            return read()
