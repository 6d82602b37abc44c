"""Writing history against git itself: worktrees, merges and their conflicts, commits (no hook
runs), and commits built from plumbing without touching the checkout or the index."""

from __future__ import annotations

from pathlib import Path

import pytest

from changelog_tools import gitrepo
from changelog_tools.errors import GitError
from changelog_tools.gitrepo import open_repo
from tests.conftest import commit_files, git


@pytest.fixture
def diverged(tmp_path: Path) -> tuple[Path, str, str]:
    """A repository on `main` and a commit `side` that both changed `a` since their base."""
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    commit_files(path, {"a": "base\n", "b": "b\n"}, "base")
    git(path, "checkout", "-qb", "side")
    side = commit_files(path, {"a": "side\n"}, "side")
    git(path, "checkout", "-q", "main")
    main = commit_files(path, {"a": "main\n"}, "main")
    return path, main, side


def _failing_hook(path: Path, name: str) -> Path:
    """A hook that leaves a mark and fails: it must never run."""
    mark = path.parent / f"{name}-ran"
    hook = path / ".git" / "hooks" / name
    hook.write_text(f"#!/bin/sh\ntouch '{mark}'\nexit 1\n")
    hook.chmod(0o755)
    return mark


def test_a_scratch_worktree_is_added_and_removed_with_its_branch(
    diverged: tuple[Path, str, str],
) -> None:
    path, main, _side = diverged
    repo = open_repo(path)
    hooks = path.parent / "no-hooks"
    hooks.mkdir()
    mark = path.parent / "post-checkout-ran"
    hook = path / ".git" / "hooks" / "post-checkout"
    hook.write_text(f"#!/bin/sh\ntouch '{mark}'\n")
    hook.chmod(0o755)
    where = path.parent / "scratch"
    repo.add_worktree(where, branch="tool/scratch", start="HEAD~1", hooks_dir=hooks)
    assert (where / "a").read_text() == "base\n"
    assert git(where, "rev-parse", "--abbrev-ref", "HEAD") == "tool/scratch"
    assert not mark.exists()  # the hooks directory was the empty one
    assert repo.current_branch() == "main" and repo.rev_parse("HEAD") == main
    with pytest.raises(GitError, match="worktree add"):
        repo.add_worktree(where, branch="tool/scratch", start="HEAD", hooks_dir=hooks)
    assert repo.remove_worktree(where) is True
    assert not where.exists()
    assert repo.remove_worktree(where) is False  # gone already: an answer, not an error
    assert repo.prune_worktrees() is True
    assert repo.delete_branch("tool/scratch") is True
    assert repo.delete_branch("tool/scratch") is False
    assert len(git(path, "worktree", "list").splitlines()) == 1  # only the main one


def test_checkout_answers_whether_it_could(diverged: tuple[Path, str, str]) -> None:
    path, _main, side = diverged
    repo = open_repo(path)
    assert repo.checkout("side") is True
    assert repo.current_branch() == "side" and repo.rev_parse("HEAD") == side
    assert repo.checkout("no-such-branch") is False
    assert repo.current_branch() == "side"


def test_a_clean_merge_commits_and_a_conflict_is_reported_then_concluded(
    diverged: tuple[Path, str, str],
) -> None:
    path, main, side = diverged
    commit_files(path, {"a": "side\n"}, "main agrees with side")  # no conflict on `a` now
    repo = open_repo(path)
    before = repo.rev_parse("HEAD")
    assert repo.merge(side, message="merge side in") is None
    assert repo.parents("HEAD") == [before, side]
    assert repo.message("HEAD").strip() == "merge side in"
    # a conflict: git's words come back, the paths are listed, and the merge can be concluded
    git(path, "reset", "-q", "--hard", main)
    mark = _failing_hook(path, "commit-msg")  # concluding the merge runs no hook
    failed = repo.merge(side, message="merge side in")
    assert failed == "exit status 1"  # git reports a conflict on stdout, not stderr
    assert repo.unmerged_paths() == ["a"]
    (path / "a").write_text("resolved\n")
    repo.stage("a")
    assert repo.unmerged_paths() == []
    merged = repo.conclude_merge()
    assert repo.parents(merged) == [main, side]
    assert repo.read_blob(merged, "a") == b"resolved\n"
    assert repo.message(merged).startswith("merge side in")  # git's merge message kept
    assert not mark.exists()
    # a merge abandoned: the checkout is back where it was
    git(path, "reset", "-q", "--hard", main)
    assert repo.merge(side, message="again") is not None
    assert repo.abort_merge() is True
    assert repo.is_clean() and repo.rev_parse("HEAD") == main and repo.unmerged_paths() == []
    assert repo.abort_merge() is False  # no merge under way
    assert repo.merge("no-such-commit", message="x") is not None
    assert repo.unmerged_paths() == []  # a failure, not a conflict: nothing unmerged


def test_commit_runs_no_hook_and_answers_the_new_commit(diverged: tuple[Path, str, str]) -> None:
    path, main, _side = diverged
    repo = open_repo(path)
    marks = [_failing_hook(path, name) for name in ("pre-commit", "commit-msg")]
    (path / "b").write_text("b2\n")
    repo.stage("b")
    made = repo.commit("change b")
    assert made == git(path, "rev-parse", "HEAD") and repo.parents(made) == [main]
    amended = repo.commit("change b, amended", amend=True)
    assert amended != made and repo.parents(amended) == [main]
    assert repo.message(amended).strip() == "change b, amended"
    with pytest.raises(GitError, match="git commit"):  # nothing to commit
        repo.commit("empty")
    empty = repo.commit("empty", allow_empty=True)
    assert repo.tree_of(empty) == repo.tree_of(amended)
    assert [m.exists() for m in marks] == [False, False]


def test_has_identity_follows_gits_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    repo = open_repo(tmp_path)
    assert repo.has_identity() is True  # the test's identity, from the environment
    for who in ("AUTHOR", "COMMITTER"):
        for what in ("NAME", "EMAIL"):
            monkeypatch.delenv(f"GIT_{who}_{what}")
    git(tmp_path, "config", "user.useConfigOnly", "true")  # no guess from the host's name
    repo.close()
    assert repo.has_identity() is False
    git(tmp_path, "config", "user.name", "Someone")
    git(tmp_path, "config", "user.email", "someone@example.invalid")
    assert repo.has_identity() is True


def test_commits_from_plumbing_touch_neither_checkout_nor_index(
    diverged: tuple[Path, str, str],
) -> None:
    path, main, side = diverged
    (path / "b").chmod(0o755)
    exe = repo_head = commit_files(path, {}, "b is executable")
    (path / "a").write_text("work in progress\n")
    git(path, "add", "a")
    (path / ".gitattributes").write_text("* text=auto eol=crlf\n")
    repo = open_repo(path)
    data = b"exact\nbytes\r\nno filter\n"
    tree = repo.tree_with_file(exe, "b", data)
    new_tree = repo.tree_with_file(exe, "dir/new.txt", b"new\n")
    env = {"GIT_COMMITTER_NAME": "Plumber", "GIT_COMMITTER_EMAIL": "p@example.invalid"}
    one = repo.commit_tree(tree, [exe], "one", env)
    two = repo.commit_tree(new_tree, [exe, side], "two")
    assert repo.parents(one) == [exe] and repo.parents(two) == [exe, side]
    assert repo.read_blob(one, "b") == data  # not converted by .gitattributes
    assert git(path, "ls-tree", one, "--", "b").split()[0] == "100755"  # mode kept
    assert git(path, "ls-tree", two, "--", "dir/new.txt").split()[0] == "100644"
    assert repo.read_blob(two, "a") == b"main\n"  # the rest of the tree is the parent's
    assert git(path, "log", "-1", "--format=%cn %s", one) == "Plumber one"
    assert repo.message(two).strip() == "two"
    # no ref moved, the checkout and the staged change are as they were
    assert repo.rev_parse("HEAD") == repo_head
    assert (path / "a").read_text() == "work in progress\n"
    assert git(path, "diff", "--cached", "--name-only") == "a"
    assert main != repo_head
    with pytest.raises(GitError, match="commit-tree"):
        repo.commit_tree(tree, ["no-such-commit"], "bad")


def test_merge_file_marks_a_conflict_with_the_given_labels(tmp_path: Path) -> None:
    base, ours, theirs = (tmp_path / n for n in ("base", "ours", "theirs"))
    base.write_text("a\nb\nc\n")
    ours.write_text("a\nB1\nc\n")
    theirs.write_text("a\nB2\nc\n")
    merged = gitrepo.merge_file(ours, base, theirs, labels=("mine", "old", "yours"), marker_size=3)
    assert merged == b"a\n<<< mine\nB1\n===\nB2\n>>> yours\nc\n"
    theirs.write_text("a\nb\nc\nd\n")
    assert gitrepo.merge_file(ours, base, theirs, labels=("m", "o", "y"), marker_size=7) == (
        b"a\nB1\nc\nd\n"
    )
    assert gitrepo.merge_file(ours, tmp_path / "missing", theirs, labels=("m", "o", "y"),
                              marker_size=7) is None  # fmt: skip
