"""The HTTP session under the GitHub transport: one request in, status/headers/JSON out.

PyGithub supplies the HTTP session, authentication, the base-URL (GitHub Enterprise) handling,
the check that every absolute URL the server hands back stays on that base, and the write
throttle. Its retry machinery is switched off (``retry=None``): the transport above retries
(see :mod:`changelog_tools.github.transport` for why). Requests go through the ``Requester``
(the public escape hatch PyGithub documents) rather than its lazy objects, so each HTTP request
is visible. This is the only module that imports PyGithub, and it does so only when a session is
opened, so commands that never reach GitHub never pay for the import.

Failures come out as two plain exceptions so the transport needs no PyGithub or ``requests``
types: :class:`HTTPFailure` (the server answered with an error status) and
:class:`ConnectionFailure` (no answer: refused, reset, timed out). A body that claims to be JSON
but is not raises ``ValueError``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from github.Requester import Requester


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


class Session:
    """An authenticated HTTP session bound to one API base URL."""

    def __init__(self, requester: Requester, timeout: float = 30) -> None:
        self._requester = requester
        self._timeout = timeout

    def fetch_unauthenticated(self, url: str) -> bytes:
        """GET ``url`` without the token: the signed storage URL GitHub redirects a download to
        (it may be on another host, so the token must not travel with it)."""
        import requests

        try:
            response = requests.get(url, timeout=self._timeout, allow_redirects=True)
        except requests.exceptions.RequestException as exc:
            raise ConnectionFailure(
                timed_out=isinstance(exc, requests.exceptions.Timeout), kind=type(exc).__name__
            ) from None
        if response.status_code >= 400:
            raise HTTPFailure(response.status_code, dict(response.headers), None)
        return response.content

    def send(
        self, verb: str, url: str, params: dict[str, Any] | None, body: Any
    ) -> tuple[dict[str, Any], Any]:
        """One HTTP request; (lower-case headers, decoded JSON) of a success status."""
        import requests
        from github import GithubException

        try:
            headers, data = self._requester.requestJsonAndCheck(
                verb, url, parameters=params, input=body
            )
        except GithubException as exc:
            raise HTTPFailure(exc.status, exc.headers or {}, exc.data) from None
        except requests.exceptions.RequestException as exc:
            raise ConnectionFailure(
                timed_out=isinstance(exc, requests.exceptions.Timeout), kind=type(exc).__name__
            ) from None
        return headers, data


def _silence_pygithub() -> None:
    # `import github` attaches an INFO StreamHandler to its logger; its retry chatter would land
    # on stderr beside our own messages. Warnings and errors still show.
    logging.getLogger("github").setLevel(logging.WARNING)


def open_session(
    *, base_url: str, token: str, timeout: int, write_interval: float, page_size: int
) -> Session:
    """A session on ``base_url`` authenticated with ``token`` (PyGithub imported here)."""
    import github
    from github import Auth

    _silence_pygithub()
    client = github.Github(
        auth=Auth.Token(token),
        base_url=base_url,
        timeout=timeout,
        retry=None,
        per_page=page_size,
        # Sequential reads need no spacing; GitHub asks for a pause between writes.
        seconds_between_requests=None,
        seconds_between_writes=write_interval or None,
        lazy=True,
    )
    return Session(client.requester, timeout)
