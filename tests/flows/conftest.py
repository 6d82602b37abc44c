"""Fixtures shared by the merge flow's tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.mergeworld import World, build_world


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    """A bare origin, the maintainer's clone (the working directory), the fake GitHub and CI."""
    for w in build_world(tmp_path):
        for key, value in w.env.items():
            monkeypatch.setenv(key, value)
        monkeypatch.chdir(w.clone)
        yield w
