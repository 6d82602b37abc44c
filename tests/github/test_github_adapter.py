"""The GitHub adapter over real HTTP against the fake: factory, records, pagination, retries,
rate limits, idempotent writes, and the GitHub Actions step files."""

from __future__ import annotations

import dataclasses
import re
import socket
from collections.abc import Callable
from pathlib import Path

import pytest

from changelog_tools import config as config_mod
from changelog_tools.errors import ConfigError, ExitCode, GitHubError
from changelog_tools.github.adapter import (
    AmbiguousWriteError,
    GitHub,
    MergeRejectedError,
    NotFoundError,
    PullRequest,
    RetryPolicy,
    make_github,
    read_step_outputs,
    resolve_api_url,
    resolve_repository,
    write_step_outputs,
)
from changelog_tools.testing.fakegithub import FakeGitHub, Fault
from tests.fakegithub_fixtures import REPO, TOKEN, Clock, env_for

SHA = "a" * 40


# -- the factory ---------------------------------------------------------------------------------


def test_the_api_url_comes_from_config_then_github_api_url_then_the_public_api() -> None:
    plain = config_mod.defaults()
    configured = dataclasses.replace(plain, github_api_url="http://127.0.0.1:9/api/v3/")
    env = {"GITHUB_API_URL": "https://ghe.example.invalid/api/v3"}
    assert resolve_api_url(configured, env) == "http://127.0.0.1:9/api/v3"
    assert resolve_api_url(plain, env) == "https://ghe.example.invalid/api/v3"
    assert resolve_api_url(plain, {}) == "https://api.github.com"
    with pytest.raises(ConfigError, match="not an http"):
        resolve_api_url(plain, {"GITHUB_API_URL": "ftp://x"})


def test_in_a_workflow_the_runner_api_url_wins_and_a_disagreeing_config_is_refused() -> None:
    plain = config_mod.defaults()
    configured = dataclasses.replace(plain, github_api_url="http://127.0.0.1:9/api/v3/")
    runner = {"GITHUB_ACTIONS": "true", "GITHUB_API_URL": "https://ghe.example.invalid/api/v3"}
    assert resolve_api_url(plain, runner) == "https://ghe.example.invalid/api/v3"
    with pytest.raises(ConfigError, match="disagrees with the workflow's GITHUB_API_URL"):
        resolve_api_url(configured, runner)
    with pytest.raises(ConfigError, match="disagrees"):  # no runner URL: the public API
        resolve_api_url(configured, {"GITHUB_ACTIONS": "true"})
    agreeing = dataclasses.replace(plain, github_api_url="https://ghe.example.invalid/api/v3/")
    assert resolve_api_url(agreeing, runner) == "https://ghe.example.invalid/api/v3"


def test_the_repository_comes_from_the_flag_then_github_repository_then_config() -> None:
    config = config_mod.defaults()
    assert resolve_repository(config, {"GITHUB_REPOSITORY": "a/b"}, "c/d") == "c/d"
    assert resolve_repository(config, {"GITHUB_REPOSITORY": "a/b"}, None) == "a/b"
    assert resolve_repository(config, {}, None) == config.repository
    with pytest.raises(ConfigError, match="not OWNER/NAME"):
        resolve_repository(config, {}, "just-a-name")


def test_a_missing_token_is_a_configuration_error(fake: FakeGitHub) -> None:
    with pytest.raises(ConfigError, match="GH_TOKEN or GITHUB_TOKEN") as info:
        make_github(config_mod.defaults(), env={"GITHUB_API_URL": fake.base_url})
    assert info.value.exit_code == ExitCode.USAGE
    assert fake.log == []


def test_github_token_is_used_when_gh_token_is_absent(fake: FakeGitHub) -> None:
    fake.token = "from-github-token"
    fake.add_pull(1, "feature", head_sha=SHA)
    env = {"GITHUB_TOKEN": "from-github-token", "GITHUB_API_URL": fake.base_url}
    gh = make_github(config_mod.defaults(), env=env, repository=REPO)
    assert gh.get_pull(1).number == 1


def test_the_adapter_sends_nothing_until_the_first_call(fake: FakeGitHub, gh: GitHub) -> None:
    fake.add_pull(1, "feature", head_sha=SHA)
    assert fake.count() == 0
    assert gh.get_pull(1).number == 1 and gh.get_pull(1).number == 1
    assert fake.count() == 2 and gh.requests == 2


def test_the_token_is_sent_with_the_api_version_and_media_type(
    fake: FakeGitHub, gh: GitHub
) -> None:
    fake.add_pull(1, "feature", head_sha=SHA)
    gh.get_pull(1)
    (request,) = fake.requests("GET")
    headers = {k.lower(): v for k, v in request.headers.items()}
    assert headers["authorization"] == f"token {TOKEN}"  # PyGithub's Auth.Token
    assert headers["x-github-api-version"] == "2022-11-28"
    assert headers["accept"] == "application/vnd.github+json"
    assert headers["user-agent"].startswith("changelog-tools/")


def test_an_absolute_url_off_the_api_origin_is_refused_before_sending(
    fake: FakeGitHub, gh: GitHub
) -> None:
    requester = gh._requester
    for url in (
        "http://127.0.0.2:9/api/v3/repos/x/y",  # another host
        fake.base_url.replace("http://", "https://") + "/repos/x/y",  # another scheme
        fake.root_url + "/elsewhere/repos/x/y",  # the API's host, outside its path
    ):
        with pytest.raises(GitHubError, match="refusing to send the GitHub token"):
            requester.requestJsonAndCheck("GET", url)
    assert fake.count() == 0


# -- records ---------------------------------------------------------------------------------------


def test_a_pull_request_becomes_a_frozen_plain_record(fake: FakeGitHub, gh: GitHub) -> None:
    fake.add_pull(5, "feat", head_sha=SHA, base_sha="b" * 40, labels=["x", "y"], draft=True)
    fake.add_pull(6, "main", head_sha=SHA, head_repo="someone/fork")
    fake.add_pull(7, "gone", head_sha=SHA, head_repo="someone/fork", fork_deleted=True)
    pr = gh.get_pull(5)
    assert isinstance(pr, PullRequest)
    assert (pr.number, pr.state, pr.draft, pr.labels, pr.head_ref, pr.head_sha, pr.base_sha) == (
        5, "open", True, ("x", "y"), "feat", SHA, "b" * 40
    )  # fmt: skip
    assert not pr.is_fork and pr.merged is False and pr.merged_at is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        pr.state = "closed"  # type: ignore[misc]
    assert gh.get_pull(6).is_fork and gh.get_pull(6).head_repo == "someone/fork"
    assert gh.get_pull(7).head_repo is None and gh.get_pull(7).is_fork


def test_a_missing_pull_request_is_not_found(fake: FakeGitHub, gh: GitHub) -> None:
    with pytest.raises(NotFoundError, match=r"GET /repos/octo/widgets/pulls/404 failed: HTTP 404"):
        gh.get_pull(404)
    assert fake.count() == 1


# -- pagination ------------------------------------------------------------------------------------


def test_every_list_is_read_to_the_last_page(
    fake: FakeGitHub, make_gh: Callable[..., GitHub]
) -> None:
    gh = make_gh(page_size=2)
    for i in range(5):
        fake.add_comment(1, f"c{i}")
    fake.add_pull(1, "feature", head_sha=SHA)
    run = fake.add_run("run-sweep.yml", SHA, artifacts=[f"a{i}" for i in range(3)])
    for i in range(3):
        fake.add_check_run(SHA, f"check{i}")
    assert [c.body for c in gh.list_issue_comments(1)] == [f"c{i}" for i in range(5)]
    assert [a.name for a in gh.list_run_artifacts(run.id)] == ["a0", "a1", "a2"]
    assert len(gh.list_check_runs(SHA)) == 3
    assert fake.count("GET", r"/comments$") == 3
    assert fake.count("GET", r"/artifacts$") == 2
    assert all(r.query.get("per_page") == "2" for r in fake.log)


def test_workflow_runs_are_fetched_one_page_at_a_time_as_consumed(
    fake: FakeGitHub, make_gh: Callable[..., GitHub]
) -> None:
    gh = make_gh(page_size=2)
    for _ in range(6):
        fake.add_run("run-sweep.yml", SHA, head_branch="feat/x y")
    runs = gh.iter_workflow_runs("run-sweep.yml", event="pull_request", branch="feat/x y")
    first = next(runs)
    assert fake.count() == 1
    assert fake.log[0].query == {"per_page": "2", "event": "pull_request", "branch": "feat/x y"}
    assert len([first, *runs]) == 6 and fake.count() == 3


def test_a_next_page_link_to_another_host_is_refused(fake: FakeGitHub, gh: GitHub) -> None:
    evil = '<http://198.51.100.7/api/v3/repos/octo/widgets/issues/1/comments?page=2>; rel="next"'
    fake.add_comment(1, "a page PyGithub would read on from")
    fake.fault(Fault("GET", r"/comments$", None, times=1, headers={"Link": evil}))
    with pytest.raises(GitHubError, match="next-page URL outside"):
        gh.list_issue_comments(1)
    assert fake.count() == 1


# -- retries -------------------------------------------------------------------------------------


def test_transient_502s_are_retried_with_doubling_backoff(
    fake: FakeGitHub, gh: GitHub, clock: Clock
) -> None:
    fake.add_pull(1, "feature", head_sha=SHA)
    fake.fail("GET", r"/pulls/1$", 502, times=2)
    assert gh.get_pull(1).number == 1
    assert fake.count("GET", r"/pulls/1$") == 3
    assert clock.sleeps == [1.0, 2.0]


def test_persistent_500s_fail_with_exit_3_after_the_retry_budget(
    fake: FakeGitHub, make_gh: Callable[..., GitHub], clock: Clock
) -> None:
    gh = make_gh(retries=3, backoff=0.5)
    fake.fail("GET", r"/pulls/1$", 500, times=None, message="boom")
    with pytest.raises(GitHubError) as info:
        gh.get_pull(1)
    assert str(info.value) == (
        "GitHub API GET /repos/octo/widgets/pulls/1 failed after 4 attempts: HTTP 500 (boom)"
    )
    assert info.value.exit_code == ExitCode.EXTERNAL
    assert fake.count() == 4 and clock.sleeps == [0.5, 1.0, 2.0]


def test_a_refused_connection_is_retried_then_reported(clock: Clock) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {"GH_TOKEN": TOKEN, "GITHUB_API_URL": f"http://127.0.0.1:{port}/api/v3"}
    gh = make_github(
        config_mod.defaults(), env=env, repository=REPO, policy=RetryPolicy(retries=2),
        sleep=clock.sleep, clock=clock.time,
    )  # fmt: skip
    with pytest.raises(
        GitHubError, match=r"pulls/1 could not connect \(ConnectionRefusedError\) after 3"
    ):
        gh.get_pull(1)
    assert clock.sleeps == [1.0, 2.0] and gh.requests == 3


def test_a_timed_out_read_is_retried(
    fake: FakeGitHub, make_gh: Callable[..., GitHub], clock: Clock
) -> None:
    # The configured timeout is whole seconds; shorten it so the test does not wait 1 s.
    gh = make_gh(timeout=0.2)
    fake.add_pull(1, "feature", head_sha=SHA)
    fake.stall("GET", r"/pulls/1$", 0.4)
    assert gh.get_pull(1).number == 1
    assert fake.count("GET", r"/pulls/1$") == 2 and clock.sleeps == [1.0]


# -- rate limits ---------------------------------------------------------------------------------


def test_a_secondary_rate_limit_waits_for_retry_after(
    fake: FakeGitHub, gh: GitHub, clock: Clock
) -> None:
    fake.add_pull(1, "feature", head_sha=SHA)
    fake.rate_limit("GET", r"/pulls/1$", kind="secondary", retry_after=7)
    assert gh.get_pull(1).number == 1
    assert clock.sleeps == [7.0] and gh.rate_limit_waited == 7.0


def test_a_429_with_retry_after_is_waited_and_one_without_waits_a_minute(
    fake: FakeGitHub, gh: GitHub, clock: Clock
) -> None:
    fake.add_pull(1, "feature", head_sha=SHA)
    fake.rate_limit("GET", r"/pulls/1$", kind="429", retry_after=3)
    fake.rate_limit("GET", r"/pulls/1$", kind="429")
    assert gh.get_pull(1).number == 1
    assert clock.sleeps == [3.0, 60.0]


def test_a_primary_rate_limit_waits_until_the_reset(
    fake: FakeGitHub, gh: GitHub, clock: Clock
) -> None:
    fake.add_pull(1, "feature", head_sha=SHA)
    fake.rate_limit("GET", r"/pulls/1$", kind="primary", reset_in=20)
    assert gh.get_pull(1).number == 1
    (wait,) = clock.sleeps
    assert 19.0 <= wait <= 22.0


def test_a_rate_limit_beyond_the_budget_fails_at_once(
    fake: FakeGitHub, gh: GitHub, clock: Clock
) -> None:
    fake.rate_limit("GET", r"/pulls/1$", kind="primary", reset_in=3600)
    with pytest.raises(GitHubError, match=r"rate limited .* only 300s of the 300s budget") as info:
        gh.get_pull(1)
    assert info.value.hint is not None and "github-rate-limit-wait" in info.value.hint
    assert clock.sleeps == [] and fake.count() == 1


def test_the_rate_limit_budget_is_shared_by_all_requests(
    fake: FakeGitHub, make_gh: Callable[..., GitHub], clock: Clock
) -> None:
    gh = make_gh(rate_limit_wait=100)
    fake.add_pull(1, "feature", head_sha=SHA)
    fake.rate_limit("GET", r"/pulls/1$", kind="secondary", retry_after=60)
    assert gh.get_pull(1).number == 1
    fake.rate_limit("GET", r"/pulls/1$", kind="secondary", retry_after=60)
    with pytest.raises(GitHubError, match="only 40s of the 100s budget"):
        gh.get_pull(1)
    assert clock.sleeps == [60.0]


def test_a_403_that_is_not_a_rate_limit_fails_without_retrying(
    fake: FakeGitHub, gh: GitHub, clock: Clock
) -> None:
    fake.fail("GET", r"/pulls/1$", 403, message="Resource not accessible by integration")
    with pytest.raises(GitHubError, match=r"HTTP 403 \(Resource not accessible") as info:
        gh.get_pull(1)
    assert info.value.hint == "the token may lack a permission this step needs"
    assert fake.count() == 1 and clock.sleeps == []


def test_the_token_never_appears_in_errors_logs_or_repr(fake: FakeGitHub, clock: Clock) -> None:
    said: list[str] = []
    fake.fail("GET", r"/pulls/1$", 502, message=f"proxy saw token {TOKEN}")
    fake.fail("GET", r"/pulls/2$", 401, message=f"Bad credentials {TOKEN}")
    gh = make_github(
        config_mod.defaults(), env=env_for(fake), policy=RetryPolicy(write_interval=0),
        sleep=clock.sleep, clock=clock.time, log=said.append,
    )  # fmt: skip
    fake.add_pull(1, "feature", head_sha=SHA)
    gh.get_pull(1)
    with pytest.raises(GitHubError) as info:
        gh.get_pull(2)
    text = " ".join([str(info.value), info.value.hint or "", repr(gh), *said])
    assert "***" in text and TOKEN not in text
    assert info.value.hint == "check that GH_TOKEN or GITHUB_TOKEN holds a valid token"
    assert fake.log[0].headers["Authorization"] == f"token {TOKEN}"  # it is sent, just not shown


# -- idempotent writes ---------------------------------------------------------------------------


def test_a_comment_post_that_fails_is_never_reposted_blindly(fake: FakeGitHub, gh: GitHub) -> None:
    fake.fail("POST", r"/issues/1/comments$", 502)
    with pytest.raises(AmbiguousWriteError, match="may or may not have been applied"):
        gh.create_issue_comment(1, "hello")
    assert fake.count("POST") == 1


def test_upsert_recovers_a_lost_response_without_a_duplicate_comment(
    fake: FakeGitHub, gh: GitHub
) -> None:
    fake.fail("POST", r"/issues/1/comments$", 502, apply=True)
    comment = gh.upsert_issue_comment(1, "merge note <!-- m -->", marker="<!-- m -->")
    assert [c.body for c in fake.comments.values()] == ["merge note <!-- m -->"]
    assert comment.id in fake.comments
    assert fake.count("POST") == 1


def test_upsert_posts_again_when_the_failed_post_never_landed(fake: FakeGitHub, gh: GitHub) -> None:
    fake.fail("POST", r"/issues/1/comments$", 503)
    gh.upsert_issue_comment(1, "note <!-- m -->", marker="<!-- m -->")
    assert [c.body for c in fake.comments.values()] == ["note <!-- m -->"]
    assert fake.count("POST") == 2


def test_upsert_edits_the_existing_marked_comment_instead_of_posting(
    fake: FakeGitHub, gh: GitHub
) -> None:
    fake.add_comment(1, "old <!-- m -->", "someone-else", "NONE")
    mine = fake.add_comment(1, "old <!-- m -->", "maintainer")
    updated = gh.upsert_issue_comment(1, "new <!-- m -->", marker="<!-- m -->", author="maintainer")
    assert updated.id == mine.id and fake.comments[mine.id].body == "new <!-- m -->"
    gh.upsert_issue_comment(1, "new <!-- m -->", marker="<!-- m -->", author="maintainer")
    assert fake.count("POST") == 0 and fake.count("PATCH") == 1


def test_editing_a_comment_is_retried_because_it_is_idempotent(
    fake: FakeGitHub, gh: GitHub
) -> None:
    comment = fake.add_comment(1, "a")
    fake.fail("PATCH", r"/issues/comments/", 502)
    assert gh.edit_issue_comment(comment.id, "b").body == "b"
    assert fake.count("PATCH") == 2


def test_commit_statuses_are_retried_and_the_combined_status_reads_every_page(
    fake: FakeGitHub, make_gh: Callable[..., GitHub]
) -> None:
    gh = make_gh(page_size=2)
    fake.fail("POST", r"/statuses/", 500)
    status = gh.create_commit_status(SHA, state="pending", context="c0", description="x" * 200)
    assert status.state == "pending" and len(status.description or "") == 140
    for i in range(1, 4):
        gh.create_commit_status(SHA, state="success", context=f"c{i}")
    combined = gh.get_combined_status(SHA)
    assert combined.state == "pending"
    assert sorted(s.context for s in combined.statuses) == ["c0", "c1", "c2", "c3"]
    assert fake.count("GET", r"/status$") == 2


def test_merge_pins_the_head_and_returns_the_merge_commit(fake: FakeGitHub, gh: GitHub) -> None:
    fake.add_pull(3, "feature", head_sha=SHA, title="Tune")
    result = gh.merge_pull(3, sha=SHA, title="Tune (#3)")
    assert result.merged and result.sha == fake.pulls[3].merge_commit_sha
    (put,) = fake.requests("PUT")
    assert put.body == {"merge_method": "squash", "sha": SHA, "commit_title": "Tune (#3)"}


def test_merge_with_a_moved_head_is_rejected_with_its_status(fake: FakeGitHub, gh: GitHub) -> None:
    fake.add_pull(3, "feature", head_sha=SHA)
    with pytest.raises(MergeRejectedError, match="Head branch was modified") as info:
        gh.merge_pull(3, sha="b" * 40)
    assert info.value.status == 409 and info.value.exit_code == ExitCode.EXTERNAL
    fake.pulls[3].draft = True
    with pytest.raises(MergeRejectedError) as info:
        gh.merge_pull(3, sha=SHA)
    assert info.value.status == 405


def test_a_merge_whose_response_was_lost_is_confirmed_by_rereading(
    fake: FakeGitHub, gh: GitHub
) -> None:
    fake.add_pull(3, "feature", head_sha=SHA)
    fake.fail("PUT", r"/pulls/3/merge$", 502, apply=True)
    result = gh.merge_pull(3, sha=SHA)
    assert result.sha == fake.pulls[3].merge_commit_sha and result.merged
    assert fake.count("PUT") == 1 and fake.count("GET", r"/pulls/3$") == 1


def test_a_merge_that_failed_before_landing_is_tried_again(fake: FakeGitHub, gh: GitHub) -> None:
    fake.add_pull(3, "feature", head_sha=SHA)
    fake.fail("PUT", r"/pulls/3/merge$", 502)
    assert gh.merge_pull(3, sha=SHA).merged
    assert fake.count("PUT") == 2


def test_pull_request_reads_used_by_the_merge_flow(fake: FakeGitHub, gh: GitHub) -> None:
    from changelog_tools.testing.fakegithub import FakeCommit

    fake.add_pull(
        4, "feature", head_sha=SHA, commits=[FakeCommit("1" * 40, "one"), FakeCommit(SHA, "two")],
        files=[{"filename": "perf-changelog.yaml", "status": "modified"}],
    )  # fmt: skip
    fake.add_review(4, login="carol", state="APPROVED", commit_id=SHA)
    fake.add_check_run(SHA, "check-changelog", conclusion="failure")
    fake.add_check_run(SHA, "other")
    assert [(c.sha, c.message) for c in gh.list_pull_commits(4)] == [
        ("1" * 40, "one"),
        (SHA, "two"),
    ]
    assert [f.filename for f in gh.list_pull_files(4)] == ["perf-changelog.yaml"]
    assert [(r.author, r.state) for r in gh.list_reviews(4)] == [("carol", "APPROVED")]
    assert gh.list_review_comments(4) == ()
    checks = gh.list_check_runs(SHA, check_name="check-changelog")
    assert [(c.name, c.conclusion) for c in checks] == [("check-changelog", "failure")]
    assert fake.requests("GET", r"/check-runs$")[-1].query["check_name"] == "check-changelog"
    assert [p.number for p in gh.list_pulls(state="open")] == [4]
    assert gh.get_workflow_run(fake.add_run("run-sweep.yml", SHA).id).event == "pull_request"
    assert gh.get_workflow("run-sweep.yml").path == ".github/workflows/run-sweep.yml"


# -- GitHub Actions step files -------------------------------------------------------------------


def test_step_outputs_use_a_fresh_random_heredoc_delimiter(tmp_path: Path) -> None:
    out = tmp_path / "output"
    out.write_text("earlier=1\n")
    tricky = "line one\nx<<EOF\nEOF\nreuse-enabled=true"
    write_step_outputs(out, {"reuse-enabled": "false", "reuse-reason": tricky})
    write_step_outputs(out, {"second": ""})
    text = out.read_text()
    delimiters = re.findall(r"^(?:reuse-enabled|reuse-reason|second)<<(.*)$", text, re.MULTILINE)
    assert len(set(delimiters)) == 3 and all(d.startswith("ghadelimiter_") for d in delimiters)
    assert all(text.count(d) == 2 for d in delimiters)
    assert read_step_outputs(text) == {
        "earlier": "1",
        "reuse-enabled": "false",
        "reuse-reason": tricky,
        "second": "",
    }
    with pytest.raises(ValueError, match="invalid output name"):
        write_step_outputs(out, {"bad name": "x"})
