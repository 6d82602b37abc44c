"""The working tree cannot redirect the workflow's token: in GitHub Actions the runner's
GITHUB_API_URL wins over a `github-api-url` from the checked-out `.changelog-tools.yaml`.

Two fake GitHub servers: the runner's API, and a trap named by the checkout's configuration.
The trap must never receive a request (so never the token); the tests go through the installed
console script, as a workflow step would."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from changelog_tools.testing.fakegithub import FakeGitHub
from tests.conftest import run_cli
from tests.fakegithub_fixtures import REPO, TOKEN, env_for

MERGE = "b" * 40


@pytest.fixture
def trap() -> Iterator[FakeGitHub]:
    server = FakeGitHub(REPO).start()
    try:
        yield server
    finally:
        server.stop()


def _checkout(tmp_path: Path, api_url: str) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".changelog-tools.yaml").write_text(f"github-api-url: {api_url}\n")
    return tmp_path


def _push_to_main(fake: FakeGitHub, **extra: str) -> dict[str, str]:
    # a push of a commit no PR was merged as: one lookup, then "no reuse"
    return env_for(
        fake,
        GITHUB_EVENT_NAME="push",
        GITHUB_SHA=MERGE,
        GITHUB_REF="refs/heads/main",
        GITHUB_EVENT_PATH="",
        GITHUB_OUTPUT="",
        GITHUB_STEP_SUMMARY="",
        **extra,
    )


def test_in_a_workflow_a_disagreeing_config_url_is_refused_and_the_trap_hears_nothing(
    fake: FakeGitHub, trap: FakeGitHub, tmp_path: Path
) -> None:
    checkout = _checkout(tmp_path, trap.base_url)
    proc = run_cli("reuse-gate", cwd=checkout, env=_push_to_main(fake, GITHUB_ACTIONS="true"))
    assert proc.returncode == 2, proc.stderr
    assert "github-api-url" in proc.stderr
    assert "disagrees with the workflow's GITHUB_API_URL" in proc.stderr
    assert ".changelog-tools.yaml" in proc.stderr  # names the file to fix
    assert "Traceback" not in proc.stderr
    assert TOKEN not in proc.stderr + proc.stdout
    assert trap.log == []
    assert fake.log == []  # refused before any request at all


def test_in_a_workflow_an_agreeing_config_url_is_accepted(fake: FakeGitHub, tmp_path: Path) -> None:
    checkout = _checkout(tmp_path, fake.base_url + "/")  # a trailing slash still agrees
    proc = run_cli("reuse-gate", cwd=checkout, env=_push_to_main(fake, GITHUB_ACTIONS="true"))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["reuse-enabled"] == "false"
    assert fake.log and all(TOKEN in r.headers.get("Authorization", "") for r in fake.log)


def test_in_a_workflow_the_runner_url_is_used_when_the_config_names_none(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    (tmp_path / ".git").mkdir()
    proc = run_cli("reuse-gate", cwd=tmp_path, env=_push_to_main(fake, GITHUB_ACTIONS="true"))
    assert proc.returncode == 0, proc.stderr
    assert fake.count() >= 1


def test_outside_a_workflow_the_config_url_still_wins(
    fake: FakeGitHub, trap: FakeGitHub, tmp_path: Path
) -> None:
    # A person on their own machine chose this file; an Enterprise user sets their API here.
    checkout = _checkout(tmp_path, fake.base_url)
    env = _push_to_main(trap, GITHUB_ACTIONS="")
    proc = run_cli("reuse-gate", cwd=checkout, env=env)
    assert proc.returncode == 0, proc.stderr
    assert fake.count() >= 1
    assert trap.log == []
