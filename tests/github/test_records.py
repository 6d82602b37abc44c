"""The GitHub records behave as the frozen dataclasses they replaced (issue 14).

Each check runs on a Record and on the equivalent ``@dataclass(frozen=True)`` side by side,
so a difference in construction, immutability, equality, hashing or repr fails here.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
from typing import Any

import pytest

from changelog_tools.github.records import Artifact, PullRequest
from changelog_tools.github.reuse import Decision
from changelog_tools.record import Record


class Point(Record):
    """A record with a default."""

    x: int
    y: int
    label: str = "p"


@dataclasses.dataclass(frozen=True)
class DPoint:
    """The dataclass it stands for."""

    x: int
    y: int
    label: str = "p"


class Other(Record):
    """Another record with the same fields."""

    x: int
    y: int
    label: str = "p"


@pytest.mark.parametrize("cls", [Point, DPoint])
def test_construction_defaults_and_repr_match_the_dataclass(cls: Any) -> None:
    name = cls.__qualname__
    assert repr(cls(1, 2)) == f"{name}(x=1, y=2, label='p')"
    assert repr(cls(y=2, x=1, label="q")) == f"{name}(x=1, y=2, label='q')"
    assert cls(1, y=2) == cls(1, 2, "p") and cls(1, 2) != cls(2, 1)
    assert hash(cls(1, 2)) == hash(cls(x=1, y=2)) == hash((1, 2, "p"))
    assert len({cls(1, 2), cls(1, 2), cls(1, 3)}) == 2
    for bad in (lambda: cls(1), lambda: cls(1, 2, "a", 4), lambda: cls(1, 2, z=3),
                lambda: cls(1, 2, x=1)):  # fmt: skip
        with pytest.raises(TypeError):
            bad()  # type: ignore[no-untyped-call]


@pytest.mark.parametrize("cls", [Point, DPoint])
def test_records_are_immutable(cls: Any) -> None:
    point = cls(1, 2)
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'x'"):
        point.x = 5
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot delete field 'x'"):
        del point.x
    with pytest.raises(AttributeError):
        point.extra = 1
    assert point == cls(1, 2)


def test_equality_needs_the_same_class_and_is_not_a_tuple() -> None:
    assert Point(1, 2) != Other(1, 2)
    assert Point(1, 2) != (1, 2, "p")
    assert Point(1, 2).__eq__(DPoint(1, 2)) is NotImplemented
    with pytest.raises(TypeError):
        iter(Point(1, 2))  # type: ignore[call-overload]


def test_copies_and_pickles_are_equal() -> None:
    artifact = Artifact(3, "results_bmk", False, None)
    for twin in (copy.copy(artifact), copy.deepcopy(artifact),
                 pickle.loads(pickle.dumps(artifact))):  # fmt: skip
        assert twin == artifact and twin is not artifact and hash(twin) == hash(artifact)


def test_the_gate_records_keep_their_fields_and_defaults() -> None:
    decision = Decision(False, False, "why")
    assert (decision.pr_number, decision.source, decision.refused, decision.drift) == (
        None, None, False, (),
    )  # fmt: skip
    assert Decision._fields[-1] == "drift" and "mergeable_state" in PullRequest._fields


def test_a_required_field_after_a_default_is_refused_as_dataclass_does() -> None:
    with pytest.raises(TypeError, match="without a default follows"):

        class Bad(Record):
            """Invalid on purpose."""

            a: int = 1
            b: int  # type: ignore[misc]
