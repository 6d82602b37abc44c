"""The `resolve` command (commands/resolve.py): option combinations it refuses."""

from __future__ import annotations

from pathlib import Path

from tests.checkdata import (
    three_side_args,
)
from tests.conftest import run_cli

# -- hostile and odd inputs to the ledger commands ---------------------------------------------


def test_resolve_to_stdout_refuses_github_annotations_that_would_mix_into_the_file(
    tmp_path: Path,
) -> None:
    proc = run_cli("resolve", *three_side_args(tmp_path), "-o", "-", "--format", "github")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "--output - and --format github both want stdout" in proc.stderr


def test_resolve_add_with_output_is_refused_instead_of_silently_not_staging(
    tmp_path: Path,
) -> None:
    proc = run_cli("resolve", "--add", "-o", "out.yaml", cwd=tmp_path)
    assert proc.returncode == 2
    assert "--add stages the conflicted file itself" in proc.stderr
    assert not (tmp_path / "out.yaml").exists()
