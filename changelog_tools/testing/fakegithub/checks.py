"""Commit statuses (list, combined, create), check runs and check suites."""

from __future__ import annotations

from typing import Any

from changelog_tools.testing.fakegithub.server import _R, FakeServer, route
from changelog_tools.testing.fakegithub.state import (
    FakeCheckRun,
    FakeCheckSuite,
    FakeStatus,
    Request,
    Response,
    _error,
    stamp,
)


class CheckRoutes(FakeServer):
    """Commit statuses (list, combined, create), check runs and check suites."""

    def check_run_json(self, c: FakeCheckRun) -> dict[str, Any]:
        full = self.repository
        return self.example(
            "check_run",
            id=c.id,
            node_id=f"CR_{c.id}",
            name=c.name,
            status=c.status,
            conclusion=c.conclusion,
            head_sha=c.head_sha,
            started_at=c.started_at,
            completed_at=c.completed_at,
            url=self.api(f"/repos/{full}/check-runs/{c.id}"),
            html_url=self.html(f"/runs/{c.id}"),
            details_url=self.html(f"/runs/{c.id}"),
            app={"slug": c.app, "name": c.app},
            pull_requests=[],
        )

    def status_json(self, s: FakeStatus) -> dict[str, Any]:
        return self.example(
            "status",
            id=s.id,
            node_id=f"S_{s.id}",
            state=s.state,
            context=s.context,
            description=s.description,
            target_url=s.target_url,
            created_at=s.created_at,
            updated_at=s.created_at,
            url=self.api(f"/repos/{self.repository}/statuses/{s.sha}"),
            creator=self.user_json(self.actor),
        )

    @route("GET", _R + r"/commits/(?P<sha>[^/]+)/check-runs")
    def _check_runs(self, request: Request, sha: str) -> Response:
        name = request.query.get("check_name")
        status = request.query.get("status")
        items = [
            self.check_run_json(c)
            for c in sorted(self.check_runs, key=lambda c: -c.id)
            if c.head_sha == sha
            and (name is None or c.name == name)
            and (status is None or c.status == status)
        ]
        return self._page(request, items, "check_runs")

    def _suites_of(self, sha: str) -> list[FakeCheckSuite]:
        """Explicit suites plus one per app that has check runs on ``sha`` (as GitHub makes)."""
        suites = [s for s in self.check_suites if s.head_sha == sha]
        apps = {s.app for s in suites}
        for check in sorted(self.check_runs, key=lambda c: c.id):
            if check.head_sha == sha and check.app not in apps:
                apps.add(check.app)
                suites.append(
                    FakeCheckSuite(
                        check.id + 500_000,
                        sha,
                        check.app,
                        check.started_at or stamp(0),
                        check.status,
                        check.conclusion,
                    )
                )
        return suites

    @route("GET", _R + r"/commits/(?P<sha>[^/]+)/check-suites")
    def _check_suites(self, request: Request, sha: str) -> Response:
        items = [
            self.example(
                "check_suite",
                id=s.id,
                node_id=f"CS_{s.id}",
                head_sha=s.head_sha,
                status=s.status,
                conclusion=s.conclusion,
                created_at=s.created_at,
                updated_at=s.created_at,
                app={"slug": s.app, "name": s.app},
                url=self.api(f"/repos/{self.repository}/check-suites/{s.id}"),
                check_runs_url=self.api(f"/repos/{self.repository}/check-suites/{s.id}/check-runs"),
                pull_requests=[],
                repository=self._repo_json(self.repository),
            )
            for s in self._suites_of(sha)
        ]
        return self._page(request, items, "check_suites")

    def _statuses_of(self, sha: str) -> list[FakeStatus]:
        return sorted((s for s in self.statuses if s.sha == sha), key=lambda s: -s.id)

    @route("GET", _R + r"/commits/(?P<sha>[^/]+)/statuses")
    def _list_statuses(self, request: Request, sha: str) -> Response:
        return self._page(request, [self.status_json(s) for s in self._statuses_of(sha)])

    @route("GET", _R + r"/commits/(?P<sha>[^/]+)/status")
    def _combined_status(self, request: Request, sha: str) -> Response:
        latest: dict[str, FakeStatus] = {}
        for s in self._statuses_of(sha):  # newest first: keep the first per context
            latest.setdefault(s.context, s)
        states = {s.state for s in latest.values()}
        # GitHub's order: any failure or error wins over pending
        if states & {"failure", "error"}:
            state = "failure"
        elif not latest or "pending" in states:
            state = "pending"
        else:
            state = "success"
        response = self._page(request, [self.status_json(s) for s in latest.values()], "statuses")
        api = self.api(f"/repos/{self.repository}/commits/{sha}")
        body = self.example(
            "combined_status",
            state=state,
            sha=sha,
            total_count=len(latest),
            statuses=response.body["statuses"],
            commit_url=api,
            url=f"{api}/status",
            repository=self._repo_json(self.repository),
        )
        return Response(200, body)  # paged by number: GitHub documents no Link header here

    @route("POST", _R + r"/statuses/(?P<sha>[0-9a-f]{40})")
    def _create_status(self, request: Request, sha: str) -> Response:
        body = request.body if isinstance(request.body, dict) else {}
        if body.get("state") not in ("error", "failure", "pending", "success"):
            return _error(422, "state must be error, failure, pending or success")
        status = self.add_status(
            sha,
            body["state"],
            body.get("context") or "default",
            description=body.get("description"),
            target_url=body.get("target_url"),
        )
        return Response(201, self.status_json(status))
