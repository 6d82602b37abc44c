"""What a change is against: a history with no common ancestor says how to fetch it."""

from __future__ import annotations

from pathlib import Path

from tests.checkdata import (
    KEY,
    appended,
    commit_feature,
    entry,
)
from tests.conftest import git, run_cli


def test_a_shallow_ci_checkout_says_to_fetch_the_history(repo: Path, tmp_path: Path) -> None:
    commit_feature(repo, appended(entry(KEY)))
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", "--branch", "feature", f"file://{repo}", "shallow")
    git(clone, "fetch", "-q", "--depth", "1", "origin", "main:refs/remotes/origin/main")
    proc = run_cli("check", "--pr", "7", cwd=clone)
    assert proc.returncode == 3
    assert proc.stderr.splitlines() == [
        f"error: {git(clone, 'rev-parse', 'HEAD')[:12]} and refs/remotes/origin/main have no "
        "common ancestor in this shallow clone",
        "hint: fetch the whole history (actions/checkout: `fetch-depth: 0`) or pass --base-ref",
    ]


def test_an_orphan_branch_without_commits_is_said_to_have_none(repo: Path) -> None:

    git(repo, "checkout", "-q", "--orphan", "fresh")
    proc = run_cli("canonicalize", "--pr", "12", cwd=repo)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "error: HEAD does not name a commit: the branch has no commits yet" in proc.stderr
    assert "no common ancestor" not in proc.stderr and "fetch-depth" not in proc.stderr
