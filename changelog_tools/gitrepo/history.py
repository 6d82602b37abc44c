"""History and state: what commits a branch holds, who descends from whom, what HEAD is.

``is_clean`` (``Repo.is_dirty``) and ``current_branch`` (``Repo.head``) use GitPython's
``Repo`` (only the merge flow, which needs GitPython anyway, asks them); the rest reads git's own
``log``, ``rev-list`` and ``merge-base``, through plain processes while GitPython is not loaded
(see :mod:`~changelog_tools.gitrepo.runner`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from changelog_tools.errors import GitError
from changelog_tools.gitrepo.objects import Objects
from changelog_tools.gitrepo.runner import _failures, _one_line, _text


@dataclass(frozen=True)
class FileVersion:
    """A commit that changed a file: its id, committer date (ISO 8601) and subject."""

    commit: str
    date: str
    subject: str


class History(Objects):
    """Commits, their order and messages, and the state of the checkout."""

    def symbolic_head(self) -> str | None:
        """The ref HEAD names (``refs/heads/x``); None when HEAD is detached. One git process:
        the merge driver asks this on every conflicting commit of a rebase."""
        status, out, _err = self.git_status("symbolic-ref", "--quiet", "HEAD")
        return out if status == 0 and out else None

    def file_history(self, ref: str, path: str) -> list[FileVersion]:
        """The commits reachable from ``ref`` that changed ``path``, newest first."""
        out = self.git("log", "--format=%H%x00%cI%x00%s", ref, "--", path)
        history = []
        # Split on newlines only: str.splitlines() also breaks at \x0b, \x0c, \x1c-\x1e and
        # \x85, which a commit subject may hold.
        for line in out.split("\n") if out else ():
            commit, date, subject = ([*line.split("\x00"), "", ""])[:3]
            history.append(FileVersion(commit, date, subject))
        return history

    def commits_between(
        self, since: str, until: str, paths: Sequence[str], *, limit: int | None = None
    ) -> list[str]:
        """Commits of ``since..until`` that changed any of ``paths``, newest first (at most
        ``limit``)."""
        limited = [f"-{limit}"] if limit is not None else []
        return self.git("rev-list", *limited, f"{since}..{until}", "--", *paths).split()

    def subject(self, commit: str) -> str:
        """The first line of ``commit``'s message."""
        return self.git("log", "-1", "--format=%s", commit)

    def message(self, commit: str) -> str:
        """The whole message of ``commit`` (one trailing newline removed)."""
        return self.git("log", "-1", "--format=%B", commit)

    def messages_between(self, since: str, until: str) -> list[str]:
        """The messages of the commits of ``since..until`` but merges, oldest first, each
        stripped of surrounding blank space (empty ones left out)."""
        out = self.git("log", "--reverse", "--no-merges", "--format=%B%x00", f"{since}..{until}")
        return [m.strip() for m in out.split("\0") if m.strip()]

    def parents(self, commit: str) -> list[str]:
        """The parents of ``commit``, first parent first (none for a root commit)."""
        return self.git("rev-list", "--parents", "-n", "1", commit).split()[1:]

    def is_shallow(self) -> bool:
        """True in a shallow clone (history cut off)."""
        return self.git("rev-parse", "--is-shallow-repository") == "true"

    def merge_base(self, a: str, b: str) -> str:
        """The best common ancestor of ``a`` and ``b``; GitError when they have none.

        Through the command runner, not ``Repo.merge_base``: that one turns the answer into
        commit objects through a second persistent ``cat-file --batch-check`` process, a
        process more per `check` for a name the caller only wants as text.
        """
        found = self.try_merge_base(a, b)
        if found is None:
            raise GitError(f"{a} and {b} have no common ancestor")
        return found

    def try_merge_base(self, a: str, b: str) -> str | None:
        """The best common ancestor of ``a`` and ``b``, or None when git says they have none
        (unrelated histories, or a shallow clone cut above the fork); GitError when git fails."""
        status, out, err = self._run(("merge-base", a, b))
        found = _text(out).strip()
        if status == 1 and not found and not _one_line(err):
            return None
        if status != 0 or not found:
            reason = _one_line(err) or f"exit status {status}"
            raise GitError(f"git merge-base {a} {b} failed: {reason}")
        return found.split()[0]

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        """Whether ``ancestor`` is ``descendant`` or one of its ancestors; False also when
        either names no commit."""
        old, new = self.try_rev_parse(ancestor), self.try_rev_parse(descendant)
        if old is None or new is None:
            return False
        # git's own question, as GitPython's Repo.is_ancestor asks it: 1 says no.
        status, _out, err = self._run(("merge-base", "--is-ancestor", old, new))
        if status in (0, 1):
            return status == 0
        reason = _one_line(err) or f"exit status {status}"
        raise GitError(f"git merge-base --is-ancestor {ancestor} {descendant} failed: {reason}")

    def first_parent_changes(self, ref: str, path: str) -> Iterator[tuple[str, str | None, str]]:
        """(commit, first parent or None, subject) of each commit on ``ref``'s first-parent
        history, newest first, whose ``path`` differs from its first parent's (added, changed or
        deleted): on a main branch, the merged pull requests that changed that file.

        Compared by blob id from the two trees (a merge's side branches never count: what it
        brought in is its difference from the first parent). Lazy: the caller stops reading
        when it has enough.
        """
        log = self.git("log", "--first-parent", "--format=%H %P%x00%s", ref, "--")
        for record in log.split("\n") if log else ():  # not splitlines(): see file_history
            ids, _, subject = record.partition("\x00")
            sha, *parents = ids.split()
            parent = parents[0] if parents else None
            if self._path_id(sha, path) != (self._path_id(parent, path) if parent else None):
                yield sha, parent, subject

    def current_branch(self) -> str | None:
        """The branch checked out (``feature/x``); None when HEAD is detached."""
        with _failures("reading HEAD"):
            head = self._repo.head
            return None if head.is_detached else head.reference.name or None

    def is_clean(self) -> bool:
        """No staged and no unstaged change to a tracked file (untracked files do not count)."""
        with _failures("git status"):
            return not self._repo.is_dirty(untracked_files=False)
