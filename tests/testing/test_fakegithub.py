"""The fake GitHub itself: URLs, pagination, faults, state files, and the optional git origin."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from github import Auth, Github

from changelog_tools.testing.fakegithub import FakeGitHub, fake_sha
from tests.conftest import commit_files, git
from tests.fakegithub_fixtures import REPO, init_origin


def fetch(
    url: str, *, method: str = "GET", body: Any = None, timeout: float = 5
) -> tuple[int, Any, Any]:
    """(status, headers, JSON) of one plain HTTP request."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            raw = response.read()
            return response.status, response.headers, json.loads(raw) if raw else None
    except urllib.error.HTTPError as exc:
        raw = exc.read()
        return exc.code, exc.headers, json.loads(raw) if raw else None


def pulls_of(fake: FakeGitHub, sha: str) -> list[int]:
    return [p["number"] for p in fetch(fake.api(f"/repos/{REPO}/commits/{sha}/pulls"))[2]]


def pygithub(fake: FakeGitHub) -> Github:
    return Github(
        auth=Auth.Token("t"),
        base_url=fake.base_url,
        retry=None,
        seconds_between_requests=0,
        seconds_between_writes=0,
        timeout=5,
    )


def walk_urls(value: Any) -> list[str]:
    if isinstance(value, dict):
        found: list[str] = []
        for key, item in value.items():
            is_url = (key == "url" or key.endswith("_url")) and isinstance(item, str)
            found.extend([item] if is_url else walk_urls(item))
        return found
    if isinstance(value, list):
        return [u for item in value for u in walk_urls(item)]
    return []


def test_every_url_in_an_answer_is_built_from_the_exact_base_url(fake: FakeGitHub) -> None:
    fake.add_pull(1, "feature", head_sha="a" * 40, labels=["x"])
    fake.add_comment(1, "hi")
    run = fake.add_run("run-sweep.yml", "a" * 40, artifacts=["results_bmk"])
    answers = [
        fetch(fake.api(f"/repos/{REPO}/pulls/1"))[2],
        fetch(fake.api(f"/repos/{REPO}/issues/1/comments"))[2],
        fetch(fake.api(f"/repos/{REPO}/actions/runs/{run.id}"))[2],
        fetch(fake.api(f"/repos/{REPO}/actions/runs/{run.id}/artifacts"))[2],
    ]
    urls = [u for answer in answers for u in walk_urls(answer)]
    assert len(urls) > 15
    assert all(u.startswith(fake.root_url + "/") for u in urls), urls
    api_urls = [u for u in urls if "/repos/" in u or "/users/" in u]
    assert all(u.startswith(fake.base_url + "/") for u in api_urls)


def test_lists_are_paginated_with_exact_link_headers(fake: FakeGitHub) -> None:
    for i in range(5):
        fake.add_comment(3, f"c{i}")
    url = fake.api(f"/repos/{REPO}/issues/3/comments")
    status, headers, page1 = fetch(url + "?per_page=2")
    assert status == 200 and [c["body"] for c in page1] == ["c0", "c1"]
    assert headers["Link"] == (
        f'<{url}?per_page=2&page=2>; rel="next", <{url}?per_page=2&page=3>; rel="last"'
    )
    _, headers, page3 = fetch(url + "?per_page=2&page=3")
    assert [c["body"] for c in page3] == ["c4"]
    assert headers["Link"] == (
        f'<{url}?per_page=2&page=1>; rel="first", <{url}?per_page=2&page=2>; rel="prev"'
    )
    _, headers, single = fetch(url)
    assert len(single) == 5 and headers["Link"] is None


def test_pygithub_follows_the_link_headers_through_every_page(fake: FakeGitHub) -> None:
    fake.add_pull(1, "feature", head_sha="a" * 40, labels=["ready"])
    for i in range(65):
        fake.add_comment(1, f"c{i}", "bob", "MEMBER")
    pr = pygithub(fake).get_repo(REPO).get_pull(1)
    bodies = [c.body for c in pr.get_issue_comments()]
    assert bodies == [f"c{i}" for i in range(65)]
    assert fake.count("GET", r"/issues/1/comments$") == 3  # 30 + 30 + 5
    assert (pr.state, pr.head.ref, [label.name for label in pr.labels]) == (
        "open",
        "feature",
        ["ready"],
    )


def test_pygithub_posts_edits_and_squash_merges_against_the_fake(fake: FakeGitHub) -> None:
    fake.add_pull(1, "feature", head_sha="a" * 40, title="Tune")
    pr = pygithub(fake).get_repo(REPO).get_pull(1)
    comment = pr.create_issue_comment("<!-- tool --> first")
    comment.edit("<!-- tool --> second")
    assert [c.body for c in fake.comments.values()] == ["<!-- tool --> second"]
    assert fake.comments[comment.id].login == "maintainer"
    status = pr.merge(merge_method="squash", sha="a" * 40)
    assert status.merged
    again = pygithub(fake).get_repo(REPO).get_pull(1)
    assert again.merged and again.merge_commit_sha == status.sha
    assert fake.pulls[1].merge_request == {"merge_method": "squash", "sha": "a" * 40}
    assert fake.count("POST") == 1 and fake.count("PATCH") == 1 and fake.count("PUT") == 1


def test_merging_with_a_stale_head_sha_is_refused_with_409(fake: FakeGitHub) -> None:
    fake.add_pull(1, "feature", head_sha="a" * 40)
    status, _, body = fetch(
        fake.api(f"/repos/{REPO}/pulls/1/merge"), method="PUT", body={"sha": "b" * 40}
    )
    assert status == 409 and body["message"].startswith("Head branch was modified")
    assert not fake.pulls[1].merged


def test_unknown_routes_answer_404_and_are_recorded(fake: FakeGitHub) -> None:
    status, _, body = fetch(fake.api(f"/repos/{REPO}/teleport"))
    assert status == 404 and body["message"] == "Not Found"
    status, _, _ = fetch(fake.api("/repos/someone/else/pulls/1"))
    assert status == 404
    assert fake.unhandled == [
        ("GET", f"/repos/{REPO}/teleport"),
        ("GET", "/repos/someone/else/pulls/1"),
    ]
    fake.unhandled.clear()


def test_a_fault_answers_n_times_and_then_the_route_answers_normally(fake: FakeGitHub) -> None:
    fake.add_pull(1, "feature", head_sha="a" * 40)
    fake.fail("GET", r"/pulls/1$", 502, times=2)
    url = fake.api(f"/repos/{REPO}/pulls/1")
    assert [fetch(url)[0] for _ in range(3)] == [502, 502, 200]
    assert fake.count("GET", r"/pulls/1$") == 3 and fake.faults == []


def test_a_persistent_fault_never_runs_out(fake: FakeGitHub) -> None:
    fake.fail(None, r"/pulls/", 500, times=None)
    url = fake.api(f"/repos/{REPO}/pulls/1")
    assert {fetch(url)[0] for _ in range(4)} == {500}


def test_a_fault_applied_before_answering_changes_state_like_a_lost_response(
    fake: FakeGitHub,
) -> None:
    fake.fail("POST", r"/issues/1/comments$", 502, apply=True)
    status, _, _ = fetch(
        fake.api(f"/repos/{REPO}/issues/1/comments"), method="POST", body={"body": "x"}
    )
    assert status == 502
    assert [c.body for c in fake.comments.values()] == ["x"]


def _raw_headers(fake: FakeGitHub, path: str) -> list[str]:
    with socket.create_connection(
        ("127.0.0.1", int(fake.root_url.rsplit(":", 1)[1])), timeout=5
    ) as s:
        s.sendall(
            f"GET {fake.prefix}{path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode()
        )
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    return data.split(b"\r\n\r\n", 1)[0].decode().split("\r\n")


def test_rate_limit_headers_replace_the_defaults_instead_of_adding_a_second_copy(
    fake: FakeGitHub,
) -> None:
    fake.rate_limit("GET", r"/pulls/1$", kind="primary", reset_in=120)
    lines = _raw_headers(fake, f"/repos/{REPO}/pulls/1")
    assert lines[0] == "HTTP/1.1 403 Forbidden"
    resets = [ln for ln in lines if ln.lower().startswith("x-ratelimit-reset:")]
    remaining = [ln for ln in lines if ln.lower().startswith("x-ratelimit-remaining:")]
    assert len(resets) == 1 and remaining == ["X-RateLimit-Remaining: 0"]


def test_secondary_and_429_rate_limits_carry_retry_after(fake: FakeGitHub) -> None:
    fake.rate_limit("GET", r"/pulls/1$", kind="secondary", retry_after=7)
    fake.rate_limit("GET", r"/pulls/2$", kind="429", retry_after=3)
    status, headers, body = fetch(fake.api(f"/repos/{REPO}/pulls/1"))
    assert (status, headers["Retry-After"]) == (403, "7")
    assert "secondary rate limit" in body["message"]
    status, headers, _ = fetch(fake.api(f"/repos/{REPO}/pulls/2"))
    assert (status, headers["Retry-After"]) == (429, "3")


def test_a_stall_outlasts_a_client_timeout(fake: FakeGitHub) -> None:
    fake.add_pull(1, "feature", head_sha="a" * 40)
    fake.stall("GET", r"/pulls/1$", 0.5)
    with pytest.raises(TimeoutError):
        fetch(fake.api(f"/repos/{REPO}/pulls/1"), timeout=0.2)
    assert fetch(fake.api(f"/repos/{REPO}/pulls/1"))[0] == 200


def test_workflow_runs_are_filtered_newest_first_and_routed_by_file_or_id(fake: FakeGitHub) -> None:
    wf = fake.add_workflow("run-sweep.yml")
    old = fake.add_run("run-sweep.yml", "a" * 40, head_branch="feature")
    fake.add_run("run-sweep.yml", "b" * 40, head_branch="other")
    fake.add_run("run-sweep.yml", "c" * 40, head_branch="feature", event="push")
    failed = fake.add_run("run-sweep.yml", "d" * 40, head_branch="feature", conclusion="failure")
    new = fake.add_run("run-sweep.yml", "e" * 40, head_branch="feature")
    fake.add_run("other.yml", "a" * 40, head_branch="feature")
    for ref in ("run-sweep.yml", str(wf.id)):
        query = "?event=pull_request&branch=feature&status=completed"
        _, _, body = fetch(fake.api(f"/repos/{REPO}/actions/workflows/{ref}/runs{query}"))
        assert [r["id"] for r in body["workflow_runs"]] == [new.id, failed.id, old.id]
        assert body["total_count"] == 3
    _, _, body = fetch(fake.api(f"/repos/{REPO}/actions/workflows/{wf.id}/runs?status=success"))
    assert failed.id not in [r["id"] for r in body["workflow_runs"]]
    _, _, body = fetch(
        fake.api(f"/repos/{REPO}/actions/workflows/run-sweep.yml/runs?head_sha={'a' * 40}")
    )
    assert [r["id"] for r in body["workflow_runs"]] == [old.id]


def test_the_combined_status_keeps_the_newest_status_per_context(fake: FakeGitHub) -> None:
    sha = "a" * 40
    fake.add_status(sha, "failure", "lint")
    fake.add_status(sha, "success", "lint")
    fake.add_status(sha, "success", "tests")
    _, _, body = fetch(fake.api(f"/repos/{REPO}/commits/{sha}/status"))
    assert body["state"] == "success" and body["total_count"] == 2
    fake.add_status(sha, "pending", "tests")
    assert fetch(fake.api(f"/repos/{REPO}/commits/{sha}/status"))[2]["state"] == "pending"
    status, _, created = fetch(
        fake.api(f"/repos/{REPO}/statuses/{sha}"),
        method="POST",
        body={"state": "error", "context": "x"},
    )
    assert status == 201 and created["state"] == "error"
    # GitHub's documented order: an error or failure wins over a pending context
    assert fetch(fake.api(f"/repos/{REPO}/commits/{sha}/status"))[2]["state"] == "failure"


def test_a_commit_maps_to_the_pull_request_merged_as_it(fake: FakeGitHub) -> None:
    fake.add_pull(1, "a", head_sha="1" * 40, merged=True, state="closed", merge_commit_sha="f" * 40)
    fake.add_pull(2, "b", head_sha="2" * 40)
    assert pulls_of(fake, "f" * 40) == [1]
    assert pulls_of(fake, "2" * 40) == [2]
    fake.commit_pulls["9" * 40] = [1, 2]
    assert pulls_of(fake, "9" * 40) == [1, 2]


def test_a_configured_token_is_required(fake: FakeGitHub) -> None:
    fake.token = "secret"
    fake.add_pull(1, "feature", head_sha="a" * 40)
    status, _, body = fetch(fake.api(f"/repos/{REPO}/pulls/1"))
    assert (status, body["message"]) == (401, "Bad credentials")
    g = Github(auth=Auth.Token("secret"), base_url=fake.base_url, retry=None,
               seconds_between_requests=0, seconds_between_writes=0)  # fmt: skip
    assert g.get_repo(REPO).get_pull(1).number == 1


def test_state_files_build_the_same_objects_and_reject_unknown_fields() -> None:
    state = {
        "repository": "o/r",
        "pulls": [
            {"number": 4, "head_ref": "f", "head_sha": "a" * 40, "commits": [{"sha": "a" * 40}]}
        ],
        "comments": [
            {"issue": 4, "body": "/reuse-sweep-run", "login": "bob", "association": "OWNER"}
        ],
        "runs": [
            {
                "workflow": "run-sweep.yml",
                "head_sha": "a" * 40,
                "artifacts": [{"name": "results_bmk"}],
            }
        ],
    }
    fake = FakeGitHub.from_state(state)
    assert fake.repository == "o/r" and fake.pulls[4].commits[0].sha == "a" * 40
    assert [c.login for c in fake.comments.values()] == ["bob"]
    (run,) = fake.runs.values()
    assert run.artifacts[0].name == "results_bmk" and "run-sweep.yml" in fake.workflows
    assert fake.snapshot()["pulls"][0]["number"] == 4
    with pytest.raises(ValueError, match="unknown field"):
        FakeGitHub.from_state({"pulls": [{"number": 1, "head_ref": "f", "colour": "red"}]})
    with pytest.raises(ValueError, match="unknown state keys: wormholes"):
        FakeGitHub.from_state({"wormholes": []})
    with pytest.raises(ValueError, match="teams: expected an object"):
        FakeGitHub.from_state({"teams": []})


def test_a_snapshot_loads_back_and_new_objects_continue_its_ids_and_clock() -> None:
    fake = FakeGitHub("o/r")
    fake.add_pull(4, "f", head_sha="a" * 40)
    noise = [fake.add_comment(4, "noise") for _ in range(5)]
    fake.add_run("run-sweep.yml", "a" * 40, artifacts=["results_bmk"],
                 jobs=[("single-node / bench", "success")])  # fmt: skip
    fake.add_check_run("a" * 40, "check-changelog")
    for comment in noise[:3]:  # deleted: GitHub never hands their ids out again
        del fake.comments[comment.id]
    state = json.loads(json.dumps(fake.snapshot()))

    again = FakeGitHub.from_state(state)

    assert again.snapshot() == state  # the same ids, stamps and records
    # jobs come back as records the routes can serve (a kept demo sandbox reads them)
    (run_again,) = again.runs.values()
    assert [(j.name, j.conclusion) for j in run_again.jobs] == [("single-node / bench", "success")]
    assert run_again.jobs[0].id == state["runs"][0]["jobs"][0]["id"]
    held = {c["id"] for c in state["comments"]} | {r["id"] for r in state["runs"]}
    held |= {a["id"] for r in state["runs"] for a in r["artifacts"]}
    held |= {j["id"] for r in state["runs"] for j in r["jobs"]}
    held |= {c["id"] for c in state["check_runs"]}
    newest = max(
        [c["created_at"] for c in state["comments"]]
        + [c["started_at"] for c in state["check_runs"]]
    )
    comment = again.add_comment(4, "/reuse-sweep-run")
    check = again.add_check_run("a" * 40, "lint")
    assert comment.id > max(held | {c.id for c in noise}) and check.id > comment.id
    # an object added to the file by hand gets a fresh id and stamp too
    state["runs"].append({"workflow": "run-sweep.yml", "head_sha": "b" * 40})
    by_hand = FakeGitHub.from_state(state)
    run = max(by_hand.runs.values(), key=lambda r: r.id)
    assert run.head_sha == "b" * 40 and run.id > max(held | {c.id for c in noise})
    assert run.created_at > newest
    assert comment.created_at > newest and check.started_at > comment.created_at


def test_the_command_line_serves_a_state_file_and_prints_its_base_url(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    state.write_text(json.dumps({"pulls": [{"number": 9, "head_ref": "f", "head_sha": "a" * 40}]}))
    proc = subprocess.Popen(
        [sys.executable, "-m", "changelog_tools.testing.fakegithub", "--state", str(state)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        base_url = proc.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/api/v3")
        status, _, body = fetch(f"{base_url}/repos/octo/widgets/pulls/9")
        assert status == 200 and body["head"]["sha"] == "a" * 40
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert proc.returncode == 0


def test_the_command_line_reports_a_bad_state_file(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    state.write_text('{"pulls": [{"number": 1}]}')
    proc = subprocess.run(
        [sys.executable, "-m", "changelog_tools.testing.fakegithub", "--state", str(state)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith(f"error: {state}: pull: ")


# -- tied to a real bare git origin --------------------------------------------------------------


@pytest.fixture
def origin_fake(tmp_path: Path) -> Any:
    origin, seed = init_origin(tmp_path, {"a.txt": "1\n2\n3\n", "b.txt": "b\n"})
    git(seed, "checkout", "-q", "-b", "feature")
    first = commit_files(seed, {"a.txt": "1\nPR\n3\n"}, "pr change")
    git(seed, "push", "-q", "origin", "feature")
    server = FakeGitHub(REPO, git_origin=origin).start()
    server.add_pull(1, "feature", title="Tune a")
    yield server, origin, seed, first
    server.stop()
    assert not server.unhandled


def test_with_a_git_origin_the_head_and_commits_follow_the_branch(origin_fake: Any) -> None:
    fake, origin, seed, first = origin_fake
    pr = fetch(fake.api(f"/repos/{REPO}/pulls/1"))[2]
    assert pr["head"]["sha"] == first and pr["mergeable"] is True
    second = commit_files(seed, {"b.txt": "b2\n"}, "second")
    git(seed, "push", "-q", "origin", "feature")
    assert fetch(fake.api(f"/repos/{REPO}/pulls/1"))[2]["head"]["sha"] == second
    commits = fetch(fake.api(f"/repos/{REPO}/pulls/1/commits"))[2]
    assert [(c["sha"], c["commit"]["message"]) for c in commits] == [
        (first, "pr change"),
        (second, "second"),
    ]
    assert git(origin, "rev-parse", "refs/pull/1/head") == second  # kept in step, like GitHub


def test_with_a_git_origin_a_squash_merge_makes_one_commit_on_main(origin_fake: Any) -> None:
    fake, origin, _seed, head = origin_fake
    main_before = git(origin, "rev-parse", "main")
    status, _, body = fetch(
        fake.api(f"/repos/{REPO}/pulls/1/merge"),
        method="PUT",
        body={"merge_method": "squash", "sha": head, "commit_title": "Tune a (#1)"},
    )
    assert status == 200 and body["merged"] is True
    assert git(origin, "rev-parse", "main") == body["sha"]
    assert git(origin, "rev-parse", f"{body['sha']}^@") == main_before  # one parent: main
    assert git(origin, "show", f"{body['sha']}:a.txt") == "1\nPR\n3"
    assert (
        git(origin, "log", "-1", "--format=%s|%an|%cn", body["sha"]) == "Tune a (#1)|alice|GitHub"
    )
    pr = fetch(fake.api(f"/repos/{REPO}/pulls/1"))[2]
    assert (pr["merged"], pr["merge_commit_sha"], pr["head"]["sha"]) == (True, body["sha"], head)
    commits = fetch(fake.api(f"/repos/{REPO}/pulls/1/commits"))[2]
    assert [c["sha"] for c in commits] == [head]
    assert pulls_of(fake, body["sha"]) == [1]


def test_with_a_git_origin_a_conflicting_pull_request_is_not_mergeable(origin_fake: Any) -> None:
    fake, origin, seed, head = origin_fake
    git(seed, "checkout", "-q", "main")
    commit_files(seed, {"a.txt": "1\nMAIN\n3\n"}, "main moves")
    git(seed, "push", "-q", "origin", "main")
    main_now = git(origin, "rev-parse", "main")
    pr = fetch(fake.api(f"/repos/{REPO}/pulls/1"))[2]
    assert (pr["mergeable"], pr["mergeable_state"]) == (False, "dirty")
    status, _, body = fetch(
        fake.api(f"/repos/{REPO}/pulls/1/merge"),
        method="PUT",
        body={"merge_method": "squash", "sha": head},
    )
    assert (status, body["message"]) == (405, "Pull Request is not mergeable")
    assert git(origin, "rev-parse", "main") == main_now


def test_fake_shas_are_stable_40_hex_strings() -> None:
    assert fake_sha("x") == fake_sha("x") != fake_sha("y")
    assert len(fake_sha("x")) == 40 and int(fake_sha("x"), 16) >= 0


def test_a_bug_in_a_handler_answers_500_and_is_kept_for_the_test(fake: FakeGitHub) -> None:
    def broken(request: object) -> object:
        raise RuntimeError("dictionary changed size during iteration")

    fake._get_repo = broken  # type: ignore[method-assign]
    status, _, body = fetch(fake.api(f"/repos/{REPO}"))
    assert status == 500 and body["message"].startswith("fake GitHub failed: RuntimeError")
    assert fake.errors == [
        f"GET /repos/{REPO}: RuntimeError: dictionary changed size during iteration"
    ]
    fake.errors.clear()


# -- the fake GitHub's command line refuses bad state before serving ---------------------------


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
