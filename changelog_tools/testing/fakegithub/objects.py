"""The fake GitHub's objects: their state, ids and clock, and the JSON of what every resource
shares (users, repositories, commits, labels), built from GitHub's own examples with every URL
on this server."""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import threading
import urllib.parse
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from changelog_tools.testing.fakegithub.examples import _URL_START, EXAMPLES, _examples, _merged
from changelog_tools.testing.fakegithub.gitdata import GitOrigin
from changelog_tools.testing.fakegithub.state import (
    _EPOCH,
    FakeCheckRun,
    FakeCheckSuite,
    FakeComment,
    FakeCommit,
    FakePull,
    FakeReview,
    FakeReviewComment,
    FakeRun,
    FakeStatus,
    FakeWorkflow,
    fake_sha,
    stamp,
)


class FakeObjects:
    """What the fake holds (pull requests, comments, runs, checks, people) and the JSON of the
    objects every resource shares; the server and the resource routes build on it."""

    def __init__(
        self,
        repository: str,
        *,
        git_origin: Path | None,
        actor: str,
        actor_association: str,
    ) -> None:
        self.repository = repository
        self.git = GitOrigin(git_origin) if git_origin is not None else None
        self.actor = actor  # who the token belongs to: author of comments the tool posts
        self.actor_association = actor_association
        self.pulls: dict[int, FakePull] = {}
        self.comments: dict[int, FakeComment] = {}
        self.reviews: list[FakeReview] = []
        self.review_comments: list[FakeReviewComment] = []
        self.check_runs: list[FakeCheckRun] = []
        self.statuses: list[FakeStatus] = []
        self.workflows: dict[str, FakeWorkflow] = {}
        self.runs: dict[int, FakeRun] = {}
        self.commit_pulls: dict[str, list[int]] = {}  # explicit commit -> PR numbers
        self.check_suites: list[FakeCheckSuite] = []
        self.timeline: dict[int, list[dict[str, Any]]] = {}  # PR number -> timeline events
        self.teams: dict[str, set[str]] = {}  # "org/slug" -> active members' logins
        self.permissions: dict[str, str] = {}  # login -> admin | maintain | write | triage | read
        self.foreign_pulls: dict[str, dict[int, FakePull]] = {}  # other repositories' PRs
        self._ids = itertools.count(1001)
        self._minutes = itertools.count(1)
        self._lock = threading.RLock()
        self.base_url = ""  # set when the server starts listening
        self.root_url = ""
        self._templates: dict[str, Any] = {}  # GitHub's examples, on this server's URLs

    def next_id(self) -> int:
        return next(self._ids)

    def now(self) -> str:
        """The next tick of the fake's clock (strictly increasing timestamps)."""
        return stamp(next(self._minutes))

    def _continue_after(self, state: Any) -> None:
        """Start ids and the clock after every id and timestamp in ``state``.

        GitHub's ids and clock only grow: a saved :meth:`snapshot` loaded again (the kept demo
        sandbox), with or without objects added by hand, must not hand out an id it already
        holds, nor stamp a new comment or check run older than the loaded ones ("newest"
        decisions read those stamps).
        """
        ids: list[int] = []
        minutes: list[int] = []
        stack = [state]
        while stack:
            item = stack.pop()
            if isinstance(item, list):
                stack.extend(item)
            elif isinstance(item, dict):
                for key, value in item.items():
                    if key == "id" and isinstance(value, int):
                        ids.append(value)
                    elif key.endswith("_at") and isinstance(value, str):
                        with contextlib.suppress(ValueError):
                            when = datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ")
                            seconds = (when.replace(tzinfo=UTC) - _EPOCH).total_seconds()
                            minutes.append(int(seconds // 60))
                    else:
                        stack.append(value)
        self._ids = itertools.count(max([next(self._ids), *(i + 1 for i in ids)]))
        self._minutes = itertools.count(max([next(self._minutes), *(m + 1 for m in minutes)]))

    def api(self, path: str) -> str:
        """Absolute API URL of ``path``, built from the exact base URL."""
        return self.base_url + path

    def html(self, path: str) -> str:
        return f"{self.root_url}/{self.repository}{path}"

    def example(self, kind: str, **overrides: Any) -> dict[str, Any]:
        """GitHub's own example of ``kind`` (see :data:`EXAMPLES`), its URLs on this server,
        with ``overrides`` merged in: every documented field is there with GitHub's types, and
        a scenario sets only what it controls."""
        template = self._templates.get(kind)
        if template is None:
            key, where = EXAMPLES[kind]
            found: Any = _examples()[key]
            for step in where:
                found = found[step]
            template = self._templates[kind] = self._rebase(found)
        merged: dict[str, Any] = _merged(template, overrides)
        return merged

    def _rebase(self, value: Any, key: str = "") -> Any:
        """``value`` with every URL on this server (clients refuse to follow other hosts)."""
        if isinstance(value, dict):
            return {k: self._rebase(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self._rebase(v, key) for v in value]
        if isinstance(value, str):
            if value.startswith("https://api.github.com"):
                return self.base_url + value.removeprefix("https://api.github.com")
            if value.startswith("https://github.com"):
                return self.root_url + value.removeprefix("https://github.com")
            if key in ("url", "href") or key.endswith("_url"):
                scheme = _URL_START.match(value)  # git://, git@host:, a CDN's https://
                if scheme is not None:
                    return f"{self.root_url}/{value[scheme.end() :].lstrip('/')}"
        return value

    def user_json(self, login: str | None) -> dict[str, Any] | None:
        """A user (None: a deleted account, which GitHub shows as ``null``)."""
        if login is None:
            return None
        return self.example("user", **self._user_fields(login))

    def _user_fields(self, login: str) -> dict[str, Any]:
        return {
            "login": login,
            "type": "Bot" if login.endswith("[bot]") else "User",
            "id": int(hashlib.sha1(login.encode()).hexdigest()[:7], 16),
            "url": self.api(f"/users/{login}"),
            "html_url": f"{self.root_url}/{login}",
            "avatar_url": f"{self.root_url}/avatars/{login}",
        }

    def _repo_json(self, full: str) -> dict[str, Any]:
        owner, name = full.split("/", 1)
        found = self.example(
            "repository",
            full_name=full,
            name=name,
            owner=self.user_json(owner),
            fork=full.lower() != self.repository.lower(),
            url=self.api(f"/repos/{full}"),
            html_url=f"{self.root_url}/{full}",
            default_branch="main",
        )
        template = self._templates["repository"]["full_name"]
        for key, value in found.items():  # the example's own name in its other URLs
            if key.endswith("_url") and isinstance(value, str):
                found[key] = value.replace(f"/{template}", f"/{full}")
        return found

    def head_sha(self, pull: FakePull) -> str:
        """The PR's head: from the git origin while open, else as recorded."""
        if self.git is not None and pull.state == "open":
            sha = None
            if pull.head_repo is None:
                sha = self.git.resolve(f"refs/heads/{pull.head_ref}")
            sha = sha or self.git.resolve(f"refs/pull/{pull.number}/head")
            if sha:
                if pull.head_sha != sha:
                    # GitHub keeps refs/pull/N/head following the branch
                    self.git.set_ref(f"refs/pull/{pull.number}/head", sha)
                pull.head_sha = sha
        return pull.head_sha

    def base_sha(self, pull: FakePull) -> str:
        """The base branch's tip: from the git origin while open, else as recorded (or a
        stable made-up SHA when the test did not care)."""
        if self.git is not None and pull.state == "open":
            pull.base_sha = self.git.resolve(f"refs/heads/{pull.base_ref}") or pull.base_sha
        return pull.base_sha or fake_sha("base", self.repository, pull.base_ref)

    def pull_commits(self, pull: FakePull) -> list[FakeCommit]:
        if self.git is not None and pull.state == "open":
            head, base = self.head_sha(pull), self.base_sha(pull)
            if head and base:
                return self.git.commits(base, head)
        return pull.commits or [FakeCommit(self.head_sha(pull))]

    def _mergeable(self, pull: FakePull, head: str, base: str) -> bool | None:
        if pull.state != "open":
            return None
        if self.git is not None and pull.mergeable is not False and head and base:
            return self.git.merge_tree(base, head) is not None
        return pull.mergeable

    def commit_json(self, commit: FakeCommit, *, kind: str = "commit") -> dict[str, Any]:
        full = self.repository
        return self.example(
            kind,
            sha=commit.sha,
            node_id=f"C_{commit.sha}",
            url=self.api(f"/repos/{full}/commits/{commit.sha}"),
            html_url=self.html(f"/commit/{commit.sha}"),
            comments_url=self.api(f"/repos/{full}/commits/{commit.sha}/comments"),
            commit={
                "message": commit.message,
                "author": {"name": "Test", "email": "test@example.invalid", "date": stamp(0)},
            },
            parents=[
                {
                    "sha": p,
                    "url": self.api(f"/repos/{full}/commits/{p}"),
                    "html_url": self.html(f"/commit/{p}"),
                }
                for p in commit.parents
            ],
        )

    def _label_json(self, name: str) -> dict[str, Any]:
        number = int(hashlib.sha1(name.encode()).hexdigest()[:8], 16)
        return self.example(
            "label",
            id=number,
            node_id=f"LA_{number}",
            name=name,
            color="ededed",
            default=False,
            description="",
            url=self.api(f"/repos/{self.repository}/labels/{urllib.parse.quote(name)}"),
        )

    def _workflow(self, ref: str) -> FakeWorkflow | None:
        if ref in self.workflows:
            return self.workflows[ref]
        return next((w for w in self.workflows.values() if str(w.id) == ref), None)

    def _find_pull(self, number: str) -> FakePull | None:
        return self.pulls.get(int(number))
