"""The shipped workflow: default branch only, SHA-pinned actions, least privilege, one
concurrency group per PR without cancelling."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

WORKFLOW = Path(__file__).resolve().parents[2] / ".github/workflows/signoff-verify.yml"


def load() -> dict[str, Any]:
    data: dict[str, Any] = YAML(typ="safe").load(WORKFLOW.read_text(encoding="utf-8"))
    return data


def test_it_triggers_on_every_event_the_issue_names() -> None:
    events = load().get("on") or load()[True]  # YAML 1.1 reads `on` as true
    assert set(events) == {
        "issue_comment",
        "pull_request_review",
        "pull_request_review_comment",
        "pull_request_target",
        "workflow_dispatch",
    }
    assert "pr" in events["workflow_dispatch"]["inputs"]


def test_every_action_is_pinned_by_a_full_commit_sha() -> None:
    uses = re.findall(r"^\s*-?\s*uses:\s*(\S+)", WORKFLOW.read_text(encoding="utf-8"), re.M)
    assert uses
    for ref in uses:
        # `./` is this repository's own action, read from the default branch's checkout (a
        # benchmark repository pins it by SHA, as the comment above the step says).
        assert ref == "./" or re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", ref), ref


def test_the_tool_is_installed_through_the_action_never_from_the_index() -> None:
    steps = load()["jobs"]["verify"]["steps"]
    assert not any("run" in s for s in steps), "a run: step (an install?) crept back in"
    verify = next(s for s in steps if s.get("uses") == "./")
    assert verify["with"] == {"command": "signoff", "args": "verify", "pr": "${{ inputs.pr }}"}
    assert verify["env"] == {"GH_TOKEN": "${{ github.token }}"}
    assert "perf-changelog-tools" not in WORKFLOW.read_text(encoding="utf-8")


def test_it_checks_out_only_the_default_branch_and_never_the_pr() -> None:
    code = [ln.split("#", 1)[0] for ln in WORKFLOW.read_text(encoding="utf-8").splitlines()]
    text = "\n".join(code)
    steps = load()["jobs"]["verify"]["steps"]
    checkout = next(s for s in steps if str(s.get("uses", "")).startswith("actions/checkout@"))
    assert checkout["with"]["ref"] == "${{ github.event.repository.default_branch }}"
    assert checkout["with"]["fetch-depth"] == 0
    assert "head.sha" not in text and "head.ref" not in text and "refs/pull" not in text


def test_permissions_are_least_privilege() -> None:
    data = load()
    assert data["permissions"] == {}
    assert data["jobs"]["verify"]["permissions"] == {
        "contents": "read",
        "pull-requests": "read",
        "issues": "write",
        "statuses": "write",
        "actions": "read",
    }


def test_one_concurrency_group_per_pr_without_cancelling() -> None:
    concurrency = load()["concurrency"]
    assert concurrency["cancel-in-progress"] is False
    assert "pull_request.number" in concurrency["group"] and "issue.number" in concurrency["group"]


def test_expression_bearing_scalars_stay_tiny() -> None:
    # GitHub's 21,000-character expression limit broke the reference verifier once
    for line in WORKFLOW.read_text(encoding="utf-8").splitlines():
        assert len(line) < 200
