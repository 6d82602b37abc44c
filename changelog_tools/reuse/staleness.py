"""The staleness rule: did main, after a pull request's sweep, change what the swept configs run?

The drift guard (:mod:`~changelog_tools.reuse.drift`) ignores everything that arrived from main
on purpose: a change to a config the PR did not sweep says nothing about its results. For the
configs it did sweep it does: when main changed the image of the same config key after the
sweep, the results describe a configuration main no longer has, and reusing them would ingest
them for main anyway.

Main's changes since the source commit are the paths that differ between the fork point
(the merge base of the source commit and main just before the merge) and main. The swept
configs are the config keys of the entries the PR appended to the changelog as of the source
commit, resolved (wildcards included) against the master configs. A swept config is stale when
main changed

- its master-config entry (the parsed value, so a comment or a reformat does not count);
- a benchmark script it resolves to (``lint-script-templates``: the same naming `lint`'s
  `config-script` rule uses; a script main added ahead of the old one counts too);
- a launcher of its runner (``lint-launchers`` whose name starts with the runner label or its
  SKU: ``runners/launch_b200-nv.sh`` for ``cluster:b200-nv`` or ``b200``);
- a file every config runs (``sweep-shared-paths``: the matrix logic, the benchmark library).
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from changelog_tools.config import Config
from changelog_tools.gitrepo import GitRepo

# How many of main's commits on a master config are read to name the one that changed a key.
_BLAME_LIMIT = 50


@dataclass(frozen=True, slots=True)
class StaleConfig:
    """One swept config key main changed since the source commit, and how."""

    key: str
    paths: tuple[str, ...]  # what changed: the master config (its entry), scripts, launchers
    what: str  # "entry", "script", "launcher" or "shared" (comma separated when several)
    commit: str  # the newest main commit that changed it


@dataclass(frozen=True, slots=True)
class StalenessReport:
    """The source commit, main, their fork point, the swept keys and the stale ones."""

    source: str
    base: str
    fork_point: str
    keys: tuple[str, ...] = ()
    stale: tuple[StaleConfig, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.stale

    def items(self) -> tuple[str, ...]:
        """One line per stale key: the key, what changed (paths) and the main commit."""
        return tuple(f"{s.key}: {', '.join(s.paths)} (main {s.commit[:12]})" for s in self.stale)

    def describe(self, *, main_branch: str = "main", limit: int = 10) -> str:
        """One sentence naming the stale keys, paths and main commits (for an error)."""
        shown = "; ".join(self.items()[:limit])
        more = f" and {len(self.stale) - limit} more" if len(self.stale) > limit else ""
        return (
            f"{main_branch} changed what swept config(s) run after the source commit "
            f"{self.source[:12]} (fork point {self.fork_point[:12]}): {shown}{more}"
        )


@dataclass(frozen=True)
class _Request:
    """Just enough of a lint request for :class:`~changelog_tools.lint.context.Context`."""

    head: Any
    base: Any = None
    changed: tuple[str, ...] | None = ()
    pr: int | None = None
    now: datetime.date = field(default_factory=datetime.date.today)


def swept_keys(repo: GitRepo, *, fork_point: str, source: str, changelog: str) -> tuple[str, ...]:
    """The `config-keys` (patterns as written) of the entries the PR appended by ``source``."""
    from changelog_tools.ledger import appendonly

    head = repo.read_blob(source, changelog)
    if head is None:
        return ()
    change = appendonly.compare(repo.read_blob(fork_point, changelog), head, path=changelog)
    keys: list[str] = []
    for block in (*change.appended, *change.misplaced):
        data = block.data
        found = data.get("config-keys") if isinstance(data, dict) else None
        if isinstance(found, list):
            keys.extend(str(k) for k in found)
    return tuple(dict.fromkeys(keys))


def check_staleness(
    repo: GitRepo, *, source: str, base: str, config: Config, changelog: str | None = None
) -> StalenessReport:
    """Which configs the PR swept at ``source`` main changed by ``base`` (main before the merge).

    ``changelog`` is the changelog's path in ``repo`` (default: the configured one).
    """
    source = repo.rev_parse(source)
    base = repo.rev_parse(base)
    fork = repo.merge_base(source, base)
    report = StalenessReport(source, base, fork)
    if fork == base:
        # main has nothing the source commit lacks (the usual case): no parser is loaded
        return report
    from changelog_tools.lint.context import Context
    from changelog_tools.lint.tree import GitTree

    changed = frozenset(repo.tree_changes(f"{fork}^{{tree}}", f"{base}^{{tree}}"))
    patterns = swept_keys(
        repo, fork_point=fork, source=source, changelog=changelog or config.changelog
    )
    if not changed or not patterns:
        return StalenessReport(source, base, fork, patterns)
    old = Context(_Request(GitTree(repo, fork)), config)
    new = Context(_Request(GitTree(repo, base)), config)
    from changelog_tools.ledger.masterconfig import is_missing, resolve_keys

    names = list(dict.fromkeys([*old.head_masters.names, *new.head_masters.names]))
    keys = tuple(resolve_keys(patterns, names))
    shared = _matching(changed, config.sweep_shared_paths)
    masters_changed = bool(changed & set(old.master_paths) | changed & set(new.master_paths))
    stale: list[StaleConfig] = []
    for key in keys:
        paths: list[str] = []
        whats: list[str] = []
        entries = [c.entry(key) for c in (old, new) if key in c.head_masters.index]
        entries = [e for e in entries if not is_missing(e.value)]
        entry_path = None
        if masters_changed and _entry_changed(old, new, key):
            entry_path = (
                (new if key in new.head_masters.index else old).head_masters.index[key].path
            )
            paths.append(entry_path)
            whats.append("entry")
        scripts = _scripts(old, new, key) & changed
        if scripts:
            paths.extend(sorted(scripts))
            whats.append("script")
        launchers = _launchers(new, entries, changed, config)
        if launchers:
            paths.extend(sorted(launchers))
            whats.append("launcher")
        if shared:
            paths.extend(sorted(shared))
            whats.append("shared")
        if not paths:
            continue
        commit = _commit_of(
            repo, fork, base, key, entry_path, [p for p in paths if p != entry_path], old
        )
        stale.append(StaleConfig(key, tuple(dict.fromkeys(paths)), ", ".join(whats), commit))
    return StalenessReport(source, base, fork, keys, tuple(stale))


def _matching(paths: frozenset[str], patterns: Sequence[str]) -> frozenset[str]:
    if not patterns or not paths:
        return frozenset()
    from changelog_tools.reuse.drift import path_spec

    spec = path_spec(patterns)
    return frozenset(p for p in paths if spec.match_file(p))


def _value(ctx: Any, key: str) -> Any:
    return ctx.head_masters.value(key)


def _entry_changed(old: Any, new: Any, key: str) -> bool:
    from changelog_tools.ledger.masterconfig import is_missing

    a, b = _value(old, key), _value(new, key)
    if is_missing(a) and is_missing(b):
        # absent on both sides (a key the PR added), or unreadable on both: compare the bytes
        return bool(old.head_masters.block(key) != new.head_masters.block(key))
    return bool(a != b or is_missing(a) != is_missing(b))


def _scripts(old: Any, new: Any, key: str) -> frozenset[str]:
    """Every script name the entry may run at either side (the ones that exist and the ones a
    launcher would try first, which main may have added)."""
    from changelog_tools.ledger.masterconfig import is_missing
    from changelog_tools.lint.launchers import resolve_entry

    found: set[str] = set()
    for ctx in (old, new):
        if key not in ctx.head_masters.index:
            continue
        entry = ctx.entry(key)
        if is_missing(entry.value):
            continue
        for res in resolve_entry(ctx, entry):
            # candidates up to the one that exists: a new one before it would take over
            for name in res.candidates:
                found.add(name)
                if name == res.found:
                    break
    return frozenset(found)


def _launchers(
    ctx: Any, entries: Sequence[Any], changed: frozenset[str], config: Config
) -> set[str]:
    """Changed launchers a machine of the entries' runners may run."""
    launchers = _matching(changed, config.lint_launchers)
    if not launchers:
        return set()
    labels: set[str] = set()
    for entry in entries:
        runner = entry.field("runner")
        if not isinstance(runner, str):
            continue
        labels.add(runner.split(":", 1)[-1])
        sku = ctx.sku(runner)
        if sku:
            labels.add(sku)
    out: set[str] = set()
    for path in launchers:
        stem = path.rsplit("/", 1)[-1]
        stem = stem.removeprefix("launch_").rsplit(".", 1)[0]
        if any(stem == label or stem.startswith(f"{label}-") for label in labels):
            out.add(path)
    return out


def _commit_of(
    repo: GitRepo,
    fork: str,
    base: str,
    key: str,
    entry_path: str | None,
    others: Sequence[str],
    old: Any,
) -> str:
    """The newest main commit in fork..base that changed ``key``'s entry or one of ``others``."""
    candidates: list[str] = []
    if others:
        newest = repo.commits_between(fork, base, others, limit=1)
        candidates += newest[:1]
    if entry_path is not None:
        commits = repo.commits_between(fork, base, [entry_path], limit=_BLAME_LIMIT)
        for sha in commits:
            if _key_differs(repo, sha, key, old):
                candidates.append(sha)
                break
        else:
            candidates += commits[:1]
    if not candidates:
        return base
    if len(candidates) == 1:
        return candidates[0]
    # the newer of the two: the one the other is an ancestor of
    a, b = candidates
    return b if repo.is_ancestor(a, b) else a


def _key_differs(repo: GitRepo, sha: str, key: str, like: Any) -> bool:
    """Whether commit ``sha`` changed ``key``'s master-config entry against its first parent."""
    from changelog_tools.ledger.masterconfig import load_masters

    parent = repo.try_rev_parse(f"{sha}^1")
    if parent is None:
        return True
    paths = like.master_paths
    at = load_masters({p: repo.read_blob(sha, p) for p in paths}, report_missing=False)
    before = load_masters({p: repo.read_blob(parent, p) for p in paths}, report_missing=False)
    if at.block(key) == before.block(key):
        return False
    return bool(at.value(key) != before.value(key))
