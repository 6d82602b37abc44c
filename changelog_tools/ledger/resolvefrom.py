"""Where `resolve` reads a conflict from: three files, or git's index during a merge, rebase or
cherry-pick. Either way the result is one :class:`Resolved`; printing it is the command's job.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from changelog_tools.config import Config
from changelog_tools.errors import UsageError
from changelog_tools.fsutil import read_input
from changelog_tools.ledger.conflictrequest import ConflictRequest

if TYPE_CHECKING:
    from changelog_tools.ledger.mergedriver import Sides
    from changelog_tools.ledger.resolve import Resolution


@dataclass(frozen=True)
class Resolved:
    """A resolution, the changelog's path as reported, and (from the index) which side was
    the pull request."""

    resolution: Resolution
    shown: str
    sides: Sides | None = None


def from_files(
    base_file: Path,
    pr_file: Path,
    main_file: Path,
    *,
    config: Config,
    shown: str,
    pr: int | None = None,
    fix_near_misses: bool = False,
) -> Resolved:
    """Resolve the three versions read from files (an empty base file: no merge-base).

    Writes nothing; raises :class:`~changelog_tools.ledger.guard.Refusal` when it refuses.
    """
    from changelog_tools.ledger.resolve import resolve

    limit = config.max_file_size
    base = read_input(base_file, str(base_file), max_size=limit)
    resolution = resolve(
        base or None,
        read_input(pr_file, str(pr_file), max_size=limit),
        read_input(main_file, str(main_file), max_size=limit),
        config=config,
        pr=pr,
        path=shown,
        fix_near_misses=fix_near_misses,
    )
    return Resolved(resolution, shown)


def from_index(cwd: Path, target: Path, request: ConflictRequest) -> Resolved:
    """Resolve the conflicted ``target`` of the repository around ``cwd`` from git's index, as
    ``request`` says (over the conflicted file with ``request.write``, staged with
    ``request.add``).
    """
    from changelog_tools.gitrepo import open_repo
    from changelog_tools.ledger.indexconflict import resolve_conflict

    repo = open_repo(cwd)
    resolved = target.resolve()
    try:
        shown = resolved.relative_to(repo.path.resolve()).as_posix()
    except ValueError:
        raise UsageError(f"{resolved} is not inside the repository {repo.path}") from None
    resolution, sides = resolve_conflict(repo, shown, request)
    return Resolved(resolution, shown, sides)
