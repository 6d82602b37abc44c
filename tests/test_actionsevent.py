"""actionsevent.py: the one reader of the Actions event that check, reuse-gate and signoff share."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from changelog_tools.actionsevent import ActionsEvent, read_event
from changelog_tools.errors import UsageError


def test_outside_actions_the_event_is_empty() -> None:
    event = read_event({})
    assert event == ActionsEvent(None)
    assert event.payload == {} and event.pr_number is None and event.action is None


def test_the_payload_and_the_runner_variables_are_read_once(tmp_path: Path) -> None:
    path = tmp_path / "event.json"
    path.write_text(json.dumps({"action": "synchronize", "pull_request": {"number": 7}}))
    env = {"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(path),
           "GITHUB_SHA": "abc", "GITHUB_REF": "refs/pull/7/merge"}  # fmt: skip
    event = read_event(env)
    assert (event.name, event.action, event.pr_number) == ("pull_request", "synchronize", 7)
    assert (event.sha, event.ref) == ("abc", "refs/pull/7/merge")
    assert event.section("pull_request") == {"number": 7} and event.section("issue") == {}


@pytest.mark.parametrize(
    ("payload", "number"),
    [
        ({"number": 9}, 9),  # a top-level number (pull_request events carry both)
        ({"pull_request": {"number": True}}, None),  # a JSON true is no number
        ({"pull_request": {"number": "7"}}, None),  # nor is a string
        ([1, 2], None),  # a payload that is no object is an empty one
    ],
)
def test_the_pull_request_number_is_a_json_integer_only(
    tmp_path: Path, payload: object, number: int | None
) -> None:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(payload))
    assert read_event({"GITHUB_EVENT_PATH": str(path)}).pr_number == number


@pytest.mark.parametrize("content", [None, "{not json"])
def test_a_payload_that_cannot_be_read_is_one_usage_error(
    tmp_path: Path, content: str | None
) -> None:
    path = tmp_path / "event.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(UsageError, match=r"cannot read the event payload GITHUB_EVENT_PATH="):
        read_event({"GITHUB_EVENT_PATH": str(path)})
