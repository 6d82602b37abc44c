"""Object questions against git itself: the tree a revision names."""

from __future__ import annotations

from pathlib import Path

import pytest

from changelog_tools.errors import GitError
from changelog_tools.gitrepo import open_repo
from tests.conftest import commit_files, git


def test_tree_of_is_git_rev_parse_of_the_tree(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    one = commit_files(tmp_path, {"a": "a\n", "d/b": "b\n"}, "one")
    empty = commit_files(tmp_path, {}, "empty: the same tree")
    two = commit_files(tmp_path, {"a": "a2\n"}, "two")
    repo = open_repo(tmp_path)
    for rev in (one, two, "HEAD", "main~1", f"{one}^{{tree}}"):
        assert repo.tree_of(rev) == git(tmp_path, "rev-parse", f"{rev}^{{tree}}")
    assert repo.tree_of(one) == repo.tree_of(empty) != repo.tree_of(two)
    subtree = git(tmp_path, "rev-parse", f"{one}:d")
    assert repo.tree_of(subtree) == subtree  # a tree names itself
    with pytest.raises(GitError, match="'nope' names no tree"):
        repo.tree_of("nope")
    blob = git(tmp_path, "rev-parse", f"{one}:a")
    with pytest.raises(GitError, match="names no tree"):
        repo.tree_of(blob)
