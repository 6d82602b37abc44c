"""`changelog-tools merge` end to end: a real bare origin, a real clone, the fake GitHub tied to
the origin (PR heads and squash merges come from git), and a fake CI reporting checks."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from changelog_tools import cli
from changelog_tools.flows.merge.flow import Flow, GateReuse, MergeRequest
from changelog_tools.testing.fakeci import Verdict
from tests.conftest import git
from tests.mergeworld import CHANGELOG, REPOSITORY, World, build_world, entry

LINK = f"https://github.com/{REPOSITORY}/pull/"


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    yield from _world(tmp_path, monkeypatch)


def _world(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, verdict: Verdict | None = None
) -> Iterator[World]:
    for w in build_world(tmp_path, verdict):
        for key, value in w.env.items():
            monkeypatch.setenv(key, value)
        monkeypatch.chdir(w.clone)
        yield w


def merge(*args: str) -> int:
    return cli.run(["merge", *args])


def open_pr_a(w: World) -> str:
    return w.open_pr(
        1, "feat-a", {}, title="Tune llama TP sizes", append=entry("Tune the TP sizes")
    )


def writes(w: World) -> list[tuple[str, str]]:
    return [(r.method, r.path) for r in w.fake.log if r.method != "GET"]


def assert_clean_clone(w: World) -> None:
    assert git(w.clone, "symbolic-ref", "--short", "HEAD") == "main"
    assert git(w.clone, "status", "--porcelain") == ""
    assert w.leftovers() == ([], [])


def test_a_clean_merge_canonicalizes_authorizes_pushes_waits_and_squashes(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    w = world
    head = open_pr_a(w)
    main_before = w.origin_file("main")
    clone_head = git(w.clone, "rev-parse", "HEAD")

    assert merge("1") == 0

    pull = w.fake.pulls[1]
    assert pull.merged and pull.merge_request is not None
    pushed = pull.merge_request["sha"]
    assert pushed != head and pull.merge_request["merge_method"] == "squash"
    # main now holds main's bytes plus the PR's entry with its canonical link
    assert (
        w.origin_file("main")
        == main_before + b"\n" + entry("Tune the TP sizes", f"{LINK}1").encode()
    )
    assert w.origin_sha("main") == pull.merge_commit_sha
    message = git(w.origin, "log", "-1", "--format=%B", "main")
    assert message.startswith("Tune llama TP sizes (#1)\n")
    assert "skip" not in message.lower() and "Changelog-Tools-Merge" not in message
    # the pushed head is the PR head plus one canonicalize commit marked [skip-sweep]
    assert git(w.origin, "rev-parse", f"{pushed}^") == head
    assert "[skip-sweep]" in git(w.origin, "log", "-1", "--format=%s", pushed)
    assert [c.body for c in w.fake.comments.values()] == ["/reuse-sweep-run"]
    assert writes(w) == [
        ("POST", f"/repos/{REPOSITORY}/issues/1/comments"),
        ("PUT", f"/repos/{REPOSITORY}/pulls/1/merge"),
    ]
    out = capsys.readouterr()
    push = next(r for r in w.fake.runs.values() if r.head_sha == pull.merge_commit_sha)
    source = next(r for r in w.fake.runs.values() if r.event == "pull_request")
    assert f"merged as {pull.merge_commit_sha}\n" in out.out
    assert (
        f"main's push run {push.id} ({push_url(w, push.id)}) reused sweep run {source.id}; "
        "trigger-ingest succeeded: the ingest was dispatched" in out.out
    )
    assert "[authorize] posting `/reuse-sweep-run` on PR #1" in out.err
    assert git(w.clone, "rev-parse", "HEAD") == clone_head
    assert_clean_clone(w)
    # 9 requests plus 2 (check runs + combined status) per extra look at the checks, then
    # one per look for main's push run and one for its jobs
    print(f"clean merge: {len(w.fake.log)} API requests")
    polls = w.fake.count("GET", r"/check-runs$")
    looks = sum(
        1
        for r in w.fake.requests("GET", r"/actions/workflows/run-sweep.yml/runs$")
        if r.query.get("event") == "push"
    )
    assert w.fake.count("GET", rf"/actions/runs/{push.id}/jobs$") == 1
    assert polls >= 1 and looks >= 1
    assert len(w.fake.log) == 9 + 2 * (polls - 1) + looks + 1


def push_url(w: World, run_id: int) -> str:
    return w.fake.html(f"/actions/runs/{run_id}")


def make_flow(w: World, **kw: object) -> Flow:
    """The flow as `merge` builds it, with hooks for the tests that need to step in."""
    from changelog_tools.config import load_config
    from changelog_tools.github.adapter import make_github
    from changelog_tools.gitrepo import open_repo

    config = load_config(start=w.clone)
    repo = open_repo(w.clone)
    github = make_github(config, env=w.env)
    return Flow(
        config=config,
        repo=repo,
        github=github,
        reuse=GateReuse(config=config, github=github, repo=repo),
        **kw,  # type: ignore[arg-type]
    )


def test_a_changelog_conflict_with_main_is_resolved_and_both_entries_land(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    w = world
    open_pr_a(w)
    w.push_main({}, "Another PR lands first", append=entry("Re-run evals", f"{LINK}2"))
    main_before = w.origin_file("main")

    assert merge("1") == 0

    assert w.origin_file("main") == (
        main_before + b"\n" + entry("Tune the TP sizes", f"{LINK}1").encode()
    )
    err = capsys.readouterr().err
    assert f"{CHANGELOG} conflict resolved: kept 1 PR entry" in err
    assert_clean_clone(w)


def test_a_conflict_outside_the_changelog_aborts_with_nothing_posted_or_pushed(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    w = world
    master = "configs/gpu-a-master.yaml"
    text = (w.author / master).read_text()
    head = w.open_pr(
        1,
        "feat-a",
        {master: text.replace("example/vllm:0.11.0", "example/vllm:0.12.0")},
        title="Upgrade vLLM",
        append=entry("Upgrade vLLM to 0.12.0"),
    )
    w.push_main({master: text.replace("example/vllm:0.11.0", "example/vllm:0.11.1")}, "hotfix")
    refs = w.origin_refs()

    assert merge("1") == 4

    err = capsys.readouterr().err
    assert f"conflicts in {master}; only {CHANGELOG} is resolved automatically" in err
    assert w.origin_refs() == refs and w.origin_sha("refs/heads/feat-a") == head
    assert writes(w) == [] and not w.fake.pulls[1].merged
    assert_clean_clone(w)


@pytest.mark.parametrize(
    ("labels", "fields", "message"),
    [
        ((), {}, "must carry exactly one sweep label (has: none)"),
        (("sweep-enabled",), {}, "has sweep label sweep-enabled, which is not a full sweep"),
        (
            ("full-sweep-enabled", "full-sweep-fail-fast"),
            {},
            "must carry exactly one sweep label (has: full-sweep-enabled, full-sweep-fail-fast)",
        ),
        (("full-sweep-enabled", "evals-only"), {}, "has label evals-only, which makes its sweep"),
        (
            ("full-sweep-enabled",),
            {"head_repo": "mallory/fork"},
            "comes from a fork (mallory/fork)",
        ),
        (("full-sweep-enabled",), {"draft": True}, "PR #1 is a draft"),
    ],
)
def test_an_ineligible_pr_exits_1_before_anything_changes(
    world: World,
    capsys: pytest.CaptureFixture[str],
    labels: tuple[str, ...],
    fields: dict[str, object],
    message: str,
) -> None:
    w = world
    w.open_pr(1, "feat-a", {}, title="T", labels=labels, append=entry("x"), **fields)
    refs = w.origin_refs()
    assert merge("1") == 1
    assert message in capsys.readouterr().err
    assert w.origin_refs() == refs and writes(w) == []
    assert_clean_clone(w)


def test_a_pull_request_that_does_not_exist_is_a_usage_error(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    w = world
    repo = w.fake.repository
    assert merge("99") == 2
    err = capsys.readouterr().err
    assert f"error: pull request #99 not found in {repo}" in err and "HTTP 404" not in err
    assert writes(w) == []
    assert_clean_clone(w)


def test_no_eligible_sweep_run_exits_1_and_says_how_to_pin_one(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    w = world
    w.open_pr(1, "feat-a", {}, title="T", append=entry("x"), sweep=False)
    refs = w.origin_refs()
    assert merge("1") == 1
    err = capsys.readouterr().err
    assert "PR #1 has no reusable run-sweep.yml run" in err
    assert "/reuse-sweep-run RUN_ID" in err
    assert w.origin_refs() == refs and writes(w) == []
    assert_clean_clone(w)


def test_a_failing_check_stops_the_flow_before_the_merge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def verdict(_pr: int, _sha: str) -> dict[str, str | None]:
        return {"check-changelog": "success", "lint": "failure"}

    for w in _world(tmp_path, monkeypatch, verdict):
        open_pr_a(w)
        assert merge("1") == 1
        assert "check lint concluded failure" in capsys.readouterr().err
        assert not w.fake.pulls[1].merged
        assert_clean_clone(w)


def test_the_pr_head_moving_while_checks_run_refuses_the_merge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    holder: list[World] = []

    def verdict(_pr: int, sha: str) -> dict[str, str | None]:
        w = holder[0]
        if len(w.ci.seen) == 2:  # the flow's push: someone pushes on top of it right away
            w.push_branch("feat-a", {"notes.txt": "late change\n"}, "late change")
        return {"check-changelog": "success"}

    for w in _world(tmp_path, monkeypatch, verdict):
        holder.append(w)
        open_pr_a(w)
        assert merge("1") == 4
        err = capsys.readouterr().err
        assert "PR #1's head changed to" in err and "Nothing was merged" in err
        assert not w.fake.pulls[1].merged
        assert_clean_clone(w)


def test_a_rejected_push_exits_4_with_nothing_merged(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    w = world
    open_pr_a(w)

    def progress(message: str) -> None:
        if message.startswith("[push] pushing"):
            w.push_branch("feat-a", {"notes.txt": "racing\n"}, "racing push")

    from changelog_tools.errors import AbortedError

    with pytest.raises(AbortedError, match="rejected the push to feat-a"):
        make_flow(w, progress=progress).run(MergeRequest(pr=1))
    assert not w.fake.pulls[1].merged
    assert_clean_clone(w)


def test_transient_server_errors_are_retried_and_the_merge_completes(world: World) -> None:
    w = world
    open_pr_a(w)
    w.fake.fail("GET", r"/pulls/1$", 502, times=2)
    w.fake.fail("GET", r"/check-runs$", 503, times=1)
    assert merge("1") == 0
    assert w.fake.pulls[1].merged


def test_persistent_server_errors_exit_3_and_leave_the_clone_as_it_was(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    w = world
    open_pr_a(w)
    w.fake.fail("GET", r"/check-runs$", 500, times=None)
    assert merge("1") == 3
    assert "failed after 3 attempts: HTTP 500" in capsys.readouterr().err
    assert not w.fake.pulls[1].merged
    assert_clean_clone(w)


def test_an_interrupted_merge_continues_from_the_pushed_head_on_re_run(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    w = world
    open_pr_a(w)

    def interrupt(_seconds: float) -> None:
        raise KeyboardInterrupt

    w.ci.paused = True  # checks are still pending when Ctrl-C arrives
    lines: list[str] = []
    with pytest.raises(KeyboardInterrupt):
        make_flow(w, sleep=interrupt, progress=lines.append).run(MergeRequest(pr=1))
    pushed = w.origin_sha("refs/heads/feat-a")
    assert lines[-1].startswith("[merge] interrupted. Already done on GitHub: posted ")
    assert lines[-1].endswith(
        f"pushed {pushed[:12]} to feat-a. A re-run of `changelog-tools "
        "merge 1` resumes from there (it does not post or push that again)"
    )
    assert_clean_clone(w)
    assert [c.body for c in w.fake.comments.values()] == ["/reuse-sweep-run"]
    w.ci.paused = False

    assert merge("1") == 0

    assert w.fake.pulls[1].merge_request is not None
    assert w.fake.pulls[1].merge_request["sha"] == pushed  # not rebuilt, not pushed again
    assert [c.body for c in w.fake.comments.values()] == ["/reuse-sweep-run"]  # not re-posted
    err = capsys.readouterr().err
    assert "already authorized" in err and "resuming" in err
    assert merge("1") == 0  # and once merged, a re-run just reports it
    assert "already merged" in capsys.readouterr().err


def test_dry_run_leaves_the_fake_and_the_origin_byte_identical(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    w = world
    open_pr_a(w)
    w.push_main({}, "Another PR lands first", append=entry("Re-run evals", f"{LINK}2"))
    # The fake caches head/base SHAs it derives from the origin when it first serves a PR;
    # serve it once so the snapshot compares state, not that cache.
    w.fake.pull_json(w.fake.pulls[1])
    state = json.dumps(w.fake.snapshot(), sort_keys=True)
    refs = w.origin_refs()

    assert merge("1", "--dry-run", "--format", "json") == 0

    assert json.dumps(w.fake.snapshot(), sort_keys=True) == state
    assert w.origin_refs() == refs and writes(w) == []
    doc = json.loads(capsys.readouterr().out)
    plan = doc["plan"]

    def keys(node: object) -> set[str]:
        if isinstance(node, dict):
            return set(node).union(*(keys(v) for v in node.values()))
        if isinstance(node, list):
            return set().union(*(keys(v) for v in node))
        return set()

    assert {k for k in keys(doc) if "_" in k} == set()  # kebab-case, as every JSON document
    assert doc["dry-run"] is True and doc["already-merged"] is False
    assert plan["merge-main"]["conflicted"] == [CHANGELOG]
    assert plan["merge-main"]["resolution"]["kept"] == 1
    assert [s["new"] for s in plan["substitutions"]] == [f"{LINK}1"]
    assert plan["authorize-comment"] == "/reuse-sweep-run"
    assert plan["source-run"]["id"] in w.fake.runs
    assert plan["squash-title"] == "Tune llama TP sizes (#1)"
    assert "skip" not in plan["squash-message"].lower()
    assert_clean_clone(w)


def test_a_maintainers_pin_is_kept_and_not_overridden(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    w = world
    head = open_pr_a(w)
    older = w.fake.add_run("run-sweep.yml", head, head_branch="feat-a", artifacts=["results_bmk"])
    # the newest run is the one open_pr_a added; a maintainer pinned the other one
    w.fake.runs[older.id].created_at = "2000-01-01T00:00:00Z"
    w.fake.add_comment(1, f"/reuse-sweep-run {older.id}", login="lead", association="OWNER")
    assert merge("1") == 0
    assert [c.body for c in w.fake.comments.values()] == [f"/reuse-sweep-run {older.id}"]
    assert f"reused sweep run {older.id}; trigger-ingest succeeded" in capsys.readouterr().out


def test_checks_that_never_finish_time_out_with_exit_4_and_nothing_merged(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    w = world
    open_pr_a(w)
    w.ci.paused = True
    assert merge("1", "--timeout", "0.1") == 4
    err = capsys.readouterr().err
    pushed = w.origin_sha("refs/heads/feat-a")
    (comment,) = w.fake.comments.values()
    # the exit-4 message says what is already on GitHub and that a re-run resumes
    assert (
        f"error: timed out after 0.1s waiting for check-changelog on {pushed[:12]}; nothing was "
        f"merged. Already done on GitHub: posted `/reuse-sweep-run` on PR #1 (comment "
        f"{comment.id}); pushed {pushed[:12]} to feat-a. A re-run of `changelog-tools merge 1` "
        "resumes from there (it does not post or push that again)\n"
    ) in err
    assert "re-run `changelog-tools merge 1` to keep waiting" in err
    assert not w.fake.pulls[1].merged
    assert_clean_clone(w)


def test_sigterm_while_waiting_removes_the_scratch_worktree_and_branch(world: World) -> None:
    import os
    import shutil
    import signal
    import subprocess
    import sys

    w = world
    open_pr_a(w)
    w.ci.paused = True
    exe = shutil.which("changelog-tools", path=str(Path(sys.executable).parent))
    assert exe
    proc = subprocess.Popen(
        [exe, "merge", "1"],
        cwd=w.clone,
        env={**os.environ, **w.env},
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if line.startswith("[wait] waiting"):
            break
    assert w.leftovers()[0], "the scratch branch exists while the flow runs"
    proc.send_signal(signal.SIGTERM)
    _, rest = proc.communicate(timeout=30)
    assert proc.returncode == 130, "".join(seen) + rest
    assert "interrupted" in rest
    assert not w.fake.pulls[1].merged
    assert git(w.clone, "for-each-ref", "refs/changelog-tools") == ""
    assert_clean_clone(w)


def test_a_lost_merge_answer_with_a_failing_re_read_says_the_merge_was_sent_not_failed(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    from changelog_tools.errors import ExitCode, GitHubError

    w = world
    open_pr_a(w)

    def progress(message: str) -> None:
        if message.startswith("[merge] squash-merging"):
            # GitHub merges, the answer is lost, and then GitHub cannot be read at all
            w.fake.fail("PUT", r"/pulls/1/merge$", 502, apply=True)
            w.fake.fail("GET", r"/pulls/1$", 500, times=None)

    with pytest.raises(GitHubError) as caught:
        make_flow(w, progress=progress).run(MergeRequest(pr=1))

    assert w.fake.pulls[1].merged  # the truth on GitHub
    exc = caught.value
    assert exc.exit_code == ExitCode.EXTERNAL
    assert exc.message.startswith(
        "the merge request for PR #1 was sent, but its result could not be read (GitHub API "
        f"GET /repos/{REPOSITORY}/pulls/1 failed after 3 attempts: HTTP 500 (injected 500)); "
        f"check PR #1 at {w.fake.root_url}/{REPOSITORY}/pull/1 before merging it again: it "
        "may be merged. Already done on GitHub: posted `/reuse-sweep-run`"
    )
    assert "failed" not in exc.message.split("(")[0]  # never "the merge failed"
    assert exc.hint and "never merges twice" in exc.hint
    assert len(w.fake.requests("PUT", r"/pulls/1/merge$")) == 1
    assert_clean_clone(w)

    w.fake.faults.clear()  # GitHub answers again: the re-run reports the merge, merges nothing
    assert merge("1") == 0
    assert "already merged" in capsys.readouterr().err
    assert len(w.fake.requests("PUT", r"/pulls/1/merge$")) == 1


def test_a_lost_merge_answer_is_confirmed_by_re_reading_the_pr(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    w = world
    open_pr_a(w)
    w.fake.fail("PUT", r"/pulls/1/merge$", 502, apply=True)
    assert merge("1") == 0
    assert w.fake.pulls[1].merged
    assert len(w.fake.requests("PUT", r"/pulls/1/merge$")) == 1
    assert f"merged as {w.fake.pulls[1].merge_commit_sha}" in capsys.readouterr().out


def test_on_a_terminal_merge_draws_a_live_wait_line_on_stderr_and_stdout_stays_data(
    world: World,
) -> None:
    """The installed command with its stderr on a pseudo-terminal (stdout a pipe)."""
    import os
    import pty
    import shutil
    import subprocess
    import sys

    w = world
    open_pr_a(w)
    w.ci.paused = True  # the checks stay pending until the live line has been drawn
    exe = shutil.which("changelog-tools", path=str(Path(sys.executable).parent))
    assert exe
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [exe, "merge", "1"],
        cwd=w.clone,
        env={**os.environ, **w.env},
        stdout=subprocess.PIPE,
        stderr=follower,
        text=True,
    )
    os.close(follower)
    seen = ""
    try:
        while "\r\x1b[K[wait] pending on " not in seen:
            chunk = os.read(leader, 4096)
            assert chunk, seen
            seen += chunk.decode()
        w.ci.paused = False
        out, _ = proc.communicate(timeout=60)
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal closed with the process
                break
            if not chunk:
                break
            seen += chunk.decode()
    finally:
        os.close(leader)
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, seen
    assert "[wait] waiting for check-changelog and every other check on " in seen
    assert "\r\x1b[K[wait] all checks passed on " in seen  # the live line erased first
    assert "[merge] merged PR #1 as " in seen
    assert "[wait]" not in out and "\x1b" not in out
    assert out.startswith("PR #1: Tune llama TP sizes\n")


def test_a_resumed_merge_that_times_out_says_what_an_earlier_run_left_on_github(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    w = world
    open_pr_a(w)

    def interrupt(_seconds: float) -> None:
        raise KeyboardInterrupt

    w.ci.paused = True
    with pytest.raises(KeyboardInterrupt):
        make_flow(w, sleep=interrupt).run(MergeRequest(pr=1))
    pushed = w.origin_sha("refs/heads/feat-a")
    (comment,) = w.fake.comments.values()
    capsys.readouterr()

    assert merge("1", "--timeout", "0") == 4  # still pending: this run posts and pushes nothing

    err = capsys.readouterr().err
    assert (
        f"nothing was merged. Already done on GitHub: reuse was authorized before (comment "
        f"{comment.id}); feat-a holds {pushed[:12]}, pushed by an earlier run. A re-run of "
        "`changelog-tools merge 1` resumes from there"
    ) in err
    assert len(w.fake.comments) == 1 and w.origin_sha("refs/heads/feat-a") == pushed
