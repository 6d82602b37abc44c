"""The pre-commit hook: its manifest names a real command, matches the changelog's name, and
`validate` accepts the several paths pre-commit passes."""

from __future__ import annotations

import json
import re
from pathlib import Path

from changelog_tools import yamlload
from changelog_tools.cli import COMMANDS
from tests.conftest import REPO_ROOT, run_cli

GOOD = (REPO_ROOT / "changelog_tools/examples/inferencex-mini/perf-changelog.yaml").read_bytes()


def _hooks() -> list[dict[str, object]]:
    hooks: list[dict[str, object]] = yamlload.load(
        (REPO_ROOT / ".pre-commit-hooks.yaml").read_text()
    ).value
    return hooks


def test_the_hook_runs_validate_on_changelog_files() -> None:
    (hook,) = [h for h in _hooks() if h["id"] == "changelog-tools-validate"]
    program, command = str(hook["entry"]).split()
    assert program == "changelog-tools" and command in COMMANDS
    assert hook["language"] == "python"
    files = re.compile(str(hook["files"]))
    assert files.search("perf-changelog.yaml") and files.search("sub/perf-changelog.yaml")
    assert not files.search("configs/nvidia-master.yaml")


def test_validate_takes_several_paths_and_reports_each(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_bytes(GOOD)
    (tmp_path / "b.yaml").write_bytes(GOOD.replace(b"pr-link:", b"pr_link:", 1))
    proc = run_cli("validate", "a.yaml", "b.yaml", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert [(f["file"], f["ok"]) for f in doc["files"]] == [("a.yaml", True), ("b.yaml", False)]
    assert {d["path"] for d in doc["diagnostics"]} == {"b.yaml"}
    text = run_cli("validate", "a.yaml", "a.yaml", cwd=tmp_path)
    assert text.returncode == 0
    assert text.stdout == "validate: 2 files: OK\n"
