"""Opening a repository as git finds it, and paths as git names them in a tree (the ledger
commands' spellings of a path run as users run them)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from changelog_tools import gitrepo
from changelog_tools.errors import GitError, UsageError
from tests.checkdata import (
    BASE,
    KEY,
    MASTER_A,
    MASTER_B,
    PULL,
    appended,
    commit_feature,
    entry,
)
from tests.conftest import commit_files, git, run_cli


def test_open_repo_finds_the_top_a_bare_repository_and_a_worktree(tmp_path: Path) -> None:
    path = tmp_path / "top"
    (path / "sub/deeper").mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    head = commit_files(path, {"sub/deeper/f": "f\n"}, "base")
    repo = gitrepo.open_repo(path / "sub/deeper")
    assert repo.path == path and repo.git_dir == path / ".git"
    assert repo.read_blob("HEAD", "sub/deeper/f") == b"f\n"
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(path), str(bare))
    opened = gitrepo.open_repo(bare)
    assert opened.path == opened.git_dir == bare
    assert opened.rev_parse("main") == head and opened.current_branch() == "main"
    assert opened.is_clean()
    worktree = tmp_path / "wt"
    git(path, "worktree", "add", "-q", "-b", "side", str(worktree))
    side = gitrepo.open_repo(worktree)
    assert side.path == worktree and side.git_dir == path / ".git/worktrees/wt"
    assert side.current_branch() == "side" and repo.current_branch() == "main"
    assert side.read_blob("side", "sub/deeper/f") == b"f\n"
    with pytest.raises(UsageError, match="not inside a git repository"):
        gitrepo.open_repo(tmp_path)
    with pytest.raises(UsageError, match="not inside a git repository"):
        gitrepo.open_repo(tmp_path / "missing")


def test_git_mode_accepts_dot_slash_and_absolute_paths(repo: Path) -> None:
    commit_feature(repo, appended(entry(KEY, link=f"{PULL}2557")))
    expected = "perf-changelog.yaml:17:3: CL201 entry 3: pr-link points at pull request #2557"
    for spelling in ("./perf-changelog.yaml", str(repo / "perf-changelog.yaml")):
        proc = run_cli(
            "check", "--pr", "2607", "--changelog-file", spelling,
            "--master-config", f"./{MASTER_A}", "--master-config", str(repo / MASTER_B),
            cwd=repo,
        )  # fmt: skip
        assert proc.returncode == 1, proc.stderr
        assert proc.stdout.startswith(expected + ", but this is pull request #2607\n")


def test_a_path_outside_the_repository_is_a_usage_error(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.yaml"
    outside.write_bytes(BASE)
    proc = run_cli("check", "--changelog-file", str(outside), cwd=repo)
    assert proc.returncode == 2
    assert f"{outside} is outside the repository" in proc.stderr


def test_open_repo_at_the_top_answers_as_git_does_and_asks_git_when_unsure(
    tmp_path: Path,
) -> None:
    # top=True reads a plain `.git` directory itself; the answer must be rev-parse's, and
    # anything unusual (a linked worktree, core.worktree, a bare flag, no repository at all)
    # goes to git, which gives the same answers and messages as without the hint.
    path = tmp_path / "top"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    commit_files(path, {"f": "f\n"}, "base")
    asked, read = gitrepo.open_repo(path), gitrepo.open_repo(path, top=True)
    assert (read.path, read.git_dir) == (asked.path, asked.git_dir) == (path, path / ".git")
    assert read.read_blob("HEAD", "f") == b"f\n"
    worktree = tmp_path / "wt"
    git(path, "worktree", "add", "-q", "-b", "side", str(worktree))
    side = gitrepo.open_repo(worktree, top=True)
    assert side.path == worktree and side.git_dir == path / ".git/worktrees/wt"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    git(path, "config", "core.worktree", str(elsewhere))
    moved = gitrepo.open_repo(path, top=True)
    assert (moved.path, moved.git_dir) == (elsewhere, path / ".git")
    git(path, "config", "--unset", "core.worktree")
    git(path, "config", "core.bare", "true")
    bare = gitrepo.open_repo(path, top=True)
    assert bare.path == bare.git_dir == path / ".git"
    with pytest.raises(UsageError, match="not inside a git repository"):
        gitrepo.open_repo(tmp_path / "missing", top=True)


def test_a_repository_whose_path_holds_a_newline_is_found_and_checked(tmp_path: Path) -> None:
    from tests.checkdata import init_repo

    odd = tmp_path / "two\nlines"
    odd.mkdir()
    repo = init_repo(odd / "repo")
    commit_feature(repo, appended(entry(KEY)))
    (repo / "sub").mkdir()
    opened = gitrepo.open_repo(repo / "sub")
    assert opened.path == repo and opened.git_dir == repo / ".git"
    bare = odd / "bare\n.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    assert gitrepo.open_repo(bare).git_dir == bare
    for args in (["check", "--pr", "7"], ["canonicalize", "--pr", "7"]):
        proc = run_cli(*args, cwd=repo / "sub")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert proc.stdout.endswith(": OK\n"), proc.stdout


def test_a_repository_git_refuses_keeps_git_s_reason_not_a_missing_repository(
    repo: Path,
) -> None:
    """git finds the repository and refuses to use it (here an extension it does not know):
    saying "not inside a git repository" would send the user looking for one that is there."""
    git(repo, "config", "core.repositoryformatversion", "1")
    git(repo, "config", "extensions.frobnicate", "true")
    proc = run_cli("check", "--pr", "7", cwd=repo)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert proc.stderr == (
        f"error: git cannot open the repository at {repo}: unknown repository extension "
        "found: frobnicate\n"
    )
    with pytest.raises(GitError, match="unknown repository extension found: frobnicate"):
        gitrepo.open_repo(repo)


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a directory to another user")
def test_a_repository_of_another_user_says_so_with_git_s_safe_directory_hint(repo: Path) -> None:
    subprocess.run(["chown", "-R", "nobody", str(repo)], check=True)
    proc = run_cli("lint", cwd=repo, env={"HOME": str(repo.parent)})
    assert proc.returncode == 3, proc.stdout + proc.stderr
    first, hint = proc.stderr.splitlines()
    assert first.startswith(f"error: git cannot open the repository at {repo}: detected dubious")
    assert hint.endswith(f"git config --global --add safe.directory {repo}")
