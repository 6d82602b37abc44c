"""Refs and remotes: fetching into private refs, listing and deleting refs, pushing.

Fetches and pushes run git's own command (see :mod:`changelog_tools.gitrepo.runner` for why not
GitPython's ``Remote``); a push is never forced and runs no hook.
"""

from __future__ import annotations

from collections.abc import Iterable

from changelog_tools.gitrepo.history import History


class Refs(History):
    """Names of commits here and on a remote, and moving commits between the two."""

    def fetch(self, remote: str, refspec: str) -> None:
        """Fetch ``refspec`` from ``remote`` (no tags)."""
        self.git("fetch", "--quiet", "--no-tags", remote, refspec)

    def fetch_private_ref(self, remote: str, source: str, ref: str) -> None:
        """Fetch ``source`` of ``remote`` into ``ref`` (forced, no tags, no FETCH_HEAD): to read
        another party's commits as data without a branch or a checkout."""
        self.git(
            "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", remote, f"+{source}:{ref}"
        )

    def delete_ref(self, ref: str) -> None:
        """Delete ``ref``; GitError when git refuses."""
        self.git("update-ref", "-d", ref)

    def fetch_refs(self, remote: str, targets: Iterable[tuple[str, str]]) -> None:
        """Fetch each ``(source, ref)`` of ``remote`` into the local ``ref``, forced, no tags:
        several refs in one round trip to the remote."""
        self.git("fetch", "--quiet", "--no-tags", remote, *(f"+{s}:{r}" for s, r in targets))

    def try_delete_ref(self, ref: str) -> bool:
        """Delete ``ref`` (nothing to do when it is absent); False instead of an error when
        git cannot (for cleanup)."""
        return self.git_ok("update-ref", "-d", ref)

    def ref_names(self, prefix: str, *, short: bool = False) -> list[str]:
        """The refs under ``prefix`` (``refs/heads/x/``), full names or ``short`` ones."""
        name = "%(refname:short)" if short else "%(refname)"
        return [
            line
            for line in self.git("for-each-ref", f"--format={name}", prefix).splitlines()
            if line
        ]

    def refs_containing(self, commit: str, refs: Iterable[str]) -> list[str]:
        """Which of ``refs`` (full names) have ``commit`` in their history: one git process
        for them all; none for refs that do not exist or a commit git does not know."""
        names = list(refs)
        if not names:
            return []
        status, out, _err = self.git_status(
            "for-each-ref", f"--contains={commit}", "--format=%(refname)", *names
        )
        return [line for line in out.splitlines() if line in names] if status == 0 else []

    def remote_branch(self, remote: str, branch: str) -> str | None:
        """The commit ``branch`` has on ``remote``, asked of the remote itself (no fetch);
        None when the remote has no such branch."""
        out = self.git("ls-remote", "--heads", remote, f"refs/heads/{branch}")
        for line in out.splitlines():
            sha, _, ref = line.partition("\t")
            if ref == f"refs/heads/{branch}":
                return sha
        return None

    def try_push(self, remote: str, refspec: str) -> tuple[int, str, str]:
        """Push ``refspec`` to ``remote`` without force and without the pre-push hook (a hook
        belongs to whatever the clone has checked out, the tool runs no code but its own):
        (exit status, git's porcelain report, stderr), for the caller to tell a refusal by the
        remote from a race and from a failure."""
        return self.git_status("push", "--porcelain", "--no-verify", remote, refspec)
