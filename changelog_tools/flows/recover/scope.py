"""What a recovery re-appends: the original pull request's entries, read from its merge commit.

The scope of the lost ingest is exactly what the original merge appended to the changelog (its
config keys, `evals-only`, `scenario-type` and descriptions). The recovery appends the same
entries, byte for byte, to the changelog as it is on the default branch now; only `pr-link`
changes, to the recovery pull request's own link (the entry must name the PR that lands it).

No library copies YAML entries byte for byte: a round trip through a YAML library rewrites
quoting, comments and spacing, and the ledger's rule is that every byte stays. So the entries
are cut from the merged file by their byte spans (:mod:`~changelog_tools.ledger.document`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from changelog_tools import diagnostics as dx
from changelog_tools.config import Config
from changelog_tools.errors import DataError
from changelog_tools.gitrepo import GitRepo
from changelog_tools.ledger.appendonly import (
    Change,
    ChangeKind,
    compare,
    separator_after,
)
from changelog_tools.ledger.document import Block, link_value_span
from changelog_tools.ledger.guard import Refusal
from changelog_tools.ledger.historywalk import new_entries_among
from changelog_tools.ledger.links import LinkKind, classify
from changelog_tools.ledger.placement import parse_entries

# An existing entry deleted or changed in meaning: which bytes the merge "added" is unknown.
_HISTORY_EDITS = frozenset({dx.ENTRY_DELETED, dx.ENTRY_CHANGED, dx.MIXED_CORRECTION_APPEND})


@dataclass(frozen=True)
class ScopeEntry:
    """One entry the original merge appended: its own bytes and its data."""

    raw: bytes  # from the entry's first byte to the end of its content, newline-terminated
    data: Any
    line: int  # where it starts in the merged file

    @property
    def config_keys(self) -> tuple[str, ...]:
        keys = self.data.get("config-keys") if isinstance(self.data, dict) else None
        return tuple(str(k) for k in keys) if isinstance(keys, list) else ()


@dataclass(frozen=True)
class Scope:
    pr: int
    merge_sha: str
    base_sha: str  # the merge commit's first parent: the default branch before the merge
    entries: tuple[ScopeEntry, ...]
    tolerated: tuple[str, ...] = ()  # byte rules the merge broke that the recovery does not
    relinked: tuple[int, ...] = ()  # other PRs the added entries linked (now the recovery's)

    @property
    def config_keys(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(k for e in self.entries for k in e.config_keys))


def read_scope(repo: GitRepo, config: Config, *, pr: int, merge_sha: str) -> Scope:
    """The entries PR ``pr``'s merge commit added; refused unless it only added entries.

    "Only added" is judged by meaning, as `fix` does: every existing entry still there,
    unchanged, in order. A merge that broke a byte rule on the way (its entry inserted among
    older ones, separators that are not one empty line, reformatted history bytes: common on
    repositories whose CI did not hold pull requests to those rules) still has exactly known
    entries; the recovery appends them at the end, laid out as `check` wants, and the rules it
    broke are named in :attr:`Scope.tolerated`.
    """
    path = config.changelog
    base_sha = repo.rev_parse(f"{merge_sha}^1")
    head = repo.read_blob(merge_sha, path)
    if head is None:
        raise DataError(f"the merge of PR #{pr} ({merge_sha[:12]}) has no {path}")
    base = repo.read_blob(base_sha, path)
    change = compare(
        base,
        head,
        path=path,
        base_label=f"{path}@{base_sha[:12]}",
        max_size=config.max_file_size,
        whitespace_separator=config.whitespace_only_separator,
    )
    errors = [d for d in change.diagnostics if d.severity is dx.Severity.ERROR]
    tolerated: tuple[str, ...] = ()
    if change.kind is ChangeKind.APPENDED and not errors and change.appended:
        blocks = change.appended
    else:
        blocks = _added_entries(change, base, head, pr=pr, merge_sha=merge_sha, path=path)
        tolerated = tuple(sorted({d.code for d in errors}))
    entries = []
    relinked = []
    for block in blocks:
        other = _other_pr(block, pr=pr, config=config)
        if other is not None:
            relinked.append(other)
        raw = head[block.start : block.content_end]
        entries.append(
            ScopeEntry(raw if raw.endswith(b"\n") else raw + b"\n", block.data, block.line)
        )
    return Scope(pr, merge_sha, base_sha, tuple(entries), tolerated, tuple(relinked))


def scope_notes(scope: Scope) -> tuple[str, ...]:
    """What the recovery does differently from the original merge, one sentence each."""
    notes = []
    if scope.tolerated:
        notes.append(
            f"the merge of #{scope.pr} broke {', '.join(scope.tolerated)} on the way; the "
            "recovery appends its entries at the end, one empty line apart"
        )
    if scope.relinked:
        listed = ", ".join(f"#{n}" for n in dict.fromkeys(scope.relinked))
        notes.append(
            f"entries of #{scope.pr} linked {listed}; in the recovery they link the recovery PR"
        )
    return tuple(notes)


def _refuse(pr: int, merge_sha: str, path: str, why: str) -> DataError:
    return DataError(
        f"the merge of PR #{pr} ({merge_sha[:12]}) did not only add entries to {path}: {why}",
        hint="a recovery re-appends exactly what the merge added; recover this ingest by hand "
        "(docs/recover.md says how)",
    )


def _added_entries(
    change: Change, base: bytes | None, head: bytes, *, pr: int, merge_sha: str, path: str
) -> tuple[Block, ...]:
    """The entries a merge added when it is not a clean append by the byte rules."""
    edits = [d for d in change.diagnostics if d.code in _HISTORY_EDITS]
    if edits:
        raise _refuse(pr, merge_sha, path, f"{edits[0].code} {edits[0].message}")
    if change.kind is ChangeKind.NONE:
        raise _refuse(pr, merge_sha, path, "it did not change the changelog")
    if change.kind is ChangeKind.CORRECTED:
        raise _refuse(pr, merge_sha, path, "it only corrected existing pr-links")
    try:
        base_ledger, head_ledger = parse_entries(
            base or b"", head, path=path, base_label=f"{path}@{merge_sha[:12]}^",
            so="its entries cannot be told",
        )  # fmt: skip
    except Refusal as exc:
        raise _refuse(pr, merge_sha, path, exc.message) from None
    new = new_entries_among(base_ledger.blocks if base_ledger else (), head_ledger.blocks)
    if not new:
        why = "an existing entry changed or went missing" if new is None else "it added no entry"
        raise _refuse(pr, merge_sha, path, why)
    return new


def _other_pr(block: Block, *, pr: int, config: Config) -> int | None:
    """The other pull request an added entry's link names, if any (the recovery relinks it)."""
    link = block.data.get("pr-link") if isinstance(block.data, dict) else None
    if not isinstance(link, str):
        return None
    found = classify(link, repository=config.repository, placeholders=config.placeholders)
    if found.kind is LinkKind.CANONICAL and found.pr not in (None, pr):
        return found.pr
    return None


def recovery_changelog(current: bytes, scope: Scope, *, link: str, path: str) -> bytes:
    """``current`` (every byte kept), then each scope entry after one empty line, its pr-link
    set to ``link``."""
    data = current
    for entry in scope.entries:
        data += separator_after(data) + _relinked(entry, scope=scope, link=link, path=path)
    return data


def _relinked(entry: ScopeEntry, *, scope: Scope, link: str, path: str) -> bytes:
    """The entry's bytes with its pr-link value replaced by ``link``; every other byte kept.

    A value written on the line after ``pr-link:`` (YAML allows it) is rewritten as one line;
    the result is parsed back and must equal the entry with only its link changed.
    """
    from changelog_tools.ledger.document import Splice, apply_splices, parse_ledger, pr_link_lines

    block = parse_ledger(entry.raw, path=path, validate_entries=False).blocks[0]
    old = block.data.get("pr-link") if isinstance(block.data, dict) else None
    span = link_value_span(entry.raw, block, old)
    if span is not None:
        start, end, prefix = span
        raw = apply_splices(entry.raw, [Splice(start, end, prefix + link.encode())])
    else:
        lines = pr_link_lines(entry.raw, block)
        if len(lines) != 1:
            raise _unlinkable(entry, scope=scope, path=path, none=not lines)
        start = lines[0].line_start
        end = lines[0].line_end
        # continuation lines of the value: indented deeper than the entry's keys
        while end < block.content_end and entry.raw.startswith(b"\n   ", end):
            next_end = entry.raw.find(b"\n", end + 1)
            end = block.content_end - 1 if next_end == -1 else next_end
        raw = apply_splices(entry.raw, [Splice(start, end, b"  pr-link: " + link.encode())])
    again = parse_ledger(raw, path=path, validate_entries=False).blocks
    wanted = {**block.data, "pr-link": link} if isinstance(block.data, dict) else None
    if len(again) != 1 or again[0].data != wanted:
        raise _unlinkable(entry, scope=scope, path=path)
    return raw


def _unlinkable(entry: ScopeEntry, *, scope: Scope, path: str, none: bool = False) -> DataError:
    what = (
        "has no pr-link line"
        if none
        else "has a pr-link the recovery cannot replace without touching other bytes"
    )
    return DataError(
        f"{path}:{entry.line}: an entry of PR #{scope.pr} {what}",
        hint="recover this ingest by hand (docs/recover.md says how)",
    )
