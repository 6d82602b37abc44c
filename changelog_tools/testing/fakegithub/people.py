"""The authenticated user, users, the repository, team memberships, collaborator permissions."""

from __future__ import annotations

from changelog_tools.testing.fakegithub.server import _R, FakeServer, route
from changelog_tools.testing.fakegithub.state import (
    Request,
    Response,
    _not_found,
)


class PeopleRoutes(FakeServer):
    """The authenticated user, users, the repository, team memberships, collaborator permissions."""

    @route("GET", r"/user")
    def _get_user(self, request: Request) -> Response:
        return Response(200, self.example("private_user", **self._user_fields(self.actor)))

    @route("GET", r"/users/(?P<login>[^/]+)")
    def _get_login(self, request: Request, login: str) -> Response:
        return Response(200, self.example("public_user", **self._user_fields(login)))

    @route("GET", _R)
    def _get_repo(self, request: Request) -> Response:
        found = self.example("full_repository", **self._repo_json(self.repository))
        for key in ("parent", "source", "template_repository"):  # the example's: a fork's
            found.pop(key, None)
        return Response(200, found)

    @route("GET", r"/orgs/(?P<org>[^/]+)/teams/(?P<slug>[^/]+)/memberships/(?P<login>[^/]+)")
    def _team_membership(self, request: Request, org: str, slug: str, login: str) -> Response:
        members = self.teams.get(f"{org}/{slug}".lower())
        if members is None or login.lower() not in members:
            return _not_found()  # GitHub answers 404 both for "no such team" and "not a member"
        return Response(
            200,
            self.example(
                "membership",
                url=self.api(f"/orgs/{org}/teams/{slug}/memberships/{login}"),
                role="member",
                state="active",
            ),
        )

    @route("GET", _R + r"/collaborators/(?P<login>[^/]+)/permission")
    def _collaborator_permission(self, request: Request, login: str) -> Response:
        permission = self.permissions.get(login.lower(), "none")
        legacy = {"maintain": "write", "triage": "read"}.get(permission, permission)
        return Response(
            200,
            self.example(
                "permission",
                permission=legacy,
                role_name=permission,
                user={**self._user_fields(login), "role_name": permission},
            ),
        )
