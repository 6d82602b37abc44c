"""Which side is the pull request, on real git operations: the merge driver (inside git) and
`resolve` (after git stopped) must agree, also for a merge or cherry-pick run while a rebase is
stopped, where git's state holds both the rebase's markers and the command's."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from changelog_tools import gitrepo
from tests.conftest import commit_files, git, run_cli
from tests.ledger.test_resolve import BASE, MAIN_1, MAIN_2, PR_1, PR_2, REPO, ledger

CHANGELOG = "perf-changelog.yaml"
# The first PR commit is stopped at (`edit`); the second leaves the changelog alone; the
# third appends again, so `rebase --continue` replays a changelog change on top of the merge.
PR_COMMITS: list[dict[str, bytes | str]] = [
    {CHANGELOG: ledger(BASE, PR_1)},
    {"README": "more\n"},
    {CHANGELOG: ledger(BASE, PR_1, PR_2)},
]
EDIT_FIRST = {"GIT_SEQUENCE_EDITOR": "sed -i '1s/^pick/edit/'", "GIT_EDITOR": "true"}


def run_git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """git's stderr (the driver's log lines go there); any exit status."""
    proc = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=False,
        env={**os.environ, "GIT_EDITOR": "true", **(env or {})},
    )  # fmt: skip
    return proc.stdout + proc.stderr


@pytest.fixture
def pr_behind_main(make_repo: Callable[..., Path]) -> Callable[..., Path]:
    """``build(driver=True)``: a repo on branch `pr` (PR_COMMITS) while main appended MAIN_1."""

    def build(*, driver: bool = True) -> Path:
        repo: Path = make_repo(
            "repo", {CHANGELOG: BASE, ".changelog-tools.yaml": f"repository: {REPO}\n"}
        )
        if driver:
            assert run_cli("install-merge-driver", cwd=repo).returncode == 0
            commit_files(repo, {}, "install the changelog merge driver")
        git(repo, "checkout", "-q", "-b", "pr")
        for i, files in enumerate(PR_COMMITS):
            commit_files(repo, files, f"pr {i}")
        git(repo, "checkout", "-q", "main")
        commit_files(repo, {CHANGELOG: ledger(BASE, MAIN_1)}, "main 0")
        git(repo, "checkout", "-q", "pr")
        return repo

    return build


def _stop_at_first_pr_commit(repo: Path) -> None:
    run_git(repo, "rebase", "-i", "HEAD~3", env=EDIT_FIRST)
    assert gitrepo.rebase_stop(gitrepo.open_repo(repo)) == "edit"
    assert git(repo, "log", "-1", "--format=%s") == "pr 0"


def read(repo: Path) -> bytes:
    return (repo / CHANGELOG).read_bytes()


@pytest.mark.parametrize(
    ("command", "env", "described"),
    [
        (["rebase", "main"], {}, "rebase: the PR is theirs, main is ours"),
        (["rebase", "-i", "main"], {"GIT_SEQUENCE_EDITOR": "true"}, "rebase: the PR is theirs"),
        (["pull", "--rebase", "-q", ".", "main"], {}, "rebase: the PR is theirs"),
        (["merge", "--no-edit", "main"], {}, "merge: the PR is ours, main is theirs"),
        (["pull", "--no-rebase", "--no-edit", "-q", ".", "main"], {}, "merge: the PR is ours"),
    ],
)
def test_the_driver_tells_the_sides_of_every_plain_operation(
    pr_behind_main, command: list[str], env: dict[str, str], described: str
) -> None:  # type: ignore[no-untyped-def]
    repo = pr_behind_main()
    out = run_git(repo, *command, env=env)
    assert f"perf-changelog.yaml: resolved ({described}" in out, out
    assert read(repo) == ledger(BASE, MAIN_1, PR_1, PR_2)
    assert git(repo, "status", "--porcelain") == ""


def test_a_merge_while_a_rebase_is_stopped_is_a_merge_for_the_driver(pr_behind_main) -> None:  # type: ignore[no-untyped-def]
    repo = pr_behind_main()
    _stop_at_first_pr_commit(repo)
    out = run_git(repo, "merge", "--no-edit", "main")
    assert "resolved (merge: the PR is ours, main is theirs (theirs, commit" in out, out
    assert read(repo) == ledger(BASE, MAIN_1, PR_1)  # main's entry first, the PR's after it
    check = run_cli("check", "--pr", "77", "--base-ref", "main", "--no-config-keys", cwd=repo)
    assert check.returncode == 0, check.stdout + check.stderr
    # The rebase goes on: its own replay of the third commit is a rebase again.
    out = run_git(repo, "rebase", "--continue")
    assert "resolved (rebase: the PR is theirs, main is ours" in out, out
    assert not (repo / ".git" / "rebase-merge").exists()
    assert read(repo) == ledger(BASE, MAIN_1, PR_1, PR_2)


def test_resolve_after_a_merge_while_a_rebase_is_stopped_takes_ours_as_the_pr(
    pr_behind_main,
) -> None:  # type: ignore[no-untyped-def]
    repo = pr_behind_main(driver=False)
    _stop_at_first_pr_commit(repo)
    run_git(repo, "merge", "--no-edit", "main")
    assert (repo / ".git" / "MERGE_HEAD").is_file()
    proc = run_cli("resolve", "--add", cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "merge: the PR is ours, main is theirs" in proc.stderr
    assert read(repo) == ledger(BASE, MAIN_1, PR_1)


def test_a_cherry_pick_while_a_rebase_is_stopped_is_refused_inside_git_and_told_after(
    pr_behind_main,
) -> None:  # type: ignore[no-untyped-def]
    repo = pr_behind_main()
    _stop_at_first_pr_commit(repo)
    out = run_git(repo, "cherry-pick", "main")
    # Nothing inside git tells this pick from the rebase's own: the driver leaves the conflict.
    assert "not resolved" in out and "a rebase is stopped (edit)" in out, out
    assert b"<<<<<<<" in read(repo)
    proc = run_cli("resolve", "--add", cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "cherry-pick: the PR is ours, main is theirs" in proc.stderr
    assert read(repo) == ledger(BASE, MAIN_1, PR_1)


def test_resolve_refuses_a_conflict_a_stopped_rebase_did_not_make(pr_behind_main) -> None:  # type: ignore[no-untyped-def]
    repo = pr_behind_main(driver=False)
    _stop_at_first_pr_commit(repo)
    # A conflict with neither MERGE_HEAD nor CHERRY_PICK_HEAD (as `git stash pop` leaves one).
    (repo / CHANGELOG).write_bytes(ledger(BASE, PR_1, MAIN_2))
    git(repo, "stash", "-q")
    git(repo, "merge-file", "-p", "/dev/null", "/dev/null", "/dev/null")  # git is usable
    commit_files(repo, {CHANGELOG: ledger(BASE, PR_1, MAIN_1)}, "an amend-like commit")
    run_git(repo, "stash", "pop")
    assert CHANGELOG in git(repo, "diff", "--name-only", "--diff-filter=U")
    proc = run_cli("resolve", cwd=repo)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "a rebase is stopped (edit)" in proc.stdout + proc.stderr
    assert read(repo).count(b"<<<<<<<") == 1  # nothing written


def test_a_rebase_stopped_on_its_own_conflict_is_still_the_rebase(pr_behind_main) -> None:  # type: ignore[no-untyped-def]
    repo = pr_behind_main(driver=False)
    run_git(repo, "rebase", "main")
    assert gitrepo.rebase_stop(gitrepo.open_repo(repo)) == "conflict"
    proc = run_cli("resolve", "--add", cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "rebase: the PR is theirs, main is ours" in proc.stderr


def test_a_break_stop_is_a_stop_and_no_rebase_is_none(pr_behind_main) -> None:  # type: ignore[no-untyped-def]
    repo = pr_behind_main()
    assert gitrepo.rebase_stop(gitrepo.open_repo(repo)) is None
    run_git(repo, "rebase", "-i", "HEAD~1", env={"GIT_SEQUENCE_EDITOR": "sed -i '1s/^/break\\n/'"})
    assert (repo / ".git" / "rebase-merge").is_dir()
    assert gitrepo.rebase_stop(gitrepo.open_repo(repo)) == "break"


# -- the apply backend (`rebase --apply`, `rebase.backend=apply`) and commands run at its stop ----


@pytest.mark.parametrize(
    "command",
    [
        ["rebase", "--apply", "main"],
        ["-c", "rebase.backend=apply", "pull", "--rebase", "-q", ".", "main"],
        ["-c", "rebase.backend=apply", "-c", "pull.rebase=true", "pull", "-q", ".", "main"],
    ],
)
def test_the_driver_takes_an_apply_backend_rebase_started_by_pull_as_the_rebase(
    pr_behind_main, command: list[str]
) -> None:  # type: ignore[no-untyped-def]
    repo = pr_behind_main()
    out = run_git(repo, *command)
    assert "resolved (rebase: the PR is theirs, main is ours" in out, out
    assert not (repo / ".git" / "rebase-apply").exists(), out
    assert read(repo) == ledger(BASE, MAIN_1, PR_1, PR_2)


def _stopped_apply_rebase(tmp_path: Path, make_repo: Callable[..., Path]) -> Path:
    """A PR branch whose `rebase --apply origin/main` replayed the changelog commit and then
    stopped on another file (add/add), which the user resolved with `git commit` at the stop,
    leaving `rebase-apply/` in place; main then moved on (MAIN_2) in another clone."""
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    repo = make_repo("repo", {CHANGELOG: BASE, ".changelog-tools.yaml": f"repository: {REPO}\n"})
    assert run_cli("install-merge-driver", cwd=repo).returncode == 0
    commit_files(repo, {}, "install the changelog merge driver")
    git(repo, "remote", "add", "origin", str(origin))
    git(repo, "push", "-q", "origin", "main")
    git(repo, "checkout", "-q", "-b", "pr")
    commit_files(repo, {CHANGELOG: ledger(BASE, PR_1)}, "pr 0")
    commit_files(repo, {"p3": "pr\n"}, "pr 1")
    git(repo, "checkout", "-q", "main")
    commit_files(repo, {CHANGELOG: ledger(BASE, MAIN_1), "p3": "main\n"}, "main 0")
    git(repo, "push", "-q", "origin", "main")
    git(repo, "checkout", "-q", "pr")
    out = run_git(repo, "rebase", "--apply", "origin/main")
    assert "resolved (rebase: the PR is theirs" in out and "CONFLICT (add/add)" in out, out
    (repo / "p3").write_text("resolved\n")
    git(repo, "add", "p3")
    git(repo, "commit", "-q", "-m", "pr 1, resolved at the stop")
    assert (repo / ".git" / "rebase-apply").is_dir()
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(origin), str(other))
    commit_files(other, {CHANGELOG: ledger(BASE, MAIN_1, MAIN_2)}, "main 1")
    git(other, "push", "-q", "origin", "main")
    return repo


def test_a_plain_pull_at_an_apply_rebase_stop_is_a_merge_for_the_driver(
    tmp_path: Path, make_repo: Callable[..., Path]
) -> None:
    repo = _stopped_apply_rebase(tmp_path, make_repo)
    out = run_git(repo, "pull", "--no-rebase", "--no-edit", "origin", "main")
    assert "resolved (merge: the PR is ours, main is theirs (theirs, commit" in out, out
    assert read(repo) == ledger(BASE, MAIN_1, MAIN_2, PR_1)  # main's entries, then the PR's
    check = run_cli(
        "check", "--pr", "77", "--base-ref", "origin/main", "--no-config-keys", cwd=repo
    )
    assert check.returncode == 0, check.stdout + check.stderr


@pytest.mark.parametrize(
    ("action", "merged"),
    [
        ("pull --no-rebase origin main", False),  # no trace of git's merge: cannot be told
        ("pull origin main (pick)", True),  # the rebase's step, yet a merge's trace: neither
    ],
)
def test_the_driver_refuses_an_apply_rebase_stop_whose_facts_do_not_agree(
    tmp_path: Path, make_repo: Callable[..., Path], action: str, merged: bool
) -> None:
    from changelog_tools.config import defaults
    from changelog_tools.ledger.guard import Refusal
    from changelog_tools.ledger.mergedriver import detect_sides

    repo = _stopped_apply_rebase(tmp_path, make_repo)
    git(repo, "fetch", "-q", "origin")
    head = git(repo, "rev-parse", "origin/main")
    environ = {f"GITHEAD_{head}": head} if merged else {}
    with pytest.raises(Refusal, match=r"apply backend.*cannot be told"):
        detect_sides(
            gitrepo.open_repo(repo), config=defaults(repo), reflog_action=action, driver=True,
            environ=environ,
        )  # fmt: skip


def test_resolve_at_an_apply_rebase_conflict_stop_is_the_rebase(pr_behind_main) -> None:  # type: ignore[no-untyped-def]
    repo = pr_behind_main(driver=False)
    run_git(repo, "rebase", "--apply", "main")
    assert (repo / ".git" / "rebase-apply").is_dir()
    proc = run_cli("resolve", "--add", cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "rebase: the PR is theirs, main is ours" in proc.stderr
    assert read(repo) == ledger(BASE, MAIN_1, PR_1)


# -- other commands run at a rebase's conflict stop ----------------------------------------------


@pytest.mark.parametrize("backend", ["merge", "apply"])
def test_resolve_refuses_a_stash_pop_at_a_rebase_conflict_stop(
    pr_behind_main, backend: str
) -> None:  # type: ignore[no-untyped-def]
    repo = pr_behind_main()
    git(repo, "checkout", "-q", "main")
    commit_files(repo, {"README": "main's\n"}, "main 1")  # the PR's README commit conflicts
    git(repo, "checkout", "-q", "pr")
    (repo / CHANGELOG).write_bytes(ledger(BASE, PR_1, PR_2, MAIN_2))
    git(repo, "stash", "-q")
    out = run_git(repo, "rebase", f"--{backend}", "main")
    assert "Merge conflict in README" in out, out
    assert (repo / ".git" / f"rebase-{backend}").is_dir()
    (repo / "README").write_text("both\n")
    git(repo, "add", "README")  # the rebase's own conflict is resolved; it is still stopped
    out = run_git(repo, "stash", "pop")
    assert "not resolved" in out, out
    assert CHANGELOG in git(repo, "diff", "--name-only", "--diff-filter=U")
    before = read(repo)
    proc = run_cli("resolve", "--add", cwd=repo)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "CL516" in proc.stdout + proc.stderr
    assert "not the rebase's own" in proc.stdout + proc.stderr
    assert read(repo) == before  # nothing written
    assert CHANGELOG in git(repo, "diff", "--name-only", "--diff-filter=U")  # nor staged


def test_resolve_refuses_an_am_at_a_rebase_conflict_stop(pr_behind_main, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    repo = pr_behind_main(driver=False)
    git(repo, "checkout", "-q", "-b", "side", "main~1")
    commit_files(repo, {CHANGELOG: ledger(BASE, MAIN_2)}, "a mailed patch")
    patch = git(repo, "format-patch", "-1", "-o", str(tmp_path / "patches"))
    git(repo, "checkout", "-q", "pr")
    run_git(repo, "rebase", "main")
    assert gitrepo.rebase_stop(gitrepo.open_repo(repo)) == "conflict"
    (repo / CHANGELOG).write_bytes(ledger(BASE, MAIN_1, PR_1))
    git(repo, "add", CHANGELOG)
    git(repo, "commit", "-q", "-m", "resolved at the stop")
    out = run_git(repo, "am", "-3", patch)
    assert CHANGELOG in git(repo, "diff", "--name-only", "--diff-filter=U"), out
    assert (repo / ".git" / "rebase-merge").is_dir()
    before = read(repo)
    proc = run_cli("resolve", "--add", cwd=repo)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "a git am is in progress" in proc.stdout + proc.stderr
    assert read(repo) == before


@pytest.mark.parametrize("driver", [True, False])
def test_a_rebase_that_replays_mains_own_commits_is_refused(
    make_repo: Callable[..., Path], driver: bool
) -> None:
    # A branch that merged main, then rebased onto its old base to squash: the rebase replays
    # main's own commits, and *theirs* is then main, not the PR. Taking it for the PR put
    # main's entry after the PR's (check: CL103); the side cannot be told, so it is refused.
    repo = make_repo("repo", {CHANGELOG: BASE, ".changelog-tools.yaml": f"repository: {REPO}\n"})
    if driver:
        assert run_cli("install-merge-driver", cwd=repo).returncode == 0
        commit_files(repo, {}, "install the changelog merge driver")
    old_base = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "-b", "pr")
    commit_files(repo, {CHANGELOG: ledger(BASE, PR_1)}, "pr 0")
    git(repo, "checkout", "-q", "main")
    commit_files(repo, {CHANGELOG: ledger(BASE, MAIN_1)}, "main 0")
    git(repo, "checkout", "-q", "pr")
    # the PR merges main (its entry first, the PR's after: the merge is decided by main)
    merged = ledger(BASE, MAIN_1, PR_1)
    run_git(repo, "merge", "--no-edit", "main")
    if not driver:
        (repo / CHANGELOG).write_bytes(merged)
        git(repo, "add", CHANGELOG)
        run_git(repo, "commit", "--no-edit", "-q")
    assert read(repo) == merged and git(repo, "status", "--porcelain") == ""
    out = run_git(repo, "rebase", "-i", old_base, env={"GIT_SEQUENCE_EDITOR": "true"})
    assert (repo / ".git" / "rebase-merge").is_dir(), out  # stopped on main's own commit
    assert git(repo, "rev-parse", "REBASE_HEAD") == git(repo, "rev-parse", "main")
    refusal = "the rebase replays"
    if driver:
        assert refusal in out and "a commit main already has" in out, out
    resolved = run_cli("resolve", "--pr", "77", cwd=repo)
    assert resolved.returncode == 1, resolved.stdout + resolved.stderr
    said = resolved.stdout + resolved.stderr
    assert "CL516" in said and refusal in said
    assert git(repo, "diff", "--name-only", "--diff-filter=U") == CHANGELOG  # nothing staged


def test_pull_rebase_on_main_keeps_the_unpushed_commits_last(
    make_repo: Callable[..., Path], tmp_path: Path
) -> None:
    # The replayed commit is on the local main (the branch being rebased), which is no
    # evidence: only the remote's main says a commit is main's own.
    origin = make_repo(
        "origin", {CHANGELOG: BASE, ".changelog-tools.yaml": f"repository: {REPO}\n"}
    )
    assert run_cli("install-merge-driver", cwd=origin).returncode == 0
    commit_files(origin, {}, "install the changelog merge driver")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    assert run_cli("install-merge-driver", cwd=clone).returncode == 0
    commit_files(clone, {CHANGELOG: ledger(BASE, PR_1)}, "local, not pushed")
    commit_files(origin, {CHANGELOG: ledger(BASE, MAIN_1)}, "main 0")
    out = run_git(clone, "pull", "--rebase", "-q", "origin", "main")
    assert "resolved (rebase: the PR is theirs" in out, out
    assert read(clone) == ledger(BASE, MAIN_1, PR_1)
