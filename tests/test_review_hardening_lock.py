"""Review findings: the writers' lock (`<changelog>.lock`, fsutil.locked)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from changelog_tools import fsutil
from changelog_tools.errors import UsageError


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_stale_lock_taken_over_by_another_writer_meanwhile_is_not_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two writers find the same dead owner's lock. The other one takes it over first (removes
    # it, creates its own); this one, acting on its earlier judgment, removed the live writer's
    # fresh lock and created one too: both held the changelog, one entry lost.
    changelog = tmp_path / "perf-changelog.yaml"
    changelog.write_text("[]\n")
    lock = tmp_path / "perf-changelog.yaml.lock"
    host = os.uname().nodename
    lock.write_text(f"{host} {_dead_pid()}\n")
    live = f"{host} {os.getppid()}\n"  # a live process of this host: the other writer
    real = fsutil._stale
    calls = []

    def racing(path: Path) -> bool:
        judged = real(path)
        if judged and not calls:  # between this writer's judgment and its removal
            calls.append(1)
            os.unlink(path)
            path.write_text(live)
        return judged

    monkeypatch.setattr(fsutil, "_stale", racing)
    with (
        pytest.raises(UsageError, match="another writer holds"),
        fsutil.locked(changelog, wait=0.2),
    ):
        pass
    assert lock.read_text() == live  # the live writer's lock is where it was
    assert sorted(p.name for p in tmp_path.iterdir()) == [changelog.name, lock.name]


def test_a_dead_owners_lock_is_still_taken_over(tmp_path: Path) -> None:
    changelog = tmp_path / "perf-changelog.yaml"
    changelog.write_text("[]\n")
    lock = tmp_path / "perf-changelog.yaml.lock"
    lock.write_text(f"{os.uname().nodename} {_dead_pid()}\n")
    with fsutil.locked(changelog, wait=0.2) as target:
        assert lock.read_text() == f"{os.uname().nodename} {os.getpid()}\n"
        assert target == changelog
    assert sorted(p.name for p in tmp_path.iterdir()) == [changelog.name]
