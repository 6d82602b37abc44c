"""Which commit a change is against: the main branch's best local name and the merge-base."""

from __future__ import annotations

from changelog_tools.errors import GitError
from changelog_tools.gitrepo.repo import GitRepo


def main_ref(repo: GitRepo, main_branch: str, remote: str) -> str:
    """The best local name of the main branch: the remote-tracking ref when present."""
    found = repo.first_commit((f"refs/remotes/{remote}/{main_branch}", f"refs/heads/{main_branch}"))
    if found is not None:
        return found
    raise GitError(
        f"neither {remote}/{main_branch} nor {main_branch} exists in {repo.path}; "
        f"fetch it (git fetch {remote} {main_branch}) or pass --base-ref"
    )


def default_base(repo: GitRepo, *, head: str, main_branch: str, remote: str) -> str:
    """The merge-base of ``head`` and the main branch: what a pull request's change is against.

    Diffing against main's tip instead would make every branch that is behind main look like it
    deleted main's new entries.
    """
    main = main_ref(repo, main_branch, remote)
    try:
        return repo.merge_base(head, main)
    except GitError:
        if repo.try_rev_parse(head) is None:
            # An unborn branch (a new repository, `git checkout --orphan`): nothing to fetch.
            raise GitError(
                f"{head} does not name a commit: the branch has no commits yet in {repo.path}",
                hint="commit the changelog first, or pass --base-ref",
            ) from None
        shallow = _is_shallow(repo)
        raise GitError(
            f"{head[:12]} and {main} have no common ancestor"
            + (" in this shallow clone" if shallow else ""),
            hint="fetch the whole history (actions/checkout: `fetch-depth: 0`) or pass --base-ref",
        ) from None


def _is_shallow(repo: GitRepo) -> bool:
    # Only to word an error: a question git cannot answer is not a second error.
    try:
        return repo.is_shallow()
    except GitError:
        return False
