"""Who covers which changed path: CODEOWNERS (from the default branch) against the signers.

Every changed path (both names of a rename) must be owned by at least one valid signer; several
sign-offs may cover a PR together. A path decided by a catch-all line (``*``), an owner-less
line or no line at all is covered by anyone listed on any line. Team owners are resolved through
the memberships API; an unreadable membership is an error, never a silent "no".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from changelog_tools.errors import GitHubError
from changelog_tools.signoff.codeowners import CodeOwners, Rule


class MembershipUnknown(Exception):
    """A team membership could not be read (HTTP 403 or another failure)."""


@dataclass(frozen=True)
class PathCoverage:
    path: str
    rule: Rule | None
    anyone_listed: bool  # catch-all, owner-less or no rule: any listed owner covers it
    covered_by: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.rule.line if self.rule else None,
            "pattern": self.rule.pattern if self.rule else None,
            "owners": list(self.rule.owners) if self.rule else [],
            "any-codeowner": self.anyone_listed,
            "covered-by": list(self.covered_by),
        }


@dataclass
class Owners:
    """Answers "is this login one of these owners?", asking GitHub about teams lazily."""

    codeowners: CodeOwners
    is_member: Callable[[str, str], bool]  # (org/team, login) -> bool; raises GitHubError
    _cache: dict[tuple[str, str], bool] = field(default_factory=dict)

    def _member(self, team: str, login: str) -> bool:
        key = (team.lower(), login.lower())
        if key not in self._cache:
            try:
                self._cache[key] = self.is_member(team, login)
            except GitHubError as exc:
                raise MembershipUnknown(
                    f"team @{team} membership of @{login} unreadable: {exc.message}"
                ) from None
        return self._cache[key]

    def matches(self, login: str, owners: Sequence[str]) -> bool:
        users = {o[1:].lower() for o in owners if o.startswith("@") and "/" not in o}
        if login.lower() in users:
            return True
        return any(self._member(o[1:], login) for o in owners if o.startswith("@") and "/" in o)

    def listed_anywhere(self, login: str) -> bool:
        return self.matches(login, sorted(self.codeowners.everyone()))

    def covers(self, login: str, path: str) -> bool:
        rule = self.codeowners.decide(path)
        if rule is None or rule.catch_all or not rule.owners:
            return self.listed_anywhere(login)
        return self.matches(login, rule.owners)


def changed_paths(files: Sequence[tuple[str, str | None]]) -> list[str]:
    """Every changed path: the file name and, for a rename, its previous name too."""
    out: list[str] = []
    for name, previous in files:
        for p in (previous, name):
            if p and p not in out:
                out.append(p)
    return out


def coverage(owners: Owners, paths: Sequence[str], signers: Sequence[str]) -> list[PathCoverage]:
    out: list[PathCoverage] = []
    for path in paths:
        rule = owners.codeowners.decide(path)
        anyone = rule is None or rule.catch_all or not rule.owners
        by = tuple(s for s in signers if owners.covers(s, path))
        out.append(PathCoverage(path, rule, anyone, by))
    return out
