"""`changelog-tools merge` end to end: a real bare origin, a real clone, the fake GitHub tied to
the origin (PR heads and squash merges come from git), and a fake CI reporting checks."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from changelog_tools import cli
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
    assert f"merged as {pull.merge_commit_sha}; main reuses sweep run" in out.out
    assert "[authorize] posting `/reuse-sweep-run` on PR #1" in out.err
    assert git(w.clone, "rev-parse", "HEAD") == clone_head
    assert_clean_clone(w)
    print(f"clean merge: {len(w.fake.log)} API requests")  # reported in the issue
    assert len(w.fake.log) <= 14
