"""Atomic file writes: the ledger is either fully old or fully new, never half-written."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from changelog_tools.errors import UsageError


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory and a rename.

    The file keeps its permission bits. On any failure the original file is untouched and the
    temporary file is removed.
    """
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    try:
        mode: int | None = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = None
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def read_input(path: Path | str, shown: str | None = None) -> bytes:
    """Bytes of an input file; a missing or unreadable file is a usage error, not a traceback."""
    label = shown or str(path)
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise UsageError(f"{label}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{label}: is a directory, not a file") from None
    except OSError as exc:
        raise UsageError(f"{label}: cannot read: {exc.strerror}") from None
