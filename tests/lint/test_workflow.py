"""The shipped workflow's lint step, run as GitHub Actions would run it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from changelog_tools import yamlload
from tests.conftest import REPO_ROOT, git
from tests.lint.world import MTP_SCRIPT, change, make_world

MTP = "benchmarks/single_node/fixed_seq_len/alpha_fp8_h200_mtp.sh"
STEP = "Lint recipes and master configs (annotations)"


def _step() -> str:
    text = (REPO_ROOT / ".github/workflows/check-changelog.yml").read_text()
    steps = yamlload.load(text).value["jobs"]["lint"]["steps"]
    script: str = next(s["run"] for s in steps if s.get("name") == STEP)
    return script


def _run(root: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            **env}  # fmt: skip
    return subprocess.run(
        ["bash", "-e", "-c", _step()], cwd=root, env=full, capture_output=True, text=True
    )


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
