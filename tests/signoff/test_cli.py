"""The installed CLI in a workflow-like environment (GITHUB_* variables, an event file) against
the fake GitHub's own command line (`python -m changelog_tools.testing.fakegithub`)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from changelog_tools.testing.fakegithub import stamp
from tests.conftest import run_cli
from tests.signoff.world import (
    BENCH_JOBS,
    BOT,
    CONTEXT,
    GOOD_ROWS,
    REPO,
    TOKEN,
    World,
    build_world,
    eval_zip,
    signoff,
)


def state_for(world: World, head: str, comments: list[dict[str, Any]], port: int) -> dict[str, Any]:
    """The fake's state file for PR #7 at ``head`` (the git origin supplies head and files)."""
    return {
        "repository": REPO,
        "actor": BOT,
        "actor_association": "NONE",
        "pulls": [{"number": 7, "head_ref": "pr-7", "author": "contrib"}],
        # the synchronize run's pending, pointing at PR #7's verdict comment
        "statuses": [
            {
                "sha": head,
                "state": "pending",
                "context": CONTEXT,
                "created_at": stamp(1),
                "target_url": f"http://127.0.0.1:{port}/{REPO}/pull/7#issuecomment-1",
            }
        ],
        "comments": comments,
        "workflows": [{"file": "run-sweep.yml"}],
        "runs": [
            {
                "id": 501,
                "workflow": "run-sweep.yml",
                "head_sha": head,
                "head_branch": "pr-7",
                "created_at": stamp(2),
                "artifacts": [{"name": "eval_results_all", "files": eval_zip(GOOD_ROWS)}],
            }
        ],
        "jobs": {"501": [{"name": n, "conclusion": c} for n, c in BENCH_JOBS]},
        "teams": {"example-org/core": ["core-1"]},
        "permissions": {"amd-a": "write", "core-1": "admin"},
        "foreign_pulls": {
            "vllm-project/recipes": [
                {"number": 42, "state": "closed", "merged": True, "merged_at": stamp(0)}
            ]
        },
    }


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[World, str, Any]]:
    world = build_world(tmp_path)
    world.fake.stop()  # this test serves the state through the fake's command line instead
    head = world.open_pr(sweep=False)
    comments = [
        {
            "id": 900,
            "issue": 7,
            "body": "/reuse-sweep-run",
            "login": "core-1",
            "created_at": stamp(3),
            "updated_at": stamp(3),
        },
        {
            "id": 901,
            "issue": 7,
            "body": signoff("amd-a"),
            "login": "amd-a",
            "created_at": stamp(4),
            "updated_at": stamp(4),
        },
    ]
    # the fake's pages (the PR's and its comments' html_url) live on its port: pick one first
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    state = tmp_path / "state.json"
    state.write_text(json.dumps(state_for(world, head, comments, port)), encoding="utf-8")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "changelog_tools.testing.fakegithub",
            "--state",
            str(state),
            "--git-origin",
            str(world.origin),
            "--token",
            TOKEN,
            "--port",
            str(port),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        base_url = proc.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:"), proc.stderr.read() if proc.stderr else ""
        yield world, base_url, head
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def api(base_url: str, path: str) -> Any:
    request = urllib.request.Request(base_url + path, headers={"Authorization": f"token {TOKEN}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def workflow_env(base_url: str, event: Path, name: str) -> dict[str, str]:
    return {
        "GITHUB_ACTIONS": "true",
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_API_URL": base_url,
        "GITHUB_EVENT_NAME": name,
        "GITHUB_EVENT_PATH": str(event),
        "GH_TOKEN": TOKEN,
    }


def test_verify_from_the_installed_cli_in_a_workflow_environment(
    served: tuple[World, str, str], tmp_path: Path
) -> None:
    world, base_url, head = served
    event = tmp_path / "event.json"
    event.write_text(
        json.dumps(
            {
                "action": "created",
                "issue": {"number": 7, "pull_request": {"url": "x"}},
                "comment": {"id": 901},
            }
        )
    )
    env = workflow_env(base_url, event, "issue_comment")
    proc = run_cli("signoff", "verify", "--format", "json", cwd=world.trusted, env=env)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)  # exactly one JSON object on stdout
    assert result["verdict"] == "pass" and result["pr"] == 7 and result["head-sha"] == head
    assert [c["id"] for c in result["checks"]][:3] == ["fresh", "codeowners", "checklist"]
    assert {s["author"]: s["valid"] for s in result["signoffs"]} == {"amd-a": True}
    assert "signoff: posted verdict comment" in proc.stderr
    comments = api(base_url, f"/repos/{REPO}/issues/7/comments")
    mine = [c for c in comments if c["user"]["login"] == BOT]
    assert len(mine) == 1 and "**Verdict: PASS**" in mine[0]["body"]
    statuses = api(base_url, f"/repos/{REPO}/commits/{head}/statuses")
    assert statuses[0]["state"] == "success" and statuses[0]["context"] == CONTEXT
    # a second run (a dispatch) edits the same comment
    again = run_cli("signoff", "verify", "--pr", "7", cwd=world.trusted, env=env)
    assert again.returncode == 0, again.stderr
    assert "PASS" in again.stdout and "updated verdict comment" in again.stderr
    assert (
        len(
            [
                c
                for c in api(base_url, f"/repos/{REPO}/issues/7/comments")
                if c["user"]["login"] == BOT
            ]
        )
        == 1
    )


def test_verify_of_a_pull_request_that_does_not_exist_is_a_usage_error(
    served: tuple[World, str, str], tmp_path: Path
) -> None:
    world, base_url, _ = served
    event = tmp_path / "event.json"
    event.write_text("{}")
    env = workflow_env(base_url, event, "workflow_dispatch")
    proc = run_cli("signoff", "verify", "--pr", "99", cwd=world.trusted, env=env)
    assert proc.returncode == 2, proc.stderr
    assert f"error: pull request #99 not found in {REPO}" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_plain_issue_comment_is_skipped_with_no_request(
    served: tuple[World, str, str], tmp_path: Path
) -> None:
    world, base_url, _ = served
    event = tmp_path / "event.json"
    event.write_text(
        json.dumps({"action": "created", "issue": {"number": 3}, "comment": {"id": 1}})
    )
    env = {**workflow_env(base_url, event, "issue_comment"), "GH_TOKEN": ""}  # not even needed
    proc = run_cli("signoff", "verify", "--format", "json", cwd=world.trusted, env=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {
        "verdict": "skipped",
        "reason": "a comment on an issue, not a pull request",
    }


def test_usage_errors_exit_2(served: tuple[World, str, str], tmp_path: Path) -> None:
    world, base_url, _ = served
    event = tmp_path / "event.json"
    event.write_text("{}")
    env = workflow_env(base_url, event, "push")
    usage = run_cli("signoff", "verify", cwd=world.trusted, env=env)
    assert usage.returncode == 2 and "pass --pr N" in usage.stderr
    bad_now = run_cli(
        "signoff", "verify", "--pr", "7", "--now", "yesterday", cwd=world.trusted, env=env
    )
    assert bad_now.returncode == 2 and "ISO 8601" in bad_now.stderr
