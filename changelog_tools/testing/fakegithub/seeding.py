"""What a test (or a state file) sets up in the fake GitHub: pull requests, comments, runs,
checks, statuses, reviews, teams and permissions, and edits made as in the web UI."""

from __future__ import annotations

from typing import Any

from changelog_tools.testing.fakegithub.objects import FakeObjects
from changelog_tools.testing.fakegithub.state import (
    FakeArtifact,
    FakeCheckRun,
    FakeCheckSuite,
    FakeComment,
    FakeCommit,
    FakeJob,
    FakePull,
    FakeReview,
    FakeReviewComment,
    FakeRun,
    FakeStatus,
    FakeWorkflow,
    _record,
    fake_sha,
)


class FakeSeeding(FakeObjects):
    """The calls that add objects to the fake, or edit them, outside any request."""

    def add_pull(self, number: int, head_ref: str, **fields: Any) -> FakePull:
        pull = FakePull(number, head_ref, **fields)
        with self._lock:
            self.pulls[number] = pull
        return pull

    def add_comment(
        self, issue: int, body: str, login: str | None = "alice", association: str = "MEMBER"
    ) -> FakeComment:
        when = self.now()
        comment = FakeComment(
            self.next_id(), issue, body, when, when, login=login, association=association
        )
        with self._lock:
            self.comments[comment.id] = comment
        return comment

    def add_workflow(
        self, file: str, name: str = "", workflow_id: int | None = None
    ) -> FakeWorkflow:
        wf = FakeWorkflow(workflow_id or self.next_id(), file, name or file)
        with self._lock:
            self.workflows[file] = wf
        return wf

    def add_run(
        self,
        workflow: str,
        head_sha: str,
        *,
        artifacts: list[str | tuple[str, bool]] | None = None,
        artifact_files: dict[str, dict[str, str]] | None = None,
        jobs: list[tuple[str, str | None]] | None = None,
        **fields: Any,
    ) -> FakeRun:
        """Add a run; ``artifacts`` are names, or (name, expired) pairs; ``artifact_files``
        maps an artifact name to its zip members; ``jobs`` are (name, conclusion) pairs, each
        also a check run of the github-actions app on ``head_sha``, as on GitHub."""
        if workflow not in self.workflows:
            self.add_workflow(workflow)
        run_id = fields.pop("id", None) or self.next_id()
        fields.setdefault("created_at", self.now())
        fields.setdefault("run_number", len(self.runs) + 1)
        run = FakeRun(run_id, workflow, head_sha, **fields)
        for item in artifacts or []:
            name, expired = (item, False) if isinstance(item, str) else item
            files = (artifact_files or {}).get(name)
            run.artifacts.append(FakeArtifact(self.next_id(), name, expired, files=files))
        for name, files in (artifact_files or {}).items():
            if not any(a.name == name for a in run.artifacts):
                run.artifacts.append(FakeArtifact(self.next_id(), name, files=files))
        for job_name, conclusion in jobs or []:
            status = "completed" if conclusion is not None else "in_progress"
            run.jobs.append(FakeJob(self.next_id(), job_name, status, conclusion))
            self.add_check_run(head_sha, job_name, status=status, conclusion=conclusion)
        with self._lock:
            self.runs[run_id] = run
        return run

    def add_check_run(self, head_sha: str, name: str, **fields: Any) -> FakeCheckRun:
        fields.setdefault("started_at", self.now())
        check = FakeCheckRun(self.next_id(), head_sha, name, **fields)
        with self._lock:
            self.check_runs.append(check)
        return check

    def add_status(
        self, sha: str, state: str, context: str = "default", **fields: Any
    ) -> FakeStatus:
        status = FakeStatus(self.next_id(), sha, state, context, created_at=self.now(), **fields)
        with self._lock:
            self.statuses.append(status)
        return status

    def add_review(self, pull: int, **fields: Any) -> FakeReview:
        fields.setdefault("submitted_at", self.now())
        review = FakeReview(self.next_id(), pull, **fields)
        with self._lock:
            self.reviews.append(review)
        return review

    def add_review_comment(self, pull: int, body: str, **fields: Any) -> FakeReviewComment:
        when = self.now()
        fields.setdefault("created_at", when)
        fields.setdefault("updated_at", fields["created_at"])
        comment = FakeReviewComment(self.next_id(), pull, body, **fields)
        with self._lock:
            self.review_comments.append(comment)
        return comment

    def edit_comment(self, comment_id: int, body: str, *, editor: str | None = None) -> FakeComment:
        """Edit a conversation comment as ``editor`` (default: its author), like the web UI."""
        with self._lock:
            comment = self.comments[comment_id]
            comment.body = body
            comment.updated_at = self.now()
            comment.edited(editor or comment.login, comment.updated_at)
        return comment

    def edit_review(self, review_id: int, body: str, *, editor: str | None = None) -> FakeReview:
        """Edit a review's body as ``editor`` (default: its author); REST shows no edit time."""
        with self._lock:
            review = next(r for r in self.reviews if r.id == review_id)
            review.body = body
            review.edited(editor or review.login, self.now())
        return review

    def edit_review_comment(
        self, comment_id: int, body: str, *, editor: str | None = None
    ) -> FakeReviewComment:
        """Edit a review comment as ``editor`` (default: its author), like the web UI."""
        with self._lock:
            comment = next(c for c in self.review_comments if c.id == comment_id)
            comment.body = body
            comment.updated_at = self.now()
            comment.edited(editor or comment.login, comment.updated_at)
        return comment

    def add_force_push(self, pull: int, *, before: str, after: str, actor: str = "contrib") -> None:
        """A `head_ref_force_pushed` event on PR ``pull``'s timeline (the push itself is git's)."""
        event_id = self.next_id()
        event = {
            "id": event_id,
            "node_id": f"HRFPE_{event_id}",
            "url": self.api(f"/repos/{self.repository}/issues/events/{event_id}"),
            "event": "head_ref_force_pushed",
            "actor": self.user_json(actor),
            "created_at": self.now(),
            "commit_id": None,  # GitHub names neither commit in the REST timeline
            "commit_url": None,
            "performed_via_github_app": None,
            "before": before,  # kept for tests; not served
            "after": after,
        }
        with self._lock:
            self.timeline.setdefault(pull, []).append(event)

    def add_check_suite(
        self, head_sha: str, app: str = "github-actions", **fields: Any
    ) -> FakeCheckSuite:
        fields.setdefault("created_at", self.now())
        suite = FakeCheckSuite(self.next_id(), head_sha, app, **fields)
        with self._lock:
            self.check_suites.append(suite)
        return suite

    def add_team(self, team: str, members: list[str]) -> None:
        """Team ``org/slug`` with these active members."""
        with self._lock:
            self.teams[team.lower()] = {m.lower() for m in members}

    def set_permission(self, login: str, permission: str) -> None:
        with self._lock:
            self.permissions[login.lower()] = permission

    def add_foreign_pull(self, repository: str, number: int, **fields: Any) -> FakePull:
        """A pull request of another repository (read-only: ``GET /repos/OTHER/pulls/N``)."""
        fields.setdefault("head_sha", fake_sha(repository, number))
        fields.setdefault("base_sha", fake_sha(repository, "base"))
        pull = FakePull(number, fields.pop("head_ref", f"topic-{number}"), **fields)
        with self._lock:
            self.foreign_pulls.setdefault(repository.lower(), {})[number] = pull
        return pull

    def load(self, state: dict[str, Any]) -> None:
        """Add what a state file holds (the ``--state`` format; see docs/github.md), taking
        each key it knows out of ``state``; a key left over is an error."""
        self._continue_after(state)
        for item in state.pop("pulls", []):
            item = dict(item)
            commits = [_record(FakeCommit, c, "commit") for c in item.pop("commits", [])]
            pull = _record(FakePull, item, "pull")
            pull.commits = commits
            self.pulls[pull.number] = pull
        for item in state.pop("comments", []):
            comment = self._loaded(FakeComment, item, "comment", "created_at", "updated_at")
            self.comments[comment.id] = comment
        for item in state.pop("workflows", []):
            wf = self._loaded(FakeWorkflow, item, "workflow")
            self.workflows[wf.file] = wf
        for item in state.pop("runs", []):
            item = dict(item)
            artifacts = [
                self._loaded(FakeArtifact, a, "artifact") for a in item.pop("artifacts", [])
            ]
            jobs = [self._loaded(FakeJob, j, "job") for j in item.pop("jobs", [])]
            if item.get("workflow") not in self.workflows:
                self.add_workflow(str(item.get("workflow")))
            run = self._loaded(FakeRun, item, "run", "created_at")
            run.artifacts = artifacts
            run.jobs = jobs
            self.runs[run.id] = run
        for item in state.pop("check_runs", []):
            self.check_runs.append(self._loaded(FakeCheckRun, item, "check run", "started_at"))
        for item in state.pop("statuses", []):
            self.statuses.append(self._loaded(FakeStatus, item, "status", "created_at"))
        self.commit_pulls.update(state.pop("commit_pulls", {}))
        self._load_signoff_parts(state)
        if state:
            raise ValueError(f"unknown state keys: {', '.join(sorted(state))}")

    def _load_signoff_parts(self, state: dict[str, Any]) -> None:
        """The sign-off parts of a state file: reviews, review comments, teams, permissions,
        check suites, other repositories' pull requests, and run jobs and artifact files."""
        for key in ("teams", "permissions", "foreign_pulls", "jobs"):
            if not isinstance(state.get(key, {}), dict):
                raise ValueError(f"{key}: expected an object")
        for item in state.pop("reviews", []):
            self.reviews.append(self._loaded(FakeReview, item, "review", "submitted_at"))
        for item in state.pop("review_comments", []):
            self.review_comments.append(
                self._loaded(FakeReviewComment, item, "review comment", "created_at", "updated_at")
            )
        for item in state.pop("check_suites", []):
            self.check_suites.append(
                self._loaded(FakeCheckSuite, item, "check suite", "created_at")
            )
        for team, members in state.pop("teams", {}).items():
            self.add_team(team, list(members))
        for login, permission in state.pop("permissions", {}).items():
            self.set_permission(login, str(permission))
        for repo, pulls in state.pop("foreign_pulls", {}).items():
            for item in pulls:
                self.add_foreign_pull(repo, **item)
        for run_id, jobs in state.pop("jobs", {}).items():
            run = self.runs[int(run_id)]
            for job in jobs:
                run.jobs.append(self._loaded(FakeJob, job, "job"))

    def _loaded(self, cls: type[Any], item: Any, what: str, *stamped: str) -> Any:
        """``item`` of a state file as a ``cls`` record: a fresh id and, in each ``stamped``
        field it leaves out, one tick of the fake's clock, unless it sets them itself."""
        defaults: dict[str, Any] = {"id": self.next_id()}
        if stamped:
            defaults.update(dict.fromkeys(stamped, self.now()))
        return _record(cls, {**defaults, **item}, what)
