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


@pytest.mark.parametrize(
    "args",
    [
        ("check", "--pr", "7", "--base-ref"),
        ("check", "--pr", "7", "--head-ref"),
        ("lint", "--base-ref"),
        ("lint", "--head-ref"),
        ("lint", "--all", "--base-ref"),
        ("fix", "--dry-run", "--base-ref"),
        ("canonicalize", "--pr", "7", "--check", "--base-ref"),
        ("keys", "alpha*", "--ref"),
    ],
)
def test_an_empty_revision_is_refused_by_every_command(repo: Path, args: tuple[str, ...]) -> None:
    """`--base-ref "$UNSET"` names no revision: taken for "not given", `lint` and `fix` compared
    with the default base and passed. Every revision option refuses it alike, writing nothing."""
    before = (repo / "perf-changelog.yaml").read_bytes()
    proc = run_cli(*args, "", cwd=repo)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.splitlines() == [
        f"error: unknown revision '' given to {args[-1]}",
        "hint: name a branch, tag or commit, or leave the option out for its default",
    ]
    assert proc.stdout == ""
    assert (repo / "perf-changelog.yaml").read_bytes() == before
