"""Downloading from the signed storage URL GitHub redirects an artifact download to.

That URL carries its own short-lived authorization and usually lies on another origin, so the
request goes out through requests with no token, no GitHub headers and no ``~/.netrc``
credentials. The artifact was produced by a pull request's code, so its size is not trusted:
a declared length over the limit is refused before reading, and the body is counted as it is
read (after any ``Content-Encoding`` is undone), so a server that streams more than the limit,
or lies about the length, is cut off at the limit. The download as a whole has a deadline
(:mod:`~changelog_tools.github.exchange`'s watchdog): twice the timeout plus a second per MiB the
limit allows, so a server that trickles the body cannot hold the tool for ever.
"""

from __future__ import annotations

import urllib.parse
from typing import TYPE_CHECKING

from changelog_tools.errors import GitHubError

if TYPE_CHECKING:
    import requests

_CHUNK = 64 * 1024


def _no_credentials(request: requests.PreparedRequest) -> requests.PreparedRequest:
    return request  # set as the session's auth, it keeps requests from reading ~/.netrc


def fetch_bounded(url: str, *, what: str, max_bytes: int, timeout: float, user_agent: str) -> bytes:
    """The body of a GET of ``url``, at most ``max_bytes`` of it; GitHubError otherwise."""
    import requests

    scheme = urllib.parse.urlsplit(url).scheme
    if scheme not in ("http", "https"):
        raise GitHubError(f"{what} failed: GitHub redirected it to a {scheme or 'relative'} URL")
    from changelog_tools.github.exchange import Watchdog, WatchedAdapter, exchange_deadline

    body = bytearray()
    seconds = exchange_deadline(timeout) + max_bytes / 2**20
    with requests.Session() as session, Watchdog(seconds) as watchdog:
        session.auth = _no_credentials
        session.mount("http://", WatchedAdapter())
        session.mount("https://", WatchedAdapter())
        try:
            with session.get(
                url, stream=True, timeout=timeout, headers={"User-Agent": user_agent}
            ) as response:
                if response.status_code >= 400:
                    raise GitHubError(f"{what} failed: HTTP {response.status_code}")
                declared = str(response.headers.get("Content-Length", "")).strip()
                if declared.isdigit() and int(declared) > max_bytes:
                    raise GitHubError(
                        f"{what} failed: it declares {declared} bytes, more than the "
                        f"{max_bytes} allowed"
                    )
                for chunk in response.iter_content(_CHUNK):
                    body += chunk
                    if len(body) > max_bytes:
                        raise GitHubError(
                            f"{what} failed: it holds more than the {max_bytes} bytes allowed; "
                            "stopped reading"
                        )
        except requests.RequestException as exc:
            from changelog_tools.github.retry import failure_kind, timed_out

            if watchdog.fired:
                raise GitHubError(f"{what} failed: not complete within {seconds:g}s") from None
            why = "timed out" if timed_out(exc) else f"the connection failed ({failure_kind(exc)})"
            raise GitHubError(f"{what} failed: {why}") from None
        except ValueError:
            # not a RequestException: requests lets urllib.parse's ValueError out when the
            # storage server redirects to a malformed URL ("http://[bad", a port over 65535)
            raise GitHubError(f"{what} failed: it was redirected to a malformed URL") from None
        if watchdog.fired:  # a shut socket can read as a clean end of a body of no stated length
            raise GitHubError(f"{what} failed: not complete within {seconds:g}s")
    return bytes(body)
