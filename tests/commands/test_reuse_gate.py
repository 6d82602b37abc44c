"""The `reuse-gate` command (commands/reuse_gate.py): its step files and errors."""

from __future__ import annotations

from pathlib import Path

from changelog_tools.testing.fakegithub import FakeGitHub
from tests.conftest import run_cli
from tests.fakegithub_fixtures import (
    REPO,
    gate_env,
)

# -- hostile and failing GitHub-side situations ------------------------------------------------


def test_an_unwritable_github_output_is_a_one_line_error_with_exit_2(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    fake.add_pull(7, "feature")
    env = gate_env(fake, tmp_path, GITHUB_OUTPUT=str(tmp_path))  # a directory
    proc = run_cli("reuse-gate", cwd=tmp_path, env=env)
    assert proc.returncode == 2, proc.stderr
    assert "internal error" not in proc.stderr and proc.stdout == ""
    assert f"error: cannot write the step outputs to {tmp_path}: Is a directory" in proc.stderr


def test_an_unwritable_step_summary_never_hides_the_error_it_was_reporting(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    fake.fail("GET", r"/issues/7/comments$", 500, times=None, message="boom")
    env = gate_env(fake, tmp_path, GITHUB_STEP_SUMMARY=str(tmp_path))
    proc = run_cli("reuse-gate", cwd=tmp_path, env=env)
    assert proc.returncode == 3, proc.stderr
    assert "internal error" not in proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        f"error: GitHub API GET /repos/{REPO}/issues/7/comments failed after 1 attempt: "
        "HTTP 500 (boom)"
    )
