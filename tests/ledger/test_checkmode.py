"""ledger/checkmode.py: which mode a check runs in, from the flags and the Actions event."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from changelog_tools.errors import UsageError
from changelog_tools.ledger.checkmode import (
    EventContext,
    Request,
    github_context,
    queue_ref_pr,
    resolve_mode,
)

SHA_A, SHA_B = "a" * 40, "b" * 40


def event_env(tmp_path: Path, name: str, payload: dict[str, object]) -> dict[str, str]:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(payload), encoding="utf-8")
    return {"GITHUB_EVENT_NAME": name, "GITHUB_EVENT_PATH": str(path)}


@pytest.mark.parametrize(
    ("ref", "pr"),
    [
        ("refs/heads/gh-readonly-queue/main/pr-2607-0123abc", 2607),
        ("gh-readonly-queue/release/1.x/pr-5-" + "a" * 40, 5),
        ("refs/heads/gh-readonly-queue/main/pr-٥-0123abc", None),  # ASCII digits only
        ("refs/heads/gh-readonly-queue/main/pr-5", None),
        ("refs/heads/main", None),
    ],
)
def test_queue_ref_pr(ref: str, pr: int | None) -> None:
    assert queue_ref_pr(ref) == pr


def test_outside_github_actions_there_is_no_event() -> None:
    assert github_context({}, main_branch="main") is None


def test_a_pull_request_event_gives_pr_mode_with_its_number_and_head(tmp_path: Path) -> None:
    env = event_env(
        tmp_path, "pull_request", {"pull_request": {"number": 12, "head": {"sha": SHA_B}}}
    )
    found = github_context(env, main_branch="main")
    assert found == EventContext("pr", 12, None, SHA_B, "pull_request event for #12")


def test_a_pull_request_event_without_a_number_is_a_usage_error(tmp_path: Path) -> None:
    env = event_env(tmp_path, "pull_request", {"pull_request": {"number": True}})
    with pytest.raises(UsageError, match="no pull-request number"):
        github_context(env, main_branch="main")


def test_a_push_to_main_compares_the_pushed_range(tmp_path: Path) -> None:
    env = event_env(tmp_path, "push", {"ref": "refs/heads/trunk", "before": SHA_A, "after": SHA_B})
    assert github_context(env, main_branch="trunk") == EventContext(
        "main", None, SHA_A, SHA_B, "push to trunk"
    )


def test_a_push_that_creates_the_branch_has_no_usable_before(tmp_path: Path) -> None:
    env = event_env(
        tmp_path, "push", {"ref": "refs/heads/main", "before": "0" * 40, "after": SHA_B}
    )
    found = github_context(env, main_branch="main")
    assert found is not None and (found.mode, found.base, found.head) == ("main", None, SHA_B)


def test_a_push_to_another_branch_is_local(tmp_path: Path) -> None:
    env = event_env(tmp_path, "push", {"ref": "refs/heads/topic", "after": SHA_B})
    assert github_context(env, main_branch="main") == EventContext(
        "local", source="push to refs/heads/topic"
    )


def test_a_merge_group_event_lands_the_queue_refs_pr_in_main_mode(tmp_path: Path) -> None:
    ref = "refs/heads/gh-readonly-queue/main/pr-41-" + SHA_B
    group = {"head_ref": ref, "base_sha": SHA_A, "head_sha": SHA_B}
    found = github_context(
        event_env(tmp_path, "merge_group", {"merge_group": group}), main_branch="main"
    )
    assert found is not None
    assert (found.mode, found.pr, found.base, found.head) == ("main", 41, SHA_A, SHA_B)


def test_a_merge_group_event_without_its_object_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no merge_group object"):
        github_context(event_env(tmp_path, "merge_group", {}), main_branch="main")


PR_EVENT = EventContext("pr", 7, None, SHA_B, "pull_request event for #7")
PUSH_EVENT = EventContext("main", None, SHA_A, SHA_B, "push to main")


@pytest.mark.parametrize(
    ("request_", "event", "expected"),
    [
        (Request(), None, ("local", None)),
        (Request(), PR_EVENT, ("pr", 7)),
        (Request(), PUSH_EVENT, ("main", None)),
        (Request(pr=9), PR_EVENT, ("pr", 9)),  # the flag wins over the event
        (Request(mode="main", pr=9), None, ("main", 9)),
        (Request(mode="pr"), PR_EVENT, ("pr", 7)),
        (Request(mode="main"), PUSH_EVENT, ("main", None)),
        (Request(mode="main"), PR_EVENT, ("main", None)),
        (Request(mode="local"), PR_EVENT, ("local", None)),
    ],
)
def test_resolve_mode_lets_flags_win_over_the_event(
    request_: Request, event: EventContext | None, expected: tuple[str, int | None]
) -> None:
    assert resolve_mode(request_, event) == expected


def test_pr_mode_without_a_number_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="needs the pull request's number"):
        resolve_mode(Request(mode="pr"), None)


def test_a_pr_number_with_local_mode_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="cannot be combined with --local"):
        resolve_mode(Request(mode="local", pr=3), None)
