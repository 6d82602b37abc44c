"""Fixtures for tests that talk to the fake GitHub: the server, adapters bound to it, scenarios.

Loaded for the whole suite through ``pytest_plugins`` in tests/conftest.py.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from changelog_tools import config as config_mod
from changelog_tools.github.adapter import GitHub, RetryPolicy, make_github
from changelog_tools.testing.fakegithub import FakeGitHub, FakePull, fake_sha

REPO = "octo/widgets"
TOKEN = "ghs_test_token_do_not_print_0123456789"
WORKFLOW = "run-sweep.yml"


@dataclass
class Clock:
    """An injected clock: sleeping advances it instead of waiting."""

    # starts at the real time, because the fake stamps X-RateLimit-Reset with the real clock
    now: float = field(default_factory=time.time)
    sleeps: list[float] = field(default_factory=list)

    def time(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    """A started fake GitHub for ``octo/widgets``; fails the test if a route was missing."""
    server = FakeGitHub(REPO).start()
    try:
        yield server
    finally:
        server.stop()
    assert not server.unhandled, f"requests the fake has no route for: {server.unhandled}"
    assert not server.errors, f"the fake itself failed: {server.errors}"


@pytest.fixture
def clock() -> Clock:
    return Clock()


def env_for(fake: FakeGitHub, **extra: str) -> dict[str, str]:
    """The environment a workflow step would have, pointed at ``fake``."""
    return {
        "GH_TOKEN": TOKEN,
        "GITHUB_API_URL": fake.base_url,
        "GITHUB_REPOSITORY": fake.repository,
        **extra,
    }


@pytest.fixture
def make_gh(fake: FakeGitHub, clock: Clock) -> Callable[..., GitHub]:
    """Factory for adapters bound to ``fake`` with the injected clock (no real sleeps)."""

    def factory(**policy: Any) -> GitHub:
        options: dict[str, Any] = {"write_interval": 0.0, "timeout": 5}
        options.update(policy)
        page_size = options.pop("page_size", 100)
        return make_github(
            config_mod.defaults(),
            env=env_for(fake),
            policy=RetryPolicy(**options),
            page_size=page_size,
            sleep=clock.sleep,
            clock=clock.time,
        )

    return factory


@pytest.fixture
def gh(make_gh: Callable[..., GitHub]) -> GitHub:
    return make_gh()


def sha_of(name: str) -> str:
    return fake_sha("commit", name)


def merged_pull(
    fake: FakeGitHub,
    number: int = 7,
    *,
    labels: tuple[str, ...] = ("full-sweep-enabled",),
    commits: tuple[str, ...] = ("c1", "c2", "c3"),
    head_ref: str = "feature",
    merge: str = "merge7",
) -> FakePull:
    """A PR merged as commit ``sha_of(merge)`` whose commits are ``sha_of(c)`` for each name."""
    from changelog_tools.testing.fakegithub import FakeCommit

    return fake.add_pull(
        number,
        head_ref,
        head_sha=sha_of(commits[-1]),
        base_sha=sha_of("base"),
        state="closed",
        merged=True,
        merged_at="2024-02-01T00:00:00Z",
        merge_commit_sha=sha_of(merge),
        labels=list(labels),
        commits=[FakeCommit(sha_of(c)) for c in commits],
    )


def init_origin(root: Path, files: dict[str, str | bytes]) -> tuple[Path, Path]:
    """A bare ``origin.git`` on ``main`` holding ``files``, and a clone ``seed`` to push from."""
    from tests.conftest import commit_files, git

    origin = root / "origin.git"
    git(root, "init", "-q", "--bare", "-b", "main", str(origin))
    seed = root / "seed"
    git(root, "clone", "-q", str(origin), str(seed))
    git(seed, "checkout", "-q", "-b", "main")
    commit_files(seed, files, "initial")
    git(seed, "push", "-q", "origin", "main")
    return origin, seed


def gate_env(fake: FakeGitHub, tmp_path: Path, **extra: str) -> dict[str, str]:
    """A pull-request workflow's environment for `reuse-gate` against ``fake`` (event #7), with
    a configuration in ``tmp_path`` that neither retries nor waits."""
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"action": "synchronize", "number": 7}))
    (tmp_path / ".changelog-tools.yaml").write_text(
        "github-retry-backoff: 0\ngithub-write-interval: 0\ngithub-retries: 0\n"
    )
    return {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_API_URL": fake.base_url,
        "GH_TOKEN": TOKEN,
        **extra,
    }
