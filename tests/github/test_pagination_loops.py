"""A server whose pagination never ends: a next-page link back at a page already read, or a list
past the page cap, ends the walk with exit 3 instead of looping forever. (PyGithub follows any
next-page link of a page that holds items; the requester under it keeps count.)"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from changelog_tools import cli
from changelog_tools.errors import GitHubError
from changelog_tools.github.adapter import GitHub
from changelog_tools.testing.fakegithub import FakeGitHub
from tests.conftest import run_cli
from tests.fakegithub_fixtures import REPO, TOKEN, merged_pull, sha_of
from tests.mergeworld import World, build_world, entry

COMMENTS = f"/repos/{REPO}/issues/7/comments"
LOOP = "the next-page link points back at a page already read"


def test_a_next_link_to_the_first_page_is_a_loop(fake: FakeGitHub, gh: GitHub) -> None:
    for i in range(3):
        fake.add_comment(7, f"c{i}")
    # GitHub's first page is the request without `page`; `page=1` names the same page.
    fake.next_link("GET", r"/issues/7/comments$", fake.api(f"{COMMENTS}?per_page=100&page=1"))
    with pytest.raises(GitHubError, match=LOOP) as info:
        gh.list_issue_comments(7)
    assert f"({COMMENTS}?per_page=100&page=1)" in info.value.message
    assert fake.count("GET", r"/comments$") == 1  # the repeat is caught before it is sent


def test_a_next_link_to_itself_is_a_loop_after_one_new_page(
    fake: FakeGitHub, make_gh: Callable[..., GitHub]
) -> None:
    fake.add_comment(7, "c0")
    fake.add_comment(7, "c1")
    gh = make_gh(page_size=1)
    # every answer says "next: page 2", page 2 included; the query order differs, same page
    fake.next_link("GET", r"/issues/7/comments$", fake.api(f"{COMMENTS}?page=2&per_page=1"))
    with pytest.raises(GitHubError, match=LOOP):
        gh.list_issue_comments(7)
    assert [r.query.get("page") for r in fake.requests("GET", r"/comments$")] == [None, "2"]


def test_a_next_link_on_an_empty_page_ends_the_list(fake: FakeGitHub, gh: GitHub) -> None:
    # PyGithub reads no link of an empty page: the list ends there, without a request more
    fake.next_link("GET", r"/issues/7/comments$", fake.api(f"{COMMENTS}?per_page=100&page=1"))
    assert gh.list_issue_comments(7) == ()
    assert fake.count("GET", r"/comments$") == 1


def test_a_list_longer_than_the_page_cap_stops(
    fake: FakeGitHub, make_gh: Callable[..., GitHub]
) -> None:
    for i in range(7):
        fake.add_comment(7, f"c{i}")
    gh = make_gh(page_size=2)  # 4 pages
    gh.max_pages = 3
    with pytest.raises(GitHubError, match=r"comments: the list goes on past 3 pages; stopped"):
        gh.list_issue_comments(7)
    assert fake.count("GET", r"/comments$") == 3
    gh.max_pages = 4
    assert len(gh.list_issue_comments(7)) == 7  # exactly at the cap is fine


def test_reuse_gate_exits_3_on_a_pagination_loop(fake: FakeGitHub, tmp_path: Path) -> None:
    merged_pull(fake)
    fake.add_comment(7, "/reuse-sweep-run", "bob")
    fake.next_link("GET", r"/issues/7/comments$", fake.api(f"{COMMENTS}?per_page=100&page=1"))
    (tmp_path / ".changelog-tools.yaml").write_text("github-retry-backoff: 0\n")
    env = {"GH_TOKEN": TOKEN, "GITHUB_API_URL": fake.base_url, "GITHUB_REPOSITORY": REPO}
    args = ["--event-name", "push", "--ref", "refs/heads/main", "--commit-sha", sha_of("merge7")]
    proc = run_cli("reuse-gate", *args, cwd=tmp_path, env=env)
    assert proc.returncode == 3, proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        f"error: GitHub API GET {COMMENTS}: {LOOP} ({COMMENTS}?per_page=100&page=1); "
        "stopped instead of looping"
    )
    assert proc.stdout == ""
    assert fake.count("GET", r"/comments$") == 1


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    for w in build_world(tmp_path):
        for key, value in w.env.items():
            monkeypatch.setenv(key, value)
        monkeypatch.chdir(w.clone)
        yield w


def test_merge_dry_run_exits_3_on_a_pagination_loop(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    w = world
    w.open_pr(1, "feat-a", {}, title="Tune", append=entry("Tune the TP sizes"))
    w.fake.add_comment(1, "Looks good", "bob")  # a page with items: its link is followed
    comments = f"/repos/{w.fake.repository}/issues/1/comments"
    w.fake.next_link("GET", r"/issues/1/comments$", w.fake.api(f"{comments}?per_page=100"))
    assert cli.run(["merge", "1", "--dry-run"]) == 3
    err = capsys.readouterr().err
    assert f"error: GitHub API GET {comments}: {LOOP} ({comments}?per_page=100)" in err
    assert w.fake.count("GET", r"/issues/1/comments$") == 1
    assert [r for r in w.fake.log if r.method != "GET"] == []
