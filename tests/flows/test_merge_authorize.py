"""flows/landing/authorize.py: posting the authorization comment exactly once."""

from __future__ import annotations

import pytest

from tests.mergeworld import World, comment_bodies, entry, merge

# -- hostile and failing GitHub-side situations ------------------------------------------------


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
