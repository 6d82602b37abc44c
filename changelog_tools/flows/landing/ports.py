"""What the merge flow needs from outside: the GitHub calls and the reuse rules it asks.

Narrow protocols, so tests can drive every step and the flow never depends on more of the
adapter than it uses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Protocol

from changelog_tools.flows.landing.plan import SourceRun
from changelog_tools.github.adapter import (
    Artifact,
    CheckRun,
    CombinedStatus,
    Comment,
    Job,
    MergeResult,
    PullCommit,
    PullFile,
    PullRequest,
    WorkflowRun,
)
from changelog_tools.reuse.gate import Authorization

# Progress: say(step, message) prints "[step] message" on stderr.
Say = Callable[[str, str], None]


class RunsGitHub(Protocol):
    """The Actions calls of waiting for main's push run and judging a run by its jobs."""

    def get_workflow_run(self, run_id: int) -> WorkflowRun: ...
    def list_run_jobs(self, run_id: int) -> tuple[Job, ...]: ...
    def list_run_artifacts(self, run_id: int) -> tuple[Artifact, ...]: ...
    def iter_workflow_runs(
        self, workflow: str | int, *, event: str | None = ..., branch: str | None = ...,
        status: str | None = ..., head_sha: str | None = ...,
    ) -> Iterator[WorkflowRun]: ...  # fmt: skip


class MergeGitHub(RunsGitHub, Protocol):
    """The part of :class:`changelog_tools.github.adapter.GitHub` the merge flow uses (main's
    push run included)."""

    def get_pull(self, number: int) -> PullRequest: ...
    def user_pull(self, number: int) -> PullRequest: ...
    def list_issue_comments(self, number: int) -> tuple[Comment, ...]: ...
    def create_issue_comment(self, number: int, body: str) -> Comment: ...
    def delete_issue_comment(self, comment_id: int) -> None: ...
    def list_check_runs(self, sha: str) -> tuple[CheckRun, ...]: ...
    def get_combined_status(self, sha: str) -> CombinedStatus: ...
    def merge_pull(
        self, number: int, *, sha: str, method: str = ..., title: str | None = ...,
        message: str | None = ...,
    ) -> MergeResult: ...  # fmt: skip


class RecoverGitHub(MergeGitHub, Protocol):
    """The part of the adapter `recover` uses: the landing steps' calls, and finding the lost
    run, its PR and source, and opening and labelling the recovery PR."""

    def list_pull_commits(self, number: int) -> tuple[PullCommit, ...]: ...
    def list_pull_files(self, number: int) -> tuple[PullFile, ...]: ...
    def pulls_for_commit(self, sha: str) -> tuple[PullRequest, ...]: ...
    def pulls_from_branch(self, branch: str, *, state: str = ...) -> tuple[PullRequest, ...]: ...
    def create_pull(self, *, head: str, base: str, title: str, body: str) -> PullRequest: ...
    def add_labels(self, number: int, labels: Sequence[str]) -> None: ...


class ReusePort(Protocol):
    """Reuse rules shared with `reuse-gate` (authorization parsing, source choice, drift)."""

    def authorization(self, comments: Sequence[Comment]) -> Authorization | None: ...

    def choose_source(
        self, pull: PullRequest, *, candidate: str, main_sha: str, run_id: int | None
    ) -> SourceRun:
        """The eligible source run (pinned ``run_id`` or the latest); DataError when none."""
        ...
