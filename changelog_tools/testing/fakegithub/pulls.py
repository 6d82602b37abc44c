"""Pull requests: list, one, commits, files, reviews, review comments, merge, open;
the pull requests of a commit; other repositories' pull requests."""

from __future__ import annotations

from typing import Any

from changelog_tools.testing.fakegithub.server import _R, FakeServer, route
from changelog_tools.testing.fakegithub.state import (
    FakePull,
    Request,
    Response,
    _error,
    _not_found,
    _validation_failed,
    fake_sha,
)


class PullRoutes(FakeServer):
    """Pull requests: list, one, commits, files, reviews, review comments, merge, open;
    the pull requests of a commit; other repositories' pull requests."""

    def pull_json(self, pull: FakePull, *, listed: bool = False) -> dict[str, Any]:
        """A pull request as GitHub's single-PR answer, or (``listed``) as a list item, which
        has fewer fields (no ``merged``, ``mergeable``, ``mergeable_state``)."""
        return self._pull_json(pull, self.repository, listed=listed)

    def _pull_json(self, pull: FakePull, full: str, *, listed: bool = False) -> dict[str, Any]:
        n = pull.number
        head_full = pull.head_repo or full
        if full.lower() == self.repository.lower():
            head, base = self.head_sha(pull), self.base_sha(pull)
            mergeable = self._mergeable(pull, head, base)
        else:  # another repository's: no git origin behind it
            head, base = pull.head_sha, pull.base_sha
            mergeable = pull.mergeable if pull.state == "open" else None
        api, html = self.api(f"/repos/{full}"), f"{self.root_url}/{full}"
        found = self.example(
            "pull_listed" if listed else "pull",
            url=f"{api}/pulls/{n}",
            html_url=f"{html}/pull/{n}",
            issue_url=f"{api}/issues/{n}",
            commits_url=f"{api}/pulls/{n}/commits",
            comments_url=f"{api}/issues/{n}/comments",
            review_comments_url=f"{api}/pulls/{n}/comments",
            statuses_url=f"{api}/statuses/{head}",
            id=10_000 + n,
            node_id=f"PR_{n}",
            number=n,
            state=pull.state,
            draft=pull.draft,
            title=pull.title,
            body=pull.body,
            user=self.user_json(pull.author),
            labels=[self._label_json(name) for name in pull.labels],
            # nobody asked: the example's reviewers and teams are someone else's story
            requested_reviewers=[],
            requested_teams=[],
            assignees=[],
            assignee=None,
            milestone=None,
            merged=pull.merged,
            merged_at=pull.merged_at,
            closed_at=pull.merged_at,
            merge_commit_sha=pull.merge_commit_sha,
            mergeable=mergeable,
            mergeable_state={True: "clean", False: "dirty", None: "unknown"}[mergeable],
            head={
                "ref": pull.head_ref,
                "sha": head,
                "label": f"{head_full.split('/')[0]}:{pull.head_ref}",
                "repo": None if pull.fork_deleted else self._repo_json(head_full),
                "user": self.user_json(head_full.split("/")[0]),
            },
            base={
                "ref": pull.base_ref,
                "sha": base,
                "label": f"{full.split('/')[0]}:{pull.base_ref}",
                "repo": self._repo_json(full),
                "user": self.user_json(full.split("/")[0]),
            },
        )
        template = self._templates["pull_listed" if listed else "pull"]
        return {k: v for k, v in found.items() if k in template}

    @route("GET", _R + r"/pulls")
    def _list_pulls(self, request: Request) -> Response:
        state = request.query.get("state", "open")
        base = request.query.get("base")
        head = request.query.get("head")
        items = [
            self.pull_json(p, listed=True)
            for p in sorted(self.pulls.values(), key=lambda p: -p.number)
            if (state == "all" or p.state == state)
            and (base is None or p.base_ref == base)
            and (head is None or head.split(":")[-1] == p.head_ref)
        ]
        return self._page(request, items)

    @route("GET", _R + r"/pulls/(?P<number>\d+)")
    def _get_pull(self, request: Request, number: str) -> Response:
        pull = self._find_pull(number)
        return Response(200, self.pull_json(pull)) if pull else _not_found()

    @route("GET", _R + r"/pulls/(?P<number>\d+)/commits")
    def _pull_commits(self, request: Request, number: str) -> Response:
        pull = self._find_pull(number)
        if pull is None:
            return _not_found()
        commits = self.pull_commits(pull)[:250]  # GitHub's cap
        return self._page(request, [self.commit_json(c) for c in commits])

    @route("GET", _R + r"/pulls/(?P<number>\d+)/files")
    def _pull_files(self, request: Request, number: str) -> Response:
        pull = self._find_pull(number)
        if pull is None:
            return _not_found()
        files = pull.files
        if not files and self.git is not None and pull.state == "open":
            head, base = self.head_sha(pull), self.base_sha(pull)
            if head and base:
                files = self.git.files(base, head)
        return self._page(request, [self._file_json(f) for f in files[:3000]])  # GitHub's cap

    def _file_json(self, file: dict[str, Any]) -> dict[str, Any]:
        overrides = {"previous_filename": None, **file}
        found = self.example("file", **overrides)
        if found["previous_filename"] is None:
            del found["previous_filename"]  # GitHub names it for renames only
        return found

    @route("GET", _R + r"/pulls/(?P<number>\d+)/reviews")
    def _pull_reviews(self, request: Request, number: str) -> Response:
        items = [
            self.example(
                "review",
                id=r.id,
                user=self.user_json(r.login),
                author_association=r.association,
                state=r.state,
                body=r.body,
                commit_id=r.commit_id or None,
                submitted_at=r.submitted_at,
                pull_request_url=self.api(f"/repos/{self.repository}/pulls/{r.pull}"),
                html_url=self.html(f"/pull/{r.pull}#pullrequestreview-{r.id}"),
                node_id=f"PRR_{r.id}",
                _links={
                    "html": {"href": self.html(f"/pull/{r.pull}#pullrequestreview-{r.id}")},
                    "pull_request": {"href": self.api(f"/repos/{self.repository}/pulls/{r.pull}")},
                },
            )
            for r in self.reviews
            if r.pull == int(number)
        ]
        return self._page(request, items)

    @route("GET", _R + r"/pulls/(?P<number>\d+)/comments")
    def _pull_review_comments(self, request: Request, number: str) -> Response:
        items = [
            self.example(
                "review_comment",
                id=c.id,
                url=self.api(f"/repos/{self.repository}/pulls/comments/{c.id}"),
                body=c.body,
                path=c.path,
                line=c.line,
                commit_id=c.commit_id,
                original_commit_id=c.original_commit_id or c.commit_id,
                user=self.user_json(c.login),
                author_association=c.association,
                pull_request_review_id=c.review_id,
                created_at=c.created_at,
                updated_at=c.updated_at or c.created_at,
                html_url=self.html(f"/pull/{c.pull}#discussion_r{c.id}"),
                pull_request_url=self.api(f"/repos/{self.repository}/pulls/{c.pull}"),
                node_id=f"PRRC_{c.id}",
            )
            for c in self.review_comments
            if c.pull == int(number)
        ]
        return self._page(request, items)

    @route("PUT", _R + r"/pulls/(?P<number>\d+)/merge")
    def _merge_pull(self, request: Request, number: str) -> Response:
        pull = self._find_pull(number)
        if pull is None:
            return _not_found()
        body = request.body if isinstance(request.body, dict) else {}
        method = body.get("merge_method", "merge")
        if method not in ("merge", "squash", "rebase"):
            return _error(422, f"Invalid merge_method: {method}")
        if pull.state != "open" or pull.merged or pull.draft:
            return _error(405, "Pull Request is not mergeable")
        head = self.head_sha(pull)
        if body.get("sha") and body["sha"] != head:
            return _error(409, "Head branch was modified. Review and try the merge again.")
        if pull.mergeable is False:
            return _error(405, "Pull Request is not mergeable")
        title = body.get("commit_title") or f"{pull.title or pull.head_ref} (#{pull.number})"
        message = body.get("commit_message") or ""
        if self.git is not None:
            if method != "squash":
                return _error(422, "this fake merges through its git origin with squash only")
            commits = self.pull_commits(pull)
            result = self.git.squash(
                pull.base_ref, head, title=title, message=message, author=pull.author
            )
            if result is None:
                return _error(405, "Pull Request is not mergeable")
            pull.base_sha, sha = result
            pull.commits = commits  # frozen: the PR's list no longer follows the branch
        else:
            sha = fake_sha(self.repository, pull.number, head, method)
        pull.head_sha = head
        pull.state = "closed"
        pull.merged = True
        pull.merged_at = self.now()
        pull.merge_commit_sha = sha
        pull.merge_request = dict(body)
        return Response(
            200, self.example("merged", sha=sha, message="Pull Request successfully merged")
        )

    @route("POST", _R + r"/pulls")
    def _create_pull(self, request: Request) -> Response:
        body = request.body if isinstance(request.body, dict) else {}
        head, base = body.get("head"), body.get("base")
        if not isinstance(head, str) or not isinstance(base, str) or not head or not base:
            return _validation_failed(
                "PullRequest", "head" if not head else "base", "missing_field"
            )
        owner = self.repository.split("/")[0]
        branch = head.split(":", 1)[1] if head.startswith(f"{owner}:") else head
        if ":" in branch:
            return _validation_failed("PullRequest", "head", "invalid")  # a fork: not modelled
        if any(p.state == "open" and p.head_ref == branch for p in self.pulls.values()):
            return _error(422, f"A pull request already exists for {owner}:{branch}.")
        if self.git is not None:
            head_sha = self.git.resolve(f"refs/heads/{branch}")
            base_sha = self.git.resolve(f"refs/heads/{base}")
            if head_sha is None or base_sha is None:
                return _validation_failed(
                    "PullRequest", "head" if head_sha is None else "base", "invalid"
                )
            if not self.git.commits(base_sha, head_sha):
                return _error(422, f"No commits between {base} and {branch}")
        number = max([*self.pulls, *(c.issue for c in self.comments.values()), 0]) + 1
        pull = self.add_pull(
            number,
            branch,
            base_ref=base,
            title=str(body.get("title") or ""),
            body=str(body.get("body") or ""),
            draft=bool(body.get("draft")),
            author=self.actor,
        )
        return Response(201, self.pull_json(pull))

    @route("GET", _R + r"/commits/(?P<sha>[^/]+)/pulls")
    def _commit_pulls(self, request: Request, sha: str) -> Response:
        if sha in self.commit_pulls:
            numbers = list(self.commit_pulls[sha])
        else:
            numbers = [
                p.number
                for p in self.pulls.values()
                if (p.merged and p.merge_commit_sha == sha)
                or any(c.sha == sha for c in self.pull_commits(p))
            ]
        items = [self.pull_json(self.pulls[n], listed=True) for n in numbers if n in self.pulls]
        return self._page(request, items)

    def _foreign_pull(self, repo: str, number: str) -> Response:
        pull = self.foreign_pulls.get(repo.lower(), {}).get(int(number))
        if pull is None:
            return _not_found()
        return Response(200, self._pull_json(pull, repo))
