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

from changelog_tools.config import Config
from changelog_tools.errors import DataError
from changelog_tools.gitrepo import GitRepo
from changelog_tools.ledger.appendonly import ChangeKind, compare, separator_after
from changelog_tools.ledger.canonicalize import _value_span
from changelog_tools.ledger.document import Block
from changelog_tools.ledger.links import LinkKind, classify


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

    @property
    def config_keys(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(k for e in self.entries for k in e.config_keys))


def read_scope(repo: GitRepo, config: Config, *, pr: int, merge_sha: str) -> Scope:
    """The entries PR ``pr``'s merge commit appended; refused unless it was a clean append."""
    path = config.changelog
    base_sha = repo.rev_parse(f"{merge_sha}^1")
    head = repo.read_blob(merge_sha, path)
    if head is None:
        raise DataError(f"the merge of PR #{pr} ({merge_sha[:12]}) has no {path}")
    change = compare(
        repo.read_blob(base_sha, path),
        head,
        path=path,
        base_label=f"{path}@{base_sha[:12]}",
        max_size=config.max_file_size,
        whitespace_separator=config.whitespace_only_separator,
    )
    errors = [d for d in change.diagnostics if d.severity.value == "error"]
    if change.kind is not ChangeKind.APPENDED or errors or not change.appended:
        why = (
            f"{errors[0].code} {errors[0].message}"
            if errors
            else {
                ChangeKind.NONE: "it did not change the changelog",
                ChangeKind.CORRECTED: "it only corrected existing pr-links",
            }.get(change.kind, "it appended no entry")
        )
        raise DataError(
            f"the merge of PR #{pr} ({merge_sha[:12]}) was not a clean append to {path}: {why}",
            hint="a recovery re-appends exactly what the merge appended; recover this ingest "
            "by hand (docs/recover.md says how)",
        )
    entries = []
    for block in change.appended:
        _own_link(block, pr=pr, config=config, path=path)
        raw = head[block.start : block.content_end]
        entries.append(
            ScopeEntry(raw if raw.endswith(b"\n") else raw + b"\n", block.data, block.line)
        )
    return Scope(pr, merge_sha, base_sha, tuple(entries))


def _own_link(block: Block, *, pr: int, config: Config, path: str) -> None:
    """Refuse an appended entry that names another pull request: it is not PR ``pr``'s."""
    link = block.data.get("pr-link") if isinstance(block.data, dict) else None
    if not isinstance(link, str):
        return
    found = classify(link, repository=config.repository, placeholders=config.placeholders)
    if found.kind is LinkKind.CANONICAL and found.pr not in (None, pr):
        raise DataError(
            f"{path}:{block.line}: an entry the merge of PR #{pr} appended links PR #{found.pr} "
            f"({link}); refusing to re-append another PR's entry",
            hint="recover each pull request's ingest on its own",
        )


def recovery_changelog(current: bytes, scope: Scope, *, link: str, path: str) -> bytes:
    """``current`` (every byte kept), then each scope entry after one empty line, its pr-link
    set to ``link``."""
    from changelog_tools.ledger.document import Splice, apply_splices, parse_ledger

    data = current
    for entry in scope.entries:
        ledger = parse_ledger(entry.raw, path=path, validate_entries=False)
        block = ledger.blocks[0]
        old = block.data.get("pr-link") if isinstance(block.data, dict) else None
        span = _value_span(entry.raw, block, old)
        if span is None:
            raise DataError(
                f"{path}:{entry.line}: the pr-link of an entry of PR #{scope.pr} is not a "
                "one-line value, so it cannot be replaced without touching other bytes",
                hint="recover this ingest by hand (docs/recover.md says how)",
            )
        start, end, prefix = span
        raw = apply_splices(entry.raw, [Splice(start, end, prefix + link.encode())])
        data += separator_after(data) + raw
    return data
