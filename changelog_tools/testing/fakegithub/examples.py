"""GitHub's own example answers (vendored from its REST API description), which the fake builds
every answer from: a scenario overrides only what it controls."""

from __future__ import annotations

import functools
import json
import re
from importlib import resources
from typing import Any

_R_DOC = "/repos/{owner}/{repo}"


_URL_START = re.compile(r"[a-z+]+://[^/]+|git@[^:]+:|[a-z]+:")


# Where each kind of object's template is in GitHub's examples: (operation, steps into it).
EXAMPLES: dict[str, tuple[str, tuple[str | int, ...]]] = {
    "pull": (f"GET {_R_DOC}/pulls/{{pull_number}}", ()),
    "pull_listed": (f"GET {_R_DOC}/pulls", (0,)),
    "user": (f"GET {_R_DOC}/pulls/{{pull_number}}", ("user",)),
    "repository": (f"GET {_R_DOC}/pulls/{{pull_number}}", ("base", "repo")),
    "full_repository": (f"GET {_R_DOC}", ()),
    "private_user": ("GET /user", ()),
    "public_user": ("GET /users/{username}", ()),
    "comment": (f"GET {_R_DOC}/issues/comments/{{comment_id}}", ()),
    "review": (f"GET {_R_DOC}/pulls/{{pull_number}}/reviews", (0,)),
    "review_comment": (f"GET {_R_DOC}/pulls/{{pull_number}}/comments", (0,)),
    "commit": (f"GET {_R_DOC}/pulls/{{pull_number}}/commits", (0,)),
    "full_commit": (f"GET {_R_DOC}/commits/{{ref}}", ()),
    "file": (f"GET {_R_DOC}/pulls/{{pull_number}}/files", (0,)),
    "label": (f"GET {_R_DOC}/issues/{{issue_number}}/labels", (0,)),
    "issue_event": (f"GET {_R_DOC}/issues/{{issue_number}}/timeline", (0,)),
    "workflow": (f"GET {_R_DOC}/actions/workflows/{{workflow_id}}", ()),
    "run": (f"GET {_R_DOC}/actions/runs/{{run_id}}", ()),
    "artifact": (f"GET {_R_DOC}/actions/runs/{{run_id}}/artifacts", ("artifacts", 0)),
    "job": (f"GET {_R_DOC}/actions/runs/{{run_id}}/jobs", ("jobs", 0)),
    "check_run": (f"GET {_R_DOC}/commits/{{ref}}/check-runs", ("check_runs", 0)),
    "check_suite": (f"GET {_R_DOC}/commits/{{ref}}/check-suites", ("check_suites", 0)),
    "status": (f"GET {_R_DOC}/commits/{{ref}}/statuses", (0,)),
    "combined_status": (f"GET {_R_DOC}/commits/{{ref}}/status", ()),
    "membership": ("GET /orgs/{org}/teams/{team_slug}/memberships/{username}", ()),
    "permission": (f"GET {_R_DOC}/collaborators/{{username}}/permission", ()),
    "merged": (f"PUT {_R_DOC}/pulls/{{pull_number}}/merge", ()),
}


@functools.cache
def _examples() -> dict[str, Any]:
    """GitHub's example answers per operation and status (vendored from its API description)."""
    text = resources.files("changelog_tools.testing").joinpath("github_examples.json")
    data: dict[str, Any] = json.loads(text.read_text(encoding="utf-8"))
    return {key: statuses[min(statuses)] for key, statuses in data.items() if key != "source"}


def _merged(template: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """A fresh copy of ``template`` with ``overrides`` merged in (objects into objects)."""
    out = {k: v for k, v in template.items() if k not in overrides}
    for key, value in out.items():
        if isinstance(value, dict | list):
            out[key] = _copy(value)
    for key, value in overrides.items():
        kept = template.get(key)
        out[key] = (
            _merged(kept, value) if isinstance(value, dict) and isinstance(kept, dict) else value
        )
    return out


def _copy(value: Any) -> Any:
    # JSON only: several times faster than copy.deepcopy, which answers pay for on every item
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value
