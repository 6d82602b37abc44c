"""Regression tests from the adversarial review of the GitHub-side commands (`reuse-gate`,
`merge`, `demo`): each one failed before its fix."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from changelog_tools import cli
from changelog_tools import config as config_mod
from changelog_tools.errors import ConfigError, DataError
from changelog_tools.flows import mergeflow_git as mg
from changelog_tools.flows.mergeflow import SourceRun, has_ci_skip, squash_message
from changelog_tools.github.adapter import GitHub, NotFoundError, resolve_token
from changelog_tools.github.reuse import Event, Policy, decide, find_authorization
from changelog_tools.gitrepo import GitRepo, open_repo
from changelog_tools.testing.fakegithub import FakeGitHub
from tests.conftest import commit_files, git, run_cli
from tests.fakegithub_fixtures import REPO, TOKEN, WORKFLOW, init_origin, merged_pull, sha_of
from tests.mergeworld import World, build_world, entry

# ----------------------------------------------------------------------------------------------
# merge: a world with a bare origin, the maintainer's clone, the fake GitHub and a fake CI


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    for w in build_world(tmp_path):
        for key, value in w.env.items():
            monkeypatch.setenv(key, value)
        monkeypatch.chdir(w.clone)
        yield w


def merge(*args: str) -> int:
    return cli.run(["merge", *args])


def comment_bodies(w: World) -> list[str]:
    return [c.body for c in w.fake.comments.values()]


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


def test_the_wait_reads_every_page_of_check_runs_and_finds_the_changelog_check_on_the_last(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    worlds: list[World] = []

    def report_all_at_once(_pr: int, sha: str) -> dict[str, str | None]:
        # 151 check runs in one step (the flow sees none or all), check-changelog the oldest
        fake = worlds[0].fake
        with fake._lock:
            for name in ("check-changelog", *(f"matrix-{i:03}" for i in range(150))):
                fake.add_check_run(sha, name)
        return {}

    for w in build_world(tmp_path, report_all_at_once):
        worlds.append(w)
        for key, value in w.env.items():
            monkeypatch.setenv(key, value)
        monkeypatch.chdir(w.clone)
        w.open_pr(1, "feat-a", {}, title="Tune", append=entry("Tune the TP sizes"))

        assert merge("1") == 0

        assert w.fake.pulls[1].merged
        pages = [r.query.get("page", "1") for r in w.fake.requests("GET", r"/check-runs$")]
        assert pages[-2:] == ["1", "2"]  # the last look read both pages (100 a page)


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


@pytest.mark.parametrize(
    "title", ["Tune [skip\tci]", "Tune [skip\nci]", "Tune [skip  ci]", "[ci \t skip] Tune"]
)
def test_a_marker_split_by_other_whitespace_in_the_pr_title_is_removed_not_a_crash(
    title: str,
) -> None:
    # Before the fix the title was stripped first and collapsed after, which formed
    # "[skip ci]" and tripped the final assertion: exit 70 on a PR author's title.
    source = SourceRun(5, 1, None, None, "success", True)
    got_title, body = squash_message(
        pr=4, title=title, commit_messages=["tune"], source=source, skip_marker="[skip-sweep]"
    )
    assert got_title == "Tune (#4)"
    assert not has_ci_skip(got_title + "\n" + body, extra=["[skip-sweep]"])


def test_a_lost_authorization_post_is_confirmed_by_rereading_and_never_posted_twice(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    w = world
    w.open_pr(1, "feat-a", {}, title="Tune", append=entry("Tune the TP sizes"))
    w.fake.fail("POST", r"/issues/1/comments$", 502, apply=True)  # lands, answer lost

    assert merge("1") == 0

    assert comment_bodies(w) == ["/reuse-sweep-run"]
    assert w.fake.count("POST", r"/issues/1/comments$") == 1
    assert w.fake.pulls[1].merged
    assert "[authorize] the post landed as comment" in capsys.readouterr().err


def test_a_contributors_identical_comment_never_passes_for_a_lost_authorization_post(
    world: World,
) -> None:
    w = world
    w.open_pr(1, "feat-a", {}, title="Tune", append=entry("Tune the TP sizes"))
    asked = w.fake.add_comment(1, "/reuse-sweep-run", "alice", "CONTRIBUTOR")
    w.fake.fail("POST", r"/issues/1/comments$", 502)  # our post did not land

    assert merge("1") == 0

    assert [(c.login, c.association) for c in w.fake.comments.values()] == [
        ("alice", "CONTRIBUTOR"),
        (w.fake.actor, "MEMBER"),
    ]
    assert asked.id in w.fake.comments and w.fake.count("DELETE") == 0


def test_an_authorization_post_that_never_landed_is_posted_once_more(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    w = world
    w.open_pr(1, "feat-a", {}, title="Tune", append=entry("Tune the TP sizes"))
    w.fake.fail("POST", r"/issues/1/comments$", 502)  # not applied

    assert merge("1") == 0

    assert comment_bodies(w) == ["/reuse-sweep-run"]
    assert w.fake.count("POST", r"/issues/1/comments$") == 2
    assert "[authorize] the post did not land; posting once more" in capsys.readouterr().err


def test_an_authorization_post_lost_twice_exits_3_without_pushing(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    w = world
    head = w.open_pr(1, "feat-a", {}, title="Tune", append=entry("Tune the TP sizes"))
    w.fake.fail("POST", r"/issues/1/comments$", 502, times=None)

    assert merge("1") == 3

    assert comment_bodies(w) == []
    assert w.origin_sha("refs/heads/feat-a") == head
    assert "the write may or may not have been applied" in capsys.readouterr().err


def test_a_token_whose_comments_cannot_authorize_leaves_no_comment_however_often_it_is_re_run(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    w = world
    head = w.open_pr(1, "feat-a", {}, title="Tune", append=entry("Tune the TP sizes"))
    w.fake.actor, w.fake.actor_association = "ci-bot", "NONE"

    assert merge("1") == 4
    assert merge("1") == 4  # before the fix: a second stray comment

    assert comment_bodies(w) == []
    assert w.fake.count("DELETE", r"/issues/comments/\d+$") == 2
    assert w.origin_sha("refs/heads/feat-a") == head and not w.fake.pulls[1].merged
    assert (
        "error: the authorization comment was posted as ci-bot (NONE), which "
        "`reuse-allowed-associations` does not accept; it was deleted again. Nothing was "
        "pushed or merged"
    ) in capsys.readouterr().err


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


# ----------------------------------------------------------------------------------------------
# reuse-gate


def _gate_env(fake: FakeGitHub, tmp_path: Path, **extra: str) -> dict[str, str]:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"action": "synchronize", "number": 7}))
    (tmp_path / ".changelog-tools.yaml").write_text(
        "github-retry-backoff: 0\ngithub-write-interval: 0\ngithub-retries: 0\n"
    )
    return {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_API_URL": fake.base_url,
        "GH_TOKEN": TOKEN,
        **extra,
    }


def test_an_unwritable_github_output_is_a_one_line_error_with_exit_2(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    fake.add_pull(7, "feature")
    env = _gate_env(fake, tmp_path, GITHUB_OUTPUT=str(tmp_path))  # a directory
    proc = run_cli("reuse-gate", cwd=tmp_path, env=env)
    assert proc.returncode == 2, proc.stderr
    assert "internal error" not in proc.stderr and proc.stdout == ""
    assert f"error: cannot write the step outputs to {tmp_path}: Is a directory" in proc.stderr


def test_an_unwritable_step_summary_never_hides_the_error_it_was_reporting(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    fake.fail("GET", r"/issues/7/comments$", 500, times=None, message="boom")
    env = _gate_env(fake, tmp_path, GITHUB_STEP_SUMMARY=str(tmp_path))
    proc = run_cli("reuse-gate", cwd=tmp_path, env=env)
    assert proc.returncode == 3, proc.stderr
    assert "internal error" not in proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        f"error: GitHub API GET /repos/{REPO}/issues/7/comments failed after 1 attempt: "
        "HTTP 500 (boom)"
    )


@pytest.mark.parametrize("token", ["ghp_abc\ndef_SECRET", "ghp_令牌_SECRET", "ghp abc SECRET"])
def test_a_token_that_cannot_be_a_header_is_a_configuration_error_that_never_shows_it(
    fake: FakeGitHub, tmp_path: Path, token: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        resolve_token({"GH_TOKEN": token})
    assert "SECRET" not in caught.value.message + (caught.value.hint or "")
    env = _gate_env(fake, tmp_path, GH_TOKEN=token)
    proc = run_cli("reuse-gate", cwd=tmp_path, env=env)
    assert proc.returncode == 2
    assert "error: GH_TOKEN holds whitespace or non-ASCII characters" in proc.stderr
    assert "SECRET" not in proc.stdout + proc.stderr
    assert fake.count() == 0  # before the fix: three doomed requests, "could not connect"


def test_timestamps_without_an_offset_are_utc_and_sort_with_the_others(
    fake: FakeGitHub, gh: GitHub
) -> None:
    fake.add_comment(7, "/reuse-sweep-run 5").created_at = "2024-01-01T00:00:00"
    fake.add_comment(7, "/reuse-sweep-run").created_at = "2024-01-02T00:00:00Z"
    old, new = gh.list_issue_comments(7)
    assert old.created_at is not None and old.created_at.utcoffset() is not None
    auth = find_authorization([new, old], command="/reuse-sweep-run", allowed=["MEMBER"])
    assert auth is not None and auth.comment_id == new.id


def test_the_drift_guard_in_a_shallow_clone_asks_for_full_history(tmp_path: Path) -> None:
    origin, seed = init_origin(tmp_path, {"benchmarks/run.sh": "echo v1\n", "README": "x\n"})
    git(seed, "checkout", "-q", "-b", "feature")
    swept = commit_files(seed, {"benchmarks/run.sh": "echo v2\n"}, "tune")
    git(seed, "push", "-q", "origin", "feature")
    with FakeGitHub(REPO, git_origin=origin) as fake:
        fake.add_pull(7, "feature", labels=["full-sweep-enabled"], title="Tune")
        fake.add_run(WORKFLOW, swept, head_branch="feature", artifacts=["results_bmk"])
        fake.add_comment(7, "/reuse-sweep-run", "bob", "MEMBER")
        body = json.dumps({"merge_method": "squash", "sha": swept}).encode()
        status, _, _ = fake.handle("PUT", f"{fake.prefix}/repos/{REPO}/pulls/7/merge", {}, body)
        assert status == 200
        ci = tmp_path / "ci"
        git(tmp_path, "clone", "-q", "--depth", "1", f"file://{origin}", str(ci))
        merged = fake.pulls[7].merge_commit_sha
        assert merged is not None
        env = _gate_env(fake, tmp_path, GITHUB_EVENT_NAME="push")
        (ci / ".changelog-tools.yaml").write_text("github-retry-backoff: 0\n")
        proc = run_cli(
            "reuse-gate", "--ref", "refs/heads/main", "--commit-sha", merged, cwd=ci, env=env
        )
    assert proc.returncode == 3, proc.stderr
    assert proc.stderr.splitlines()[-2:] == [
        f"error: the clone at {ci} is shallow: the parent of {merged} is missing",
        "hint: check out with full history (actions/checkout with fetch-depth: 0)",
    ]


def test_an_unknown_sweep_workflow_fails_closed_and_says_which_setting_to_check(
    fake: FakeGitHub, gh: GitHub
) -> None:
    merged_pull(fake)
    fake.add_comment(7, "/reuse-sweep-run", "bob", "MEMBER")
    event = Event("push", sha=sha_of("merge7"), ref="refs/heads/main")
    with pytest.raises(NotFoundError) as caught:
        decide(event, Policy.from_config(config_mod.defaults()), gh)
    assert caught.value.exit_code == 3 and caught.value.status == 404
    assert caught.value.hint == (
        "is `sweep-workflow` (run-sweep.yml) the file name of a workflow in .github/workflows, "
        "and may the token read Actions?"
    )


# ----------------------------------------------------------------------------------------------
# the fake GitHub's command line (shipped for the demo and for trying the tool by hand)


def _serve(tmp_path: Path, state: str, *extra: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "state.json"
    path.write_text(state)
    return subprocess.run(
        [sys.executable, "-m", "changelog_tools.testing.fakegithub", "--state", str(path), *extra],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


@pytest.mark.parametrize(
    ("state", "message"),
    [
        ("[]", "the state must be a JSON object, not list"),
        ('{"pulls": [{"number": "7", "head_ref": "f"}]}', "pull: field 'number' must be int"),
        ('{"pulls": [{"number": true, "head_ref": "f"}]}', "pull: field 'number' must be int"),
        ('{"pulls": [{"number": 7, "head_ref": "f", "labels": "x"}]}', "field 'labels' must be"),
        ('{"comments": [{"issue": 7, "body": 5}]}', "comment: field 'body' must be str"),
        ('{"pulls": [[7]]}', "cannot convert dictionary update sequence"),
    ],
)
def test_a_state_file_of_the_wrong_shape_is_refused_before_serving(
    tmp_path: Path, state: str, message: str
) -> None:
    # Before the fix these served, and every request touching the bad record answered 500
    # (or the command died with a traceback).
    proc = _serve(tmp_path, state)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith(f"error: {tmp_path / 'state.json'}: ")
    assert message in proc.stderr


def test_a_git_origin_that_is_not_a_repository_is_refused_before_serving(tmp_path: Path) -> None:
    proc = _serve(tmp_path, "{}", "--git-origin", str(tmp_path / "missing.git"))
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == f"error: --git-origin {tmp_path / 'missing.git'}: not a git repository\n"


# ----------------------------------------------------------------------------------------------
# demo


def test_a_demo_kept_with_keep_says_where_even_when_a_step_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from changelog_tools.flows import demo

    def failing_story(*_args: object) -> None:
        raise DataError("demo step 'x' exited 3, expected 0")

    monkeypatch.setattr(demo, "_story", failing_story)
    lines: list[str] = []
    with pytest.raises(DataError):
        demo.run_demo(say=lines.append, keep=True, workdir=tmp_path)
    kept = list(tmp_path.iterdir())
    assert len(kept) == 1 and (kept[0] / "origin.git").is_dir()
    assert lines[-1] == f"kept the repositories in {kept[0]}"
