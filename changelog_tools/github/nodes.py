"""The repository's resources as PyGithub objects, addressed by URL without a request.

PyGithub's ``Repository.get_pull`` and friends fetch the object first in some versions (2.6)
and not in others (2.10); building each object lazily from its URL, with the few fields its
list methods read, makes every version send exactly the requests the adapter asks for: a list
costs its pages, a write its one request, a read its one GET when a value is first read.
Path segments that come from outside (a workflow file name, a login) are percent-encoded here.
"""

from __future__ import annotations

import urllib.parse
from typing import Any, TypeVar

from github.Commit import Commit
from github.CommitStatus import CommitStatus
from github.GithubObject import CompletableGithubObject
from github.Issue import Issue
from github.IssueComment import IssueComment
from github.PaginatedList import PaginatedList
from github.PullRequest import PullRequest
from github.Repository import Repository
from github.Team import Team
from github.Workflow import Workflow
from github.WorkflowRun import WorkflowRun

from changelog_tools.github.requester import GuardedRequester

T = TypeVar("T", bound=CompletableGithubObject)


def segment(value: str | int) -> str:
    """One path segment, percent-encoded (a space, a slash or an accent cannot split the path)."""
    return urllib.parse.quote(str(value), safe="")


class Nodes:
    """Lazy PyGithub objects of one repository (and the few resources outside it)."""

    def __init__(self, requester: GuardedRequester, repository: str) -> None:
        self.requester = requester
        owner, _, name = repository.partition("/")
        self.repo_url = f"/repos/{segment(owner)}/{segment(name)}"
        self.repo = self._lazy(Repository, self.repo_url)

    def _lazy(self, cls: type[T], url: str, **fields: Any) -> T:
        return cls(self.requester, {}, {"url": url, **fields}, completed=False)

    def pull(self, number: int, repository: str | None = None) -> PullRequest:
        if repository is None:
            return self._lazy(PullRequest, f"{self.repo_url}/pulls/{number}")
        owner, _, name = repository.partition("/")
        url = f"/repos/{segment(owner)}/{segment(name)}/pulls/{number}"
        return self._lazy(PullRequest, url)

    def issue(self, number: int) -> Issue:
        return self._lazy(Issue, f"{self.repo_url}/issues/{number}")

    def issue_comment(self, comment_id: int) -> IssueComment:
        return self._lazy(IssueComment, f"{self.repo_url}/issues/comments/{comment_id}")

    def commit(self, sha: str) -> Commit:
        # `sha` given: creating a status reads it to build the status URL
        return self._lazy(Commit, f"{self.repo_url}/commits/{segment(sha)}", sha=sha)

    def workflow(self, ref: str | int) -> Workflow:
        return self._lazy(Workflow, f"{self.repo_url}/actions/workflows/{segment(ref)}")

    def run(self, run_id: int) -> WorkflowRun:
        url = f"{self.repo_url}/actions/runs/{run_id}"
        # the list methods read these two URLs from the run itself
        return self._lazy(
            WorkflowRun, url, artifacts_url=f"{url}/artifacts", jobs_url=f"{url}/jobs"
        )

    def team(self, org: str, slug: str) -> Team:
        return self._lazy(Team, f"/orgs/{segment(org)}/teams/{segment(slug)}")

    def statuses(self, sha: str) -> PaginatedList[CommitStatus]:
        """Every status set on ``sha``, from GitHub's documented route (PyGithub's
        ``Commit.get_statuses`` uses ``/statuses/{sha}``, which GitHub documents for POST only)."""
        url = f"{self.repo_url}/commits/{segment(sha)}/statuses"
        return PaginatedList(CommitStatus, self.requester, url, None)
