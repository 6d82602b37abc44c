"""The records the GitHub layer hands the rest of the tool are plain frozen slotted dataclasses:
immutable, hashable, comparable only with their own kind, and never a PyGithub object."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
from typing import Any

import pytest

from changelog_tools.github import records
from changelog_tools.github.adapter import GitHub
from changelog_tools.github.records import Artifact, PullRequest
from changelog_tools.reuse import drift
from changelog_tools.reuse import gate as reuse
from changelog_tools.reuse.gate import Decision
from changelog_tools.testing.fakegithub import FakeGitHub

RECORD_MODULES = (records, reuse, drift)


def record_classes() -> list[type]:
    return [
        cls
        for module in RECORD_MODULES
        for _, cls in inspect.getmembers(module, inspect.isclass)
        if cls.__module__ == module.__name__ and dataclasses.is_dataclass(cls)
    ]


@pytest.mark.parametrize("cls", record_classes(), ids=lambda c: c.__name__)
def test_every_record_is_a_frozen_slotted_dataclass(cls: type) -> None:
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    assert params.frozen and "__slots__" in cls.__dict__


def test_a_record_cannot_change_or_grow() -> None:
    artifact = Artifact(3, "results_bmk", False, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        artifact.name = "other"  # type: ignore[misc]
    with pytest.raises((AttributeError, TypeError)):
        artifact.extra = 1  # type: ignore[attr-defined]
    assert not hasattr(artifact, "__dict__")


def test_equality_needs_the_same_class_and_copies_are_equal() -> None:
    artifact = Artifact(3, "results_bmk", False, None)
    assert artifact != (3, "results_bmk", False, None)  # type: ignore[comparison-overlap]
    for twin in (copy.copy(artifact), copy.deepcopy(artifact),
                 pickle.loads(pickle.dumps(artifact))):  # fmt: skip
        assert twin == artifact and hash(twin) == hash(artifact)


def test_the_gate_records_keep_their_fields_and_defaults() -> None:
    decision = Decision(False, False, "why")
    assert (
        decision.pr_number, decision.source, decision.refused, decision.drift, decision.stale
    ) == (None, None, False, (), ())  # fmt: skip
    names = [f.name for f in dataclasses.fields(Decision)]
    assert names[-2:] == ["drift", "stale"]
    assert "mergeable_state" in [f.name for f in dataclasses.fields(PullRequest)]


def test_the_adapter_hands_out_records_holding_only_plain_values(
    fake: FakeGitHub, gh: GitHub
) -> None:
    fake.add_pull(5, "feat", head_sha="a" * 40, labels=["x"])
    fake.add_comment(5, "hello")
    fake.add_review(5, login="carol", state="APPROVED", commit_id="a" * 40)
    found: list[Any] = [gh.get_pull(5), *gh.list_issue_comments(5), *gh.list_remarks(5)]
    for record in found:
        for field in dataclasses.fields(record):
            value = getattr(record, field.name)
            module = type(value).__module__
            assert not module.startswith(("github", "requests", "urllib3")), (field.name, value)
