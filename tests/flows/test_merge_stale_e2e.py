"""`merge` refuses to reuse a sweep main made stale, end to end: a real bare origin, the fake
GitHub tied to it, main moving after the PR's sweep (in parts that merge without conflict)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from changelog_tools import cli
from tests.conftest import git
from tests.mergeworld import CHANGELOG, REPOSITORY, World, build_world, entry

LINK = f"https://github.com/{REPOSITORY}/pull/"

MASTER = "configs/gpu-a-master.yaml"
KEY = "llama70b-fp8-gpu-a-vllm"


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    for w in build_world(tmp_path):
        for key, value in w.env.items():
            monkeypatch.setenv(key, value)
        monkeypatch.chdir(w.clone)
        yield w


def writes(w: World) -> list[tuple[str, str]]:
    return [(r.method, r.path) for r in w.fake.log if r.method != "GET"]


def test_main_changed_the_image_of_a_swept_config_so_reuse_is_refused(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    w = world
    w.open_pr(1, "feat-a", {}, title="Tune llama", append=entry("Tune llama", key=KEY))
    text = (w.author / MASTER).read_text()
    moved = w.push_main(
        {MASTER: text.replace("example/vllm:0.11.0", "example/vllm:0.11.1")}, "Bump vLLM"
    )
    refs = w.origin_refs()

    assert cli.run(["merge", "1"]) == 1

    err = capsys.readouterr().err
    assert f"{KEY}: {MASTER} (main {moved[:12]})" in err
    assert "a new sweep is needed" in err
    assert w.origin_refs() == refs and writes(w) == [] and not w.fake.pulls[1].merged
    assert git(w.clone, "status", "--porcelain") == ""


def test_main_changed_an_unrelated_config_and_reuse_still_happens(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    w = world
    w.open_pr(1, "feat-a", {}, title="Tune llama", append=entry("Tune llama", key=KEY))
    text = (w.author / MASTER).read_text()
    w.push_main(
        {MASTER: text.replace("example/sglang:0.5.5", "example/sglang:0.5.6")}, "Bump SGLang"
    )

    assert cli.run(["merge", "1"]) == 0

    pull = w.fake.pulls[1]
    assert pull.merged
    source = next(r for r in w.fake.runs.values() if r.event == "pull_request")
    push = next(r for r in w.fake.runs.values() if r.head_sha == pull.merge_commit_sha)
    out = capsys.readouterr().out
    assert f"main's push run {push.id}" in out and f"reused sweep run {source.id}" in out


def test_the_push_run_reused_and_json_carries_the_facts(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    w = world
    w.open_pr(1, "feat-a", {}, title="Tune llama", append=entry("Tune llama", key=KEY))

    assert cli.run(["merge", "1", "--format", "json"]) == 0

    doc = json.loads(capsys.readouterr().out)
    pull = w.fake.pulls[1]
    push = next(r for r in w.fake.runs.values() if r.head_sha == pull.merge_commit_sha)
    source = next(r for r in w.fake.runs.values() if r.event == "pull_request")
    report = doc["push-run"]
    assert report["id"] == push.id and report["commit"] == pull.merge_commit_sha
    assert report["reused-sweep"] is True and report["expected-source-run"] == source.id
    assert report["ingest-dispatched"] is True and report["ingest-finished"] is True
    assert report["ok"] is True and report["recover-command"] is None


def test_the_push_run_did_not_reuse_so_the_recover_command_is_printed_and_exit_5(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    from changelog_tools.testing.fakesweep import lost_ingest_run

    w = world
    w.open_pr(1, "feat-a", {}, title="Tune llama", append=entry("Tune llama", key=KEY))
    source = next(r for r in w.fake.runs.values() if r.event == "pull_request")
    # CI on main swept instead of reusing, and that sweep was cancelled: the ingest is lost
    w.ci.on_merge = lambda _n, sha: lost_ingest_run(w.fake, sha, how="cancelled")

    assert cli.run(["merge", "1"]) == 5

    out, err = capsys.readouterr()
    pull = w.fake.pulls[1]
    assert pull.merged
    push = next(r for r in w.fake.runs.values() if r.head_sha == pull.merge_commit_sha)
    command = f"changelog-tools recover --pr 1 --source-run {source.id}"
    assert f"main's push run {push.id}" in out and "did not reuse the sweep" in out
    assert f"recover with:  {command}" in out
    assert f"error: PR #1 is merged as {pull.merge_commit_sha}" in err
    assert f"hint: recover the ingest with `{command}`" in err


def test_json_of_a_lost_ingest_says_so_with_exit_5(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from changelog_tools.testing.fakesweep import lost_ingest_run

    w = world
    w.open_pr(1, "feat-a", {}, title="Tune llama", append=entry("Tune llama", key=KEY))
    w.ci.on_merge = lambda _n, sha: lost_ingest_run(w.fake, sha, how="failed")

    assert cli.run(["merge", "1", "--format", "json"]) == 5

    report = json.loads(capsys.readouterr().out)["push-run"]
    assert report["reused-sweep"] is False and report["ingest-dispatched"] is True
    assert report["ingest-finished"] is False and report["ok"] is False
    assert report["recover-command"].startswith("changelog-tools recover --pr 1 --source-run ")


def test_a_push_run_that_does_not_finish_in_time_is_exit_5_not_a_hang(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    from changelog_tools.testing.fakesweep import lost_ingest_run

    w = world
    w.open_pr(1, "feat-a", {}, title="Tune llama", append=entry("Tune llama", key=KEY))
    w.ci.on_merge = lambda _n, sha: lost_ingest_run(w.fake, sha, how="running")

    assert cli.run(["merge", "1", "--ingest-timeout", "0.2"]) == 5

    out = capsys.readouterr().out
    assert "was still in_progress after" in out and "recover with:" in out


def test_no_wait_ingest_merges_without_looking_at_the_push_run(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    w = world
    w.open_pr(1, "feat-a", {}, title="Tune llama", append=entry("Tune llama", key=KEY))
    w.ci.on_merge = None

    assert cli.run(["merge", "1", "--no-wait-ingest"]) == 0

    assert w.fake.pulls[1].merged
    assert "was not awaited (--no-wait-ingest)" in capsys.readouterr().out
    assert w.fake.count("GET", r"/actions/runs/\d+/jobs$") == 0


@pytest.mark.parametrize("main_moved", [False, True])
def test_a_pr_that_edits_an_existing_entry_is_ineligible_whatever_main_did(
    world: World, capsys: pytest.CaptureFixture[str], main_moved: bool
) -> None:
    w = world
    text = (w.author / CHANGELOG).read_text()
    first = next(line for line in text.splitlines() if line.strip().startswith('- "'))
    edited = text.replace(first, first.replace('"', '"Edited: ', 1), 1)
    assert edited != text
    w.open_pr(
        1,
        "feat-a",
        {CHANGELOG: edited + "\n" + entry("Tune llama", key=KEY)},
        title="Tune llama",
    )
    if main_moved:
        w.push_main({}, "Another PR lands", append=entry("Re-run evals", f"{LINK}2"))
    refs = w.origin_refs()

    assert cli.run(["merge", "1"]) == 1

    err = capsys.readouterr().err
    assert "error: PR #1 is not eligible: it edits changelog history" in err
    assert f"{CHANGELOG}:5: CL102" in err
    assert w.origin_refs() == refs and writes(w) == [] and not w.fake.pulls[1].merged


def _gate_on_push(w: World, tmp_path: Path) -> dict[str, str]:
    """`reuse-gate` as main's push workflow runs it on the merge of PR #1, in a CI clone."""
    import json

    from tests.conftest import run_cli

    pull = w.fake.pulls[1]
    ci = tmp_path / "ci"
    git(tmp_path, "clone", "-q", "--no-local", str(w.origin), str(ci))
    event = tmp_path / "event.json"
    event.write_text(
        json.dumps(
            {"after": pull.merge_commit_sha, "before": pull.base_sha, "ref": "refs/heads/main"}
        )
    )
    env = {
        "GITHUB_EVENT_NAME": "push",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_REPOSITORY": REPOSITORY,
        "GITHUB_API_URL": w.fake.base_url,
        "GH_TOKEN": w.env["GH_TOKEN"],
        "GITHUB_OUTPUT": str(tmp_path / "output"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
    }
    proc = run_cli("reuse-gate", cwd=ci, env=env)
    assert proc.returncode == 0, proc.stderr
    outputs: dict[str, str] = json.loads(proc.stdout)
    return outputs


@pytest.mark.parametrize(("image", "stale"), [("vllm", True), ("sglang", False)])
def test_the_reuse_gate_on_main_refuses_a_sweep_main_made_stale(
    world: World, tmp_path: Path, image: str, stale: bool
) -> None:
    from changelog_tools.testing.fakesweep import merge_now

    w = world
    w.ci.on_merge = None
    w.open_pr(1, "feat-a", {}, title="Tune llama", append=entry("Tune llama", f"{LINK}1", KEY))
    w.fake.add_comment(1, "/reuse-sweep-run", login="lead", association="OWNER")
    text = (w.author / MASTER).read_text()
    old = {"vllm": "example/vllm:0.11.0", "sglang": "example/sglang:0.5.5"}[image]
    moved = w.push_main({MASTER: text.replace(old, old + "-hotfix")}, f"Bump {image}")
    merge_now(w.fake, 1)

    outputs = _gate_on_push(w, tmp_path)

    if stale:
        assert outputs["reuse-enabled"] == "false"
        reason = outputs["reuse-reason"]
        assert "results are stale (a new sweep is needed)" in reason
        assert f"{KEY}: {MASTER} (main {moved[:12]})" in reason
        summary = (tmp_path / "summary.md").read_text()
        assert "- Changed on main since the source run (a new sweep is needed):" in summary
        assert f"  - `{KEY}: {MASTER} (main {moved[:12]})`" in summary
    else:
        assert outputs["reuse-enabled"] == "true", outputs["reuse-reason"]


def test_a_rerun_after_the_wait_ended_reports_the_push_run_once_it_completed(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    from changelog_tools.testing.fakegithub import FakeJob
    from changelog_tools.testing.fakesweep import INGEST_JOB, SWEEP_JOBS, lost_ingest_run

    w = world
    w.open_pr(1, "feat-a", {}, title="Tune llama", append=entry("Tune llama", key=KEY))
    w.ci.on_merge = lambda _n, sha: lost_ingest_run(w.fake, sha, how="running")
    assert cli.run(["merge", "1", "--ingest-timeout", "0.2"]) == 5
    capsys.readouterr()
    pull = w.fake.pulls[1]
    run = next(r for r in w.fake.runs.values() if r.head_sha == pull.merge_commit_sha)
    with w.fake._lock:  # the run completes: it reused the sweep and ingested
        run.status, run.conclusion = "completed", "success"
        run.jobs = [
            FakeJob(w.fake.next_id(), name, "completed", conclusion)
            for name, conclusion in (
                (SWEEP_JOBS[0], "skipped"),
                (SWEEP_JOBS[1], "skipped"),
                (INGEST_JOB, "success"),
            )
        ]
    before = writes(w)

    assert cli.run(["merge", "1"]) == 0

    out = capsys.readouterr().out
    assert f"already merged as {pull.merge_commit_sha}" in out
    assert f"main's push run {run.id}" in out and "reused the sweep" in out
    assert writes(w) == before


def test_a_push_run_that_swept_again_and_ingested_lost_nothing_and_says_it_did_not_reuse(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from changelog_tools.testing.fakesweep import INGEST_JOB, SWEEP_JOBS, WORKFLOW

    w = world
    w.open_pr(1, "feat-a", {}, title="Tune llama", append=entry("Tune llama", key=KEY))
    jobs: list[tuple[str, str | None]] = [(name, "success") for name in (*SWEEP_JOBS, INGEST_JOB)]
    w.ci.on_merge = lambda _n, sha: w.fake.add_run(
        WORKFLOW, sha, event="push", head_branch="main", jobs=jobs
    )

    assert cli.run(["merge", "1", "--format", "json"]) == 0

    report = json.loads(capsys.readouterr().out)["push-run"]
    assert report["reused-sweep"] is False and report["ingest-finished"] is True
    assert report["ok"] is True and report["recover-command"] is None
    assert report["reason"].startswith("did not reuse the sweep: benchmark jobs ran")
