"""What the reuse gate reads: its policy (from the configuration), the triggering event, and the
GitHub calls it may make."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from changelog_tools.github.adapter import (
    Artifact,
    Comment,
    PullCommit,
    PullRequest,
    WorkflowRun,
)

if TYPE_CHECKING:
    from changelog_tools.config import Config

PINNED_CONCLUSIONS = ("success", "failure", "cancelled")


def short(sha: str | None) -> str:
    return (sha or "?")[:7]


# ----------------------------------------------------------------------------------------------
# inputs


@dataclass(frozen=True, slots=True)
class Policy:
    """The configuration the rules read."""

    command: str = "/reuse-sweep-run"
    allowed_associations: tuple[str, ...] = ("OWNER", "MEMBER", "COLLABORATOR")
    sweep_labels: tuple[str, ...] = ()
    full_sweep_labels: tuple[str, ...] = ()
    incompatible_labels: tuple[str, ...] = ()
    workflow: str = "run-sweep.yml"
    result_artifacts: tuple[str, ...] = ()
    main_branch: str = "main"

    @classmethod
    def from_config(cls, config: Config, *, workflow: str | None = None) -> Policy:
        return cls(
            command=config.reuse_command,
            allowed_associations=tuple(config.reuse_allowed_associations),
            sweep_labels=tuple(config.sweep_labels),
            full_sweep_labels=tuple(config.full_sweep_labels),
            incompatible_labels=tuple(config.reuse_incompatible_labels),
            workflow=workflow or config.sweep_workflow,
            result_artifacts=tuple(config.result_artifacts),
            main_branch=config.main_branch,
        )

    @property
    def workflow_path(self) -> str:
        return f".github/workflows/{self.workflow}"


@dataclass(frozen=True, slots=True)
class Event:
    """What triggered the workflow (from flags or the GitHub Actions environment)."""

    name: str
    action: str | None = None
    pr_number: int | None = None
    sha: str | None = None
    ref: str | None = None
    before: str | None = None


class GateAPI(Protocol):
    """The GitHub calls the gate makes (the adapter in changelog_tools.github.adapter has them)."""

    def pulls_for_commit(self, sha: str) -> tuple[PullRequest, ...]: ...

    def list_issue_comments(self, number: int) -> tuple[Comment, ...]: ...

    def list_pull_commits(self, number: int) -> tuple[PullCommit, ...]: ...

    def iter_workflow_runs(
        self,
        workflow: str | int,
        *,
        event: str | None = None,
        branch: str | None = None,
        status: str | None = None,
        head_sha: str | None = None,
    ) -> Iterator[WorkflowRun]: ...

    def get_workflow_run(self, run_id: int) -> WorkflowRun: ...

    def list_run_artifacts(self, run_id: int) -> tuple[Artifact, ...]: ...


# (pull request, source run) -> offending paths / descriptions; empty means no drift
DriftCheck = Callable[[PullRequest, WorkflowRun], Sequence[str]]
