"""Git data over REST: one commit (resolved through the git origin when there is one)."""

from __future__ import annotations

from changelog_tools.testing.fakegithub.server import _R, FakeServer, route
from changelog_tools.testing.fakegithub.state import (
    FakeCommit,
    Request,
    Response,
    _error,
)


class CommitRoutes(FakeServer):
    """Git data over REST: one commit (resolved through the git origin when there is one)."""

    @route("GET", _R + r"/commits/(?P<sha>[^/]+)")
    def _get_commit(self, request: Request, sha: str) -> Response:
        resolved = self.git.resolve(sha) if self.git is not None else sha
        if not resolved:
            return _error(422, f"No commit found for SHA: {sha}")
        return Response(200, self.commit_json(FakeCommit(resolved), kind="full_commit"))
