"""The git side of the merge flow: a scratch worktree, merging main in, pushing without force.

Nothing here touches the user's own checkout: the PR head is fetched into a private ref and
worked on in a temporary worktree on a temporary branch, both removed on exit (also on Ctrl-C
and SIGTERM), so the branch the user started on is never left and always stays as it was.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from changelog_tools.errors import AbortedError, GitError
from changelog_tools.gitrepo import GitRepo, open_repo

# Private namespace for the refs the flow fetches; deleted when the flow ends.
PRIVATE_REF_PREFIX = "refs/changelog-tools/merge"
# Trailer on every commit the flow makes, so a re-run recognises its own pushed head.
FLOW_TRAILER = "Changelog-Tools-Merge"


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so every ``finally`` in the flow runs."""


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Turn SIGTERM into :class:`Terminated` while the flow runs (main thread only)."""
    try:
        previous = signal.getsignal(signal.SIGTERM)

        def handler(signum: int, frame: FrameType | None) -> None:
            raise Terminated()

        signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread: the caller owns signal handling
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def fetch_refs(
    repo: GitRepo, *, remote: str, main_branch: str, head_branch: str, pr: int
) -> tuple[str, str]:
    """Fetch main and the PR branch; return (main sha, PR head sha) as the remote has them."""
    main_ref = f"refs/remotes/{remote}/{main_branch}"
    head_ref = f"{PRIVATE_REF_PREFIX}/pr-{pr}-head"
    repo.fetch_refs(
        remote, [(f"refs/heads/{main_branch}", main_ref), (f"refs/heads/{head_branch}", head_ref)]
    )
    return repo.rev_parse(main_ref), repo.rev_parse(head_ref)


def delete_private_refs(repo: GitRepo, pr: int) -> None:
    """Remove the refs :func:`fetch_refs` created (best effort; used in cleanup)."""
    ref = f"{PRIVATE_REF_PREFIX}/pr-{pr}-head"
    if repo.try_rev_parse(ref):
        repo.try_delete_ref(ref)


@dataclass(frozen=True)
class Scratch:
    """A temporary worktree checked out on a temporary branch."""

    repo: GitRepo  # the worktree
    branch: str
    path: Path


def no_hooks_env(hooks_dir: Path, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Environment entries that point ``core.hooksPath`` at ``hooks_dir`` (an empty directory).

    Appended after any ``GIT_CONFIG_COUNT`` entries the caller already has, so they survive.
    """
    environ = os.environ if environ is None else environ
    try:
        count = max(0, int(environ.get("GIT_CONFIG_COUNT") or 0))
    except ValueError:
        count = 0
    return {
        "GIT_CONFIG_COUNT": str(count + 1),
        f"GIT_CONFIG_KEY_{count}": "core.hooksPath",
        f"GIT_CONFIG_VALUE_{count}": str(hooks_dir),
    }


@contextlib.contextmanager
def scratch_worktree(repo: GitRepo, *, start: str, pr: int) -> Iterator[Scratch]:
    """Check ``start`` out in a new worktree on a new branch; remove both on exit.

    No git hook runs in the scratch worktree: a relative ``core.hooksPath`` (``.githooks``)
    would resolve inside the PR's own checkout, and `git merge`/`commit` would then execute
    scripts from the PR branch (with the maintainer's token in the environment).
    """
    branch = f"changelog-tools/merge-pr-{pr}-{os.getpid()}"
    parent = Path(tempfile.mkdtemp(prefix=f"changelog-tools-pr{pr}-"))
    path = parent / "worktree"
    hooks = parent / "no-hooks"
    try:
        hooks.mkdir()
        try:
            repo.add_worktree(path, branch=branch, start=start, hooks_dir=hooks)
            scratch = open_repo(path)
            scratch.update_environment(**no_hooks_env(hooks))
            yield Scratch(scratch, branch, path)
        finally:
            # also when `worktree add` failed or was interrupted after creating the branch
            remove_worktree(repo, path, branch)
    finally:
        shutil.rmtree(parent, ignore_errors=True)


def remove_worktree(repo: GitRepo, path: Path, branch: str) -> None:
    """Force-remove a worktree and its branch; never raises (runs during cleanup)."""
    repo.remove_worktree(path)
    shutil.rmtree(path, ignore_errors=True)
    repo.prune_worktrees()
    repo.delete_branch(branch)


def leftover_scratch(repo: GitRepo) -> list[str]:
    """Temporary branches a killed earlier run left behind (for tests and doctor output)."""
    return repo.ref_names("refs/heads/changelog-tools/", short=True)


@dataclass(frozen=True)
class MergeAttempt:
    """What ``git merge`` of main did in the scratch worktree."""

    merged: bool  # a merge commit is (or, with conflicts, will be) created
    conflicted: tuple[str, ...]  # unmerged paths; empty when the merge was clean


def merge_main(scratch: Scratch, *, main_sha: str, message: str) -> MergeAttempt:
    """Merge ``main_sha`` into the scratch branch; conflicts are reported, not raised."""
    wt = scratch.repo
    if wt.is_ancestor(main_sha, "HEAD"):
        return MergeAttempt(merged=False, conflicted=())
    failed = wt.merge(main_sha, message=message)
    if failed is not None:
        # The exit code of `git merge` is ambiguous (1 for a conflict and for a bad ref):
        # decide from the unmerged paths, not from the status.
        conflicted = unmerged_paths(wt)
        if not conflicted:
            raise GitError(f"git merge of main failed: {failed}")
        return MergeAttempt(merged=True, conflicted=tuple(conflicted))
    return MergeAttempt(merged=True, conflicted=())


def unmerged_paths(repo: GitRepo) -> list[str]:
    return repo.unmerged_paths()


def abort_merge(repo: GitRepo) -> None:
    repo.abort_merge()


def write_and_stage(repo: GitRepo, path: str, data: bytes) -> None:
    target = Path(repo.path) / path
    target.write_bytes(data)
    repo.stage(path)


def commit(repo: GitRepo, message: str, *, amend: bool = False, allow_empty: bool = False) -> str:
    """Commit the index (``--no-verify``: the PR's hooks are not the tool's to run)."""
    return repo.commit(message, amend=amend, allow_empty=allow_empty)


def conclude_merge(repo: GitRepo) -> str:
    """Commit a merge whose conflicts were resolved and staged, keeping git's merge message."""
    return repo.conclude_merge()


def commit_message(repo: GitRepo, ref: str) -> str:
    return repo.message(ref)


def pr_commit_subjects(repo: GitRepo, *, main_sha: str, head: str) -> list[str]:
    """Full messages of the PR's own commits (not main's), oldest first."""
    return repo.messages_between(main_sha, head)


_REMOTE_REFUSED = re.compile(r"\[remote rejected\] \(([^)\n]*)\)")
_REMOTE_SAYS = re.compile(r"remote:[ \t]*([^\n]*)")
_REJECTED = re.compile(r"\[rejected\]|\[remote rejected\]|non-fast-forward|fetch first|stale info")


def push(repo: GitRepo, *, remote: str, sha: str, branch: str, what: str) -> None:
    """Push ``sha`` to ``branch`` without force; a rejection raises AbortedError (exit 4).

    ``--no-verify``: a pre-push hook belongs to whatever the clone has checked out (the PR
    itself, after `gh pr checkout`); the flow runs no code but its own.
    """
    refspec = f"{sha}:refs/heads/{branch}"
    status, out, err = repo.try_push(remote, refspec)
    if status != 0:
        text = f"{out}\n{err}"
        refused = _REMOTE_REFUSED.search(text)
        if refused:
            # Branch protection or a server hook, not a race: say what the remote said.
            remote_says = [m.strip() for m in _REMOTE_SAYS.findall(err) if m.strip()]
            why = refused.group(1) + (f": {'; '.join(remote_says[:3])}" if remote_says else "")
            raise AbortedError(
                f"{remote} refused the push to {branch} of {what} ({why}). Nothing was pushed "
                "or merged",
                hint="the branch may be protected against pushes; push the merge of main by "
                "hand or lift the protection, then re-run",
            ) from None
        if _REJECTED.search(text):
            raise AbortedError(
                f"{remote} rejected the push to {branch}: the branch of {what} moved while "
                "the flow ran. Nothing was pushed or merged",
                hint="re-run the merge; it starts from the branch as it is now",
            ) from None
        raise GitError(f"git push to {remote} {branch} failed: {err.strip()}")
