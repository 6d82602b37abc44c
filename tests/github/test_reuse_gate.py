"""`reuse-gate`: every row of the decision table, against the fake GitHub over real HTTP.

Pure rules (authorization parsing, labels) are tested on plain records; decisions go through the
real adapter to the fake, counting requests; the command runs as the installed console script.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from changelog_tools import config as config_mod
from changelog_tools.errors import GitHubError, UsageError
from changelog_tools.github.adapter import (
    Comment,
    GitHub,
    PullRequest,
    WorkflowRun,
    read_step_outputs,
)
from changelog_tools.reuse.authorization import command_runs, find_authorization
from changelog_tools.reuse.gate import (
    OUTPUT_KEYS,
    Decision,
    Event,
    Policy,
    decide,
    label_problem,
    render_summary,
)
from changelog_tools.testing.fakegithub import FakeGitHub
from tests.conftest import commit_files, git, run_cli
from tests.fakegithub_fixtures import REPO, TOKEN, WORKFLOW, Clock, merged_pull, sha_of

POLICY = Policy.from_config(config_mod.defaults())
MERGE = sha_of("merge7")
PUSH = Event("push", sha=MERGE, ref="refs/heads/main")
SYNC = Event("pull_request", action="synchronize", pr_number=7)
CMD = "/reuse-sweep-run"


def comment(body: str, association: str = "MEMBER", minute: int = 0, cid: int = 0) -> Comment:
    when = datetime(2024, 1, 1, tzinfo=UTC) + timedelta(minutes=minute)
    return Comment(cid or 100 + minute, body, "bob", association, when, when, None)


def authorize(fake: FakeGitHub, body: str = CMD, association: str = "MEMBER") -> None:
    fake.add_comment(7, body, "bob", association)


def good_run(fake: FakeGitHub, commit: str = "c3", **fields: object) -> int:
    """A successful pull_request run of the sweep on PR 7's branch with a result artifact."""
    fields.setdefault("artifacts", ["results_bmk", "changelog-metadata"])
    fields.setdefault("head_branch", "feature")
    return fake.add_run(WORKFLOW, sha_of(commit), **fields).id  # type: ignore[arg-type]


# -- authorization comments (pure) -------------------------------------------------------------


def test_the_newest_allowed_comment_decides_and_a_later_line_pins_a_run() -> None:
    comments = [
        comment(f"{CMD} 111", "OWNER", 1),
        comment(f"{CMD} 222", "CONTRIBUTOR", 3),
        comment(f"looks good\n{CMD}\n{CMD} 333", "OWNER", 2),
    ]
    auth = find_authorization(comments, command=CMD, allowed=POLICY.allowed_associations)
    assert auth is not None and (auth.run_id, auth.comment_id) == (333, 102)


def test_a_comment_from_a_non_allowed_association_is_ignored() -> None:
    for association in ("CONTRIBUTOR", "FIRST_TIME_CONTRIBUTOR", "NONE", "MANNEQUIN"):
        found = find_authorization(
            [comment(CMD, association)], command=CMD, allowed=POLICY.allowed_associations
        )
        assert found is None, association


def test_a_newer_bare_command_unpins_an_older_pinned_one() -> None:
    comments = [comment(f"{CMD} 555", minute=1), comment(CMD, minute=2)]
    auth = find_authorization(comments, command=CMD, allowed=["MEMBER"])
    assert auth is not None and auth.run_id is None and auth.comment_id == 102


def test_a_newer_pinned_command_overrides_an_older_bare_one() -> None:
    comments = [comment(CMD, minute=1), comment(f"{CMD}   555  ", minute=2)]
    auth = find_authorization(comments, command=CMD, allowed=["MEMBER"])
    assert auth is not None and auth.run_id == 555


def test_editing_an_old_comment_does_not_make_it_the_newest() -> None:
    made = comment(f"{CMD} 1", minute=1)
    old = Comment(
        made.id, made.body, made.author, made.author_association, made.created_at,
        datetime(2030, 1, 1, tzinfo=UTC), None,
    )  # fmt: skip
    auth = find_authorization([old, comment(f"{CMD} 2", minute=2)], command=CMD, allowed=["MEMBER"])
    assert auth is not None and auth.run_id == 2


@pytest.mark.parametrize(
    "body",
    [
        f"```\n{CMD}\n```",
        f"~~~~ text\n{CMD}\n~~~~",
        f"```\n{CMD} 5\n",  # an unclosed fence runs to the end of the comment
        f"````\n```\n{CMD}\n```\n````",  # a shorter fence does not close a longer one
        f"    {CMD}",  # four spaces: an indented code block
        f"<!--\n{CMD}\n-->",
        f"please run {CMD} 111 after merge",
        f"> {CMD}",
        f"`{CMD}`",
        f"{CMD} abc",
        f"{CMD}-now",
    ],
)
def test_commands_in_code_quotes_or_sentences_do_not_count(body: str) -> None:
    assert command_runs(body, CMD) == []


def test_commands_outside_code_count_with_windows_line_endings_and_indentation() -> None:
    body = f"```\n{CMD} 1\n```\r\n   {CMD} 2\r\nthanks\r\n{CMD}\r\n"
    assert command_runs(body, CMD) == [2, None]


@settings(max_examples=60, deadline=None)
@given(
    before=st.lists(st.text(alphabet="abc /-\n", max_size=20), max_size=3),
    run_id=st.one_of(st.none(), st.integers(min_value=1, max_value=10**12)),
    fence=st.sampled_from(["```", "~~~", "````"]),
)
def test_a_command_inside_a_fence_never_counts_whatever_surrounds_it(
    before: list[str], run_id: int | None, fence: str
) -> None:
    text = "\n".join(line.replace("`", "").replace("~", "") for line in before)
    line = CMD + (f" {run_id}" if run_id is not None else "")
    body = f"{text}\n{fence}\n{line}\n{fence}\n"
    assert command_runs(body, CMD) == command_runs(text, CMD)  # only what was outside
    assert command_runs(f"{body}{line}\n", CMD)[-1] == run_id


# -- labels (pure) -------------------------------------------------------------------------------


def pr_with(*labels: str) -> PullRequest:
    return PullRequest(
        7, "closed", False, True, None, MERGE, "", None, labels, "feature", "h", "o/r",
        "main", "b", "o/r", None,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("labels", "problem"),
    [
        (("full-sweep-enabled",), None),
        (("non-canary-full-sweep-enabled", "all-evals"), None),
        (("full-sweep-enabled", "evals-only"), "PR #7 has reuse-incompatible label(s): evals-only"),
        (("full-sweep-fail-fast", "agentx-fast"), "PR #7 has reuse-incompatible label(s): agentx-fast"),
        (
            ("sweep-enabled",),
            "PR #7 has no full-sweep label (it has sweep-enabled); reuse needs one of: "
            "full-sweep-enabled, non-canary-full-sweep-enabled, full-sweep-fail-fast, "
            "full-sweep-fail-fast-no-canary",
        ),
        ((), "PR #7 has no full-sweep label; reuse needs one of: full-sweep-enabled, "
            "non-canary-full-sweep-enabled, full-sweep-fail-fast, full-sweep-fail-fast-no-canary"),
        (
            ("full-sweep-enabled", "sweep-enabled"),
            "PR #7 has 2 sweep labels (full-sweep-enabled, sweep-enabled); exactly one is allowed",
        ),
    ],
)  # fmt: skip
def test_labels_need_exactly_one_full_sweep_label_and_nothing_incompatible(
    labels: tuple[str, ...], problem: str | None
) -> None:
    assert label_problem(pr_with(*labels), POLICY) == problem


# -- pull_request events ---------------------------------------------------------------------------


def test_synchronize_with_an_authorized_comment_skips_the_pr_sweep(
    fake: FakeGitHub, gh: GitHub
) -> None:
    fake.add_comment(7, "please review", "eve", "NONE")
    authorize(fake)
    decision = decide(SYNC, POLICY, gh)
    assert (decision.reuse_enabled, decision.skip_pr_sweep) == (False, True)
    assert decision.reason.startswith("PR #7 is authorized for reuse by @bob (MEMBER, comment ")
    assert decision.outputs()["skip-pr-sweep"] == "true"
    assert fake.count() == 1


def test_synchronize_without_an_allowed_comment_runs_the_pr_sweep(
    fake: FakeGitHub, gh: GitHub
) -> None:
    authorize(fake, association="CONTRIBUTOR")
    decision = decide(SYNC, POLICY, gh)
    assert (decision.reuse_enabled, decision.skip_pr_sweep) == (False, False)
    assert decision.reason == (
        "PR #7 has no /reuse-sweep-run authorization from OWNER, MEMBER, COLLABORATOR; "
        "the PR sweep runs"
    )


@pytest.mark.parametrize("action", ["labeled", "opened", None])
def test_other_pull_request_actions_never_read_comments(
    fake: FakeGitHub, gh: GitHub, action: str | None
) -> None:
    authorize(fake)
    decision = decide(Event("pull_request", action=action, pr_number=7), POLICY, gh)
    assert not decision.skip_pr_sweep
    assert decision.reason == (
        f"pull_request action {action or 'unknown'!r} is not synchronize; the PR sweep runs"
    )
    assert fake.count() == 0


def test_synchronize_without_a_pr_number_is_a_usage_error(gh: GitHub) -> None:
    with pytest.raises(UsageError, match="needs the PR number"):
        decide(Event("pull_request", action="synchronize"), POLICY, gh)


def test_other_events_are_never_reused(fake: FakeGitHub, gh: GitHub) -> None:
    decision = decide(Event("workflow_dispatch", ref="refs/heads/main"), POLICY, gh)
    assert decision.reason == "event 'workflow_dispatch' is neither pull_request nor push; no reuse"
    assert fake.count() == 0


# -- push: which pull request ----------------------------------------------------------------------


def test_a_push_to_another_branch_is_no_reuse_and_asks_github_nothing(
    fake: FakeGitHub, gh: GitHub
) -> None:
    decision = decide(Event("push", sha=MERGE, ref="refs/heads/release"), POLICY, gh)
    assert decision.reason == "ref refs/heads/release is not a push to refs/heads/main; no reuse"
    assert fake.count() == 0


def test_a_commit_without_a_pull_request_is_no_reuse(fake: FakeGitHub, gh: GitHub) -> None:
    decision = decide(PUSH, POLICY, gh)
    assert not decision.reuse_enabled and not decision.refused
    assert (
        decision.reason
        == f"commit {MERGE[:7]} is not the merge commit of any pull request; no reuse"
    )


def test_a_commit_that_only_belongs_to_an_open_pr_is_no_reuse(fake: FakeGitHub, gh: GitHub) -> None:
    fake.add_pull(9, "other", head_sha=MERGE)  # an open PR that merged main, say
    decision = decide(PUSH, POLICY, gh)
    assert decision.reason == (
        f"commit {MERGE[:7]} is not the merge commit of any pull request (associated: #9); no reuse"
    )


def test_of_two_prs_for_one_commit_only_the_one_merged_as_it_counts(
    fake: FakeGitHub, gh: GitHub
) -> None:
    merged_pull(fake)
    fake.add_pull(9, "other", head_sha=sha_of("x"), labels=["full-sweep-enabled"])
    fake.add_comment(9, CMD, "bob", "OWNER")
    fake.commit_pulls[MERGE] = [9, 7]
    authorize(fake)
    good_run(fake)
    decision = decide(PUSH, POLICY, gh)
    assert decision.reuse_enabled and decision.pr_number == 7


def test_two_prs_merged_as_the_same_commit_refuse_to_guess(fake: FakeGitHub, gh: GitHub) -> None:
    merged_pull(fake)
    merged_pull(fake, 8)
    authorize(fake)
    decision = decide(PUSH, POLICY, gh)
    assert not decision.reuse_enabled
    assert decision.reason == (
        f"commit {MERGE[:7]} is the merge commit of 2 pull requests (#7, #8); refusing to guess, "
        "no reuse"
    )
    assert fake.count() == 1


def test_a_merged_pr_without_authorization_is_no_reuse(fake: FakeGitHub, gh: GitHub) -> None:
    merged_pull(fake)
    authorize(fake, association="CONTRIBUTOR")
    decision = decide(PUSH, POLICY, gh)
    assert not decision.refused and decision.pr_number == 7
    assert decision.reason == (
        "PR #7 has no /reuse-sweep-run authorization from OWNER, MEMBER, COLLABORATOR; no reuse"
    )
    assert decision.outputs()["reuse-source-pr-number"] == ""


@pytest.mark.parametrize("label", ["evals-only", "agentx-fast"])
def test_an_incompatible_label_refuses_reuse(fake: FakeGitHub, gh: GitHub, label: str) -> None:
    merged_pull(fake, labels=("full-sweep-enabled", label))
    authorize(fake)
    good_run(fake)
    decision = decide(PUSH, POLICY, gh)
    assert decision.refused and not decision.reuse_enabled
    assert decision.reason == (
        f"PR #7 has reuse-incompatible label(s): {label}; no reuse, a full sweep runs"
    )
    assert fake.count("GET", r"/actions/") == 0


def test_a_pr_with_only_the_trimmed_sweep_label_refuses_reuse(fake: FakeGitHub, gh: GitHub) -> None:
    merged_pull(fake, labels=("sweep-enabled",))
    authorize(fake)
    decision = decide(PUSH, POLICY, gh)
    assert decision.refused and "has no full-sweep label (it has sweep-enabled)" in decision.reason


def test_all_evals_beside_a_full_sweep_label_is_allowed(fake: FakeGitHub, gh: GitHub) -> None:
    merged_pull(fake, labels=("non-canary-full-sweep-enabled", "all-evals"))
    authorize(fake)
    good_run(fake)
    assert decide(PUSH, POLICY, gh).reuse_enabled


# -- push: the source run ------------------------------------------------------------------------


def test_the_newest_successful_run_with_results_is_reused_in_five_requests(
    fake: FakeGitHub, gh: GitHub
) -> None:
    merged_pull(fake)
    authorize(fake)
    good_run(fake, "c2")
    newest = good_run(fake, "c3")
    decision = decide(PUSH, POLICY, gh)
    assert decision.outputs() == {
        "reuse-enabled": "true",
        "skip-pr-sweep": "false",
        "reuse-source-run-id": str(newest),
        "reuse-source-run-attempt": "1",
        "reuse-source-run-url": f"{fake.root_url}/{REPO}/actions/runs/{newest}",
        "reuse-source-pr-number": "7",
        "reuse-source-head-sha": sha_of("c3"),
        "reuse-reason": f"reusing run {newest} (attempt 1, success) of PR #7 on "
        f"{sha_of('c3')[:7]}, authorized by @bob (MEMBER, comment "
        f"{next(iter(fake.comments))})",
    }
    assert list(decision.outputs()) == list(OUTPUT_KEYS)
    assert decision.source is not None and decision.source.artifacts == ("results_bmk",)
    assert [(r.method, r.path.split("/", 4)[-1]) for r in fake.log] == [
        ("GET", f"commits/{MERGE}/pulls"),
        ("GET", "issues/7/comments"),
        ("GET", "pulls/7/commits"),
        ("GET", f"actions/workflows/{WORKFLOW}/runs"),
        ("GET", f"actions/runs/{newest}/artifacts"),
    ]
    runs_query = fake.log[3].query
    assert runs_query == {
        "per_page": "100", "event": "pull_request", "branch": "feature", "status": "completed"
    }  # fmt: skip


def test_a_newer_failed_run_is_skipped_for_an_older_success(fake: FakeGitHub, gh: GitHub) -> None:
    merged_pull(fake)
    authorize(fake)
    older = good_run(fake, "c2")
    good_run(fake, "c3", conclusion="failure")
    decision = decide(PUSH, POLICY, gh)
    assert decision.source is not None and decision.source.run.id == older


def test_a_run_on_a_commit_force_pushed_out_of_the_pr_is_skipped(
    fake: FakeGitHub, gh: GitHub
) -> None:
    merged_pull(fake)
    authorize(fake)
    kept = good_run(fake, "c1")
    good_run(fake, "gone-after-force-push")
    decision = decide(PUSH, POLICY, gh)
    assert decision.source is not None and decision.source.run.id == kept


def test_a_run_on_an_older_commit_of_the_pr_is_reused(fake: FakeGitHub, gh: GitHub) -> None:
    merged_pull(fake)
    authorize(fake)
    old = good_run(fake, "c1")
    decision = decide(PUSH, POLICY, gh)
    assert decision.reuse_enabled and decision.outputs()["reuse-source-run-id"] == str(old)
    assert decision.outputs()["reuse-source-head-sha"] == sha_of("c1")


def test_a_gated_no_op_run_without_artifacts_is_skipped(fake: FakeGitHub, gh: GitHub) -> None:
    merged_pull(fake)
    authorize(fake)
    real = good_run(fake, "c2")
    good_run(fake, "c3", artifacts=["changelog-metadata"])  # the sweep was gated off
    decision = decide(PUSH, POLICY, gh)
    assert decision.source is not None and decision.source.run.id == real


def test_expired_artifacts_do_not_count(fake: FakeGitHub, gh: GitHub) -> None:
    merged_pull(fake)
    authorize(fake)
    good_run(fake, "c3", artifacts=[("results_bmk", True), ("eval_results_all", True)])
    decision = decide(PUSH, POLICY, gh)
    assert decision.refused and "1 without unexpired result artifacts" in decision.reason


def test_an_agentic_only_artifact_counts(fake: FakeGitHub, gh: GitHub) -> None:
    merged_pull(fake)
    authorize(fake)
    good_run(fake, artifacts=["bmk_agentic_coding_gpu-a"])
    decision = decide(PUSH, POLICY, gh)
    assert decision.source is not None
    assert decision.source.artifacts == ("bmk_agentic_coding_gpu-a",)


def test_artifacts_are_only_fetched_for_runs_the_cheap_fields_allow(
    fake: FakeGitHub, gh: GitHub
) -> None:
    merged_pull(fake)
    authorize(fake)
    eligible = good_run(fake, "c1")
    good_run(fake, "c3", conclusion="failure")
    good_run(fake, "c3", conclusion="cancelled")
    good_run(fake, "orphan")
    good_run(fake, "c3", path=".github/workflows/other.yml")
    decide(PUSH, POLICY, gh)
    assert [r.path.rsplit("/", 2)[-2] for r in fake.requests("GET", r"/artifacts$")] == [
        str(eligible)
    ]


def test_the_search_stops_at_the_first_eligible_run(
    fake: FakeGitHub, make_gh: Callable[..., GitHub]
) -> None:
    merged_pull(fake)
    authorize(fake)
    for _ in range(7):
        good_run(fake, "c1")
    decision = decide(PUSH, POLICY, make_gh(page_size=3))
    assert decision.reuse_enabled
    assert fake.count("GET", r"/runs$") == 1 and fake.count("GET", r"/artifacts$") == 1


def test_no_reusable_run_says_what_was_skipped_and_how_to_pin(
    fake: FakeGitHub, make_gh: Callable[..., GitHub]
) -> None:
    merged_pull(fake)
    authorize(fake)
    good_run(fake, "c3", conclusion="failure")
    good_run(fake, "orphan")
    good_run(fake, "c2", artifacts=[])
    for _ in range(3):  # across pages
        good_run(fake, "c1", conclusion="cancelled")
    decision = decide(PUSH, POLICY, make_gh(page_size=2))
    assert decision.refused and decision.source is None
    assert decision.reason == (
        "PR #7 has no reusable run-sweep.yml run on any of its 3 commit(s) (6 completed runs "
        "checked: 1 without unexpired result artifacts, 1 on a commit no longer in the PR, "
        "4 not successful); pin one with `/reuse-sweep-run RUN_ID`; no reuse, a full sweep runs"
    )
    assert decision.outputs()["reuse-source-run-id"] == ""


def test_a_pr_without_commits_refuses_reuse(fake: FakeGitHub, gh: GitHub) -> None:
    pull = merged_pull(fake)
    pull.commits = []
    pull.head_sha = ""
    authorize(fake)
    fake.fail("GET", r"/pulls/7/commits$", 200)  # an empty list from GitHub
    fake.faults[-1].body = []
    decision = decide(PUSH, POLICY, gh)
    assert decision.reason == "PR #7 has no commits; no reuse, a full sweep runs"


# -- push: pinned runs -----------------------------------------------------------------------------


@pytest.mark.parametrize("conclusion", ["success", "failure", "cancelled"])
def test_a_pinned_run_is_reused_even_when_it_failed_or_was_cancelled(
    fake: FakeGitHub, gh: GitHub, conclusion: str
) -> None:
    merged_pull(fake)
    pinned = good_run(fake, "c1", conclusion=conclusion)
    good_run(fake, "c3")  # newer and successful, but not the pinned one
    authorize(fake, f"{CMD} {pinned}")
    decision = decide(PUSH, POLICY, gh)
    assert decision.reuse_enabled and decision.outputs()["reuse-source-run-id"] == str(pinned)
    assert decision.reason.startswith(f"reusing pinned run {pinned} (attempt 1, {conclusion})")
    assert fake.count("GET", r"/runs$") == 0 and fake.count() == 5


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"status": "in_progress", "conclusion": None}, "is in_progress, not completed"),
        ({"event": "push"}, "was triggered by 'push', not pull_request"),
        ({"conclusion": "timed_out"}, "concluded timed_out; expected success or failure or cancelled"),
        (
            {"path": ".github/workflows/e2e-tests.yml"},
            "belongs to .github/workflows/e2e-tests.yml, not .github/workflows/run-sweep.yml",
        ),
        ({"artifacts": ["changelog-metadata"]}, "has no unexpired result artifact (results_bmk, "
            "eval_results_all, bmk_agentic_*)"),
    ],
)  # fmt: skip
def test_a_pinned_run_that_fails_validation_refuses_reuse(
    fake: FakeGitHub, gh: GitHub, fields: dict[str, object], problem: str
) -> None:
    merged_pull(fake)
    pinned = good_run(fake, "c2", **fields)
    authorize(fake, f"{CMD} {pinned}")
    decision = decide(PUSH, POLICY, gh)
    assert decision.refused
    assert decision.reason == f"pinned run {pinned} {problem}; no reuse, a full sweep runs"


def test_a_pinned_run_on_a_commit_force_pushed_out_of_the_pr_refuses_reuse(
    fake: FakeGitHub, gh: GitHub
) -> None:
    merged_pull(fake)
    pinned = good_run(fake, "force-pushed-away")
    authorize(fake, f"{CMD} {pinned}")
    decision = decide(PUSH, POLICY, gh)
    assert decision.reason == (
        f"pinned run {pinned} ran on {sha_of('force-pushed-away')[:7]}, which is no longer one "
        "of PR #7's commits (force-pushed away?); no reuse, a full sweep runs"
    )
    assert fake.count("GET", r"/artifacts$") == 0


def test_a_pinned_run_that_does_not_exist_refuses_reuse(fake: FakeGitHub, gh: GitHub) -> None:
    merged_pull(fake)
    authorize(fake, f"{CMD} 424242")
    decision = decide(PUSH, POLICY, gh)
    assert decision.reason == "pinned run 424242 does not exist; no reuse, a full sweep runs"


# -- push: drift hook ----------------------------------------------------------------------------


def test_a_drift_finding_refuses_reuse_and_names_the_paths(fake: FakeGitHub, gh: GitHub) -> None:
    merged_pull(fake)
    authorize(fake)
    run_id = good_run(fake, "c2")
    seen: list[tuple[int, int]] = []

    def drift(pr: PullRequest, run: WorkflowRun) -> Sequence[str]:
        seen.append((pr.number, run.id))
        return ["benchmarks/run.sh", "runners/gpu-a.sh"]

    decision = decide(PUSH, POLICY, gh, drift_check=drift)
    assert seen == [(7, run_id)]
    assert decision.refused and decision.drift == ("benchmarks/run.sh", "runners/gpu-a.sh")
    assert decision.reason == (
        f"PR #7 changed benchmark inputs after run {run_id} ({sha_of('c2')[:7]}): "
        "benchmarks/run.sh, runners/gpu-a.sh; no reuse, a full sweep runs"
    )
    assert decision.outputs()["reuse-enabled"] == "false"
    summary = render_summary(decision, PUSH)
    assert "Candidate run (refused)" in summary and "  - `benchmarks/run.sh`" in summary


def test_long_drift_and_staleness_findings_name_ten_and_count_the_rest(
    fake: FakeGitHub, gh: GitHub
) -> None:
    merged_pull(fake)
    authorize(fake)
    run_id = good_run(fake, "c2")
    paths = [f"benchmarks/b{i:02}.sh" for i in range(12)]

    def twelve(pr: PullRequest, run: WorkflowRun) -> Sequence[str]:
        return paths

    def nothing(pr: PullRequest, run: WorkflowRun) -> Sequence[str]:
        return []

    drifted = decide(PUSH, POLICY, gh, drift_check=twelve, stale_check=twelve)
    assert drifted.drift == tuple(paths) and drifted.stale == ()  # drift is judged first
    assert drifted.reason.endswith(
        ", ".join(paths[:10]) + " and 2 more; no reuse, a full sweep runs"
    )
    stale = decide(PUSH, POLICY, gh, drift_check=nothing, stale_check=twelve)
    assert stale.stale == tuple(paths) and stale.drift == ()
    assert stale.reason == (
        f"main changed what the configs run {run_id} swept execute since {sha_of('c2')[:7]}, "
        "so its results are stale (a new sweep is needed): "
        + "; ".join(paths[:10])
        + " and 2 more; no reuse, a full sweep runs"
    )


# -- failures: retried, waited, or fail closed ---------------------------------------------------


def test_transient_502s_are_recovered(fake: FakeGitHub, gh: GitHub, clock: Clock) -> None:
    merged_pull(fake)
    authorize(fake)
    good_run(fake)
    fake.fail("GET", r"/commits/[0-9a-f]+/pulls$", 502, times=2)
    fake.fail("GET", r"/artifacts$", 502)
    assert decide(PUSH, POLICY, gh).reuse_enabled
    assert clock.sleeps == [1.0, 2.0, 1.0] and fake.count() == 8


def test_persistent_500s_fail_closed_with_the_reason(
    fake: FakeGitHub, make_gh: Callable[..., GitHub], clock: Clock
) -> None:
    merged_pull(fake)
    authorize(fake)
    fake.fail("GET", r"/issues/7/comments$", 500, times=None, message="Server Error")
    with pytest.raises(GitHubError) as info:
        decide(PUSH, POLICY, make_gh(retries=2))
    assert str(info.value) == (
        "GitHub API GET /repos/octo/widgets/issues/7/comments failed after "
        "3 attempts: HTTP 500 (Server Error)"
    )
    assert int(info.value.exit_code) == 3


def test_a_rate_limit_with_retry_after_is_waited(
    fake: FakeGitHub, gh: GitHub, clock: Clock
) -> None:
    merged_pull(fake)
    authorize(fake)
    good_run(fake)
    fake.rate_limit("GET", r"/runs$", kind="secondary", retry_after=42)
    assert decide(PUSH, POLICY, gh).reuse_enabled
    assert clock.sleeps == [42.0]


# -- the command -----------------------------------------------------------------------------------


def _workflow_env(
    fake: FakeGitHub, tmp_path: Path, event: str, payload: dict[str, object]
) -> dict[str, str]:
    event_file = tmp_path / "event.json"
    event_file.write_text(json.dumps(payload))
    (tmp_path / "output").write_text("")
    return {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": event,
        "GITHUB_EVENT_PATH": str(event_file),
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_API_URL": fake.base_url,
        "GITHUB_OUTPUT": str(tmp_path / "output"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "GH_TOKEN": TOKEN,
    }


def _quiet_config(root: Path, **extra: object) -> None:
    lines = ["github-retry-backoff: 0", "github-write-interval: 0"]
    lines += [f"{k}: {v}" for k, v in extra.items()]
    (root / ".changelog-tools.yaml").write_text("\n".join(lines) + "\n")


def _authorized_synchronize(fake: FakeGitHub, tmp_path: Path) -> dict[str, str]:
    """The workflow environment of a push to PR #7, whose reuse is authorized."""
    authorize(fake)
    env = _workflow_env(fake, tmp_path, "pull_request", {
        "action": "synchronize", "number": 7, "pull_request": {"number": 7},
    })  # fmt: skip
    env["GITHUB_SHA"] = sha_of("test-merge")
    env["GITHUB_REF"] = "refs/pull/7/merge"
    _quiet_config(tmp_path)
    return env


def test_the_command_in_a_pull_request_workflow_needs_no_flags(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    env = _authorized_synchronize(fake, tmp_path)
    proc = run_cli("reuse-gate", cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    outputs = json.loads(proc.stdout)
    assert outputs.pop("schema-version") == 1  # stdout's document; the step outputs lack it
    assert outputs["skip-pr-sweep"] == "true" and outputs["reuse-enabled"] == "false"
    assert read_step_outputs((tmp_path / "output").read_text()) == outputs
    assert (
        "**Decision:** skip the pull-request sweep (reuse authorized)"
        in (tmp_path / "summary.md").read_text()
    )
    assert TOKEN not in proc.stdout + proc.stderr


@pytest.mark.parametrize("output_format", ["text", "github"])
def test_the_decision_is_printed_in_the_format_asked_for(
    fake: FakeGitHub, tmp_path: Path, output_format: str
) -> None:
    """The action passes its `format:` input to every command; reuse-gate takes it too."""
    env = _authorized_synchronize(fake, tmp_path)
    proc = run_cli("reuse-gate", "--format", output_format, cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    outputs = read_step_outputs((tmp_path / "output").read_text())
    assert outputs["skip-pr-sweep"] == "true"  # the step outputs do not depend on --format
    if output_format == "text":
        assert proc.stdout == "".join(f"{k}: {v}\n" for k, v in outputs.items())
    else:
        assert proc.stdout.startswith("::notice title=reuse decision::")
        assert proc.stdout.count("\n") == 1 and outputs["reuse-reason"][:20] in proc.stdout


def test_the_command_fails_closed_with_exit_3_and_writes_no_outputs(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    merged_pull(fake)
    fake.fail(None, r"/pulls$", 500, times=None, message="Server Error")
    env = _workflow_env(fake, tmp_path, "push", {"after": MERGE, "ref": "refs/heads/main"})
    _quiet_config(tmp_path, **{"github-retries": 1})
    proc = run_cli("reuse-gate", cwd=tmp_path, env=env)
    assert proc.returncode == 3
    assert proc.stdout == ""
    assert proc.stderr.splitlines()[-1] == (
        f"error: GitHub API GET /repos/octo/widgets/commits/{MERGE}/pulls failed "
        "after 2 attempts: HTTP 500 (Server Error)"
    )
    assert (tmp_path / "output").read_text() == ""
    assert "**Failed (fail closed):** GitHub API GET" in (tmp_path / "summary.md").read_text()
    assert fake.count() == 2


def test_the_command_without_an_event_is_a_usage_error(tmp_path: Path) -> None:
    proc = run_cli("reuse-gate", cwd=tmp_path, env={"GH_TOKEN": TOKEN})
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        "error: no event to judge: pass --event-name, or run inside GitHub Actions "
        "(GITHUB_EVENT_NAME)"
    )


def test_the_command_without_a_token_is_a_configuration_error(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    env = _workflow_env(fake, tmp_path, "push", {"after": MERGE, "ref": "refs/heads/main"})
    del env["GH_TOKEN"]
    proc = run_cli("reuse-gate", cwd=tmp_path, env=env)
    assert (
        proc.returncode == 2 and "GH_TOKEN or GITHUB_TOKEN must hold a GitHub token" in proc.stderr
    )
    assert fake.count() == 0


def test_the_command_reuses_a_real_squash_merge_and_links_the_source_run(tmp_path: Path) -> None:
    """End to end: a PR in a real bare origin, squash-merged by the fake, judged in a CI clone."""
    from tests.fakegithub_fixtures import init_origin

    origin, seed = init_origin(tmp_path, {
        "benchmarks/run.sh": "echo v1\n", "configs/gpu-a-master.yaml": "a: 1\n", "README": "x\n",
    })  # fmt: skip
    git(seed, "checkout", "-q", "-b", "feature")
    swept = commit_files(seed, {"configs/gpu-a-master.yaml": "a: 2\n"}, "tune a")
    git(seed, "push", "-q", "origin", "feature")
    with FakeGitHub(REPO, git_origin=origin) as fake:
        fake.add_pull(7, "feature", labels=["full-sweep-enabled"], title="Tune a")
        run = fake.add_run(WORKFLOW, swept, head_branch="feature", artifacts=["results_bmk"])
        authorize(fake)
        merge = fake.pulls[7]
        body = {"merge_method": "squash", "sha": swept}
        answer = fake.handle(
            "PUT", f"{fake.prefix}/repos/{REPO}/pulls/7/merge", {}, json.dumps(body).encode()
        )
        assert answer[0] == 200 and merge.merged
        # deleted after the merge: the gate must fetch the PR's ref for the drift guard
        git(origin, "branch", "-D", "feature")
        ci = tmp_path / "ci"
        git(tmp_path, "clone", "-q", "--no-local", str(origin), str(ci))
        env = _workflow_env(fake, tmp_path, "push", {
            "after": merge.merge_commit_sha, "before": merge.base_sha, "ref": "refs/heads/main",
        })  # fmt: skip
        _quiet_config(ci)
        proc = run_cli("reuse-gate", cwd=ci, env=env)
    assert proc.returncode == 0, proc.stderr
    outputs = json.loads(proc.stdout)
    assert outputs.pop("schema-version") == 1  # stdout's document; the step outputs lack it
    assert outputs["reuse-enabled"] == "true", outputs["reuse-reason"]
    assert (outputs["reuse-source-run-id"], outputs["reuse-source-head-sha"]) == (
        str(run.id),
        swept,
    )
    assert outputs["reuse-source-pr-number"] == "7"
    assert read_step_outputs((tmp_path / "output").read_text()) == outputs
    summary = (tmp_path / "summary.md").read_text()
    assert f"- Source run: [run {run.id} attempt 1]({outputs['reuse-source-run-url']})" in summary
    assert "reuse-gate: 5 GitHub API request(s)" in proc.stderr, proc.stderr  # whole, if not
    assert git(ci, "rev-parse", "refs/changelog-tools/pull/7/head") == swept


def test_decision_outputs_fill_source_fields_only_when_reusing() -> None:
    decision = Decision(False, False, "why")
    assert decision.outputs() == dict.fromkeys(OUTPUT_KEYS, "") | {
        "reuse-enabled": "false", "skip-pr-sweep": "false", "reuse-reason": "why",
    }  # fmt: skip
