"""The GitHub failures the rest of the tool may want to tell apart.

All are :class:`~changelog_tools.errors.GitHubError` (exit 3); callers catch a subclass only
where they have something better to do than fail: a 404 that means "no" (a team membership), a
merge GitHub refused, a write whose outcome is unknown (re-read before trying again).
"""

from __future__ import annotations

from changelog_tools.errors import GitHubError


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


class GaveUp(Exception):
    """The retry policy stopped trying; the requester turns this into a GitHubError that names
    the request (``reason`` follows "GitHub API VERB PATH")."""

    def __init__(self, reason: str, *, hint: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.hint = hint
