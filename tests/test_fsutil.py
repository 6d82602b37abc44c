"""fsutil: the writers' lock, atomic writes, bounded reads, and non-regular files."""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from changelog_tools import fsutil
from changelog_tools.errors import UsageError
from tests.checkdata import (
    BASE,
    KEY,
    PULL,
    appended,
    entry,
    no_crash,
    project,
    three_side_args,
)
from tests.conftest import run_cli

# -- the writers' lock: stale locks and take-overs ---------------------------------------------


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


# -- inputs and outputs that are not regular files ---------------------------------------------


def test_an_endless_device_is_stopped_at_the_size_limit(tmp_path: Path) -> None:
    (tmp_path / ".changelog-tools.yaml").write_text("max-file-size: 1000\n")
    proc = run_cli("validate", "/dev/zero", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[0] == (
        "/dev/zero: CL006 input is more than 1,000 bytes; the limit is 1,000 (`max-file-size`)"
    )


def test_a_pipe_larger_than_the_limit_is_refused(tmp_path: Path) -> None:
    (tmp_path / ".changelog-tools.yaml").write_text("max-file-size: 1000\n")
    proc = run_cli("validate", "/dev/stdin", cwd=tmp_path, input=(BASE * 20).decode())
    assert proc.returncode == 1
    assert "CL006 input is more than 1,000 bytes" in proc.stdout
    small = run_cli("validate", "/dev/stdin", cwd=tmp_path, input=BASE.decode())
    assert small.returncode == 0, small.stdout


def _three_sides(tmp_path: Path) -> list[str]:
    project(tmp_path, appended(entry(KEY)))
    (tmp_path / "main.yaml").write_bytes(appended(entry("beta-fp4-gpu-b-trt", link=f"{PULL}5")))
    return ["resolve", "--base-file", "base.yaml", "--pr-file", "head.yaml",
            "--main-file", "main.yaml"]  # fmt: skip


def test_resolve_refuses_to_replace_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    proc = run_cli(*_three_sides(tmp_path), "-o", str(fifo), cwd=tmp_path)
    no_crash(proc)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        f"error: {fifo}: is not a regular file (a pipe, device or socket); write to a regular "
        "file, or to `-` for stdout where the command offers it"
    ]
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".out")) == []


def test_a_symlinked_changelog_is_written_through_to_its_target(tmp_path: Path) -> None:
    head = appended(entry(KEY))
    project(tmp_path, head)
    real = tmp_path / "data" / "perf-changelog.yaml"
    real.parent.mkdir()
    real.write_bytes(head)
    real.chmod(0o640)
    (tmp_path / "perf-changelog.yaml").symlink_to("data/perf-changelog.yaml")
    proc = run_cli("canonicalize", "--pr", "5", "--base-file", "base.yaml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    link = tmp_path / "perf-changelog.yaml"
    assert link.is_symlink() and os.readlink(link) == "data/perf-changelog.yaml"
    assert real.read_bytes() == appended(entry(KEY, link=f"{PULL}5"))
    assert stat.S_IMODE(real.stat().st_mode) == 0o640


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
def test_a_new_output_gets_the_umask_mode(tmp_path: Path, umask: int, mode: int) -> None:
    args = _three_sides(tmp_path)
    exe = Path(sys.executable).parent / "changelog-tools"
    proc = subprocess.run(
        ["sh", "-c", f'umask {umask:03o}; exec "$0" "$@"', str(exe), *args, "-o", "new.yaml"],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert stat.S_IMODE((tmp_path / "new.yaml").stat().st_mode) == mode


# -- writes: an OS error is one line, never a half-written file; sizes -------------------------


def test_resolve_into_a_missing_directory_is_a_one_line_usage_error(tmp_path: Path) -> None:
    proc = run_cli("resolve", *three_side_args(tmp_path), "-o", str(tmp_path / "no" / "out.yaml"))
    no_crash(proc)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        f"error: {tmp_path / 'no' / 'out.yaml'}: cannot write: No such file or directory"
    ]


def test_resolve_onto_a_directory_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    proc = run_cli("resolve", *three_side_args(tmp_path), "-o", str(tmp_path / "out"))
    no_crash(proc)
    assert proc.returncode == 2
    assert "is a directory, not a file" in proc.stderr


def test_a_failed_atomic_write_keeps_the_old_file_and_leaves_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "perf-changelog.yaml"
    target.write_bytes(BASE)

    def disk_full(src: str, dst: str) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "replace", disk_full)
    with pytest.raises(UsageError, match="cannot write: No space left on device"):
        fsutil.atomic_write(target, b"new bytes\n")
    assert target.read_bytes() == BASE
    assert sorted(p.name for p in tmp_path.iterdir()) == ["perf-changelog.yaml"]


def test_read_input_refuses_an_oversized_file_before_reading_it(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    with path.open("wb") as handle:  # sparse: 2 GiB on paper, nothing on disk
        handle.truncate(2 << 30)
    with pytest.raises(fsutil.TooLarge) as caught:
        fsutil.read_input(path, "big.yaml", max_size=1 << 20)
    assert caught.value.size == 2 << 30
    assert caught.value.exit_code == 1


@pytest.mark.parametrize("sync", [True, False])
def test_atomic_write_syncs_to_disk_unless_told_not_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sync: bool
) -> None:
    synced: list[int] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    target = tmp_path / "out.yaml"
    target.write_bytes(b"old\n")
    target.chmod(0o640)
    fsutil.atomic_write(target, b"new\n", sync=sync)
    assert target.read_bytes() == b"new\n"
    assert target.stat().st_mode & 0o777 == 0o640  # the file's mode is kept either way
    assert len(synced) == (1 if sync else 0)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.yaml"]


def test_read_regular_file_reads_only_a_regular_file_within_the_limit(tmp_path: Path) -> None:
    small = tmp_path / "small"
    small.write_bytes(b"abc")
    big = tmp_path / "big"
    big.write_bytes(b"x" * 11)
    link = tmp_path / "link"
    link.symlink_to(small)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert fsutil.read_regular_file(small, max_size=10) == b"abc"
    assert fsutil.read_regular_file(big, max_size=10) is None
    assert fsutil.read_regular_file(big, max_size=11) == b"x" * 11
    # A link is not followed even to a regular file; a pipe is not opened for reading (which
    # would wait for a writer); a device, a directory and a missing file are no file either.
    assert fsutil.read_regular_file(link, max_size=10) is None
    assert fsutil.read_regular_file(fifo, max_size=10) is None
    assert fsutil.read_regular_file("/dev/zero", max_size=10) is None
    assert fsutil.read_regular_file(tmp_path, max_size=10) is None
    assert fsutil.read_regular_file(tmp_path / "missing", max_size=10) is None
