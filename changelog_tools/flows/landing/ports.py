"""What the merge flow needs from outside: the GitHub calls and the reuse rules it asks.

Narrow protocols, so tests can drive every step and the flow never depends on more of the
adapter than it uses.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from changelog_tools.flows.landing.plan import SourceRun
from changelog_tools.github.adapter import (
    CheckRun,
    CombinedStatus,
    Comment,
    MergeResult,
    PullRequest,
)
from changelog_tools.reuse.gate import Authorization

# Progress: say(step, message) prints "[step] message" on stderr.
Say = Callable[[str, str], None]


class MergeGitHub(Protocol):
    """The part of :class:`changelog_tools.github.adapter.GitHub` the flow uses."""

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


class ReusePort(Protocol):
    """Reuse rules shared with `reuse-gate` (authorization parsing, source choice, drift)."""

    def authorization(self, comments: Sequence[Comment]) -> Authorization | None: ...

    def choose_source(
        self, pull: PullRequest, *, candidate: str, main_sha: str, run_id: int | None
    ) -> SourceRun:
        """The eligible source run (pinned ``run_id`` or the latest); DataError when none."""
        ...
