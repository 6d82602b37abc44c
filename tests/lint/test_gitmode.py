"""lint in git mode (lint/gitmode.py): the trusted options come from the base revision."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_cli

# -- check and lint judge by the configuration the base revision uses --------------------------


def test_lint_reads_the_base_pyproject_when_the_pr_adds_a_yaml_config(tmp_path: Path) -> None:
    # The same finding in lint's trusted options: the base's pyproject.toml turns
    # engine-patches off; a PR that adds .changelog-tools.yaml was linted by the defaults
    # (here stricter; with a base that turns a rule to `error`, looser), never by the base.
    from tests.lint.test_patches import APPLY, SCRIPT
    from tests.lint.world import change, make_world

    root = make_world(
        tmp_path / "r",
        {"pyproject.toml": '[tool.changelog-tools]\nlint-rules = {engine-patches = "off"}\n'},
    )
    change(root, {SCRIPT: APPLY, ".changelog-tools.yaml": "lint-rules: {}\n"})
    proc = run_cli("lint", "--base-ref", "main", "--pr", "7", "--rule", "engine-patches", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_lint_reads_the_base_config_when_the_pr_deletes_it(tmp_path: Path) -> None:
    from tests.lint.test_patches import APPLY, SCRIPT
    from tests.lint.world import change, make_world

    root = make_world(
        tmp_path / "r", {".changelog-tools.yaml": "lint-rules: {engine-patches: warning}\n"}
    )
    change(root, {SCRIPT: APPLY, ".changelog-tools.yaml": None})
    proc = run_cli("lint", "--base-ref", "main", "--pr", "7", "--rule", "engine-patches", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "CL740 warning" in proc.stdout or "warning" in proc.stdout
