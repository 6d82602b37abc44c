"""testing/background.py: a fake serving from a thread stops when its with-block is left."""

from __future__ import annotations

import threading
import urllib.request

import pytest

from changelog_tools.testing.fakeci import FakeCI, all_green
from changelog_tools.testing.fakegithub import FakeGitHub, fake_sha


def _ci_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "fake-ci"]


def test_a_failing_with_block_still_stops_the_fake_ci() -> None:
    fake = FakeGitHub()
    fake.add_pull(1, "topic", head_sha=fake_sha("head"))
    before = len(_ci_threads())
    with pytest.raises(RuntimeError, match="the test failed"), FakeCI(fake, all_green()) as ci:
        assert len(_ci_threads()) == before + 1
        for _ in range(500):  # it reports the open head within a few ticks
            if ci.reported:
                break
            threading.Event().wait(0.01)
        raise RuntimeError("the test failed")
    assert len(_ci_threads()) == before
    assert ci.reported == [(1, fake_sha("head"), "check-changelog", "success")]


def test_a_failing_with_block_still_stops_the_fake_github() -> None:
    with pytest.raises(RuntimeError, match="the test failed"), FakeGitHub() as fake:
        url = fake.api("/repos/octo/widgets/pulls")
        with urllib.request.urlopen(url, timeout=5) as answer:
            assert answer.status == 200
        raise RuntimeError("the test failed")
    with pytest.raises(OSError):
        urllib.request.urlopen(url, timeout=5)


def test_a_started_fake_github_is_entered_as_it_is() -> None:
    fake = FakeGitHub().start()
    url = fake.base_url
    with fake as entered:
        assert entered is fake and entered.base_url == url  # not a second server
    with pytest.raises(OSError):
        urllib.request.urlopen(url + "/repos/octo/widgets/pulls", timeout=5)
