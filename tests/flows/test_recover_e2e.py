"""`changelog-tools recover` end to end: a real bare origin and clone, the fake GitHub tied to the
origin (PR heads, commit lists and squash merges come from git), a fake CI reporting checks on
PR heads and a push run for each merge. PR #1 was merged without reuse and its push run lost
the ingest; the recovery PR is #2."""

from __future__ import annotations

import io
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from changelog_tools import cli
from changelog_tools.testing.fakeci import all_green
from changelog_tools.testing.fakegithub import Fault
from changelog_tools.testing.fakesweep import ci_push_runs, lost_ingest_run, push_run_like_ci
from tests.conftest import commit_files, git
from tests.mergeworld import CHANGELOG, REPOSITORY, World, entry
from tests.recoverworld import CHECKS, LINK, Lost, branch_parents, lost_world, writes

BRANCH = "recovery/reuse-pr-1"
R = f"/repos/{REPOSITORY}"


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[World, Lost]]:
    yield from _enter(tmp_path, monkeypatch, "cancelled")


def _enter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> Iterator[tuple[World, Lost]]:
    for w, lost in lost_world(tmp_path, how=how):
        for key, value in w.env.items():
            monkeypatch.setenv(key, value)
        monkeypatch.chdir(w.clone)
        yield w, lost


def _plain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    """The merge-flow world with CI's push runs, for tests that build their own PR #1."""
    from tests.mergeworld import build_world

    for w in build_world(tmp_path, all_green(CHECKS)):
        for key, value in w.env.items():
            monkeypatch.setenv(key, value)
        monkeypatch.chdir(w.clone)
        w.ci.on_merge = ci_push_runs(w.fake)
        yield w


def recover(*args: str) -> int:
    return cli.run(["recover", *args])


def recovered_bytes(lost: Lost, number: int = 2) -> bytes:
    return lost.main_before + b"\n" + entry("Tune the TP sizes", f"{LINK}{number}").encode()


def assert_recovered_once(w: World, lost: Lost) -> None:
    """One recovery PR, one label, one authorization, the entry appended once, merged."""
    recovery = [p for p in w.fake.pulls.values() if p.head_ref == BRANCH]
    assert [p.number for p in recovery] == [2]
    pull = recovery[0]
    assert pull.merged and pull.labels == ["full-sweep-enabled"]
    bodies = [c.body for c in w.fake.comments.values() if c.issue == 2]
    assert bodies == [f"/reuse-sweep-run {lost.source.id}"]
    assert w.origin_file("main") == recovered_bytes(lost)
    assert w.fake.count("POST", r"/pulls$") >= 1
    assert len([r for r in w.fake.log if r.method == "PUT"]) >= 1


def assert_nothing_written(w: World, before: str) -> None:
    assert writes(w) == []
    assert w.origin_refs() == before
    assert git(w.clone, "status", "--porcelain") == ""
    assert git(w.clone, "for-each-ref", "refs/changelog-tools") == ""


# -- the happy path -----------------------------------------------------------------------------


def test_recover_opens_authorizes_appends_carries_merges_and_sees_the_ingest(
    world: tuple[World, Lost], capsys: pytest.CaptureFixture[str]
) -> None:
    w, lost = world
    clone_head = git(w.clone, "rev-parse", "HEAD")
    started = time.perf_counter()

    assert recover("--pr", "1", "--yes") == 0

    elapsed = time.perf_counter() - started
    assert_recovered_once(w, lost)
    pull = w.fake.pulls[2]
    # the carrier: first parent the recovery commit, second the source commit, same tree
    carrier = pull.merge_request["sha"] if pull.merge_request else ""
    recovery, source = branch_parents(w, carrier)
    assert source == lost.head
    assert git(w.origin, "rev-parse", f"{carrier}^{{tree}}") == git(
        w.origin, "rev-parse", f"{recovery}^{{tree}}"
    )
    bootstrap = branch_parents(w, recovery)[0]
    assert branch_parents(w, bootstrap) == [lost.merge_sha]  # the empty commit on main
    assert git(w.origin, "diff", "--name-only", bootstrap, recovery) == CHANGELOG
    # the squash: main's bytes, then the entry verbatim with the recovery PR's link
    assert w.origin_sha("main") == pull.merge_commit_sha
    message = git(w.origin, "log", "-1", "--format=%B", "main")
    assert message.startswith("Recover the ingest of #1 (#2)\n")
    assert f"Source run: {lost.source.id}" in message
    # four writes: open, label, the reuse command, the merge (git pushes are not API calls)
    assert writes(w) == [
        ("POST", f"{R}/pulls"),
        ("POST", f"{R}/issues/2/labels"),
        ("POST", f"{R}/issues/2/comments"),
        ("PUT", f"{R}/pulls/2/merge"),
    ]
    # the comment came before the entries were pushed: it is older than the carrier's checks
    comment = next(c for c in w.fake.comments.values() if c.issue == 2)
    checks = [c for c in w.fake.check_runs if c.head_sha == carrier]
    assert checks and all(comment.created_at < c.started_at for c in checks)
    out = capsys.readouterr()
    assert "recovery PR #2 merged as" in out.out
    assert f"reused source run {lost.source.id}" in out.out
    assert "trigger-ingest dispatched the ingest" in out.out
    assert f"pr-link: {LINK}2" in out.out
    assert "[authorize] posting `/reuse-sweep-run" in out.err
    assert out.err.count("[ingest] push run ") == 2  # "is completed", then what it did
    assert git(w.clone, "rev-parse", "HEAD") == clone_head
    assert git(w.clone, "status", "--porcelain") == ""
    assert git(w.clone, "for-each-ref", "refs/changelog-tools") == ""
    polls = w.fake.count("GET", r"/check-runs$")
    print(f"recover happy path: {len(w.fake.log)} API requests, {elapsed:.2f}s to merged")
    assert len(w.fake.log) == 19 + 2 * (polls - 1)
    # once more: the recovery is found merged, its push run checked, nothing written again
    refs, log = w.origin_refs(), len(w.fake.log)
    assert recover("--pr", "1", "--yes") == 0
    assert [r for r in w.fake.log[log:] if r.method != "GET"] == [] and w.origin_refs() == refs
    assert "recovery PR #2 was merged before as" in capsys.readouterr().out


def test_a_run_url_and_a_job_url_name_the_same_target_and_json_reports_both_runs(
    world: tuple[World, Lost], capsys: pytest.CaptureFixture[str]
) -> None:
    w, lost = world
    url = w.fake.html(f"/actions/runs/{lost.target.id}")
    job = lost.target.jobs[-1].id
    assert recover(f"{url}/job/{job}?pr=1", "--dry-run") == 0
    capsys.readouterr()

    assert recover(url, "--yes", "--format", "json") == 0

    doc = json.loads(capsys.readouterr().out)
    assert doc["merged"] and doc["recovery-pr"] == 2
    assert doc["plan"]["target-run"]["id"] == lost.target.id
    assert doc["plan"]["source-run"]["id"] == lost.source.id
    assert doc["ingest"]["reuse-enabled"] is True
    assert doc["ingest"]["ingest-jobs"] == ["trigger-ingest"]
    assert doc["plan"]["appended"].endswith(f"pr-link: {LINK}2\n")
    assert all(step["done"] for step in doc["plan"]["steps"])


def test_a_bogus_ingest_of_a_cancelled_sweep_is_recovered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for w, lost in _enter(tmp_path, monkeypatch, "bogus"):
        assert recover("--pr", "1", "--yes") == 0
        assert_recovered_once(w, lost)
        assert "a bogus ingest" in capsys.readouterr().out


def test_dry_run_prints_the_whole_plan_and_writes_nothing(
    world: tuple[World, Lost], capsys: pytest.CaptureFixture[str]
) -> None:
    w, lost = world
    before = w.origin_refs()

    assert recover("--pr", "1", "--dry-run") == 0

    assert_nothing_written(w, before)
    out = capsys.readouterr().out
    for step in ("bootstrap", "open", "label", "authorize", "append", "wait", "merge", "ingest"):
        assert f"[plan] {step}:" in out
    assert f"post `/reuse-sweep-run {lost.source.id}`" in out
    assert "pr-link: XXX" in out  # the link is the recovery PR's, known once it is opened
    assert "dry run: nothing was pushed, opened, labelled, posted or merged" in out


def test_without_a_terminal_and_without_yes_it_refuses_before_reading(
    world: tuple[World, Lost], capsys: pytest.CaptureFixture[str]
) -> None:
    w, _lost = world
    assert recover("--pr", "1") == 2
    assert "pass --yes" in capsys.readouterr().err
    assert w.fake.log == []


@pytest.mark.parametrize(
    "args",
    [(), ("https://github.com/x/y/actions/runs/1", "--pr", "1")],
    ids=["neither", "both"],
)
def test_the_target_is_a_url_or_a_pr_exactly(
    world: tuple[World, Lost], capsys: pytest.CaptureFixture[str], args: tuple[str, ...]
) -> None:
    assert recover(*args, "--dry-run") == 2
    assert "exactly one" in capsys.readouterr().err


def test_a_url_of_another_repository_or_shape_is_a_usage_error(
    world: tuple[World, Lost], capsys: pytest.CaptureFixture[str]
) -> None:
    w, lost = world
    assert recover(f"https://github.com/other/repo/actions/runs/{lost.target.id}", "--dry-run") == 2
    assert "the run URL is of other/repo" in capsys.readouterr().err
    assert recover("https://github.com/x/y/pull/3", "--dry-run") == 2
    assert "not a GitHub Actions run URL" in capsys.readouterr().err
    assert w.fake.log == []


# -- refusals: exit 1, nothing written ------------------------------------------------------------


def _refused(w: World, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    before = w.origin_refs()
    assert recover(*args, "--yes") == 1
    assert_nothing_written(w, before)
    return capsys.readouterr().err


def test_a_pull_request_run_is_not_a_target(
    world: tuple[World, Lost], capsys: pytest.CaptureFixture[str]
) -> None:
    w, lost = world
    err = _refused(w, capsys, w.fake.html(f"/actions/runs/{lost.source.id}"))
    assert "was triggered by 'pull_request', not push" in err


def test_a_push_run_on_another_branch_is_not_a_target(
    world: tuple[World, Lost], capsys: pytest.CaptureFixture[str]
) -> None:
    w, lost = world
    run = w.fake.add_run(
        "run-sweep.yml", lost.merge_sha, event="push", head_branch="release", jobs=[]
    )
    err = _refused(w, capsys, w.fake.html(f"/actions/runs/{run.id}"))
    assert "ran on 'release', not 'main'" in err


@pytest.mark.parametrize(
    ("how", "why"),
    [
        ("running", "is still in_progress; its ingest may yet happen"),
        ("ingested", "did not lose its ingest: trigger-ingest succeeded reusing a sweep"),
    ],
)
def test_a_run_still_running_or_that_ingested_is_not_a_target(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    how: str,
    why: str,
) -> None:
    for w, _lost in _enter(tmp_path, monkeypatch, how):
        assert why in _refused(w, capsys, "--pr", "1")


@pytest.mark.parametrize("dry_run", [(), ("--dry-run",)])
def test_a_refusal_in_json_format_is_one_json_error_object(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    dry_run: tuple[str, ...],
) -> None:
    for w, _lost in _enter(tmp_path, monkeypatch, "ingested"):
        before = w.origin_refs()
        assert recover("--pr", "1", "--yes", *dry_run, "--format", "json") == 1
        assert_nothing_written(w, before)
        out = capsys.readouterr().out
        doc = json.loads(out)  # one document, nothing before or after it
        assert doc["schema-version"] == 1 and doc["command"] == "recover" and doc["ok"] is False
        assert doc["error"]["code"] == "data" and doc["error"]["exit-code"] == 1
        assert "did not lose its ingest" in doc["error"]["message"]
        assert doc["error"]["hint"].startswith("recover is for a push run")


def test_a_push_that_no_pull_request_merged_is_refused(
    world: tuple[World, Lost], capsys: pytest.CaptureFixture[str]
) -> None:
    w, _lost = world
    sha = w.push_main({"notes.txt": "direct push\n"}, "A direct push to main")
    run = lost_ingest_run(w.fake, sha)
    err = _refused(w, capsys, w.fake.html(f"/actions/runs/{run.id}"))
    assert "is the merge commit of 0 pull requests; exactly one is needed" in err


def test_a_commit_two_merged_pull_requests_claim_is_refused(
    world: tuple[World, Lost], capsys: pytest.CaptureFixture[str]
) -> None:
    w, lost = world
    w.fake.add_pull(
        3,
        "feat-c",
        state="closed",
        merged=True,
        merged_at=w.fake.now(),
        merge_commit_sha=lost.merge_sha,
        head_sha="c" * 40,
    )
    w.fake.commit_pulls[lost.merge_sha] = [1, 3]
    err = _refused(w, capsys, w.fake.html(f"/actions/runs/{lost.target.id}"))
    assert "is the merge commit of 2 pull requests (#1, #3)" in err


def test_an_unmerged_pull_request_has_no_ingest_to_recover(
    world: tuple[World, Lost], capsys: pytest.CaptureFixture[str]
) -> None:
    w, _lost = world
    w.open_pr(4, "feat-d", {}, title="Open PR", append=entry("Still open", f"{LINK}4"))
    err = _refused(w, capsys, "--pr", "4")
    assert "PR #4 is not merged" in err


def test_a_source_run_on_a_commit_outside_the_pr_is_refused(
    world: tuple[World, Lost], capsys: pytest.CaptureFixture[str]
) -> None:
    w, lost = world
    stray = w.fake.add_run(
        "run-sweep.yml", lost.merge_sha, head_branch="feat-a", artifacts=["results_bmk"]
    )
    err = _refused(w, capsys, "--pr", "1", "--source-run", str(stray.id))
    assert f"pinned run {stray.id} ran on {lost.merge_sha[:7]}" in err
    assert "no longer one of PR #1's commits" in err


def test_a_source_run_whose_artifacts_expired_is_refused(
    world: tuple[World, Lost], capsys: pytest.CaptureFixture[str]
) -> None:
    w, lost = world
    for artifact in lost.source.artifacts:
        artifact.expired = True
    err = _refused(w, capsys, "--pr", "1")
    assert "has no reusable run-sweep.yml run" in err
    assert "1 without unexpired result artifacts" in err
    assert "pin one with --source-run RUN_ID" in err
    err = _refused(w, capsys, "--pr", "1", "--source-run", str(lost.source.id))
    assert f"pinned run {lost.source.id} has no unexpired result artifact" in err


def test_a_pr_that_changed_benchmark_inputs_after_its_sweep_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from changelog_tools.testing.fakesweep import merge_now

    for w in _plain(tmp_path, monkeypatch):
        first = w.open_pr(1, "feat-a", {}, title="Tune", append=entry("Tune", f"{LINK}1"))
        master = (w.author / "configs/gpu-a-master.yaml").read_text()
        commit_files(w.author, {"configs/gpu-a-master.yaml": master + "# retuned\n"}, "Retune")
        git(w.author, "push", "-q", "origin", "HEAD:refs/heads/feat-a")
        merge_sha = merge_now(w.fake, 1)
        lost_ingest_run(w.fake, merge_sha)
        assert first != merge_sha
        err = _refused(w, capsys, "--pr", "1")
        assert "PR #1 changed benchmark inputs after source run" in err
        assert "configs/gpu-a-master.yaml" in err


def test_a_merge_that_was_not_a_clean_append_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from changelog_tools.testing.fakesweep import merge_now

    for w in _plain(tmp_path, monkeypatch):
        history = (w.author / CHANGELOG).read_text()
        edited = history.replace('    - "', '    - "Rewritten: ', 1)  # history changed in meaning
        assert edited != history
        w.open_pr(1, "feat-a", {CHANGELOG: edited + "\n" + entry("Tune", f"{LINK}1")}, title="T")
        merge_sha = merge_now(w.fake, 1)
        lost_ingest_run(w.fake, merge_sha)
        err = _refused(w, capsys, "--pr", "1")
        assert "did not only add entries to perf-changelog.yaml: CL102" in err


def test_an_existing_recovery_pr_with_a_second_sweep_label_is_refused(
    world: tuple[World, Lost], capsys: pytest.CaptureFixture[str]
) -> None:
    w, _lost = world
    w.fake.fault(Fault("POST", r"/issues/2/comments$", status=422, times=None))
    assert recover("--pr", "1", "--yes") == 3
    w.fake.faults.clear()
    w.fake.pulls[2].labels.append("sweep-enabled")
    before = w.origin_refs()
    log = len(w.fake.log)

    assert recover("--pr", "1", "--yes") == 1

    assert [r for r in w.fake.log[log:] if r.method != "GET"] == []
    assert w.origin_refs() == before
    err = capsys.readouterr().err
    assert "recovery PR #2 has label(s) sweep-enabled" in err


def test_a_recovery_branch_holding_someone_elses_commits_is_never_overwritten(
    world: tuple[World, Lost], capsys: pytest.CaptureFixture[str]
) -> None:
    w, _lost = world
    git(w.author, "checkout", "-q", "-B", "x", "origin/main")
    commit_files(w.author, {"other.txt": "mine\n"}, "Someone else's work")
    git(w.author, "push", "-q", "origin", f"HEAD:refs/heads/{BRANCH}")
    err = _refused(w, capsys, "--pr", "1")
    assert "holds commits recover did not make" in err


# -- resuming after a failure at each step ------------------------------------------------------


def test_a_lost_answer_to_opening_the_pr_does_not_open_a_second_one(
    world: tuple[World, Lost],
) -> None:
    w, lost = world
    w.fake.fault(Fault("POST", r"/pulls$", status=502, times=None, apply=True))
    assert recover("--pr", "1", "--yes") == 0
    assert_recovered_once(w, lost)


@pytest.mark.parametrize(
    ("fault", "code"),
    [
        (Fault("POST", r"/pulls$", status=500, times=None), 3),
        (Fault("POST", r"/labels$", status=500, times=None), 3),
        (Fault("POST", r"/issues/2/comments$", status=422, times=None), 3),
        (Fault("PUT", r"/merge$", status=405, times=None), 4),
    ],
    ids=["open", "label", "authorize", "merge"],
)
def test_a_re_run_after_a_failed_step_resumes_without_duplicates(
    world: tuple[World, Lost], capsys: pytest.CaptureFixture[str], fault: Fault, code: int
) -> None:
    w, lost = world
    w.fake.fault(fault)

    assert recover("--pr", "1", "--yes") == code

    err = capsys.readouterr().err
    assert "Already on GitHub: pushed" in err
    assert "resumes from there" in err
    w.fake.faults.clear()
    assert recover("--pr", "1", "--yes") == 0
    assert_recovered_once(w, lost)
    assert w.fake.count("POST", r"/issues/2/comments$") == (
        2 if fault.pattern.startswith("/issues") else 1
    )


def test_a_rejected_carrier_push_resumes_from_the_bootstrap(
    world: tuple[World, Lost], capsys: pytest.CaptureFixture[str]
) -> None:
    w, lost = world
    flag = w.root / "reject"
    hook = w.origin / "hooks" / "pre-receive"
    hook.write_text(
        "#!/bin/sh\nwhile read old new ref; do\n"
        f"  if [ -f '{flag}' ] && [ \"$(git rev-list --parents -n 1 $new | wc -w)\" = 3 ]; then\n"
        "    echo 'carriers not today' >&2; exit 1\n  fi\ndone\n"
    )
    hook.chmod(0o755)
    flag.write_text("")

    assert recover("--pr", "1", "--yes") == 4

    err = capsys.readouterr().err
    assert "origin refused the push" in err and "posted `/reuse-sweep-run" in err
    assert w.fake.pulls[2].labels == ["full-sweep-enabled"]
    flag.unlink()
    assert recover("--pr", "1", "--yes") == 0
    assert_recovered_once(w, lost)
    assert "[resume] recovery PR #2 is open; recovery/reuse-pr-1 holds the bootstrap commit" in (
        capsys.readouterr().err
    )


def test_checks_that_never_finish_stop_with_exit_4_and_a_re_run_merges(
    world: tuple[World, Lost], capsys: pytest.CaptureFixture[str]
) -> None:
    w, lost = world
    w.ci.paused = True

    assert recover("--pr", "1", "--yes", "--timeout", "0.2") == 4

    err = capsys.readouterr().err
    assert "timed out after" in err and "re-run `changelog-tools recover --pr 1`" in err
    assert not w.fake.pulls[2].merged
    w.ci.paused = False
    assert recover("--pr", "1", "--yes") == 0
    assert_recovered_once(w, lost)
    assert "holds the carrier" in capsys.readouterr().err


def test_a_push_run_that_has_not_finished_is_checked_by_a_re_run(
    world: tuple[World, Lost], capsys: pytest.CaptureFixture[str]
) -> None:
    w, lost = world
    w.ci.on_merge = None

    assert recover("--pr", "1", "--yes", "--timeout", "0.2") == 4

    err = capsys.readouterr().err
    assert "the recovery is merged as" in err and "no run has started" in err
    pull = w.fake.pulls[2]
    assert pull.merged and pull.merge_commit_sha
    push_run_like_ci(w.fake, 2, pull.merge_commit_sha)
    log = len(w.fake.log)
    assert recover("--pr", "1", "--yes") == 0
    assert [r for r in w.fake.log[log:] if r.method != "GET"] == []
    assert_recovered_once(w, lost)
    assert "recovery PR #2 was merged before as" in capsys.readouterr().out


def test_a_push_run_that_swept_instead_of_reusing_is_reported(
    world: tuple[World, Lost], capsys: pytest.CaptureFixture[str]
) -> None:
    w, _lost = world
    w.ci.on_merge = lambda _n, sha: lost_ingest_run(w.fake, sha) and None

    assert recover("--pr", "1", "--yes") == 1

    err = capsys.readouterr().err
    assert "did not reuse the source run: benchmark jobs ran" in err
    assert w.fake.pulls[2].merged


def test_a_carrier_whose_pr_was_closed_is_not_reused_for_a_new_pr(
    world: tuple[World, Lost], capsys: pytest.CaptureFixture[str]
) -> None:
    w, _lost = world
    w.fake.fault(Fault("PUT", r"/merge$", status=405, times=None))
    assert recover("--pr", "1", "--yes") == 4
    w.fake.faults.clear()
    w.fake.pulls[2].state = "closed"
    capsys.readouterr()
    before, log = w.origin_refs(), len(w.fake.log)

    assert recover("--pr", "1", "--yes") == 1

    assert [r for r in w.fake.log[log:] if r.method != "GET"] == [] and w.origin_refs() == before
    assert "no open pull request comes from it" in capsys.readouterr().err


def test_a_recover_label_that_is_not_a_full_sweep_label_is_a_configuration_error(
    world: tuple[World, Lost], capsys: pytest.CaptureFixture[str]
) -> None:
    w, _lost = world
    config = w.clone / ".changelog-tools.yaml"
    config.write_text(config.read_text() + "recover-label: sweep-enabled\n")
    assert recover("--pr", "1", "--dry-run") == 2
    assert "`recover-label` 'sweep-enabled' is not one of `full-sweep-labels`" in (
        capsys.readouterr().err
    )
    assert w.fake.log == []


def test_configured_names_and_messages_are_used(
    world: tuple[World, Lost], capsys: pytest.CaptureFixture[str]
) -> None:
    w, lost = world
    config = w.clone / ".changelog-tools.yaml"
    config.write_text(
        config.read_text()
        + "recover-branch-prefix: ops/recover-\n"
        + "recover-title: 'Ingest {pr} again from {run}'\n"
        + "recover-carrier-message: 'carry {sha} {x}'\n"
    )
    assert recover("--pr", "1", "--yes") == 0
    pull = w.fake.pulls[2]
    assert pull.head_ref == "ops/recover-1"
    assert pull.title == f"Ingest 1 again from {lost.source.id}"
    carrier = pull.merge_request["sha"] if pull.merge_request else ""
    assert git(w.origin, "log", "-1", "--format=%s", carrier) == f"carry {lost.head[:12]} {{x}}"


def test_when_main_appends_meanwhile_merge_resolves_the_recovery_pr_and_keeps_the_pin(
    world: tuple[World, Lost], capsys: pytest.CaptureFixture[str]
) -> None:
    w, lost = world
    w.ci.paused = True
    assert recover("--pr", "1", "--yes", "--timeout", "0.1") == 4
    other = entry("Someone else's change", f"{LINK}9", "mixtral-fp4-gpu-b-trt")
    w.push_main({}, "Another PR lands first", append=other)
    w.ci.paused = False
    assert recover("--pr", "1", "--yes") == 4
    err = capsys.readouterr().err
    assert "GitHub reports PR #2 as conflicting with main; nothing was merged" in err
    assert "run `changelog-tools merge 2`: it merges main in" in err

    assert cli.run(["merge", "2"]) == 0

    out = capsys.readouterr()
    assert "conflict resolved" in out.err
    main = w.origin_file("main")
    assert main == (
        lost.main_before + b"\n" + other.encode() + b"\n"
        + entry("Tune the TP sizes", f"{LINK}2").encode()
    )  # fmt: skip
    # the maintainer's pin on the source run was kept, not replaced by a bare command
    bodies = [c.body for c in w.fake.comments.values() if c.issue == 2]
    assert bodies == [f"/reuse-sweep-run {lost.source.id}"]


def test_a_refused_bootstrap_push_leaves_nothing_and_a_re_run_starts_afresh(
    world: tuple[World, Lost], capsys: pytest.CaptureFixture[str]
) -> None:
    w, lost = world
    hook = w.origin / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'protected' >&2\nexit 1\n")
    hook.chmod(0o755)
    before = w.origin_refs()

    assert recover("--pr", "1", "--yes") == 4

    assert writes(w) == [] and w.origin_refs() == before
    err = capsys.readouterr().err
    assert "origin refused the push to recovery/reuse-pr-1" in err
    assert "Already on GitHub" not in err
    hook.unlink()
    assert recover("--pr", "1", "--yes") == 0
    assert_recovered_once(w, lost)


def test_ctrl_c_while_waiting_says_what_github_has(world: tuple[World, Lost]) -> None:
    from changelog_tools.config import load_config
    from changelog_tools.flows.recover.flow import RecoverFlow, RecoverRequest
    from changelog_tools.github.adapter import make_github
    from changelog_tools.gitrepo import open_repo

    w, lost = world
    w.ci.paused = True
    lines: list[str] = []

    def interrupt(_seconds: float) -> None:
        raise KeyboardInterrupt

    config = load_config()
    flow = RecoverFlow(
        config=config,
        repo=open_repo(w.clone),
        github=make_github(config, env=w.env),
        progress=lines.append,
        sleep=interrupt,
    )
    with pytest.raises(KeyboardInterrupt):
        flow.run(RecoverRequest(pr=1))

    assert "[recover] interrupted. Already on GitHub: pushed" in lines[-1]
    assert "posted `/reuse-sweep-run" in lines[-1] and "pushed the carrier" in lines[-1]
    assert git(w.clone, "for-each-ref", "refs/changelog-tools") == ""
    w.ci.paused = False
    assert recover("--pr", "1", "--yes") == 0
    assert_recovered_once(w, lost)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("answer", "code"), [("n\n", 4), ("y\n", 0)])
def test_on_a_terminal_it_shows_the_plan_and_asks_before_the_first_write(
    world: tuple[World, Lost],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    answer: str,
    code: int,
) -> None:
    w, _lost = world
    monkeypatch.setattr("sys.stdin", _Terminal(answer))

    assert recover("--pr", "1") == code

    err = capsys.readouterr().err
    assert "[    ] bootstrap: push an empty commit" in err
    assert "Push, open, post and merge as planned? [y/N]" in err
    if code:
        assert writes(w) == [] and "stopped before the first write" in err
    else:
        assert w.fake.pulls[2].merged


def test_a_merge_that_inserted_its_entry_among_older_ones_is_recovered_at_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from changelog_tools.testing.fakesweep import merge_now

    for w in _plain(tmp_path, monkeypatch):
        history = (w.author / CHANGELOG).read_text()
        first, rest = history.split("\n\n", 1)
        mine = entry("Tune", f"{LINK}1")
        # what an editor's merge left: the new entry second, a separator of two empty lines
        w.open_pr(1, "feat-a", {CHANGELOG: first + "\n\n" + mine + "\n\n" + rest}, title="T")
        merge_sha = merge_now(w.fake, 1)
        lost_ingest_run(w.fake, merge_sha)
        before = w.origin_file("main")

        assert recover("--pr", "1", "--yes") == 0

        assert w.origin_file("main") == before + b"\n" + entry("Tune", f"{LINK}2").encode()
        out = capsys.readouterr().out
        assert "note:  the merge of #1 broke CL103" in out
        assert "the recovery appends its entries at the end, one empty line apart" in out


@pytest.mark.parametrize(("image", "stale"), [("vllm", True), ("sglang", False)])
def test_recover_refuses_a_source_run_main_made_stale_and_not_an_unrelated_change(
    world: tuple[World, Lost], capsys: pytest.CaptureFixture[str], image: str, stale: bool
) -> None:
    w, lost = world
    master = "configs/gpu-a-master.yaml"
    text = (w.author / master).read_text()
    old = {"vllm": "example/vllm:0.11.0", "sglang": "example/sglang:0.5.5"}[image]
    moved = w.push_main({master: text.replace(old, old + "-hotfix")}, f"Bump {image}")
    refs = w.origin_refs()

    code = recover("--pr", "1", "--yes", "--dry-run")

    err = capsys.readouterr().err
    if stale:
        assert code == 1
        assert f"source run {lost.source.id} of PR #1 is stale" in err
        assert f"llama70b-fp8-gpu-a-vllm: {master} (main {moved[:12]})" in err
        assert "a new sweep is needed" in err
    else:
        assert code == 0, err
    assert w.origin_refs() == refs and writes(w) == []
