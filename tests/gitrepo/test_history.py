"""History questions against git itself: ancestry and merge-bases, the commits between two
revisions and their messages and parents, a file's history, the state of the checkout."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from changelog_tools import gitrepo
from changelog_tools.errors import GitError
from tests.conftest import commit_files, git
from tests.gitrepo.conftest import Opener


def test_message_is_the_whole_message_and_messages_between_leave_merges_out(
    opened: Opener,
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
    repo = opened(tmp_path)
    assert repo.message(one) == "first line\n\nbody of one\nCo-authored-by: x\n"
    assert repo.message(one) == git(tmp_path, "log", "-1", "--format=%B", one) + "\n"
    # oldest first, stripped, the merge commit left out, main's own commit and side's in
    assert repo.messages_between(base, two) == [
        "first line\n\nbody of one\nCo-authored-by: x",
        "on main",
        "two",
    ]
    assert repo.messages_between(two, two) == []


def test_parents_in_order_and_none_for_a_root(opened: Opener, tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    root = commit_files(tmp_path, {"a": "a\n"}, "root")
    git(tmp_path, "checkout", "-qb", "side")
    side = commit_files(tmp_path, {"b": "b\n"}, "side")
    git(tmp_path, "checkout", "-q", "main")
    ours = commit_files(tmp_path, {"c": "c\n"}, "ours")
    git(tmp_path, "merge", "-q", "--no-ff", "-m", "merge", "side")
    merge = git(tmp_path, "rev-parse", "HEAD")
    repo = opened(tmp_path)
    assert repo.parents(merge) == [ours, side]
    assert repo.parents(side) == [root]
    assert repo.parents(root) == []


def test_history_questions(opened: Opener, tmp_path: Path) -> None:
    path = tmp_path / "history"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    base = commit_files(path, {"a": "1\n"}, "base")
    git(path, "checkout", "-q", "-b", "feature/x")
    feature = commit_files(path, {"b": "1\n"}, "feature")
    git(path, "checkout", "-q", "main")
    main = commit_files(path, {"c": "1\n"}, "main")
    repo = opened(path)
    assert repo.merge_base("feature/x", "main") == base
    assert repo.is_ancestor(base, feature) and repo.is_ancestor(main, main)
    assert not repo.is_ancestor(feature, main)
    assert not repo.is_ancestor("nope", main)
    with pytest.raises(GitError, match="git merge-base nope main failed: fatal: Not a valid"):
        repo.merge_base("nope", "main")
    assert repo.is_ancestor(f"{base}^{{commit}}", "feature/x")
    branch = gitrepo.open_repo(path)  # HEAD is read through GitPython's Repo
    assert branch.current_branch() == "main"
    git(path, "checkout", "-q", "feature/x")
    assert branch.current_branch() == "feature/x"
    git(path, "checkout", "-q", "--detach")
    assert branch.current_branch() is None


def test_is_clean_counts_tracked_changes_only(tmp_path: Path) -> None:
    path = tmp_path / "clean"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    commit_files(path, {"a": "1\n"}, "base")
    repo = gitrepo.open_repo(path)
    assert repo.is_clean()
    (path / "untracked").write_text("u\n")
    os.utime(path / "a", (1, 1))  # only the stat information changed
    assert repo.is_clean()
    (path / "a").write_text("2\n")
    assert not repo.is_clean()
    git(path, "add", "a")
    assert not repo.is_clean()
    git(path, "commit", "-q", "-m", "two")
    assert repo.is_clean()


def test_first_parent_changes_are_the_main_line_commits_that_changed_the_file(
    opened: Opener,
    tmp_path: Path,
) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    added = commit_files(repo, {"log.yaml": "a\n", "other": "x\n"}, "add (#1)")
    commit_files(repo, {"other": "y\n"}, "other only (#2)")
    git(repo, "checkout", "-qb", "side")
    side = commit_files(repo, {"log.yaml": "a\nb\n"}, "side work")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "side", "-m", "Merge pull request #3 from o/side")
    merge = git(repo, "rev-parse", "HEAD")
    git(repo, "rm", "-q", "log.yaml")
    git(repo, "commit", "-qm", "drop it")
    dropped = git(repo, "rev-parse", "HEAD")
    handle = opened(repo)
    changes = list(handle.first_parent_changes("main", "log.yaml"))
    # newest first; the side branch's own commit and the commit that left the file alone are
    # not main-line changes of it; the root commit has no parent
    assert [(sha, subject) for sha, _parent, subject in changes] == [
        (dropped, "drop it"),
        (merge, "Merge pull request #3 from o/side"),
        (added, "add (#1)"),
    ]
    assert changes[1][1] == git(repo, "rev-parse", f"{merge}^1") and changes[2][1] is None
    assert side not in {sha for sha, _, _ in changes}


def test_file_history_is_git_log_of_the_path_newest_first(opened: Opener, tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    first = commit_files(tmp_path, {"a.md": "one\n"}, "first")
    commit_files(tmp_path, {"b.md": "other\n"}, "unrelated")
    second = commit_files(tmp_path, {"a.md": "two\n"}, "second")
    history = opened(tmp_path).file_history("HEAD", "a.md")
    assert [(v.commit, v.subject) for v in history] == [(second, "second"), (first, "first")]
    assert history[0].date.startswith("20")  # ISO 8601 committer date


def test_symbolic_head_names_the_branch_and_none_when_detached(
    opened: Opener, tmp_path: Path
) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    sha = commit_files(tmp_path, {"a": "a\n"}, "a")
    repo = opened(tmp_path)
    assert repo.symbolic_head() == "refs/heads/main"
    git(tmp_path, "checkout", "-q", "--detach", sha)
    assert repo.symbolic_head() is None


def test_commits_between_subject_shallow_and_merge_tree(opened: Opener, tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    base = commit_files(tmp_path, {"a.txt": "a\n", "b.txt": "b\n"}, "base")
    one = commit_files(tmp_path, {"a.txt": "a1\n"}, "touch a (#12)")
    two = commit_files(tmp_path, {"b.txt": "b1\n"}, "touch b")
    three = commit_files(tmp_path, {"a.txt": "a2\n"}, "touch a again")
    repo = opened(tmp_path)
    assert repo.commits_between(base, three, ["a.txt"]) == [three, one]
    assert repo.commits_between(base, three, ["a.txt", "b.txt"], limit=2) == [three, two]
    assert repo.commits_between(three, three, ["a.txt"]) == []
    assert repo.subject(one) == "touch a (#12)"
    assert repo.is_shallow() is False
    git(tmp_path, "checkout", "-qb", "side", base)
    side = commit_files(tmp_path, {"a.txt": "side\n", "c.txt": "c\n"}, "side")
    tree, conflicts = repo.merge_tree(three, side)
    assert conflicts == ("a.txt",) and len(tree) == 40
    clean_tree, none = repo.merge_tree(two, base)
    assert none == () and clean_tree == git(tmp_path, "rev-parse", f"{two}^{{tree}}")


@pytest.mark.parametrize("mark", ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85"])
def test_a_subject_holding_a_character_python_counts_as_a_line_break_stays_one_record(
    opened: Opener, tmp_path: Path, mark: str
) -> None:
    # str.splitlines() breaks at these too; git's records end at a newline only.
    git(tmp_path, "init", "-q", "-b", "main")
    first = commit_files(tmp_path, {"log.yaml": "a\n"}, "add (#1)")
    subject = f"red{mark}green (#2)"
    second = commit_files(tmp_path, {"log.yaml": "a\nb\n"}, subject)
    repo = opened(tmp_path)
    changes = list(repo.first_parent_changes("main", "log.yaml"))
    assert [(sha, s) for sha, _p, s in changes] == [(second, subject), (first, "add (#1)")]
    history = repo.file_history("main", "log.yaml")
    assert [(v.commit, v.subject) for v in history] == [(second, subject), (first, "add (#1)")]
