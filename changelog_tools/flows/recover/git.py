"""The git side of `recover`: three commits made without a worktree, and what a branch holds.

The recovery branch is built from plumbing only (``commit-tree`` and a temporary index), so the
user's checkout is never touched and no file of any pull request is checked out or run:

- the *bootstrap*: an empty commit on the default branch, pushed first so the recovery pull
  request can be opened and authorized before the changelog changes;
- the *recovery commit*: the bootstrap plus the recovery entries appended to the changelog;
- the *carrier*: the recovery commit's tree again, with the recovery commit as first parent and
  the source run's commit as second parent. It changes no file; it puts the source commit among
  the pull request's commits, which is where the reuse gate looks for a run's head.

A re-run reads what the branch holds (:func:`branch_state`) and continues from there; nothing
here rewrites a pushed commit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from changelog_tools.gitrepo import GitRepo

PRIVATE_REF_PREFIX = "refs/changelog-tools/recover"
# Used only when git knows no identity (a fresh CI machine); a configured one is kept.
FALLBACK_IDENTITY = {
    "GIT_AUTHOR_NAME": "changelog-tools recover",
    "GIT_AUTHOR_EMAIL": "changelog-tools@users.noreply.github.com",
    "GIT_COMMITTER_NAME": "changelog-tools recover",
    "GIT_COMMITTER_EMAIL": "changelog-tools@users.noreply.github.com",
}


def identity(repo: GitRepo) -> dict[str, str]:
    """Variables for commit-tree: none when git has an identity, the fallback otherwise."""
    return {} if repo.has_identity() else dict(FALLBACK_IDENTITY)


def fetch(repo: GitRepo, *, remote: str, refspecs: Mapping[str, str]) -> dict[str, str]:
    """Fetch each remote ref into a private ref; return {remote ref: SHA}."""
    repo.fetch_refs(
        remote, [(src, f"{PRIVATE_REF_PREFIX}/{name}") for name, src in refspecs.items()]
    )
    return {src: repo.rev_parse(f"{PRIVATE_REF_PREFIX}/{name}") for name, src in refspecs.items()}


def remote_branch(repo: GitRepo, *, remote: str, branch: str) -> str | None:
    """The SHA ``branch`` has on ``remote``, or None when it does not exist (no fetch)."""
    return repo.remote_branch(remote, branch)


def delete_private_refs(repo: GitRepo) -> None:
    """Remove every ref :func:`fetch` made (best effort; used in cleanup)."""
    for ref in repo.ref_names(PRIVATE_REF_PREFIX):
        repo.try_delete_ref(ref)


def bootstrap(repo: GitRepo, *, main_sha: str, message: str) -> str:
    """An empty commit on ``main_sha`` (same tree)."""
    return repo.commit_tree(f"{main_sha}^{{tree}}", (main_sha,), message, identity(repo))


def with_file(repo: GitRepo, *, parent: str, path: str, data: bytes, message: str) -> str:
    """A commit on ``parent`` whose tree is the parent's with ``path`` holding ``data``.

    Built in a temporary index (read-tree, update-index, write-tree), as the reference
    procedure does, so no work tree is involved; the file keeps its mode.
    """
    tree = repo.tree_with_file(parent, path, data)
    return repo.commit_tree(tree, (parent,), message, identity(repo))


def carrier(repo: GitRepo, *, recovery: str, source: str, message: str) -> str:
    """The recovery commit's tree with parents (recovery commit, source commit)."""
    return repo.commit_tree(f"{recovery}^{{tree}}", (recovery, source), message, identity(repo))


@dataclass(frozen=True)
class BranchState:
    """What the recovery branch holds on the remote.

    ``kind``: ``absent``; ``bootstrap`` (an empty commit on the default branch: the entries are
    still to be appended); ``carrier`` (the carrier commit is pushed; ``source`` is its second
    parent); ``foreign`` (anything else: someone else's commits, which are never overwritten).
    """

    kind: str
    sha: str | None = None
    source: str | None = None
    base: str | None = None  # the bootstrap commit's parent (the default branch it started on)
    bootstrap: str | None = None


def branch_state(repo: GitRepo, sha: str | None, *, bootstrap_message: str) -> BranchState:
    """Classify the remote branch tip ``sha`` (already fetched) as :class:`BranchState`."""
    if sha is None:
        return BranchState("absent")
    parents = repo.parents(sha)
    message = repo.message(sha).strip()
    bootstrapped = len(parents) == 1 and message == bootstrap_message.strip()
    if bootstrapped and _same_tree(repo, sha, parents[0]):
        return BranchState("bootstrap", sha, base=parents[0], bootstrap=sha)
    if len(parents) == 2 and _same_tree(repo, sha, parents[0]):
        # carrier -> recovery commit -> bootstrap -> the default branch
        recovery_parents = repo.parents(parents[0])
        if len(recovery_parents) == 1:
            boot = recovery_parents[0]
            boot_parents = repo.parents(boot)
            if len(boot_parents) == 1 and _same_tree(repo, boot, boot_parents[0]):
                return BranchState(
                    "carrier", sha, source=parents[1], base=boot_parents[0], bootstrap=boot
                )
    return BranchState("foreign", sha)


def _same_tree(repo: GitRepo, a: str, b: str) -> bool:
    return repo.tree_of(a) == repo.tree_of(b)
