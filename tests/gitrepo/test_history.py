"""History questions against git itself: messages, the commits between two revisions, parents."""

from __future__ import annotations

from pathlib import Path

from changelog_tools.gitrepo import open_repo
from tests.conftest import commit_files, git


def test_message_is_the_whole_message_and_messages_between_leave_merges_out(
    tmp_path: Path,
) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    base = commit_files(tmp_path, {"a": "a\n"}, "base")
    git(tmp_path, "checkout", "-qb", "side")
    one = commit_files(tmp_path, {"b": "b\n"}, "first line\n\nbody of one\nCo-authored-by: x")
    git(tmp_path, "checkout", "-q", "main")
    commit_files(tmp_path, {"c": "c\n"}, "on main")
    git(tmp_path, "merge", "-q", "--no-ff", "-m", "merge side", "side")
    two = commit_files(tmp_path, {"d": "d\n"}, "  two  ")
    repo = open_repo(tmp_path)
    assert repo.message(one) == "first line\n\nbody of one\nCo-authored-by: x\n"
    assert repo.message(one) == git(tmp_path, "log", "-1", "--format=%B", one) + "\n"
    # oldest first, stripped, the merge commit left out, main's own commit and side's in
    assert repo.messages_between(base, two) == [
        "first line\n\nbody of one\nCo-authored-by: x",
        "on main",
        "two",
    ]
    assert repo.messages_between(two, two) == []


def test_parents_in_order_and_none_for_a_root(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    root = commit_files(tmp_path, {"a": "a\n"}, "root")
    git(tmp_path, "checkout", "-qb", "side")
    side = commit_files(tmp_path, {"b": "b\n"}, "side")
    git(tmp_path, "checkout", "-q", "main")
    ours = commit_files(tmp_path, {"c": "c\n"}, "ours")
    git(tmp_path, "merge", "-q", "--no-ff", "-m", "merge", "side")
    merge = git(tmp_path, "rev-parse", "HEAD")
    repo = open_repo(tmp_path)
    assert repo.parents(merge) == [ours, side]
    assert repo.parents(side) == [root]
    assert repo.parents(root) == []
