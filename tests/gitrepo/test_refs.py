"""Refs and remotes against a real bare origin: fetching into private refs, listing and
deleting refs, asking the remote for a branch, pushing without force."""

from __future__ import annotations

from pathlib import Path

import pytest

from changelog_tools.errors import GitError
from changelog_tools.gitrepo import GitRepo, open_repo
from tests.conftest import commit_files, git


@pytest.fixture
def clone(tmp_path: Path) -> tuple[Path, Path]:
    """(a clone, its bare origin) with `main` and `feature` on the origin."""
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    seed = tmp_path / "seed"
    seed.mkdir()
    git(seed, "init", "-q", "-b", "main")
    commit_files(seed, {"a": "a\n"}, "base")
    git(seed, "push", "-q", str(origin), "main")
    commit_files(seed, {"b": "b\n"}, "feature")
    git(seed, "push", "-q", str(origin), "HEAD:refs/heads/feature")
    git(tmp_path, "clone", "-q", str(origin), "clone")
    return tmp_path / "clone", origin


def test_fetch_refs_fetches_several_refs_forced_into_private_refs(
    clone: tuple[Path, Path],
) -> None:
    path, origin = clone
    repo = open_repo(path)
    repo.fetch_refs(
        "origin",
        [("refs/heads/main", "refs/x/main"), ("refs/heads/feature", "refs/x/feature")],
    )
    assert repo.rev_parse("refs/x/main") == git(origin, "rev-parse", "main")
    assert repo.rev_parse("refs/x/feature") == git(origin, "rev-parse", "feature")
    # forced: a private ref follows the remote even where that is not a fast-forward
    repo.fetch_refs("origin", [("refs/heads/main", "refs/x/feature")])
    assert repo.rev_parse("refs/x/feature") == git(origin, "rev-parse", "main")
    with pytest.raises(GitError, match="git fetch"):
        repo.fetch_refs("origin", [("refs/heads/missing", "refs/x/missing")])


def test_ref_names_lists_under_a_prefix_and_try_delete_ref_never_raises(
    clone: tuple[Path, Path],
) -> None:
    path, _origin = clone
    head = git(path, "rev-parse", "HEAD")
    for ref in ("refs/x/one", "refs/x/two", "refs/heads/tool/a", "refs/heads/other"):
        git(path, "update-ref", ref, head)
    repo = open_repo(path)
    assert repo.ref_names("refs/x/") == ["refs/x/one", "refs/x/two"]
    assert repo.ref_names("refs/heads/tool/", short=True) == ["tool/a"]
    assert repo.ref_names("refs/none/") == []
    assert repo.try_delete_ref("refs/x/one") is True
    assert repo.ref_names("refs/x/") == ["refs/x/two"]
    assert repo.try_delete_ref("refs/x/one") is True  # already gone: nothing to do
    # a ref git cannot delete (another process holds its lock): an answer, not an error
    (path / ".git" / "refs" / "x" / "two.lock").write_text("")
    assert repo.try_delete_ref("refs/x/two") is False
    assert repo.try_rev_parse("refs/x/two") == head


def test_remote_branch_asks_the_remote_without_fetching(clone: tuple[Path, Path]) -> None:
    path, origin = clone
    repo = open_repo(path)
    assert repo.remote_branch("origin", "feature") == git(origin, "rev-parse", "feature")
    assert repo.remote_branch("origin", "missing") is None
    # `feat` is a prefix of `feature`: only the exact branch counts
    assert repo.remote_branch("origin", "feat") is None
    assert repo.try_rev_parse("refs/remotes/origin/feature") is not None  # from the clone
    git(origin, "branch", "fresh", "main")
    assert repo.remote_branch("origin", "fresh") == git(origin, "rev-parse", "main")
    assert repo.try_rev_parse("refs/remotes/origin/fresh") is None  # nothing was fetched


def _push(repo: GitRepo, sha: str, branch: str) -> tuple[int, str, str]:
    return repo.try_push("origin", f"{sha}:refs/heads/{branch}")


def test_try_push_never_forces_and_runs_no_pre_push_hook(clone: tuple[Path, Path]) -> None:
    path, origin = clone
    hook = path / ".git" / "hooks" / "pre-push"
    hook.write_text('#!/bin/sh\ntouch "$GIT_DIR/../hook-ran"\nexit 1\n')
    hook.chmod(0o755)
    repo = open_repo(path)
    new = commit_files(path, {"c": "c\n"}, "on main")
    status, out, _err = _push(repo, new, "main")
    assert status == 0 and "refs/heads/main" in out
    assert git(origin, "rev-parse", "main") == new
    assert not (path / "hook-ran").exists()
    # behind the remote: refused, not forced, and the remote keeps its commit
    old = git(path, "rev-parse", "HEAD~1")
    status, out, err = _push(repo, old, "feature")
    assert status != 0 and "[rejected]" in out + err
    assert git(origin, "rev-parse", "feature") != old
    status, _out, err = repo.try_push("nowhere", f"{new}:refs/heads/main")
    assert status != 0 and err
