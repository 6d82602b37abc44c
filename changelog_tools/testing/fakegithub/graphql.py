"""The one GraphQL query the tool sends: who last edited comments and reviews."""

from __future__ import annotations

from typing import Any

from changelog_tools.testing.fakegithub.server import FakeServer
from changelog_tools.testing.fakegithub.state import (
    Request,
    Response,
)


class GraphQLRoutes(FakeServer):
    """The one GraphQL query the tool sends: who last edited comments and reviews."""

    def _graphql(self, request: Request) -> Response:
        """The one GraphQL query the tool sends: ``nodes(ids:)`` for comment edit history."""
        body = request.body if isinstance(request.body, dict) else {}
        ids = (body.get("variables") or {}).get("ids")
        if "nodes(" not in str(body.get("query", "")) or not isinstance(ids, list):
            return Response(200, {"errors": [{"message": "the fake answers only nodes(ids:)"}]})
        nodes: list[Any] = []
        errors: list[dict[str, Any]] = []
        for index, node_id in enumerate(ids):
            kind, _, number = str(node_id).partition("_")
            comment: Any = None
            if number.isdigit() and kind == "IC":
                comment = self.comments.get(int(number))
            elif number.isdigit() and kind in ("PRR", "PRRC"):
                pool: list[Any] = self.reviews if kind == "PRR" else self.review_comments
                comment = next((c for c in pool if c.id == int(number)), None)
            if comment is None:
                # GitHub's answer for an id that names nothing (a comment deleted since it was
                # listed): the node is null and an error of type NOT_FOUND says which
                nodes.append(None)
                errors.append(
                    {
                        "type": "NOT_FOUND",
                        "path": ["nodes", index],
                        "locations": [{"line": 1, "column": 27}],
                        "message": f"Could not resolve to a node with the global id of "
                        f"'{node_id}'.",
                    }
                )
                continue
            typename = {"IC": "IssueComment", "PRR": "PullRequestReview"}.get(
                kind, "PullRequestReviewComment"
            )
            if f"on {typename} " not in str(body.get("query")):
                nodes.append({"id": node_id})  # as GitHub: only fields the query asks for
                continue
            answer: dict[str, Any] = {
                "id": node_id,
                "lastEditedAt": comment.last_edited_at,
                "editor": {"login": comment.editor} if comment.editor else None,
            }
            if "userContentEdits(" in str(body.get("query")):
                newest = list(reversed(comment.edits))  # as GitHub lists them
                answer["userContentEdits"] = {
                    "totalCount": len(newest),
                    "nodes": [{"editor": {"login": e} if e else None} for e in newest[:100]],
                }
            nodes.append(answer)
        result: dict[str, Any] = {"data": {"nodes": nodes}}
        if errors:
            result["errors"] = errors
        return Response(200, result)
