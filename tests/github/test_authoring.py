"""Opening and labelling pull requests through the adapter, against the fake over real HTTP,
and the fake's answers for those routes as GitHub documents them."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from changelog_tools.github.adapter import GitHub, GitHubStatusError
from changelog_tools.testing.fakegithub import FakeGitHub, Fault
from tests.conftest import commit_files, git
from tests.fakegithub_fixtures import REPO, TOKEN, init_origin


def test_create_pull_opens_one_pull_request_and_sends_the_documented_body(
    fake: FakeGitHub, gh: GitHub
) -> None:
    pull = gh.create_pull(head="fix-1", base="main", title="Fix", body="Why")

    assert (pull.number, pull.head_ref, pull.base_ref, pull.state) == (1, "fix-1", "main", "open")
    sent = fake.requests("POST", r"/pulls$")[0].body
    assert sent == {"base": "main", "head": "fix-1", "title": "Fix", "body": "Why"}
    assert fake.pulls[1].title == "Fix" and fake.pulls[1].body == "Why"
    assert [p.number for p in gh.pulls_from_branch("fix-1")] == [1]
    assert gh.pulls_from_branch("other") == ()


def test_a_second_pull_request_from_the_same_branch_is_refused_like_github(
    fake: FakeGitHub, gh: GitHub
) -> None:
    gh.create_pull(head="fix-1", base="main", title="Fix", body="")
    with pytest.raises(GitHubStatusError, match="A pull request already exists for octo:fix-1"):
        gh.create_pull(head="fix-1", base="main", title="Again", body="")
    assert len(fake.pulls) == 1


def test_a_lost_answer_is_settled_by_reading_the_branch_pulls_not_by_opening_again(
    fake: FakeGitHub, gh: GitHub
) -> None:
    fake.fault(Fault("POST", r"/pulls$", status=502, times=None, apply=True))

    pull = gh.create_pull(head="fix-1", base="main", title="Fix", body="")

    assert pull.number == 1 and len(fake.pulls) == 1
    assert fake.count("POST", r"/pulls$") == 1


def test_a_post_that_never_lands_is_tried_again_within_the_retries(
    fake: FakeGitHub, make_gh: Callable[..., GitHub]
) -> None:
    gh = make_gh(retries=1)
    fake.fault(Fault("POST", r"/pulls$", status=502, times=1))

    assert gh.create_pull(head="fix-1", base="main", title="Fix", body="").number == 1
    assert fake.count("POST", r"/pulls$") == 2 and len(fake.pulls) == 1


def test_add_labels_is_idempotent_and_keeps_one_copy(fake: FakeGitHub, gh: GitHub) -> None:
    fake.add_pull(5, "feature", labels=["a"])
    gh.add_labels(5, ["full-sweep-enabled"])
    gh.add_labels(5, ["full-sweep-enabled"])
    assert fake.pulls[5].labels == ["a", "full-sweep-enabled"]
    # PyGithub sends the bare array GitHub accepts
    # the form GitHub's schema documents (its prose also takes a bare array)
    assert fake.requests("POST", r"/labels$")[0].body == {"labels": ["full-sweep-enabled"]}


def test_the_fake_takes_both_label_bodies_and_refuses_a_bad_one(fake: FakeGitHub) -> None:
    fake.add_pull(5, "feature")
    auth = {"Authorization": f"token {TOKEN}"}
    path = f"{fake.prefix}/repos/{REPO}/issues/5/labels"
    status, _h, body = fake.handle("POST", path, auth, json.dumps({"labels": ["x"]}).encode())
    assert status == 200 and [label["name"] for label in json.loads(body)] == ["x"]
    status, _h, body = fake.handle("POST", path, auth, b'{"labels": "x"}')
    assert status == 422 and json.loads(body)["message"] == "Validation Failed"
    status, _h, _b = fake.handle("POST", f"{fake.prefix}/repos/{REPO}/issues/9/labels", auth, b"[]")
    assert status == 404


def test_with_a_git_origin_the_fake_wants_an_existing_branch_with_commits(
    tmp_path: Path,
) -> None:
    origin, seed = init_origin(tmp_path, {"a.txt": "a\n"})
    fake = FakeGitHub(REPO, git_origin=origin).start()
    try:
        path = f"{fake.prefix}/repos/{REPO}/pulls"

        def open_pull(head: str) -> tuple[int, dict[str, object]]:
            body = json.dumps({"head": head, "base": "main", "title": "t"}).encode()
            status, _h, raw = fake.handle("POST", path, {}, body)
            return status, json.loads(raw)

        status, answer = open_pull("missing")
        assert status == 422 and answer["errors"] == [
            {"resource": "PullRequest", "field": "head", "code": "invalid"}
        ]
        git(seed, "push", "-q", "origin", "main:refs/heads/same")
        assert open_pull("same") == (422, {"message": "No commits between main and same",
                                          "documentation_url": "https://docs.github.com/rest",
                                          "status": "422"})  # fmt: skip
        git(seed, "checkout", "-q", "-b", "work")
        head = commit_files(seed, {"b.txt": "b\n"}, "work")
        git(seed, "push", "-q", "origin", "work")
        status, answer = open_pull("octo:work")
        assert status == 201
        assert answer["head"] == {**answer["head"], "ref": "work", "sha": head}  # type: ignore[dict-item]
    finally:
        fake.stop()
