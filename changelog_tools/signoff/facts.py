"""What the sign-off checks know about a pull request: its facts, each read once.

The checks never see the GitHub adapter or git: they ask a :class:`PullFacts`. The live
implementation, :class:`LiveFacts`, reads a fact the first time a check asks for it and keeps the
answer, so one run reads each fact at most once and only the facts its verdict needs (a PR with
no fresh sign-off never reads a permission; a run with no sweep never lists artifacts). That is
why the facts are a lazy, memoised object rather than one value built up front: building every
fact eagerly would add requests to each run. Tests hand the checks an in-memory
:class:`MemoryFacts` instead, so a rule's test needs neither a server nor a repository.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Protocol, TypeVar

from changelog_tools.errors import GitError, GitHubError
from changelog_tools.github.records import (
    Artifact,
    CommitStatus,
    Edit,
    Job,
    PullCommit,
    PullFile,
    PullRequest,
    Remark,
    WorkflowRun,
)

if TYPE_CHECKING:
    from changelog_tools.github.adapter import GitHub
    from changelog_tools.gitrepo import GitRepo
    from changelog_tools.lint.tree import TreeView

# Where the PR's head is fetched to be read as data: outside refs/heads and refs/remotes, so
# nothing shows it as a branch, and deleted at the end of every run.
PRIVATE_REF = "refs/changelog-tools/signoff/pr-{n}"
_T = TypeVar("_T")


class PullFacts(Protocol):
    """The questions the checks ask about one pull request (see the module docstring)."""

    @property
    def pr(self) -> PullRequest: ...

    @property
    def repository(self) -> str: ...

    def files(self) -> tuple[PullFile, ...]: ...

    def commits(self) -> tuple[PullCommit, ...]: ...

    def remarks(self) -> tuple[Remark, ...]:
        """Conversation comments, reviews and review comments."""
        ...

    def head_statuses(self) -> tuple[CommitStatus, ...]:
        """Every commit status ever set on the PR's head."""
        ...

    def force_push_times(self) -> tuple[datetime, ...]: ...

    def edits(self, node_ids: tuple[str, ...]) -> Mapping[str, Edit]:
        """Who last edited each of these comments or reviews, and when."""
        ...

    def permission(self, login: str) -> str:
        """The login's permission on the repository (``admin`` … ``none``)."""
        ...

    def is_team_member(self, team: str, login: str) -> bool:
        """Raises :class:`GitHubError` when the membership cannot be read."""
        ...

    def workflow_run(self, run_id: int) -> WorkflowRun | None:
        """The run, or None when it does not exist."""
        ...

    def pull_request_runs(self, workflow: str) -> Iterable[WorkflowRun]:
        """Completed ``pull_request`` runs of ``workflow`` on the PR's branch, newest first."""
        ...

    def run_jobs(self, run_id: int) -> tuple[Job, ...]: ...

    def run_artifacts(self, run_id: int) -> tuple[Artifact, ...]: ...

    def artifact_bytes(self, artifact_id: int, *, max_bytes: int) -> bytes: ...

    def foreign_pull(self, repository: str, number: int) -> PullRequest | None:
        """A pull request of another repository, or None when it does not exist."""
        ...

    def trees(self) -> tuple[TreeView, TreeView]:
        """The PR head's files and the merge-base's, as data; raises :class:`GitError`."""
        ...


@dataclass
class LiveFacts:
    """:class:`PullFacts` read through the GitHub adapter and the trusted checkout."""

    gh: GitHub
    repo: GitRepo
    remote: str
    trusted_sha: str
    pr: PullRequest
    log: Callable[[str], None]
    _memo: dict[object, object] = field(default_factory=dict, repr=False)

    @property
    def repository(self) -> str:
        return self.gh.repository

    def _once(self, key: object, read: Callable[[], _T]) -> _T:
        if key not in self._memo:
            self._memo[key] = read()
        return self._memo[key]  # type: ignore[return-value]

    def files(self) -> tuple[PullFile, ...]:
        return self._once("files", lambda: self.gh.list_pull_files(self.pr.number))

    def commits(self) -> tuple[PullCommit, ...]:
        return self._once("commits", lambda: self.gh.list_pull_commits(self.pr.number))

    def remarks(self) -> tuple[Remark, ...]:
        return self._once("remarks", lambda: self.gh.list_remarks(self.pr.number))

    def head_statuses(self) -> tuple[CommitStatus, ...]:
        return self._once("statuses", lambda: self.gh.list_commit_statuses(self.pr.head_sha))

    def force_push_times(self) -> tuple[datetime, ...]:
        return self._once("pushes", lambda: self.gh.force_push_times(self.pr.number))

    def edits(self, node_ids: tuple[str, ...]) -> Mapping[str, Edit]:
        if not node_ids:
            return {}
        return self._once(("edits", node_ids), lambda: self.gh.comment_edits(list(node_ids)))

    def permission(self, login: str) -> str:
        return self._once(("permission", login), lambda: self.gh.collaborator_permission(login))

    def is_team_member(self, team: str, login: str) -> bool:
        return self.gh.is_team_member(team, login)  # coverage.Owners keeps the answers

    def workflow_run(self, run_id: int) -> WorkflowRun | None:
        from changelog_tools.github.adapter import NotFoundError

        def read() -> WorkflowRun | None:
            try:
                return self.gh.get_workflow_run(run_id)
            except NotFoundError:
                return None

        return self._once(("run", run_id), read)

    def pull_request_runs(self, workflow: str) -> Iterable[WorkflowRun]:
        # A generator, not memoised: the sweep check stops at the first good run, and only
        # the pages it reads are requested.
        return self.gh.iter_workflow_runs(
            workflow, event="pull_request", branch=self.pr.head_ref, status="completed"
        )

    def run_jobs(self, run_id: int) -> tuple[Job, ...]:
        return self._once(("jobs", run_id), lambda: self.gh.list_run_jobs(run_id))

    def run_artifacts(self, run_id: int) -> tuple[Artifact, ...]:
        return self._once(("artifacts", run_id), lambda: self.gh.list_run_artifacts(run_id))

    def artifact_bytes(self, artifact_id: int, *, max_bytes: int) -> bytes:
        return self._once(
            ("artifact", artifact_id),
            lambda: self.gh.download_artifact(artifact_id, max_bytes=max_bytes),
        )

    def foreign_pull(self, repository: str, number: int) -> PullRequest | None:
        from changelog_tools.github.adapter import NotFoundError

        def read() -> PullRequest | None:
            try:
                return self.gh.get_foreign_pull(repository, number)
            except NotFoundError:
                return None

        return self._once(("foreign", repository, number), read)

    def trees(self) -> tuple[TreeView, TreeView]:
        return self._once("trees", self._fetch_trees)

    def _fetch_trees(self) -> tuple[TreeView, TreeView]:
        """Fetch the PR head into a private ref; (head tree, merge-base tree), read as data."""
        from changelog_tools.lint.tree import GitTree

        number = self.pr.number
        ref = PRIVATE_REF.format(n=number)
        self.log(f"fetching refs/pull/{number}/head into {ref} (data only, never checked out)")
        self.repo.fetch_private_ref(self.remote, f"refs/pull/{number}/head", ref)
        fetched = self.repo.rev_parse(ref)
        if fetched != self.pr.head_sha:
            raise GitError(
                f"refs/pull/{number}/head is {fetched[:7]} but the PR's head is "
                f"{self.pr.head_sha[:7]}: it moved during verification; run again"
            )
        base = self.repo.merge_base(self.trusted_sha, fetched)
        return GitTree(self.repo, fetched), GitTree(self.repo, base)

    def forget(self) -> None:
        """Delete the private ref: a ref left behind would keep a pull request's objects in
        the trusted checkout for good."""
        with contextlib.suppress(GitError):
            self.repo.delete_ref(PRIVATE_REF.format(n=self.pr.number))


@dataclass
class MemoryFacts:
    """:class:`PullFacts` from plain values, for the checks' tests (no server, no git)."""

    pr: PullRequest
    repository: str = "owner/repo"
    file_list: tuple[PullFile, ...] = ()
    commit_list: tuple[PullCommit, ...] = ()
    remark_list: tuple[Remark, ...] = ()
    statuses: tuple[CommitStatus, ...] = ()
    pushes: tuple[datetime, ...] = ()
    edit_of: Mapping[str, Edit] = field(default_factory=dict)
    permissions: Mapping[str, str] = field(default_factory=dict)
    teams: Mapping[str, frozenset[str]] = field(default_factory=dict)
    runs: tuple[WorkflowRun, ...] = ()
    jobs: Mapping[int, tuple[Job, ...]] = field(default_factory=dict)
    artifacts: Mapping[int, tuple[Artifact, ...]] = field(default_factory=dict)
    artifact_data: Mapping[int, bytes] = field(default_factory=dict)
    foreign: Mapping[tuple[str, int], PullRequest] = field(default_factory=dict)
    head_tree: TreeView | None = None
    base_tree: TreeView | None = None

    def files(self) -> tuple[PullFile, ...]:
        return self.file_list

    def commits(self) -> tuple[PullCommit, ...]:
        return self.commit_list

    def remarks(self) -> tuple[Remark, ...]:
        return self.remark_list

    def head_statuses(self) -> tuple[CommitStatus, ...]:
        return self.statuses

    def force_push_times(self) -> tuple[datetime, ...]:
        return self.pushes

    def edits(self, node_ids: tuple[str, ...]) -> Mapping[str, Edit]:
        return {n: self.edit_of[n] for n in node_ids if n in self.edit_of}

    def permission(self, login: str) -> str:
        return self.permissions.get(login, "none")

    def is_team_member(self, team: str, login: str) -> bool:
        if team not in self.teams:
            raise GitHubError(f"team {team} cannot be read")
        return login.lower() in {m.lower() for m in self.teams[team]}

    def workflow_run(self, run_id: int) -> WorkflowRun | None:
        return next((r for r in self.runs if r.id == run_id), None)

    def pull_request_runs(self, workflow: str) -> Iterable[WorkflowRun]:
        return [
            r
            for r in self.runs
            if r.event == "pull_request"
            and r.status == "completed"
            and r.head_branch == self.pr.head_ref
        ]

    def run_jobs(self, run_id: int) -> tuple[Job, ...]:
        return self.jobs.get(run_id, ())

    def run_artifacts(self, run_id: int) -> tuple[Artifact, ...]:
        return self.artifacts.get(run_id, ())

    def artifact_bytes(self, artifact_id: int, *, max_bytes: int) -> bytes:
        return self.artifact_data[artifact_id][:max_bytes]

    def foreign_pull(self, repository: str, number: int) -> PullRequest | None:
        return self.foreign.get((repository, number))

    def trees(self) -> tuple[TreeView, TreeView]:
        if self.head_tree is None or self.base_tree is None:
            raise GitError("no trees in these facts")
        return self.head_tree, self.base_tree
