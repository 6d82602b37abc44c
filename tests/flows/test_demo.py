"""`changelog-tools demo` runs the whole story with the real commands and leaves nothing behind."""

from __future__ import annotations

import threading
from pathlib import Path

from changelog_tools.flows.demo import run_demo
from tests.conftest import run_cli

LINK = "https://github.com/example-org/inferencex-mini/pull/"


def test_the_demo_walks_every_step_with_the_expected_exit_codes_and_cleans_up(
    tmp_path: Path,
) -> None:
    lines: list[str] = []
    threads = set(threading.enumerate())

    result = run_demo(say=lines.append, workdir=tmp_path)

    assert [(s.argv[0], s.exit_code) for s in result.steps] == [
        ("check", 1),
        ("check", 0),
        ("merge", 0),
        ("merge", 0),
        ("merge", 0),
        ("reuse-gate", 0),
    ]
    assert "CL201" in result.steps[0].stdout  # the wrong pr-link, flagged by the real check
    assert "dry run: nothing was posted, pushed or merged" in result.steps[2].stdout
    assert "perf-changelog.yaml conflict resolved" in result.steps[4].stderr
    assert result.reuse["reuse-enabled"] == "true"
    assert result.reuse["reuse-source-pr-number"] == "2"
    assert result.final_changelog.endswith(
        b"  pr-link: " + LINK.encode() + b"1\n\n"
        b"- config-keys:\n    - mixtral-fp4-gpu-b-trt\n  description:\n"
        b'    - "Upgrade the gpu-b TensorRT image to 1.3.0"\n'
        b"  pr-link: " + LINK.encode() + b"2\n"
    )
    assert result.ok and result.workdir is None
    assert list(tmp_path.iterdir()) == []  # the throwaway repositories are gone
    assert set(threading.enumerate()) <= threads  # the fake GitHub and the CI thread stopped
    assert any(line.startswith("fake GitHub for example-org/inferencex-mini") for line in lines)


def test_the_installed_demo_command_succeeds_and_keeps_the_repositories_when_asked(
    tmp_path: Path,
) -> None:
    proc = run_cli("demo", "--keep", "--workdir", str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "6 commands, all as expected" in proc.stdout
    kept = [p for p in tmp_path.iterdir()]
    assert len(kept) == 1 and f"kept the repositories in {kept[0]}" in proc.stdout
    assert (
        (kept[0] / "maintainer" / "perf-changelog.yaml")
        .read_bytes()
        .endswith(b"  pr-link: " + LINK.encode() + b"2\n")
    )
