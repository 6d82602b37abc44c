"""The GitHub adapter: every call the tool makes to the GitHub REST API goes through here.

It hands the core plain frozen records (:class:`PullRequest`, :class:`Comment`,
:class:`WorkflowRun`, ...), never HTTP-library objects, and turns every failure into
:class:`~changelog_tools.errors.GitHubError` (exit 3) with a one-line reason.

:class:`GitHub` is the facade of endpoints, one method per REST call the tool needs; the parts
under it each have a module of their own and are re-exported here, so callers import from one
place:

- :mod:`~changelog_tools.github.records`: the records and the JSON parsers that build them;
- :mod:`~changelog_tools.github.transport`: retries, rate limits, pagination, the error types;
- :mod:`~changelog_tools.github.client`: the HTTP session (HTTP/1.1 on ``socket``);
- :mod:`~changelog_tools.github.actions_env`: what a GitHub Actions step hands the tool (API
  URL, repository, token) and the step files it writes back.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from changelog_tools.errors import GitHubError
from changelog_tools.github.actions_env import (
    PUBLIC_API_URL,
    append_step_summary,
    read_step_outputs,
    resolve_api_url,
    resolve_repository,
    resolve_token,
    write_step_outputs,
)
from changelog_tools.github.client import open_session
from changelog_tools.github.records import (
    Artifact,
    CheckRun,
    CombinedStatus,
    Comment,
    CommitStatus,
    MergeResult,
    PullCommit,
    PullFile,
    PullRequest,
    Review,
    ReviewComment,
    Workflow,
    WorkflowRun,
    opt_str,
    parse_artifact,
    parse_check_run,
    parse_comment,
    parse_pull,
    parse_pull_commit,
    parse_pull_file,
    parse_review,
    parse_review_comment,
    parse_run,
    parse_status,
    parse_workflow,
    value_of,
)
from changelog_tools.github.reviewing import (
    MAX_PULL_COMMITS,
    MAX_PULL_FILES,
    CheckSuite,
    Edit,
    Job,
    Remark,
    ReviewingEndpoints,
)
from changelog_tools.github.transport import (
    DEFAULT_PAGE_SIZE,
    MAX_RATE_LIMIT_RETRIES,
    SECONDARY_RATE_LIMIT_WAIT,
    AmbiguousWriteError,
    GitHubStatusError,
    MergeRejectedError,
    Mode,
    NotFoundError,
    RetryPolicy,
    Transport,
    next_link,
)

if TYPE_CHECKING:
    from changelog_tools.config import Config

__all__ = [
    "DEFAULT_PAGE_SIZE",
    "MAX_PULL_COMMITS",
    "MAX_PULL_FILES",
    "MAX_RATE_LIMIT_RETRIES",
    "PUBLIC_API_URL",
    "SECONDARY_RATE_LIMIT_WAIT",
    "AmbiguousWriteError",
    "Artifact",
    "CheckRun",
    "CheckSuite",
    "CombinedStatus",
    "Comment",
    "CommitStatus",
    "Edit",
    "GitHub",
    "GitHubStatusError",
    "Job",
    "MergeRejectedError",
    "MergeResult",
    "Mode",
    "NotFoundError",
    "PullCommit",
    "PullFile",
    "PullRequest",
    "Remark",
    "RetryPolicy",
    "Review",
    "ReviewComment",
    "Transport",
    "Workflow",
    "WorkflowRun",
    "append_step_summary",
    "make_github",
    "next_link",
    "parse_artifact",
    "parse_check_run",
    "parse_comment",
    "parse_pull",
    "parse_pull_commit",
    "parse_pull_file",
    "parse_review",
    "parse_review_comment",
    "parse_run",
    "parse_status",
    "parse_workflow",
    "read_step_outputs",
    "resolve_api_url",
    "resolve_repository",
    "resolve_token",
    "write_step_outputs",
]

_EARLIEST = datetime.min.replace(tzinfo=UTC)  # sorts before every (aware) timestamp


class GitHub(ReviewingEndpoints):
    """One repository on one GitHub API endpoint: the REST calls the tool makes, as records."""

    def __init__(self, *, transport: Transport, repository: str) -> None:
        self._t = transport
        self.repository = repository

    def __repr__(self) -> str:  # never shows the token
        return f"GitHub(base_url={self.base_url!r}, repository={self.repository!r})"

    @property
    def base_url(self) -> str:
        return self._t.base_url

    @property
    def policy(self) -> RetryPolicy:
        return self._t.policy

    @property
    def page_size(self) -> int:
        return self._t.page_size

    @property
    def requests(self) -> int:
        """HTTP requests sent so far, retries included."""
        return self._t.requests

    @property
    def rate_limit_waited(self) -> float:
        """Seconds spent waiting out rate limits so far."""
        return self._t.rate_limit_waited

    def _repo_path(self, path: str) -> str:
        return f"/repos/{self.repository}{path}"

    # -- pull requests --------------------------------------------------------------------------

    def get_pull(self, number: int) -> PullRequest:
        path = self._repo_path(f"/pulls/{number}")
        _, data = self._t.request("GET", path)
        pull: PullRequest = self._t.parse(parse_pull, data, path)
        return pull

    def list_pulls(
        self, *, state: str = "open", base: str | None = None, head: str | None = None
    ) -> tuple[PullRequest, ...]:
        params: dict[str, Any] = {"state": state}
        if base:
            params["base"] = base
        if head:
            params["head"] = head
        return self._t.parse_all(parse_pull, self._repo_path("/pulls"), params)

    def list_pull_commits(self, number: int) -> tuple[PullCommit, ...]:
        """The PR's commits, oldest first (GitHub lists at most 250)."""
        return self._t.parse_all(parse_pull_commit, self._repo_path(f"/pulls/{number}/commits"))

    def list_pull_files(self, number: int) -> tuple[PullFile, ...]:
        return self._t.parse_all(parse_pull_file, self._repo_path(f"/pulls/{number}/files"))

    def list_reviews(self, number: int) -> tuple[Review, ...]:
        return self._t.parse_all(parse_review, self._repo_path(f"/pulls/{number}/reviews"))

    def list_review_comments(self, number: int) -> tuple[ReviewComment, ...]:
        return self._t.parse_all(parse_review_comment, self._repo_path(f"/pulls/{number}/comments"))

    def pulls_for_commit(self, sha: str) -> tuple[PullRequest, ...]:
        """Pull requests GitHub associates with commit ``sha`` (merged ones for main commits)."""
        return self._t.parse_all(parse_pull, self._repo_path(f"/commits/{sha}/pulls"))

    def merge_pull(
        self,
        number: int,
        *,
        sha: str,
        method: str = "squash",
        title: str | None = None,
        message: str | None = None,
    ) -> MergeResult:
        """Merge PR ``number`` only if its head is still ``sha``; return the merge commit.

        A merge whose response is lost is not repeated blindly: the PR is re-read, and when it
        is already merged that merge is the result.
        """
        path = self._repo_path(f"/pulls/{number}/merge")
        body: dict[str, Any] = {"merge_method": method, "sha": sha}
        if title is not None:
            body["commit_title"] = title
        if message is not None:
            body["commit_message"] = message
        attempt = 0
        while True:
            try:
                _, data = self._t.request("PUT", path, body=body, mode=Mode.ONCE)
            except AmbiguousWriteError as exc:
                pull = self.get_pull(number)
                if pull.merged and pull.merge_commit_sha:
                    return MergeResult(
                        True, pull.merge_commit_sha, "merged (confirmed by re-reading)"
                    )
                attempt += 1
                if attempt > self.policy.retries or pull.state != "open":
                    raise exc
                self._t.back_off(
                    "PUT", self._t.show(path), "outcome unknown, PR not merged", attempt
                )
                continue
            except GitHubStatusError as exc:
                if exc.status in (405, 409, 422):
                    raise self._t.fail(
                        MergeRejectedError, exc.message, exc.hint, status=exc.status
                    ) from None
                raise
            sha_out = opt_str(data, "sha")
            if not sha_out:
                raise self._t.fail(GitHubError, f"GitHub API PUT {path} returned no merge sha")
            return MergeResult(
                bool(value_of(data, "merged")), sha_out, opt_str(data, "message") or ""
            )

    # -- comments -------------------------------------------------------------------------------

    def list_issue_comments(self, number: int) -> tuple[Comment, ...]:
        return self._t.parse_all(parse_comment, self._repo_path(f"/issues/{number}/comments"))

    def create_issue_comment(self, number: int, body: str) -> Comment:
        """Post a comment once; a lost response raises AmbiguousWriteError (never re-posted)."""
        path = self._repo_path(f"/issues/{number}/comments")
        _, data = self._t.request("POST", path, body={"body": body}, mode=Mode.ONCE)
        comment: Comment = self._t.parse(parse_comment, data, path)
        return comment

    def edit_issue_comment(self, comment_id: int, body: str) -> Comment:
        path = self._repo_path(f"/issues/comments/{comment_id}")
        _, data = self._t.request("PATCH", path, body={"body": body}, mode=Mode.IDEMPOTENT)
        comment: Comment = self._t.parse(parse_comment, data, path)
        return comment

    def delete_issue_comment(self, comment_id: int) -> None:
        """Delete a comment; one that is already gone counts as deleted (safe to repeat)."""
        path = self._repo_path(f"/issues/comments/{comment_id}")
        with contextlib.suppress(NotFoundError):
            self._t.request("DELETE", path, mode=Mode.IDEMPOTENT)

    def upsert_issue_comment(
        self, number: int, body: str, *, marker: str, author: str | None = None
    ) -> Comment:
        """Make sure exactly one comment holding ``marker`` says ``body``; never posts twice.

        Looks for the newest comment containing ``marker`` (by ``author`` when given) first and
        edits it if needed; only when there is none is a comment posted. If the post fails
        without a clear answer, the comments are read again before trying once more.
        """
        attempt = 0
        while True:
            existing = self._find_marked(number, marker, author)
            if existing is not None:
                if existing.body == body:
                    return existing
                return self.edit_issue_comment(existing.id, body)
            try:
                return self.create_issue_comment(number, body)
            except AmbiguousWriteError:
                attempt += 1
                if attempt > self.policy.retries:
                    raise
                self._t.back_off("POST", f"issues/{number}/comments", "outcome unknown", attempt)

    def _find_marked(self, number: int, marker: str, author: str | None) -> Comment | None:
        found = [
            c
            for c in self.list_issue_comments(number)
            if marker in c.body and (author is None or c.author == author)
        ]
        return max(found, key=lambda c: (c.created_at or _EARLIEST, c.id)) if found else None

    # -- commits, checks and statuses -----------------------------------------------------------

    def list_check_runs(
        self, sha: str, *, check_name: str | None = None, status: str | None = None
    ) -> tuple[CheckRun, ...]:
        params: dict[str, Any] = {}
        if check_name:
            params["check_name"] = check_name
        if status:
            params["status"] = status
        return self._t.parse_all(
            parse_check_run, self._repo_path(f"/commits/{sha}/check-runs"), params, key="check_runs"
        )

    def get_combined_status(self, sha: str) -> CombinedStatus:
        """The combined state of ``sha`` and every status it lists (all pages)."""
        path = self._repo_path(f"/commits/{sha}/status")
        state: str | None = None
        statuses: list[CommitStatus] = []
        for data in self._t.pages(path):
            state = state or opt_str(data, "state")
            statuses.extend(
                self._t.parse(parse_status, s, path)
                for s in self._t.page_list(data, "statuses", path)
            )
        return CombinedStatus(sha, state or self._combined_state(statuses), tuple(statuses))

    @staticmethod
    def _combined_state(statuses: list[CommitStatus]) -> str:
        states = {s.state for s in statuses}
        if not statuses:
            return "pending"
        if states & {"failure", "error"}:
            return "failure"
        if "pending" in states:
            return "pending"
        return "success"

    def create_commit_status(
        self,
        sha: str,
        *,
        state: str,
        context: str,
        description: str | None = None,
        target_url: str | None = None,
    ) -> CommitStatus:
        """Set a commit status; repeating it is harmless, so it is retried like a read."""
        body: dict[str, Any] = {"state": state, "context": context}
        if description is not None:
            body["description"] = description[:140]  # GitHub's limit
        if target_url is not None:
            body["target_url"] = target_url
        path = self._repo_path(f"/statuses/{sha}")
        _, data = self._t.request("POST", path, body=body, mode=Mode.IDEMPOTENT)
        status: CommitStatus = self._t.parse(parse_status, data, path)
        return status

    # -- actions --------------------------------------------------------------------------------

    def get_workflow(self, workflow: str | int) -> Workflow:
        path = self._repo_path(f"/actions/workflows/{workflow}")
        _, data = self._t.request("GET", path)
        result: Workflow = self._t.parse(parse_workflow, data, path)
        return result

    def iter_workflow_runs(
        self,
        workflow: str | int,
        *,
        event: str | None = None,
        branch: str | None = None,
        status: str | None = None,
        head_sha: str | None = None,
    ) -> Iterator[WorkflowRun]:
        """Runs of ``workflow``, newest first, fetched page by page only as far as consumed."""
        params: dict[str, Any] = {}
        for name, value in (
            ("event", event),
            ("branch", branch),
            ("status", status),
            ("head_sha", head_sha),
        ):
            if value:
                params[name] = value
        path = self._repo_path(f"/actions/workflows/{workflow}/runs")
        for item in self._t.items(path, params, key="workflow_runs"):
            yield self._t.parse(parse_run, item, path)

    def get_workflow_run(self, run_id: int) -> WorkflowRun:
        path = self._repo_path(f"/actions/runs/{run_id}")
        _, data = self._t.request("GET", path)
        run: WorkflowRun = self._t.parse(parse_run, data, path)
        return run

    def list_run_artifacts(self, run_id: int) -> tuple[Artifact, ...]:
        return self._t.parse_all(
            parse_artifact, self._repo_path(f"/actions/runs/{run_id}/artifacts"), key="artifacts"
        )


# ----------------------------------------------------------------------------------------------
# the factory


def make_github(
    config: Config,
    *,
    env: Mapping[str, str] | None = None,
    repository: str | None = None,
    policy: RetryPolicy | None = None,
    page_size: int = DEFAULT_PAGE_SIZE,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.time,
    log: Callable[[str], None] | None = None,
) -> GitHub:
    """Build the adapter from configuration and the environment (token from GH_TOKEN/GITHUB_TOKEN)."""
    env = os.environ if env is None else env
    base_url = resolve_api_url(config, env)
    repo = resolve_repository(config, env, repository)
    token = resolve_token(env)
    policy = policy or RetryPolicy.from_config(config)

    session = open_session(
        base_url=base_url,
        token=token,
        timeout=policy.timeout,
        write_interval=policy.write_interval,
    )
    transport = Transport(
        session=session,
        base_url=base_url,
        policy=policy,
        secret=token,
        page_size=page_size,
        sleep=sleep,
        clock=clock,
        log=log,
    )
    return GitHub(transport=transport, repository=repo)
