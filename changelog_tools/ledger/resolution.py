"""What a resolution reports: the resolved bytes and where every part of them came from (main's
bytes kept, the PR's entries appended or dropped, links substituted, corrections replayed), and
how each version of the file is named in messages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from changelog_tools import diagnostics as dx

if TYPE_CHECKING:
    # only named in annotations: the merge driver, which substitutes no link, never loads it
    from changelog_tools.ledger.canonicalize import Substitution


class _Record:
    """A frozen dataclass of the account, written as JSON with kebab-case keys."""

    _json_renames: ClassVar[dict[str, str]] = {}

    def as_json(self) -> dict[str, Any]:
        return dx.record_json(self, self._json_renames)


@dataclass(frozen=True)
class AppendedEntry(_Record):
    """A PR entry in the result: its number and line there, and its line on the PR side."""

    entry: int
    line: int
    pr_line: int
    link: Any

    _json_renames: ClassVar[dict[str, str]] = {"link": "pr-link"}


@dataclass(frozen=True)
class DroppedEntry(_Record):
    """A PR entry left out because main appended an equal one since the merge-base."""

    pr_entry: int
    pr_line: int
    main_entry: int
    main_line: int


@dataclass(frozen=True)
class AppliedCorrection(_Record):
    """A pr-link correction of the PR, replayed onto main (or found already there)."""

    entry: int
    line: int
    old: Any
    new: Any
    already_on_main: bool


@dataclass(frozen=True)
class Resolution:
    """The resolved bytes and an account of where every part of them came from."""

    data: bytes
    kind: str  # "appended" or "corrected"
    main_bytes: int  # data[:main_bytes] is main's side, byte for byte (appended kind)
    main_entries: int  # entries on main's side
    main_appended: int  # entries main appended since the merge-base
    appended: tuple[AppendedEntry, ...]
    dropped: tuple[DroppedEntry, ...]
    substitutions: tuple[Substitution, ...]
    corrections: tuple[AppliedCorrection, ...]
    warnings: tuple[dx.Diagnostic, ...]
    verified_mode: str

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "main-bytes-kept": self.main_bytes,
            "main-entries": self.main_entries,
            "main-appended-since-base": self.main_appended,
            "appended": [a.as_json() for a in self.appended],
            "dropped-already-on-main": [d.as_json() for d in self.dropped],
            "substitutions": [s.as_json() for s in self.substitutions],
            "corrections": [c.as_json() for c in self.corrections],
            "verified": f"check, {self.verified_mode} mode",
        }

    def summary(self) -> list[str]:
        """Human-readable account, one fact per line."""
        out: list[str] = []
        if self.kind == "appended":
            out.append(
                f"kept main's {dx.counted(self.main_entries, 'entry', 'entries')} byte for byte "
                f"({self.main_appended} appended on main since the merge-base)"
            )
            out += [
                f"appended the PR's entry as entry {a.entry} (line {a.line})" for a in self.appended
            ]
            out += [
                f"dropped the PR's entry {d.pr_entry} (PR side line {d.pr_line}): main already "
                f"appended it as entry {d.main_entry}"
                for d in self.dropped
            ]
        out += [f"entry {s.entry}: pr-link {s.old!r} -> {s.new}" for s in self.substitutions]
        out += [
            f"entry {c.entry}: pr-link correction already on main ({c.new})"
            if c.already_on_main
            else f"entry {c.entry}: pr-link corrected {c.old!r} -> {c.new!r}"
            for c in self.corrections
        ]
        out.append(f"the result passes `check` in {self.verified_mode} mode against main's side")
        return out


@dataclass(frozen=True)
class Labels:
    """How each version is named in messages."""

    base: str
    pr: str
    main: str
    result: str

    @classmethod
    def for_path(cls, path: str) -> Labels:
        return cls(f"{path} (merge-base)", f"{path} (PR side)", f"{path} (main side)", path)
