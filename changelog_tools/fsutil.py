"""Reading inputs within a size limit and writing outputs atomically.

The ledger is either fully old or fully new, never half-written; an input is never read past
its limit, whether it is a regular file, a pipe or a device.
"""

from __future__ import annotations

import contextlib
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path

from changelog_tools.errors import DataError, UsageError

_CHUNK = 1 << 20


def _umask() -> int:
    # os.umask can only be read by setting it; restore it at once (single-threaded CLI).
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_target(path: Path) -> Path:
    """The file a write to ``path`` must replace: a symlink's final target, never the link.

    Raises :class:`UsageError` for anything that is not a regular file (a directory, FIFO,
    device or socket): renaming a regular file over a device node or a pipe would destroy it
    (as root, `-o /dev/null` would replace the device).
    """
    path = Path(path)
    if path.is_symlink():
        # Replace the target, so the link (and what else points at the target) stays as it was.
        path = Path(os.path.realpath(path))
    try:
        st = path.stat()
    except FileNotFoundError:
        return path
    except OSError as exc:
        raise UsageError(f"{path}: cannot write: {exc.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        raise UsageError(f"{path}: is a directory, not a file")
    if not stat.S_ISREG(st.st_mode):
        raise UsageError(
            f"{path}: is not a regular file (a pipe, device or socket); "
            "write to a regular file, or to `-` for stdout where the command offers it"
        )
    return path


def atomic_write(path: Path, data: bytes, *, sync: bool = True) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory and a rename.

    An existing file keeps its permission bits; a new file gets the mode the umask gives
    (0644 typically, not mkstemp's 0600). A symlink is written through: its target is replaced
    and the link stays. Non-regular outputs are refused (:func:`write_target`). On any failure
    the original file is untouched and the temporary file is removed; an OS error (missing
    directory, disk full, ...) is raised as a one-line :class:`UsageError`. ``sync=False``
    leaves out the flush to disk, for a file whose reader takes it at once and keeps it durably
    itself (git reading a merge driver's result): the rename still shows readers the old bytes
    or the new.
    """
    path = write_target(Path(path))
    directory = path.parent if str(path.parent) else Path(".")
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    except OSError as exc:
        raise UsageError(f"{path}: cannot write: {exc.strerror}") from None
    try:
        import tempfile  # writers only; a read-only command never needs it

        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        # A missing or read-only directory: a clear one-line error, not a traceback.
        raise UsageError(f"{path}: cannot write: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if sync:
                os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(exc, OSError):  # disk full, quota, ...: the original file is untouched
            raise UsageError(f"{path}: cannot write: {exc.strerror or exc}") from None
        raise


# How long a writer waits for another to finish before giving up: several `new` runs at once
# each take well under a second.
LOCK_WAIT = 15.0
_LOCK_POLL = 0.05


def _lock_owner(lock: Path) -> tuple[str, int] | None:
    """(host, pid) written in a lock file, or None when it cannot be read."""
    try:
        host, _, pid = lock.read_text(encoding="utf-8").strip().rpartition(" ")
        return host, int(pid)
    except (OSError, ValueError, UnicodeDecodeError):
        return None


def _stale(lock: Path) -> bool:
    """True when the lock's owner was a process on this host that no longer exists."""
    owner = _lock_owner(lock)
    if owner is None or owner[0] != os.uname().nodename:
        return False
    try:
        os.kill(owner[1], 0)
    except ProcessLookupError:
        return True
    except OSError:  # it exists under another user
        return False
    return False


def _take_over(lock: Path, dead: tuple[str, int]) -> bool:
    """Remove ``lock`` if it is still the one ``dead`` left; True when the caller may retry.

    An unlink acting on an earlier judgment could remove the fresh lock of another writer that
    took the stale one over in between (both then hold the file: review finding). The lock is
    renamed aside first, which moves exactly one file, and what was moved is checked; a live
    writer's lock is linked back (``link`` never replaces a lock made meanwhile).
    """
    aside = lock.with_name(f"{lock.name}.{os.getpid()}.stale")
    try:
        os.rename(lock, aside)
    except FileNotFoundError:
        return True  # another writer removed it: try to create ours
    except OSError:
        return False
    if _lock_owner(aside) == dead:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(aside)
        return True
    try:
        os.link(aside, lock)
    except FileExistsError:
        pass
    except OSError:  # no hard links here: put it back unless a lock was made meanwhile
        if not os.path.lexists(lock):
            with contextlib.suppress(OSError):
                os.rename(aside, lock)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(aside)
    return False


@contextlib.contextmanager
def locked(path: Path, *, wait: float = LOCK_WAIT) -> Iterator[Path]:
    """Hold the changelog at ``path`` for one read-modify-write; yield the file to write.

    Two writers that both read the old file and both rename a new one over it lose one
    entry, each reporting success. A writer therefore creates ``<file>.lock`` beside the
    file it replaces (``O_EXCL``, as git does for its index) before it reads, and removes it
    after its rename; another writer waits for it (up to ``wait`` seconds). A lock left by a
    process of this host that has died is taken over. The file must be a regular file or
    missing: a FIFO is refused here, before an ``open`` that would block forever.
    """
    target = write_target(Path(path))
    lock = target.with_name(target.name + ".lock")
    deadline = time.monotonic() + wait
    while True:
        try:
            fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            break
        except FileExistsError:
            owner = _lock_owner(lock)
            if owner is not None and _stale(lock) and _take_over(lock, owner):
                continue
            if time.monotonic() >= deadline:
                owner = _lock_owner(lock)
                who = f" (process {owner[1]} on {owner[0]})" if owner else ""
                raise UsageError(
                    f"{target}: another writer holds {lock.name}{who}; nothing was written. "
                    f"If no changelog-tools run is going on, remove {lock}"
                ) from None
            time.sleep(_LOCK_POLL)
        except OSError as exc:
            raise UsageError(f"{target}: cannot write: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(f"{os.uname().nodename} {os.getpid()}\n")
        yield target
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(lock)


def _refuse_named_pipe(path: Path | str, label: str) -> None:
    """Refuse a named pipe (FIFO) on the file system, as the writers do: opening one waits for
    a writer, forever when there is none. A pipe the shell hands over (`<(git show ...)`,
    `/dev/stdin`) is a symbolic link to an open pipe and is read as usual."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return  # missing or unreadable: `open` says which, in the reader's one line
    if stat.S_ISFIFO(mode):
        raise UsageError(
            f"{label}: is a named pipe (FIFO), not a file; pipe its contents to `-` instead"
        )


class TooLarge(DataError):
    """An input is larger than ``max-file-size``; it was not read (past the limit)."""

    def __init__(self, label: str, size: int, limit: int, *, exact: bool = True) -> None:
        self.size = size
        self.limit = limit
        what = f"file is {size:,} bytes" if exact else f"input is more than {limit:,} bytes"
        super().__init__(f"{label}: {what}; the limit is {limit:,} (`max-file-size`)")


def read_input(path: Path | str, shown: str | None = None, *, max_size: int | None = None) -> bytes:
    """Bytes of an input file; a missing or unreadable file is a usage error, not a traceback.

    With ``max_size``, a regular file larger than that raises :class:`TooLarge` before any of
    it is read, and any other input (a pipe, a device such as /dev/zero, a file that grows
    while read) is read in chunks and stopped one byte past the limit.
    """
    label = shown or ("<stdin>" if str(path) == "-" else str(path))
    # `-` is standard input (a pipe, a file, a terminal), read with the same limit.
    source: Path | str | int = 0 if str(path) == "-" else path
    if str(path) != "-":
        _refuse_named_pipe(path, label)
    try:
        with open(source, "rb", closefd=source != 0) as handle:
            st = os.fstat(handle.fileno())
            if stat.S_ISDIR(st.st_mode):
                raise IsADirectoryError
            if max_size is None:
                return handle.read()
            if stat.S_ISREG(st.st_mode) and st.st_size > max_size:
                raise TooLarge(label, st.st_size, max_size)
            chunks: list[bytes] = []
            total = 0
            while True:
                chunk = handle.read(min(_CHUNK, max_size + 1 - total))
                if not chunk:
                    return b"".join(chunks)
                chunks.append(chunk)
                total += len(chunk)
                if total > max_size:
                    raise TooLarge(label, total, max_size, exact=False)
    except FileNotFoundError:
        raise UsageError(f"{label}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{label}: is a directory, not a file") from None
    except OSError as exc:
        raise UsageError(f"{label}: cannot read: {exc.strerror}") from None


def read_regular_file(path: Path | str, *, max_size: int) -> bytes | None:
    """Bytes of ``path`` when it is a regular file of at most ``max_size`` bytes, else None.

    For a copy a caller may do without (git holds the same bytes): a symbolic link, a pipe, a
    device, a directory, a missing or unreadable file and a file over the limit all give None,
    without following the link or blocking on the open, and never more than ``max_size + 1``
    bytes are read (the file may grow between the size check and the read).
    """
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        # Checked again on what was opened: the path may have been swapped since the lstat.
        if not stat.S_ISREG(st.st_mode) or st.st_size > max_size:
            return None
        chunks: list[bytes] = []
        total = 0
        while total <= max_size:
            chunk = os.read(fd, min(_CHUNK, max_size + 1 - total))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            total += len(chunk)
        return None
    except OSError:
        return None
    finally:
        os.close(fd)
