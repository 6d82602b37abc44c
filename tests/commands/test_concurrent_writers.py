"""Writers of the changelog against each other and against files that are not files.

`new`, `canonicalize` and `resolve -o` read the changelog, build the new bytes and rename them
over it. Two such runs at once would each read the old file and the second rename would drop
the first run's entry while both report success; the lock beside the file serializes them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import changelog_tools
from changelog_tools.errors import UsageError
from changelog_tools.fsutil import locked
from tests.conftest import git, run_cli

EXAMPLE = Path(changelog_tools.__file__).parent / "examples" / "inferencex-mini"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "bench"
    shutil.copytree(EXAMPLE, root)
    git(root, "init", "-q", "-b", "main")
    return root


def test_eight_new_runs_at_once_append_eight_entries(repo: Path) -> None:
    exe = shutil.which("changelog-tools", path=str(Path(sys.executable).parent))
    assert exe is not None
    runs = [
        subprocess.Popen(
            [
                exe,
                "new",
                "--config-key",
                "llama70b-fp8-gpu-a-vllm",
                "--scenario-type",
                "fixed-seq-len",
                "--description",
                f"run {i}",
            ],
            cwd=repo,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(8)
    ]
    results = [run.communicate(timeout=120) for run in runs]
    assert [run.returncode for run in runs] == [0] * 8, results
    text = (repo / "perf-changelog.yaml").read_text()
    assert sorted(line for line in text.splitlines() if '"run ' in line) == [
        f'    - "run {i}"' for i in range(8)
    ]
    assert not (repo / "perf-changelog.yaml.lock").exists()
    assert run_cli("validate", cwd=repo).returncode == 0


@pytest.mark.parametrize(
    "argv",
    [
        (
            "new",
            "--config-key",
            "llama70b-fp8-gpu-a-vllm",
            "--scenario-type",
            "fixed-seq-len",
            "--description",
            "x",
        ),
        ("canonicalize", "--pr", "5", "--base-file", "base.yaml", "perf-changelog.yaml"),
    ],
)
def test_a_fifo_changelog_is_refused_not_waited_on(repo: Path, argv: tuple[str, ...]) -> None:
    (repo / "base.yaml").write_bytes((repo / "perf-changelog.yaml").read_bytes())
    (repo / "perf-changelog.yaml").unlink()
    os.mkfifo(repo / "perf-changelog.yaml")
    exe = shutil.which("changelog-tools", path=str(Path(sys.executable).parent))
    assert exe is not None
    # A blocked open() would outlive the timeout and fail the test.
    proc = subprocess.run([exe, *argv], cwd=repo, capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2, proc.stderr
    assert "not a regular file" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_lock_held_by_a_live_writer_is_waited_for_then_refused(tmp_path: Path) -> None:
    changelog = tmp_path / "perf-changelog.yaml"
    changelog.write_text("- a: 1\n")
    lock = tmp_path / "perf-changelog.yaml.lock"
    lock.write_text(f"{os.uname().nodename} {os.getpid()}\n")  # this process: alive
    with pytest.raises(UsageError) as caught, locked(changelog, wait=0.2):
        pytest.fail("the lock was taken although its owner is alive")
    assert f"process {os.getpid()}" in str(caught.value)
    assert "nothing was written" in str(caught.value)
    assert lock.exists()  # someone else's lock is never removed


def test_a_lock_left_by_a_dead_process_of_this_host_is_taken_over(tmp_path: Path) -> None:
    changelog = tmp_path / "perf-changelog.yaml"
    changelog.write_text("- a: 1\n")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    lock = tmp_path / "perf-changelog.yaml.lock"
    lock.write_text(f"{os.uname().nodename} {dead.stdout.strip()}\n")
    with locked(changelog, wait=0.2) as target:
        assert target == changelog
        assert lock.read_text().split() == [os.uname().nodename, str(os.getpid())]
    assert not lock.exists()


def test_a_lock_on_another_host_is_not_taken_over(tmp_path: Path) -> None:
    changelog = tmp_path / "perf-changelog.yaml"
    (tmp_path / "perf-changelog.yaml.lock").write_text("elsewhere.invalid 1\n")
    with pytest.raises(UsageError), locked(changelog, wait=0.1):
        pytest.fail("a lock of another host was taken over")
