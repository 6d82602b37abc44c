"""Resolving a conflict from git's index, for `resolve` run during a merge, rebase or
cherry-pick: the three stages read and arranged by role, resolved, written over the work-tree
file under the writers' lock, and staged.

Apart from :mod:`.mergedriver` (which decides the sides and resolves), because the driver
git starts on every replayed commit reads its three files from git and never the index.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from changelog_tools import diagnostics as dx
from changelog_tools.config import Config
from changelog_tools.errors import UsageError
from changelog_tools.fsutil import atomic_write, locked
from changelog_tools.gitrepo import GitRepo, read_index_stages, special_head
from changelog_tools.ledger.guard import Refusal
from changelog_tools.ledger.mergedriver import Sides, detect_sides, resolve_sides, sides_refusal

if TYPE_CHECKING:
    from changelog_tools.ledger.conflictrequest import ConflictRequest
    from changelog_tools.ledger.resolve import Resolution


@dataclass(frozen=True)
class IndexConflict:
    """The three versions of a conflicted changelog, read from the index, arranged by role."""

    base: bytes | None
    pr: bytes
    main: bytes
    sides: Sides


def read_conflict(repo: GitRepo, path: str, *, config: Config, given: str | None) -> IndexConflict:
    """Read the index stages of ``path`` and assign them to PR and main; refuse when unusable."""
    stages = read_index_stages(repo, path)
    if not stages:
        raise Refusal(
            dx.MISSING_STAGE,
            "is not in the index; nothing to resolve",
            path=path,
            hint="run this inside the repository, during the merge or rebase that conflicted",
        )
    if set(stages) == {0}:
        raise Refusal(
            dx.MISSING_STAGE,
            "has no merge conflict (it is not unmerged in the index); nothing to resolve",
            path=path,
        )
    sides = detect_sides(repo, config=config, given=given)
    if sides.operation == "rebase":
        _check_rebase_own_conflict(repo, path, stages)
    names = {2: "ours", 3: "theirs"}
    for stage in (2, 3):
        if stage not in stages:
            role = "the PR" if names[stage] == sides.pr_side else "main"
            raise Refusal(
                dx.MISSING_STAGE,
                f"index stage {stage} ({names[stage]}, {role}) is missing: that side deleted "
                "the file; resolve this by hand",
                path=path,
            )
    ours, theirs = stages[2], stages[3]
    pr, main = (ours, theirs) if sides.pr_side == "ours" else (theirs, ours)
    # No stage 1: both sides added the file (add/add); everything in it is new on both sides.
    return IndexConflict(stages.get(1), pr, main, sides)


def _check_rebase_own_conflict(repo: GitRepo, path: str, stages: Mapping[int, bytes]) -> None:
    """Refuse unless the index holds the rebase's own conflict on ``path``: the pick of
    REBASE_HEAD onto HEAD, whose stages are that commit's parent's version (1), HEAD's (2) and
    the commit's own (3).

    At a rebase's conflict stop the user can run other commands that conflict too (`git stash
    pop` once the rebase's own conflicts are staged); git's state names only the rebase, so
    the stages are what tells. Identical stages are the same three-way merge as the rebase's.
    """
    picked = special_head(repo, "REBASE_HEAD")
    parent = repo.try_rev_parse(f"{picked}^") if picked else None
    expected = {
        1: repo.read_blob(parent, path) if parent else None,
        2: repo.read_blob("HEAD", path),
        3: repo.read_blob(picked, path) if picked else None,
    }
    differ = [stage for stage, blob in expected.items() if stages.get(stage) != blob]
    if picked is None or differ:
        what = (
            "no commit is being replayed (REBASE_HEAD)"
            if picked is None
            else f"index stage {differ[0]} is not the version the replay of {picked[:12]} gives"
        )
        raise sides_refusal(
            f"a rebase is stopped (conflict) but this conflict is not the rebase's own: {what}; "
            "it comes from a command run at the stop (`git stash pop`, say), and which side "
            "is main cannot be told"
        )


def resolve_conflict(
    repo: GitRepo, path: str, request: ConflictRequest
) -> tuple[Resolution, Sides]:
    """Resolve the conflicted ``path`` from the index; with ``request.write``, write it to the
    work tree (atomically), and stage it with ``request.add``. Nothing is written when it
    refuses.

    The resolution is built from the index, not from the work-tree file, so a writer that
    changed the file meanwhile (an entry added by `new` while this ran) would be overwritten
    silently. The write therefore takes the writers' lock and happens only if the file is
    still what it was when the resolution began; otherwise nothing is written.
    """
    worktree = repo.path / path
    before = _bytes_or_none(worktree)
    conflict = read_conflict(repo, path, config=request.config, given=request.given)
    resolution, _ = resolve_sides(
        repo,
        conflict.base,
        conflict.pr,
        conflict.main,
        sides=conflict.sides,
        path=path,
        config=request.config,
        pr=request.pr,
        fix_near_misses=request.fix_near_misses,
    )
    if request.write:
        with locked(worktree) as target:
            if _bytes_or_none(target) != before:
                raise UsageError(
                    f"{path} changed while it was being resolved (another writer); nothing was "
                    "written: run resolve again"
                )
            atomic_write(target, resolution.data)
        if request.add:
            repo.stage(path)
    return resolution, conflict.sides


def _bytes_or_none(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
