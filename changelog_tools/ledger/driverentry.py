"""The merge driver's own entry point: git runs it once per conflicting commit it replays.

git runs exactly ``python -m changelog_tools merge-driver --marker-size %L %O %A %B %P`` (the
command :func:`~changelog_tools.ledger.driverinstall.driver_command` installs). That one command
line is read here without loading click, which costs the driver a fifth of its start-up; any
other form (``--help``, ``--pr-side``, ``--config``, a typo) returns None and goes through the
full CLI, which behaves exactly as before.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def parse(argv: list[str]) -> tuple[int, list[str]] | None:
    """(marker size, [ancestor, current, other, path?]) when ``argv`` (after `merge-driver`)
    is the installed command's form; None for anything else."""
    if len(argv) not in (5, 6) or argv[0] != "--marker-size":
        return None
    size, *files = argv[1:]
    if not size.isascii() or not size.isdigit() or int(size) < 1:
        return None
    if any(not name or name.startswith("-") for name in files):
        return None
    return int(size), files


def run(argv: list[str]) -> int | None:
    """Run the driver for ``argv`` (after `merge-driver`); None when the full CLI must."""
    parsed = parse(argv)
    if parsed is None:
        return None
    marker_size, (ancestor, current, other, *rest) = parsed
    path = rest[0] if rest else ""

    def log(line: str) -> None:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()

    try:
        from changelog_tools.config import load_config
        from changelog_tools.gitrepo import open_repo
        from changelog_tools.ledger.mergedriver import run_merge_driver

        return run_merge_driver(
            ancestor=Path(ancestor),
            current=Path(current),
            other=Path(other),
            path=path or current,
            # git runs drivers at the top of the work tree and %P is relative to it: the
            # configuration is searched from the changelog's own directory (as `merge-driver`
            # does through the CLI).
            load_config=lambda: load_config(
                None, start=(Path.cwd() / path).parent if path else None
            ),
            given=None,
            marker_size=marker_size,
            environ=dict(os.environ),
            # git runs drivers at the top of the work tree: no process is needed to find it.
            open_repo=lambda: open_repo(Path.cwd(), top=True),
            log=log,
        )
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
