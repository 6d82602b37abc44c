"""commands/_common.py: the shared click parameter types."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.checkdata import (
    KEY,
    appended,
    entry,
    project,
)
from tests.conftest import run_cli

# -- hostile input, pinned through the installed CLI -------------------------------------------


@pytest.mark.parametrize("value", ["٥", "５", "1_0", " 5", "0"])
def test_pr_options_take_ascii_digits_only(tmp_path: Path, value: str) -> None:
    project(tmp_path, appended(entry(KEY)))
    proc = run_cli("check", "--pr", value, "--base-file", "base.yaml", "--head-file", "head.yaml",
                   cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 2
    assert "is not a pull-request number (ASCII digits 0-9, at least 1)" in proc.stderr
