"""flows/merge/git.py: the scratch worktree, hooks, and the push."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from changelog_tools.flows.merge import git as mg
from changelog_tools.gitrepo import GitRepo, open_repo
from tests.conftest import git
from tests.fakegithub_fixtures import (
    init_origin,
)
from tests.mergeworld import World, entry, merge

# -- hostile and failing GitHub-side situations ------------------------------------------------


HOOKS = (
    "post-checkout",
    "pre-merge-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-merge",
    "pre-commit",
    "post-commit",
    "post-rewrite",
    "reference-transaction",
)


def test_the_merge_flow_runs_no_git_hook_from_the_pr_branch_not_even_on_a_dry_run(
    world: World, tmp_path: Path
) -> None:
    # A repository that keeps its hooks in the tree (`core.hooksPath .githooks`): inside the
    # scratch worktree that relative path is the PR's own copy, so before the fix `git merge`
    # and `git commit` ran the PR author's scripts with the maintainer's token in the env.
    w = world
    ran = tmp_path / "hooks-ran.txt"
    hooks: dict[str, str | bytes] = {
        f".githooks/{name}": f'#!/bin/sh\necho {name} >> "{ran}"\n' for name in HOOKS
    }
    for rel, text in hooks.items():  # executable before open_pr commits them
        target = w.author / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(str(text))
        target.chmod(target.stat().st_mode | stat.S_IXUSR)
    w.open_pr(1, "feat-a", hooks, title="Tune llama", append=entry("Tune the TP sizes"))
    w.push_main({"notes.txt": "main moved\n"}, "main moves")  # so main is merged in
    git(w.clone, "config", "core.hooksPath", ".githooks")

    assert merge("1", "--dry-run") == 0
    assert not ran.exists()
    assert merge("1") == 0
    assert w.fake.pulls[1].merged
    assert not ran.exists(), ran.read_text()


def test_the_push_runs_no_pre_push_hook_of_the_checked_out_pr(world: World, tmp_path: Path) -> None:
    # `gh pr checkout 1` then `changelog-tools merge 1`: a relative hooksPath now names the
    # PR's own copy of the hooks in the maintainer's checkout.
    w = world
    ran = tmp_path / "pre-push-ran.txt"
    hook = w.author / ".githooks" / "pre-push"
    hook.parent.mkdir(parents=True)
    hook.write_text(f'#!/bin/sh\necho pre-push >> "{ran}"\n')
    hook.chmod(0o755)
    w.open_pr(1, "feat-a", {".githooks/pre-push": hook.read_text()}, title="Tune",
              append=entry("Tune the TP sizes"))  # fmt: skip
    git(w.clone, "fetch", "-q", "origin", "feat-a")
    git(w.clone, "checkout", "-q", "-b", "feat-a", "FETCH_HEAD")
    git(w.clone, "config", "core.hooksPath", ".githooks")
    assert (w.clone / ".githooks" / "pre-push").stat().st_mode & stat.S_IXUSR

    assert merge("1") == 0

    assert w.fake.pulls[1].merged
    assert not ran.exists()
    assert git(w.clone, "symbolic-ref", "--short", "HEAD") == "feat-a"


def test_a_scratch_branch_is_removed_when_worktree_add_is_interrupted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _origin, seed = init_origin(tmp_path, {"README": "x\n"})
    repo = open_repo(seed)
    real_git = GitRepo.git

    def interrupted(self: GitRepo, *args: str, strip: bool = True) -> str:
        out = real_git(self, *args, strip=strip)
        if "worktree" in args and "add" in args:
            raise KeyboardInterrupt  # Ctrl-C right after git created the branch
        return out

    monkeypatch.setattr(GitRepo, "git", interrupted)
    with pytest.raises(KeyboardInterrupt), mg.scratch_worktree(repo, start="HEAD", pr=3):
        pass  # pragma: no cover - never reached
    monkeypatch.setattr(GitRepo, "git", real_git)
    assert mg.leftover_scratch(repo) == []
    assert len(git(seed, "worktree", "list").splitlines()) == 1


def test_the_scratch_worktree_keeps_the_callers_git_config_count_entries() -> None:
    env = mg.no_hooks_env(Path("/empty"), {"GIT_CONFIG_COUNT": "2"})
    assert env == {
        "GIT_CONFIG_COUNT": "3",
        "GIT_CONFIG_KEY_2": "core.hooksPath",
        "GIT_CONFIG_VALUE_2": "/empty",
    }
    assert mg.no_hooks_env(Path("/e"), {"GIT_CONFIG_COUNT": "junk"})["GIT_CONFIG_COUNT"] == "1"


def test_a_push_refused_by_branch_protection_says_why_and_exits_4(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    w = world
    head = w.open_pr(1, "feat-a", {}, title="Tune", append=entry("Tune the TP sizes"))
    hook = w.origin / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'feat-a is protected' >&2\nexit 1\n")
    hook.chmod(0o755)

    assert merge("1") == 4

    err = capsys.readouterr().err.splitlines()
    (comment,) = w.fake.comments.values()  # the authorization went out before the push
    assert err[-2] == (
        "error: origin refused the push to feat-a of PR #1 (pre-receive hook declined: "
        "feat-a is protected). Nothing was pushed or merged. Already done on GitHub: posted "
        f"`/reuse-sweep-run` on PR #1 (comment {comment.id}). A re-run of `changelog-tools "
        "merge 1` resumes from there (it does not post or push that again)"
    )
    assert err[-1].startswith("hint: the branch may be protected against pushes")
    assert w.origin_sha("refs/heads/feat-a") == head and not w.fake.pulls[1].merged
