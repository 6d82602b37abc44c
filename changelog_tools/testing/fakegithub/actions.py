"""Actions: workflows, runs, jobs, artifacts and the storage their zips are served from."""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any

from changelog_tools.testing.fakegithub.server import _R, FakeServer, route
from changelog_tools.testing.fakegithub.state import (
    FakeArtifact,
    FakeRun,
    FakeWorkflow,
    Request,
    Response,
    _error,
    _not_found,
)


class ActionRoutes(FakeServer):
    """Actions: workflows, runs, jobs, artifacts and the storage their zips are served from."""

    def workflow_json(self, wf: FakeWorkflow) -> dict[str, Any]:
        return self.example(
            "workflow",
            id=wf.id,
            node_id=f"W_{wf.id}",
            name=wf.name or wf.file,
            path=wf.path or f".github/workflows/{wf.file}",
            state=wf.state,
            url=self.api(f"/repos/{self.repository}/actions/workflows/{wf.id}"),
            html_url=self.html(f"/actions/workflows/{wf.file}"),
        )

    def run_json(self, run: FakeRun) -> dict[str, Any]:
        full = self.repository
        wf = self.workflows.get(run.workflow)
        path = run.path or (wf.path if wf and wf.path else f".github/workflows/{run.workflow}")
        url = self.api(f"/repos/{full}/actions/runs/{run.id}")
        return self.example(
            "run",
            id=run.id,
            node_id=f"WFR_{run.id}",
            name=(wf.name if wf else "") or run.workflow,
            display_title=(wf.name if wf else "") or run.workflow,
            path=path,
            event=run.event,
            status=run.status,
            conclusion=run.conclusion,
            head_sha=run.head_sha,
            head_branch=run.head_branch,
            run_attempt=run.run_attempt,
            run_number=run.run_number,
            created_at=run.created_at,
            updated_at=run.created_at,
            run_started_at=run.created_at,
            workflow_id=wf.id if wf else 0,
            url=url,
            html_url=self.html(f"/actions/runs/{run.id}"),
            artifacts_url=f"{url}/artifacts",
            jobs_url=f"{url}/jobs",
            logs_url=f"{url}/logs",
            cancel_url=f"{url}/cancel",
            rerun_url=f"{url}/rerun",
            check_suite_url=self.api(f"/repos/{full}/check-suites/{run.id + 500_000}"),
            workflow_url=self.api(f"/repos/{full}/actions/workflows/{wf.id if wf else 0}"),
            pull_requests=[],
            head_commit={"id": run.head_sha},
            repository=self._repo_json(full),
            head_repository=self._repo_json(full),
        )

    def artifact_json(self, a: FakeArtifact) -> dict[str, Any]:
        full = self.repository
        return self.example(
            "artifact",
            id=a.id,
            node_id=f"A_{a.id}",
            name=a.name,
            expired=a.expired,
            size_in_bytes=a.size_in_bytes,
            url=self.api(f"/repos/{full}/actions/artifacts/{a.id}"),
            archive_download_url=self.api(f"/repos/{full}/actions/artifacts/{a.id}/zip"),
        )

    @route("GET", _R + r"/actions/workflows/(?P<ref>[^/]+)")
    def _get_workflow(self, request: Request, ref: str) -> Response:
        wf = self._workflow(ref)
        return Response(200, self.workflow_json(wf)) if wf else _not_found()

    def _runs(self, request: Request, runs: list[FakeRun]) -> Response:
        q = request.query

        def keep(run: FakeRun) -> bool:
            status = q.get("status")
            return (
                (not q.get("event") or run.event == q["event"])
                and (not q.get("branch") or run.head_branch == q["branch"])
                and (not q.get("head_sha") or run.head_sha == q["head_sha"])
                and (not status or status in (run.status, run.conclusion))
            )

        newest_first = sorted(runs, key=lambda r: (r.created_at, r.id), reverse=True)
        items = [self.run_json(r) for r in newest_first if keep(r)]
        return self._page(request, items, "workflow_runs")

    @route("GET", _R + r"/actions/workflows/(?P<ref>[^/]+)/runs")
    def _workflow_runs(self, request: Request, ref: str) -> Response:
        wf = self._workflow(ref)
        if wf is None:
            return _not_found()
        return self._runs(request, [r for r in self.runs.values() if r.workflow == wf.file])

    @route("GET", _R + r"/actions/runs")
    def _repo_runs(self, request: Request) -> Response:
        return self._runs(request, list(self.runs.values()))

    @route("GET", _R + r"/actions/runs/(?P<run_id>\d+)")
    def _get_run(self, request: Request, run_id: str) -> Response:
        run = self.runs.get(int(run_id))
        return Response(200, self.run_json(run)) if run else _not_found()

    @route("GET", _R + r"/actions/runs/(?P<run_id>\d+)/artifacts")
    def _run_artifacts(self, request: Request, run_id: str) -> Response:
        run = self.runs.get(int(run_id))
        if run is None:
            return _not_found()
        name = request.query.get("name")
        items = [self.artifact_json(a) for a in run.artifacts if name is None or a.name == name]
        return self._page(request, items, "artifacts")

    @route("GET", _R + r"/actions/runs/(?P<run_id>\d+)/jobs")
    def _run_jobs(self, request: Request, run_id: str) -> Response:
        run = self.runs.get(int(run_id))
        if run is None:
            return _not_found()
        items = [
            self.example(
                "job",
                id=j.id,
                node_id=f"J_{j.id}",
                run_id=run.id,
                run_url=self.api(f"/repos/{self.repository}/actions/runs/{run.id}"),
                run_attempt=run.run_attempt,
                name=j.name,
                status=j.status,
                conclusion=j.conclusion,
                head_sha=run.head_sha,
                head_branch=run.head_branch,
                workflow_name=(
                    self.workflows[run.workflow].name
                    if run.workflow in self.workflows
                    else run.workflow
                ),
                url=self.api(f"/repos/{self.repository}/actions/jobs/{j.id}"),
                html_url=self.html(f"/actions/runs/{run.id}/job/{j.id}"),
                check_run_url=self.api(f"/repos/{self.repository}/check-runs/{j.id}"),
                created_at=run.created_at,
                started_at=run.created_at,
                completed_at=None if j.conclusion is None else run.created_at,
                steps=[],
            )
            for j in run.jobs
        ]
        return self._page(request, items, "jobs")

    def _artifact(self, artifact_id: int) -> FakeArtifact | None:
        for run in self.runs.values():
            for a in run.artifacts:
                if a.id == artifact_id:
                    return a
        return None

    @route("GET", _R + r"/actions/artifacts/(?P<aid>\d+)/zip")
    def _artifact_zip(self, request: Request, aid: str) -> Response:
        artifact = self._artifact(int(aid))
        if artifact is None:
            return _not_found()
        if artifact.expired:
            return _error(410, "Artifact has expired")
        # GitHub answers 302 to a short-lived signed URL of its blob storage
        return Response(302, None, {"Location": f"{self.root_url}/_blobs/artifact-{aid}.zip"})

    def _blob(self, request: Request) -> Response:
        match = re.fullmatch(r"/_blobs/artifact-(\d+)\.zip", request.path)
        artifact = self._artifact(int(match.group(1))) if match else None
        if artifact is None:
            return _not_found()
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            for name, text in (artifact.files or {}).items():
                archive.writestr(name, text)
        return Response(200, raw=buffer.getvalue())
