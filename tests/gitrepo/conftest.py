"""The adapter answers each question two ways: plain git processes while GitPython is not
loaded, GitPython's runner and object reader once it is. ``opened`` runs a test both ways."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from changelog_tools.gitrepo import GitRepo, open_repo

Opener = Callable[[Path], GitRepo]


@pytest.fixture(params=["plain", "gitpython"])
def opened(request: pytest.FixtureRequest) -> Iterator[Opener]:
    """``open_repo`` as a fresh repository (plain git processes), or with GitPython's handle
    forced open first (everything through GitPython). The plain ones must still be plain when
    the test ends: nothing it asked needed GitPython."""
    repos: list[GitRepo] = []

    def opener(path: Path) -> GitRepo:
        repo = open_repo(path)
        if request.param == "gitpython":
            assert repo._repo is not None and repo._gitpython_loaded
        repos.append(repo)
        return repo

    yield opener
    for repo in repos:
        assert repo._gitpython_loaded == (request.param == "gitpython"), repo
