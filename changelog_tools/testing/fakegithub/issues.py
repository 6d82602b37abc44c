"""Issues' labels, conversation comments and timeline."""

from __future__ import annotations

from typing import Any

from changelog_tools.testing.fakegithub.server import _R, COMMENT_LIMIT, FakeServer, route
from changelog_tools.testing.fakegithub.state import (
    FakeComment,
    Request,
    Response,
    _error,
    _not_found,
    _validation_failed,
)


class IssueRoutes(FakeServer):
    """Issues' labels, conversation comments and timeline."""

    def comment_json(self, c: FakeComment) -> dict[str, Any]:
        full = self.repository
        return self.example(
            "comment",
            id=c.id,
            node_id=f"IC_{c.id}",
            url=self.api(f"/repos/{full}/issues/comments/{c.id}"),
            html_url=self.html(f"/pull/{c.issue}#issuecomment-{c.id}"),
            issue_url=self.api(f"/repos/{full}/issues/{c.issue}"),
            body=c.body,
            user=self.user_json(c.login),
            author_association=c.association,
            created_at=c.created_at,
            updated_at=c.updated_at or c.created_at,
        )

    @route("GET", _R + r"/issues/(?P<number>\d+)/labels")
    def _list_labels(self, request: Request, number: str) -> Response:
        pull = self._find_pull(number)
        if pull is None:
            return _not_found()
        return self._page(request, [self._label_json(name) for name in pull.labels])

    @route("POST", _R + r"/issues/(?P<number>\d+)/labels")
    def _add_labels(self, request: Request, number: str) -> Response:
        pull = self._find_pull(number)
        if pull is None:
            return _not_found()
        # GitHub takes a bare array of names or {"labels": [...]} (PyGithub sends the array)
        names = request.body.get("labels") if isinstance(request.body, dict) else request.body
        if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
            return _validation_failed("Label", "labels", "invalid")
        for name in names:
            if name not in pull.labels:
                pull.labels.append(name)
        return Response(200, [self._label_json(name) for name in pull.labels])

    @route("GET", _R + r"/issues/(?P<number>\d+)/comments")
    def _list_comments(self, request: Request, number: str) -> Response:
        items = [
            self.comment_json(c)
            for c in sorted(self.comments.values(), key=lambda c: (c.created_at, c.id))
            if c.issue == int(number)
        ]
        return self._page(request, items)

    @route("GET", _R + r"/issues/(?P<number>\d+)/timeline")
    def _timeline(self, request: Request, number: str) -> Response:
        if int(number) not in self.pulls:
            return _not_found()
        items = [
            {k: v for k, v in e.items() if k not in ("before", "after")}
            for e in self.timeline.get(int(number), [])
        ]
        return self._page(request, items)

    @route("POST", _R + r"/issues/(?P<number>\d+)/comments")
    def _create_comment(self, request: Request, number: str) -> Response:
        body = request.body if isinstance(request.body, dict) else {}
        if not isinstance(body.get("body"), str):
            return _error(422, "body is required")
        if len(body["body"]) > COMMENT_LIMIT:
            return _error(422, f"Body is too long (maximum is {COMMENT_LIMIT} characters)")
        comment = self.add_comment(int(number), body["body"], self.actor, self.actor_association)
        return Response(201, self.comment_json(comment))

    @route("GET", _R + r"/issues/comments/(?P<cid>\d+)")
    def _get_comment(self, request: Request, cid: str) -> Response:
        comment = self.comments.get(int(cid))
        return Response(200, self.comment_json(comment)) if comment else _not_found()

    @route("PATCH", _R + r"/issues/comments/(?P<cid>\d+)")
    def _edit_comment(self, request: Request, cid: str) -> Response:
        comment = self.comments.get(int(cid))
        body = request.body if isinstance(request.body, dict) else {}
        if comment is None:
            return _not_found()
        if not isinstance(body.get("body"), str):
            return _error(422, "body is required")
        if len(body["body"]) > COMMENT_LIMIT:
            return _error(422, f"Body is too long (maximum is {COMMENT_LIMIT} characters)")
        comment.body = body["body"]
        comment.updated_at = comment.last_edited_at = self.now()
        comment.editor = self.actor
        comment.edits.append(self.actor)
        return Response(200, self.comment_json(comment))

    @route("DELETE", _R + r"/issues/comments/(?P<cid>\d+)")
    def _delete_comment(self, request: Request, cid: str) -> Response:
        if self.comments.pop(int(cid), None) is None:
            return _not_found()
        return Response(204)
