"""What `resolve` asks of a changelog left conflicted in git's index, in one value: the
command builds it, :func:`~changelog_tools.ledger.resolvefrom.from_index` passes it on, and
:func:`~changelog_tools.ledger.indexconflict.resolve_conflict` carries it out.

A module of its own so the merge driver, which git starts for every conflicted file and which
loads as little as it can, never pays for defining it: it names the class for type checking only.
"""

from __future__ import annotations

from dataclasses import dataclass

from changelog_tools.config import Config


@dataclass(frozen=True)
class ConflictRequest:
    """How to resolve a changelog left conflicted in git's index: the configuration, the PR
    number for its placeholder links, which side is the PR when git's state does not tell
    (``given``: ``ours``/``theirs``), whether to write the work-tree file and stage it, and
    whether to repair near-miss links."""

    config: Config
    pr: int | None = None
    given: str | None = None
    write: bool = True
    add: bool = False
    fix_near_misses: bool = False
