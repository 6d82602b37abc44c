"""GitHub endpoints that open pull requests and label them, a base of the adapter's GitHub class.

Used by `recover`, which opens a recovery pull request. Both writes are settled by reading
GitHub again when their answer is lost, so a retry never opens a second pull request: a pull
request is found again by its head branch, a label by the issue's labels.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from changelog_tools.github import convert
from changelog_tools.github.connection import Connected
from changelog_tools.github.failures import AmbiguousWriteError
from changelog_tools.github.policy import Mode
from changelog_tools.github.records import PullRequest


class AuthoringEndpoints(Connected):
    """Opening and labelling pull requests; GitHub (the adapter) inherits them."""

    def pulls_from_branch(self, branch: str, *, state: str = "all") -> tuple[PullRequest, ...]:
        """Pull requests whose head is ``branch`` of this repository (newest first)."""
        owner = self.repository.split("/", 1)[0]
        return self._all(
            self._repo_path("/pulls"),
            self._nodes.repo.get_pulls(state=state, head=f"{owner}:{branch}"),
            _listed,
        )

    def create_pull(self, *, head: str, base: str, title: str, body: str) -> PullRequest:
        """Open a pull request from ``head`` (a branch of this repository) into ``base``.

        Sent once: when the answer is lost, the pull requests of ``head`` are read, and the one
        found is the result; only when there is none is the request sent again.
        """
        attempt = 0
        while True:
            try:
                with self._requester.writing(Mode.ONCE):
                    return self._read(
                        self._repo_path("/pulls"),
                        lambda: convert.pull(
                            self._nodes.repo.create_pull(base, head, title=title, body=body)
                        ),
                    )
            except AmbiguousWriteError:
                opened = [p for p in self.pulls_from_branch(head) if p.state == "open"]
                if opened:
                    return opened[0]
                attempt += 1
                if attempt > self.policy.retries:
                    raise
                self.traffic.pause("POST", self._repo_path("/pulls"), "outcome unknown", attempt)

    def add_labels(self, number: int, labels: Sequence[str]) -> None:
        """Add ``labels`` to issue or pull request ``number``; adding one it has is harmless
        (GitHub keeps one copy), so the request is retried like a read."""
        # Sent as {"labels": [...]}: GitHub's schema documents that form only (PyGithub's
        # add_to_labels sends the bare array its prose also accepts).
        url = f"{self._nodes.repo_url}/issues/{number}/labels"
        body = {"labels": list(labels)}
        with self._requester.writing(Mode.IDEMPOTENT):
            self._read(
                self._repo_path(f"/issues/{number}/labels"),
                lambda: self._requester.requestJsonAndCheck("POST", url, input=body),
            )


def _listed(pr: Any) -> PullRequest:
    return convert.pull(pr, listed=True)
