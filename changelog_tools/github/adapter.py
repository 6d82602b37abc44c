"""The GitHub adapter: every call the tool makes to the GitHub REST API goes through here.

The requests are PyGithub's: its objects where it has them (pull requests, issues and comments,
reviews, statuses, check suites and runs, workflow runs, jobs, artifacts, the timeline, teams),
its requester for what it lacks (GraphQL, a collaborator's role, an artifact's download URL).
The rest of the tool never sees a PyGithub object: it gets plain frozen records
(:class:`PullRequest`, :class:`Comment`, :class:`WorkflowRun`, ...), and every failure is a
:class:`~changelog_tools.errors.GitHubError` (exit 3) with a one-line reason.

:class:`GitHub` is the facade, one method per call the tool needs. The parts under it each have
a module of their own; the names callers use are re-exported here:

- :mod:`~changelog_tools.github.records`: the records; :mod:`~changelog_tools.github.convert`
  copies PyGithub's objects into them;
- :mod:`~changelog_tools.github.connection`: PyGithub loaded and configured on the first
  request; :mod:`~changelog_tools.github.nodes`: its objects, built from URLs without a request;
- :mod:`~changelog_tools.github.requester`: the token's origin, list walks, failures;
  :mod:`~changelog_tools.github.retry`: retries and rate limits, by
  :mod:`~changelog_tools.github.policy`, counted in :mod:`~changelog_tools.github.traffic`;
- :mod:`~changelog_tools.github.failures`: the error types callers catch;
- :mod:`~changelog_tools.github.actions_env`: what a GitHub Actions step hands the tool (API
  URL, repository, token) and the step files it writes back.
"""

from __future__ import annotations

import contextlib
import functools
import os
import time
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from changelog_tools.errors import GitHubError
from changelog_tools.github import convert
from changelog_tools.github.actions_env import (
    PUBLIC_API_URL,
    append_step_summary,
    read_step_outputs,
    resolve_api_url,
    resolve_repository,
    resolve_token,
    write_step_outputs,
)
from changelog_tools.github.authoring import AuthoringEndpoints
from changelog_tools.github.failures import (
    AmbiguousWriteError,
    GitHubStatusError,
    MergeRejectedError,
    NotFoundError,
)
from changelog_tools.github.policy import (
    DEFAULT_PAGE_SIZE,
    MAX_PAGES,
    MAX_RATE_LIMIT_RETRIES,
    SECONDARY_RATE_LIMIT_WAIT,
    Mode,
    RetryPolicy,
)
from changelog_tools.github.records import (
    Artifact,
    CheckRun,
    CheckSuite,
    CombinedStatus,
    Comment,
    CommitStatus,
    Edit,
    Job,
    MergeResult,
    PullCommit,
    PullFile,
    PullRequest,
    Remark,
    Review,
    ReviewComment,
    Workflow,
    WorkflowRun,
)
from changelog_tools.github.reviewing import (
    MAX_DOWNLOAD,
    MAX_PULL_COMMITS,
    MAX_PULL_FILES,
    ReviewingEndpoints,
)
from changelog_tools.github.traffic import Traffic

if TYPE_CHECKING:
    from changelog_tools.config import Config

__all__ = [
    "DEFAULT_PAGE_SIZE",
    "MAX_DOWNLOAD",
    "MAX_PAGES",
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
    "Workflow",
    "WorkflowRun",
    "append_step_summary",
    "make_github",
    "read_step_outputs",
    "resolve_api_url",
    "resolve_repository",
    "resolve_token",
    "write_step_outputs",
]

_EARLIEST = datetime.min.replace(tzinfo=UTC)  # sorts before every (aware) timestamp


class GitHub(ReviewingEndpoints, AuthoringEndpoints):
    """One repository on one GitHub API endpoint: the calls the tool makes, as records."""

    # -- pull requests --------------------------------------------------------------------------

    def get_pull(self, number: int) -> PullRequest:
        node = self._nodes.pull(number)
        return self._read(
            self._repo_path(f"/pulls/{number}"), lambda: convert.pull(node.complete())
        )

    def user_pull(self, number: int) -> PullRequest:
        """The pull request a user named (``merge 1234``): a number that does not exist is the
        command line's mistake, a usage error (exit 2), not GitHub failing."""
        from changelog_tools.errors import UsageError
        from changelog_tools.github.failures import NotFoundError

        try:
            return self.get_pull(number)
        except NotFoundError:
            raise UsageError(
                f"pull request #{number} not found in {self.repository}",
                hint="check the number and the repository (`repository` option, "
                "GITHUB_REPOSITORY); a token that cannot see the repository gets the same answer",
            ) from None

    def list_pulls(
        self, *, state: str = "open", base: str | None = None, head: str | None = None
    ) -> tuple[PullRequest, ...]:
        params: dict[str, Any] = {"state": state}
        if base:
            params["base"] = base
        if head:
            params["head"] = head
        return self._all(
            self._repo_path("/pulls"), self._nodes.repo.get_pulls(**params), _listed_pull
        )

    def list_pull_commits(self, number: int) -> tuple[PullCommit, ...]:
        """The PR's commits, oldest first (GitHub lists at most 250)."""
        return self._all(
            self._repo_path(f"/pulls/{number}/commits"),
            self._nodes.pull(number).get_commits(),
            convert.pull_commit,
        )

    def list_pull_files(self, number: int) -> tuple[PullFile, ...]:
        return self._all(
            self._repo_path(f"/pulls/{number}/files"),
            self._nodes.pull(number).get_files(),
            convert.pull_file,
        )

    def list_reviews(self, number: int) -> tuple[Review, ...]:
        return self._all(
            self._repo_path(f"/pulls/{number}/reviews"),
            self._nodes.pull(number).get_reviews(),
            convert.review,
        )

    def list_review_comments(self, number: int) -> tuple[ReviewComment, ...]:
        return self._all(
            self._repo_path(f"/pulls/{number}/comments"),
            self._nodes.pull(number).get_review_comments(),
            convert.review_comment,
        )

    def pulls_for_commit(self, sha: str) -> tuple[PullRequest, ...]:
        """Pull requests GitHub associates with commit ``sha`` (merged ones for main commits)."""
        return self._all(
            self._repo_path(f"/commits/{sha}/pulls"),
            self._nodes.commit(sha).get_pulls(),
            _listed_pull,
        )

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
        options: dict[str, Any] = {"merge_method": method, "sha": sha}
        if title is not None:
            options["commit_title"] = title
        if message is not None:
            options["commit_message"] = message
        node = self._nodes.pull(number)
        attempt = 0
        while True:
            try:
                with self._requester.writing(Mode.ONCE):
                    result = self._read(path, lambda: convert.merge_result(node.merge(**options)))
            except AmbiguousWriteError as exc:
                pull = self.get_pull(number)
                if pull.merged and pull.merge_commit_sha:
                    return MergeResult(
                        True, pull.merge_commit_sha, "merged (confirmed by re-reading)"
                    )
                attempt += 1
                if attempt > self.policy.retries or pull.state != "open":
                    raise exc
                self.traffic.pause("PUT", path, "outcome unknown, PR not merged", attempt)
                continue
            except GitHubStatusError as exc:
                if exc.status in (405, 409, 422):
                    raise MergeRejectedError(
                        exc.message, status=exc.status, hint=exc.hint
                    ) from None
                raise
            if not result.sha:
                raise GitHubError(f"GitHub API PUT {path} returned no merge sha")
            return result

    # -- comments -------------------------------------------------------------------------------

    def list_issue_comments(self, number: int) -> tuple[Comment, ...]:
        return self._all(
            self._repo_path(f"/issues/{number}/comments"),
            self._nodes.issue(number).get_comments(),
            convert.comment,
        )

    def create_issue_comment(self, number: int, body: str) -> Comment:
        """Post a comment once; a lost response raises AmbiguousWriteError (never re-posted)."""
        node = self._nodes.issue(number)
        with self._requester.writing(Mode.ONCE):
            return self._read(
                self._repo_path(f"/issues/{number}/comments"),
                lambda: convert.comment(node.create_comment(body)),
            )

    def edit_issue_comment(self, comment_id: int, body: str) -> Comment:
        node = self._nodes.issue_comment(comment_id)

        def edit() -> Comment:
            node.edit(body)
            return convert.comment(node)

        with self._requester.writing(Mode.IDEMPOTENT):
            return self._read(self._repo_path(f"/issues/comments/{comment_id}"), edit)

    def delete_issue_comment(self, comment_id: int) -> None:
        """Delete a comment; one that is already gone counts as deleted (safe to repeat)."""
        node = self._nodes.issue_comment(comment_id)
        with contextlib.suppress(NotFoundError), self._requester.writing(Mode.IDEMPOTENT):
            self._read(self._repo_path(f"/issues/comments/{comment_id}"), node.delete)

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
                self.traffic.pause(
                    "POST",
                    self._repo_path(f"/issues/{number}/comments"),
                    "outcome unknown",
                    attempt,
                )

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
        return self._all(
            self._repo_path(f"/commits/{sha}/check-runs"),
            self._nodes.commit(sha).get_check_runs(**params),
            convert.check_run,
            key="check_runs",
        )

    def get_combined_status(self, sha: str) -> CombinedStatus:
        """The combined state of ``sha`` and every status it lists (all pages).

        GitHub documents ``page``/``per_page`` and ``total_count`` for this answer but no
        ``Link`` header, so pages are asked for by number until ``total_count`` is reached."""
        from changelog_tools.github.nodes import segment

        what = self._repo_path(f"/commits/{sha}/status")
        url = f"{self._nodes.repo_url}/commits/{segment(sha)}/status"
        found: list[CommitStatus] = []
        for page in range(1, self.max_pages + 1):
            params = {"per_page": self.page_size, "page": page}
            _, data = self._read(what, functools.partial(self._get, url, params))
            items = data.get("statuses") if isinstance(data, dict) else None
            total = data.get("total_count") if isinstance(data, dict) else None
            if not isinstance(items, list) or not isinstance(total, int):
                raise GitHubError(f"unexpected GitHub answer for {what}: no statuses and count")
            with self._reading(what):
                found += [convert.status_json(item) for item in items]
            if not items or len(found) >= total:
                statuses = tuple(found)
                return CombinedStatus(sha, self._combined_state(statuses), statuses)
        raise GitHubError(f"{what}: more than {self.max_pages} pages of statuses")

    def _get(self, url: str, params: dict[str, Any]) -> tuple[Any, Any]:
        return self._requester.requestJsonAndCheck("GET", url, parameters=params)

    @staticmethod
    def _combined_state(statuses: tuple[CommitStatus, ...]) -> str:
        """GitHub's rule: any failure or error fails; none at all or any pending is pending."""
        states = {s.state for s in statuses}
        if states & {"failure", "error"}:
            return "failure"
        if not statuses or "pending" in states:
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
        options: dict[str, Any] = {"context": context}
        if description is not None:
            options["description"] = description[:140]  # GitHub's limit
        if target_url is not None:
            options["target_url"] = target_url
        node = self._nodes.commit(sha)
        with self._requester.writing(Mode.IDEMPOTENT):
            return self._read(
                self._repo_path(f"/statuses/{sha}"),
                lambda: convert.status(node.create_status(state, **options)),
            )

    # -- actions --------------------------------------------------------------------------------

    def get_workflow(self, workflow: str | int) -> Workflow:
        node = self._nodes.workflow(workflow)
        return self._read(
            self._repo_path(f"/actions/workflows/{workflow}"),
            lambda: convert.workflow(node.complete()),
        )

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
        filters: dict[str, Any] = {
            "event": event,
            "branch": branch,
            "status": status,
            "head_sha": head_sha,
        }
        runs = self._nodes.workflow(workflow).get_runs(**{k: v for k, v in filters.items() if v})
        return self._walk(
            self._repo_path(f"/actions/workflows/{workflow}/runs"),
            runs,
            convert.run,
            key="workflow_runs",
        )

    def get_workflow_run(self, run_id: int) -> WorkflowRun:
        node = self._nodes.run(run_id)
        return self._read(
            self._repo_path(f"/actions/runs/{run_id}"), lambda: convert.run(node.complete())
        )

    def list_run_artifacts(self, run_id: int) -> tuple[Artifact, ...]:
        return self._all(
            self._repo_path(f"/actions/runs/{run_id}/artifacts"),
            self._nodes.run(run_id).get_artifacts(),
            convert.artifact,
            key="artifacts",
        )


def _listed_pull(pr: Any) -> PullRequest:
    return convert.pull(pr, listed=True)


# ----------------------------------------------------------------------------------------------
# the factory


def make_github(
    config: Config,
    *,
    env: Mapping[str, str] | None = None,
    repository: str | None = None,
    policy: RetryPolicy | None = None,
    page_size: int = DEFAULT_PAGE_SIZE,
    max_pages: int = MAX_PAGES,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.time,
    log: Callable[[str], None] | None = None,
) -> GitHub:
    """Build the adapter from configuration and the environment (token from GH_TOKEN/GITHUB_TOKEN).

    Nothing is imported or sent yet: PyGithub comes in with the first request."""
    env = os.environ if env is None else env
    base_url = resolve_api_url(config, env)
    repo = resolve_repository(config, env, repository)
    token = resolve_token(env)
    policy = policy or RetryPolicy.from_config(config)
    traffic = Traffic(policy, secret=token, sleep=sleep, clock=clock, log=log)
    return GitHub(
        base_url=base_url,
        token=token,
        repository=repo,
        traffic=traffic,
        page_size=page_size,
        max_pages=max_pages,
    )
