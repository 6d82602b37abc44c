"""The shipped workflow's lint step, run as GitHub Actions would run it."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.conftest import REPO_ROOT, git
from tests.lint.world import MTP_SCRIPT, change, make_world

MTP = "benchmarks/single_node/fixed_seq_len/alpha_fp8_h200_mtp.sh"
STEP = "Lint recipes and master configs (annotations)"


def _run(root: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The lint job's two steps as the runner runs them: the range step's script, then the
    composite action with its output (tests/actionrunner.py)."""
    from tests.actionrunner import find_step, load_steps, run_step

    steps = load_steps(REPO_ROOT / ".github/workflows/check-changelog.yml", "lint")
    full = {**os.environ, **env}
    output = root.parent / "range-output"
    output.write_text("")
    script = find_step(steps, "Choose what to lint")["run"]
    subprocess.run(["bash", "-e", "-c", script], cwd=root, check=True,
                   env={**full, "GITHUB_OUTPUT": str(output)})  # fmt: skip
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines())
    context = {
        "github": {"event": {"pull_request": {"number": env.get("PR_NUMBER", "")}}},
        "steps": {"range": {"outputs": outputs}},
    }
    result = run_step(find_step(steps, STEP), cwd=root, context=context, env=full)
    return subprocess.CompletedProcess([], result.returncode, result.stdout, result.stderr)


def test_the_lint_step_annotates_a_pull_request_at_the_line(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    head = change(root, {MTP: MTP_SCRIPT.replace("    --use-chat-template \\\n", "")})
    git(root, "checkout", "-q", "main")  # Actions checks out another commit; the event decides
    event = tmp_path / "event.json"
    event.write_text(
        json.dumps({"number": 7, "pull_request": {"number": 7, "head": {"sha": head}}})
    )
    proc = _run(root, {"PR_NUMBER": "7", "GITHUB_EVENT_NAME": "pull_request",
                       "GITHUB_EVENT_PATH": str(event)})  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith(f"::error file={MTP},line=4,title=CL710::")


def test_the_lint_step_on_a_push_lints_the_pushed_range(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    before = git(root, "rev-parse", "HEAD")
    change(root, {MTP: MTP_SCRIPT.replace("    --use-chat-template \\\n", "")})
    proc = _run(root, {"BEFORE": before, "GITHUB_EVENT_NAME": "push"})
    assert proc.returncode == 1
    assert f"file={MTP},line=4" in proc.stdout
    zero = _run(root, {"BEFORE": "0" * 40, "GITHUB_EVENT_NAME": "push"})
    assert "whole tree" in zero.stdout.splitlines()[-1]
