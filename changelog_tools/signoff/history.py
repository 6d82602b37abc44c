"""Versions of the checklist template from its git history: which one a sign-off was copied
from, and which commit added, changed or removed each item."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from changelog_tools.gitrepo import GitRepo
from changelog_tools.signoff.checklist import (
    SIMILARITY_THRESHOLD,
    Checklist,
    Item,
    _prefix_match,
    parse_template,
    similarity,
)


@dataclass(frozen=True)
class Version:
    commit: str
    date: str  # committer date, ISO 8601
    subject: str
    checklist: Checklist

    @property
    def short(self) -> str:
        return self.commit[:9]

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(i.key for i in self.checklist.items)


@dataclass(frozen=True)
class Identified:
    version: Version
    exact: bool


def template_versions(
    repo: GitRepo, path: str, *, ref: str = "HEAD", header: str | None = None
) -> tuple[Version, ...]:
    """Every committed version of ``path`` reachable from ``ref`` with a template, oldest first.

    A shallow checkout has only its last commit: then that is the only version.
    """
    versions: list[Version] = []
    for change in reversed(repo.file_history(ref, path)):
        data = repo.read_blob(change.commit, path)
        if data is None:
            continue
        text = data.decode("utf-8", errors="replace")
        parsed = parse_template(text, header=header) if header else parse_template(text)
        if parsed is not None:
            versions.append(Version(change.commit, change.date, change.subject, parsed))
    return tuple(versions)


def _covers(keys: frozenset[str], item: Item) -> bool:
    return item.key in keys or any(_prefix_match(item.key, k) for k in keys)


def identify(signoff: Checklist, versions: Sequence[Version]) -> Identified | None:
    """The version a sign-off's items were most likely copied from (the earliest of equals)."""
    if not versions:
        return None
    best: tuple[int, int] | None = None
    chosen: Version | None = None
    exact = False
    for version in versions:
        keys = version.keys
        hits = sum(1 for i in signoff.items if _covers(keys, i))
        extra = len(signoff.items) - hits
        absent = len(keys) - hits
        score = (hits - extra - absent, -absent)
        if best is None or score > best:  # strictly better: the earliest of equals stays
            best, chosen = score, version
            exact = extra == 0 and absent == 0
    assert chosen is not None
    return Identified(chosen, exact)


@dataclass(frozen=True)
class Attribution:
    verb: str  # "added" | "changed" | "removed"
    version: Version


def attribute_current(item: Item, versions: Sequence[Version]) -> Attribution | None:
    """The commit that gave a current template item its text: added it, or last changed it."""
    first: int | None = None
    for index in range(len(versions) - 1, -1, -1):
        if item.key in versions[index].keys:
            first = index
        else:
            break
    if first is None:
        return None
    if first == 0:
        return Attribution("added", versions[0])
    before = versions[first - 1]
    similar = any(
        similarity(item.key, i.key) >= SIMILARITY_THRESHOLD for i in before.checklist.items
    )
    return Attribution("changed" if similar else "added", versions[first])


def attribute_removed(text_key: str, versions: Sequence[Version]) -> Attribution | None:
    """The commit after which an item's text no longer appears in the template."""
    last: int | None = None
    for index, version in enumerate(versions):
        if text_key in version.keys or any(_prefix_match(text_key, k) for k in version.keys):
            last = index
    if last is None or last + 1 >= len(versions):
        return None
    return Attribution("removed", versions[last + 1])
