"""What a merge under way is read from: the git dir's own files, checked against git's answers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from changelog_tools.gitrepo import open_repo, ref_tip_from_files
from tests.conftest import commit_files, git


def test_a_ref_tip_read_from_files_is_gits_answer_or_none(
    make_repo: Callable[..., Path], tmp_path: Path
) -> None:
    repo_dir = make_repo("repo", {"a": "1\n"})
    commit_files(repo_dir, {"a": "2\n"}, "second")
    git(repo_dir, "branch", "side", "HEAD~1")
    repo = open_repo(repo_dir)
    main, side = git(repo_dir, "rev-parse", "main"), git(repo_dir, "rev-parse", "side")
    # loose refs
    assert ref_tip_from_files(repo, "refs/heads/main") == main
    assert ref_tip_from_files(repo, "refs/heads/side") == side
    assert ref_tip_from_files(repo, "refs/heads/absent") is None
    # packed refs (no loose file left)
    git(repo_dir, "pack-refs", "--all")
    assert not (repo_dir / ".git" / "refs" / "heads" / "side").exists()
    assert ref_tip_from_files(repo, "refs/heads/side") == side
    assert ref_tip_from_files(repo, "refs/heads/absent") is None
    # a loose ref newer than its packed line wins, as in git
    commit_files(repo_dir, {"a": "3\n"}, "third")
    assert ref_tip_from_files(repo, "refs/heads/main") == git(repo_dir, "rev-parse", "main")
    # a symbolic ref is not read as a commit
    (repo_dir / ".git" / "refs" / "heads" / "alias").write_text("ref: refs/heads/main\n")
    assert ref_tip_from_files(repo, "refs/heads/alias") is None
    # a linked worktree's refs live in the common dir: not read from files at all
    git(repo_dir, "worktree", "add", "-q", str(tmp_path / "wt"), "side")
    linked = open_repo(tmp_path / "wt")
    assert (linked.git_dir / "commondir").exists()
    assert ref_tip_from_files(linked, "refs/heads/side") is None
