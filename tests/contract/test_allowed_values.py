"""Every value GitHub's description allows for a field the tool reads, tried through the fake.

The values come from the vendored description itself (enums of statuses, conclusions and
author associations; ``null`` where a field is nullable: a deleted account's user, a check run
not started, a run with no status, a deleted fork), and go through the fake into the commands
that read them. Whatever arrives, the command ends with an exit code from the documented set
and no traceback, and an unfinished or unknown state is pending or a refusal: never a pass,
never a reuse.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from changelog_tools import cli
from changelog_tools import config as config_mod
from changelog_tools.reuse.gate import Policy
from changelog_tools.testing.fakegithub import FakeGitHub
from tests.conftest import commit_files, git
from tests.contract import checker
from tests.fakegithub_fixtures import REPO, TOKEN, WORKFLOW, init_origin
from tests.signoff.world import BENCH_JOBS, World, authorize, build_world, signoff

SCHEMAS = checker.description()["components"]["schemas"]
RUNS_QUERY = "GET /repos/{owner}/{repo}/actions/runs"


def enum(schema: str, prop: str) -> list[Any]:
    values: list[Any] = SCHEMAS[schema]["properties"][prop]["enum"]
    return values


STATUSES = [s for s in enum("check-suite", "status") if s is not None]
CONCLUSIONS = [c for c in enum("check-suite", "conclusion") if c is not None]
ASSOCIATIONS = SCHEMAS["author-association"]["enum"]
RUN_FILTERS = next(
    p["schema"]["enum"]
    for p in checker.description()["operations"][RUNS_QUERY]["parameters"]
    if p["name"] == "status"
)
EXIT_CODES = {0, 1, 2, 3, 4}
QUICK = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def test_the_values_tried_are_the_descriptions_own() -> None:
    # the job and check-run enums are the suite's minus what only suites have
    assert set(enum("job", "status")) <= set(STATUSES)
    assert {c for c in enum("check-run", "conclusion") if c} <= set(CONCLUSIONS)
    assert {"waiting", "requested", "pending"} <= set(STATUSES)
    assert {"neutral", "stale", "action_required", "startup_failure", "skipped"} <= set(CONCLUSIONS)
    assert "COLLABORATOR" in ASSOCIATIONS
    assert set(RUN_FILTERS) <= set(STATUSES) | set(CONCLUSIONS)  # the runs list filters by both


@dataclass(frozen=True)
class State:
    """A status with the conclusion GitHub pairs it with (one only once completed)."""

    status: str | None
    conclusion: str | None

    @property
    def green(self) -> bool:
        return (self.status, self.conclusion) == ("completed", "success")


states = st.one_of(
    st.builds(State, st.just("completed"), st.sampled_from(CONCLUSIONS)),
    st.builds(State, st.sampled_from([s for s in STATUSES if s != "completed"]), st.none()),
)
run_states = st.one_of(states, st.just(State(None, None)))  # a run's status is nullable
logins = st.one_of(st.none(), st.sampled_from(["bob", "core-1", "amd-a"]))


# -- reuse-gate on a push to main ---------------------------------------------------------------


@dataclass
class PushWorld:
    fake: FakeGitHub
    ci: Path
    output: Path
    swept: str


@pytest.fixture
def push_world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[PushWorld]:
    """A PR squash-merged by the fake from a real origin, and a CI clone of main after it."""
    origin, seed = init_origin(tmp_path, {"configs/gpu-a-master.yaml": "a: 1\n"})
    git(seed, "checkout", "-q", "-b", "feature")
    swept = commit_files(seed, {"configs/gpu-a-master.yaml": "a: 2\n"}, "tune a")
    git(seed, "push", "-q", "origin", "feature")
    with FakeGitHub(REPO, git_origin=origin, record=True) as fake:
        fake.add_pull(7, "feature", labels=["full-sweep-enabled"], title="Tune a")
        body = json.dumps({"merge_method": "squash", "sha": swept}).encode()
        assert fake.handle("PUT", f"{fake.prefix}/repos/{REPO}/pulls/7/merge", {}, body)[0] == 200
        ci = tmp_path / "ci"
        git(tmp_path, "clone", "-q", "--no-local", str(origin), str(ci))
        (ci / ".changelog-tools.yaml").write_text("github-retries: 0\ngithub-retry-backoff: 0\n")
        event = tmp_path / "event.json"
        merged = fake.pulls[7]
        event.write_text(json.dumps({"after": merged.merge_commit_sha, "ref": "refs/heads/main"}))
        output = tmp_path / "output"
        for name, value in {
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": "push",
            "GITHUB_EVENT_PATH": str(event),
            "GITHUB_REPOSITORY": REPO,
            "GITHUB_API_URL": fake.base_url,
            "GITHUB_OUTPUT": str(output),
            "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
            "GH_TOKEN": TOKEN,
        }.items():
            monkeypatch.setenv(name, value)
        monkeypatch.chdir(ci)
        yield PushWorld(fake, ci, output, swept)
    assert not fake.errors and not fake.unhandled, (fake.errors, fake.unhandled)


ALLOWED = Policy.from_config(config_mod.defaults()).allowed_associations


GREEN = State("completed", "success")


@QUICK
@given(
    run=run_states,
    association=st.sampled_from(ASSOCIATIONS),
    login=logins,
    fork_deleted=st.booleans(),
)
@example(run=GREEN, association="MEMBER", login="bob", fork_deleted=False)
@example(run=State("waiting", None), association="OWNER", login="bob", fork_deleted=False)
@example(run=State("completed", "neutral"), association="MEMBER", login=None, fork_deleted=True)
@example(run=GREEN, association="COLLABORATOR", login="bob", fork_deleted=False)
def test_reuse_gate_reuses_only_a_green_run_authorized_by_an_allowed_association(
    push_world: PushWorld,
    capsys: pytest.CaptureFixture[str],
    run: State,
    association: str,
    login: str | None,
    fork_deleted: bool,
) -> None:
    fake = push_world.fake
    with fake._lock:
        fake.runs.clear()
        fake.comments.clear()
        pull = fake.pulls[7]
        pull.head_repo, pull.fork_deleted = (
            ("someone/fork", True) if fork_deleted else (None, False)
        )
    fake.add_run(
        WORKFLOW,
        push_world.swept,
        head_branch="feature",
        status=run.status,
        conclusion=run.conclusion,
        artifacts=["results_bmk"],
    )
    fake.add_comment(7, "/reuse-sweep-run", login, association)
    push_world.output.write_text("")
    code = cli.run(["reuse-gate"])
    out, err = capsys.readouterr()
    assert code in EXIT_CODES, err
    assert "Traceback" not in out + err and "internal error" not in err, err
    if code == 0:
        reused = json.loads(out)["reuse-enabled"] == "true"
        assert not reused or (run.green and association in ALLOWED), (run, association, out)
        if run.green and association in ALLOWED and not fork_deleted:
            assert reused, out  # the property has teeth: the good case does reuse


def test_the_values_reuse_gate_was_fed_keep_to_the_description(push_world: PushWorld) -> None:
    fake = push_world.fake
    fake.add_run(WORKFLOW, push_world.swept, head_branch="feature", status=None, conclusion=None)
    fake.add_comment(7, "/reuse-sweep-run", None, "COLLABORATOR")
    with fake._lock:
        fake.pulls[7].head_repo, fake.pulls[7].fork_deleted = "someone/fork", True
    assert cli.run(["reuse-gate"]) in EXIT_CODES
    assert fake.exchanges
    assert checker.check(fake.exchanges) == []


# -- signoff verify -----------------------------------------------------------------------------


@pytest.fixture
def signoff_world(tmp_path: Path) -> Iterator[World]:
    w = build_world(tmp_path)
    w.fake.exchanges = []
    w.open_pr(jobs=[])  # the sweep's jobs are drawn per example
    authorize(w)
    try:
        yield w
    finally:
        w.fake.stop()
    assert not w.fake.errors and not w.fake.unhandled, (w.fake.errors, w.fake.unhandled)


@QUICK
@given(
    run=run_states,
    bench=states,
    evals=states,
    check_started=st.booleans(),
    association=st.sampled_from(ASSOCIATIONS),
    signer_deleted=st.booleans(),
    noise_user=logins,
)
@example(GREEN, GREEN, GREEN, True, "MEMBER", False, None)
@example(State("in_progress", None), GREEN, GREEN, True, "MEMBER", False, "bob")
@example(State("completed", "stale"), GREEN, GREEN, False, "COLLABORATOR", False, None)
@example(GREEN, State("completed", "neutral"), GREEN, True, "NONE", False, None)
@example(GREEN, GREEN, State("requested", None), False, "MEMBER", False, None)
@example(GREEN, GREEN, GREEN, True, "MEMBER", True, None)
def test_signoff_passes_only_on_a_finished_green_sweep_signed_by_an_existing_owner(
    signoff_world: World,
    run: State,
    bench: State,
    evals: State,
    check_started: bool,
    association: str,
    signer_deleted: bool,
    noise_user: str | None,
) -> None:
    w = signoff_world
    fake = w.fake
    head = w.heads[7]
    with fake._lock:
        [sweep] = fake.runs.values()
        sweep.status, sweep.conclusion = run.status, run.conclusion
        sweep.jobs.clear()
        fake.check_runs.clear()
        fake.reviews.clear()
        for cid in [c for c, item in fake.comments.items() if "/reuse-sweep-run" not in item.body]:
            del fake.comments[cid]
    for (name, _), state in zip(BENCH_JOBS[:2], (bench, evals), strict=True):
        sweep.jobs.append(_job(fake, name, state))
        fake.add_check_run(
            head,
            name,
            status=state.status or "queued",
            conclusion=state.conclusion,
            started_at=fake.now() if check_started else None,
        )
    for name, conclusion in BENCH_JOBS[2:]:
        sweep.jobs.append(_job(fake, name, State("completed", conclusion)))
    fake.add_review(7, login=noise_user, body="noise", commit_id=head, association=association)
    w.comment(signoff("amd-a"), None if signer_deleted else "amd-a", association=association)
    out = w.verify(dry_run=True)
    assert out.verdict is not None
    verdict = out.verdict.verdict
    assert verdict in ("pass", "pending", "rejected")
    if verdict == "pass":
        assert run.green and bench.green and evals.green and not signer_deleted, out.verdict
    if run.green and bench.green and evals.green and not signer_deleted:
        assert verdict == "pass", out.verdict.summary  # the good case does pass


def _job(fake: FakeGitHub, name: str, state: State) -> Any:
    from changelog_tools.testing.fakegithub import FakeJob

    return FakeJob(fake.next_id(), name, state.status or "queued", state.conclusion)


def test_the_values_signoff_was_fed_keep_to_the_description(signoff_world: World) -> None:
    w = signoff_world
    head = w.heads[7]
    w.fake.add_check_run(head, "late", status="waiting", conclusion=None, started_at=None)
    w.fake.add_review(7, login=None, body="from a deleted account", commit_id=head)
    w.comment(signoff("amd-a"), None, association="COLLABORATOR")
    assert w.verify(dry_run=True).verdict is not None
    assert w.fake.exchanges
    assert checker.check(w.fake.exchanges) == []
