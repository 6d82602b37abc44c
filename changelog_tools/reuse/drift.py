"""The drift guard: did a pull request change what its sweep measured after the sweep ran?

Reusing a sweep is only honest if what landed on main is what the sweep measured. The guard
compares two trees on the benchmark-affecting paths (``drift-paths``, gitignore-style globs):

- X = main before the merge with the source run's commit merged in (``git merge-tree``);
- M = the merged result, the commit main was pushed to.

Both contain every change that arrived from main, so only the pull request's own changes made
after the source run can tell them apart. A drift path that conflicted in X also counts: the PR
resolved it after the sweep.

The changelog is compared separately, by meaning: the entries the PR appended as of the source
run (against its merge-base with main) must equal, apart from ``pr-link``, the entries the
merge appended to main.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from changelog_tools.errors import GitError
from changelog_tools.gitrepo import GitRepo

_ZERO = "0" * 40
_FULL_HISTORY = "check out with full history (actions/checkout with fetch-depth: 0)"


@dataclass(frozen=True, slots=True)
class DriftReport:
    """What differs; empty ``paths`` and no ``changelog`` message means no drift."""

    source: str
    merged: str
    base: str
    paths: tuple[str, ...] = ()
    changelog: str | None = None

    @property
    def ok(self) -> bool:
        return not self.paths and self.changelog is None

    def items(self) -> tuple[str, ...]:
        """One line per offending path, then the changelog finding."""
        return self.paths + ((self.changelog,) if self.changelog else ())


def path_spec(patterns: Sequence[str]) -> Any:
    """A gitignore-style matcher for ``patterns`` (pathspec's GitIgnoreSpec)."""
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(list(patterns))


def _has_commit(repo: GitRepo, sha: str) -> bool:
    return repo.has_commit(sha)


def ensure_commit(repo: GitRepo, sha: str, *, what: str, fetch: tuple[str, str] | None) -> None:
    """Make sure ``sha`` is in the clone, fetching ``fetch`` = (remote, refspec) if needed."""
    if _has_commit(repo, sha):
        return
    if fetch is not None:
        remote, refspec = fetch
        repo.fetch(remote, refspec)
        if _has_commit(repo, sha):
            return
    raise GitError(
        f"{what} {sha} is not in the clone at {repo.path}",
        hint=_FULL_HISTORY,
    )


def merge_base_before(repo: GitRepo, merged: str, before: str | None) -> str:
    """Main just before the merge: the push's ``before`` if it leads to ``merged``, else its
    first parent (right for squash and merge commits alike)."""
    if (
        before
        and before != _ZERO
        and _has_commit(repo, before)
        and repo.is_ancestor(before, merged)
    ):
        return repo.rev_parse(before)
    parent = repo.try_rev_parse(f"{merged}^1")
    if parent is None:
        if _shallow(repo):
            raise GitError(
                f"the clone at {repo.path} is shallow: the parent of {merged} is missing",
                hint=_FULL_HISTORY,
            )
        raise GitError(f"commit {merged} has no parent, so nothing was merged into main")
    return parent


def _shallow(repo: GitRepo) -> bool:
    return repo.is_shallow()


def merged_tree(repo: GitRepo, base: str, source: str) -> tuple[str, tuple[str, ...]]:
    """The tree of merging ``source`` into ``base`` and the paths that conflicted."""
    return repo.merge_tree(base, source)


def _appended(repo: GitRepo, base: str, head: str, path: str) -> list[Any] | str:
    """Entries ``head`` appends to the changelog at ``base`` (pr-link removed), or a reason
    they cannot be told."""
    head_raw = repo.read_blob(head, path)
    if head_raw is None:
        return []
    # Imported here: a repository without the changelog never pays for the YAML parser.
    from changelog_tools.ledger import appendonly

    base_raw = repo.read_blob(base, path)
    change = appendonly.compare(base_raw, head_raw, path=path)
    if change.kind in (appendonly.ChangeKind.NONE, appendonly.ChangeKind.CORRECTED):
        return []
    if change.kind is appendonly.ChangeKind.INVALID and not change.appended:
        if change.misplaced:
            # inserted among older entries (a byte rule broken, not history): still the
            # change's own entries, in head order
            return [appendonly.without_link(block.data) for block in change.misplaced]
        first = next(iter(change.diagnostics), None)
        why = f": line {first.line}: {first.message}" if first is not None else ""
        return f"cannot tell which entries {head[:7]} appends{why}"
    return [appendonly.without_link(block.data) for block in change.appended]


def changelog_drift(
    repo: GitRepo, *, fork_point: str, source: str, base: str, merged: str, path: str
) -> str | None:
    """How the PR's appended entries (pr-link aside) differ between source and merge, or None."""
    at_source = _appended(repo, fork_point, source, path)
    at_merge = _appended(repo, base, merged, path)
    for found in (at_source, at_merge):
        if isinstance(found, str):
            return f"{path}: {found}"
    assert isinstance(at_source, list) and isinstance(at_merge, list)
    if at_source == at_merge:
        return None
    if len(at_source) != len(at_merge):
        return (
            f"{path}: the PR appended {len(at_source)} entr{'y' if len(at_source) == 1 else 'ies'}"
            f" at the source run but {len(at_merge)} in the merge"
        )
    index = next(i for i, (a, b) in enumerate(zip(at_source, at_merge, strict=True)) if a != b)
    return f"{path}: appended entry {index + 1} changed after the source run (beyond pr-link)"


def check_drift(
    repo: GitRepo,
    *,
    source: str,
    merged: str,
    patterns: Sequence[str],
    changelog: str,
    before: str | None = None,
    pr_number: int | None = None,
    remote: str = "origin",
) -> DriftReport:
    """Compare the PR's own benchmark-affecting changes at ``source`` and in ``merged``.

    The source commit is fetched from ``refs/pull/N/head`` when the clone lacks it (a squash
    merge leaves the PR's commits off main, and the branch may be deleted).
    """
    ensure_commit(repo, merged, what="pushed commit", fetch=None)
    fetch = None
    if pr_number is not None:
        fetch = (remote, f"+refs/pull/{pr_number}/head:refs/changelog-tools/pull/{pr_number}/head")
    ensure_commit(repo, source, what="source run commit", fetch=fetch)
    source = repo.rev_parse(source)
    merged = repo.rev_parse(merged)
    base = merge_base_before(repo, merged, before)
    try:
        fork_point = repo.merge_base(source, base)
    except GitError:
        raise GitError(
            f"source run commit {source[:7]} shares no history with main at {base[:7]}",
            hint=_FULL_HISTORY if _shallow(repo) else None,
        ) from None
    tree, conflicts = merged_tree(repo, base, source)
    candidates = set(repo.tree_changes(tree, f"{merged}^{{tree}}")) | set(conflicts)
    candidates.discard(changelog)
    paths: tuple[str, ...] = ()
    if candidates:  # the matcher (and pathspec's import) only when a path differs
        spec = path_spec(patterns)
        paths = tuple(sorted(p for p in candidates if spec.match_file(p)))
    changelog_note = changelog_drift(
        repo, fork_point=fork_point, source=source, base=base, merged=merged, path=changelog
    )
    return DriftReport(source, merged, base, paths, changelog_note)
