"""Atomic file writes: the ledger is either fully old or fully new, never half-written."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from changelog_tools.errors import DataError, UsageError


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory and a rename.

    The file keeps its permission bits. On any failure the original file is untouched and the
    temporary file is removed; an OS error (missing directory, disk full, ...) is raised as a
    one-line :class:`UsageError`.
    """
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise UsageError(f"{path}: is a directory, not a file")
    try:
        mode: int | None = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = None
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
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(exc, OSError):  # disk full, quota, ...: the original file is untouched
            raise UsageError(f"{path}: cannot write: {exc.strerror or exc}") from None
        raise


class TooLarge(DataError):
    """An input file is larger than ``max-file-size``; it was not read."""

    def __init__(self, label: str, size: int, limit: int) -> None:
        self.size = size
        self.limit = limit
        super().__init__(
            f"{label}: file is {size:,} bytes; the limit is {limit:,} (`max-file-size`)"
        )


def read_input(path: Path | str, shown: str | None = None, *, max_size: int | None = None) -> bytes:
    """Bytes of an input file; a missing or unreadable file is a usage error, not a traceback.

    With ``max_size``, a larger file raises :class:`TooLarge` before any of it is read (a
    multi-gigabyte file would otherwise be loaded whole just to be rejected).
    """
    label = shown or str(path)
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if max_size is not None and size > max_size:
                raise TooLarge(label, size, max_size)
            return handle.read()
    except FileNotFoundError:
        raise UsageError(f"{label}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{label}: is a directory, not a file") from None
    except OSError as exc:
        raise UsageError(f"{label}: cannot read: {exc.strerror}") from None
