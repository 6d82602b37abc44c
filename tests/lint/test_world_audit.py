"""`lint --all` on the self-written world: the twin of the real snapshot audit."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_cli
from tests.lint.world import found, lint_change, make_world


def test_the_clean_world_audits_to_the_one_latent_spec_warning(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    result = lint_change(root, audit=True)
    assert found(result) == [("CL721", "runners/launch_h200-nb.sh", 3)]
    status = {o.rule: o.applicable for o in result.outcomes}
    assert status == {
        "master-schema": True,
        "chat-template": True,
        "spec-launchers": True,
        "config-script": True,
        "engine-patches": True,
        "arch-overrides": True,
        "images": True,
        "engine-first": False,  # every entry is vLLM
        "models": True,
        "golden-al": True,
    }


def test_the_audit_from_the_installed_cli_prints_one_line_and_a_summary(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    proc = run_cli("lint", "--all", "--now", "2026-08-22", cwd=root)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith(
        "runners/launch_h200-nb.sh:3: CL721 warning spec-decoding 'draft_model'"
    )
    assert lines[1].startswith("    hint: map 'draft_model' to its script suffix")
    assert lines[-1].endswith("whole tree: 1 problem (0 errors, 1 warning)")
    assert "lint: HEAD (" in proc.stderr  # what was linted, on stderr
