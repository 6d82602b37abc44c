"""Making commits and merges: the index, worktrees, merges of branches and of single files,
and commits written from plumbing (a tree and its parents) without touching any checkout.

Each runs git's own command: concluding a merge needs git's merge state (MERGE_HEAD), which
GitPython's ``IndexFile.commit`` does not write; a commit the tool makes never runs a hook
(``--no-verify``): hooks belong to whatever is checked out, the tool runs no code but its own.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from changelog_tools.errors import GitError
from changelog_tools.gitrepo.refs import Refs


class Merging(Refs):
    """Writing history: staging, committing, merging, and scratch worktrees to do it in."""

    def stage(self, *paths: str) -> None:
        """``git add`` these paths (a resolved conflict is staged this way)."""
        self.git("add", "--", *paths)

    def merge_tree(self, base: str, other: str) -> tuple[str, tuple[str, ...]]:
        """The tree of merging ``other`` into ``base`` (nothing checked out or written but the
        objects) and the paths that conflicted; GitError when git cannot merge them."""
        status, out, err = self.git_status(
            "merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", base, other
        )
        if status not in (0, 1):
            detail = err.strip() or out.strip()
            raise GitError(
                f"git merge-tree {base[:7]} {other[:7]} failed (git >= 2.38 needed): {detail}"
            )
        # -z: without it git C-quotes a path holding non-ASCII bytes ("\303\274"), which no
        # pattern matches. The tree id, then each conflicted path, each ended by NUL.
        lines = out.split("\0")
        conflicts = tuple(sorted({ln for ln in lines[1:] if ln})) if status == 1 else ()
        return lines[0].strip(), conflicts

    # -- worktrees -----------------------------------------------------------------------

    def add_worktree(self, path: Path, *, branch: str, start: str, hooks_dir: Path) -> None:
        """Check ``start`` out at ``path`` in a new worktree on the new branch ``branch``,
        with ``core.hooksPath`` at ``hooks_dir`` while doing it (so no hook of the commit
        checked out runs)."""
        self.git(
            "-c", f"core.hooksPath={hooks_dir}", "worktree", "add", "--quiet", "-b", branch,
            str(path), start,
        )  # fmt: skip

    def remove_worktree(self, path: Path) -> bool:
        """Force-remove the worktree at ``path``; False instead of an error (for cleanup)."""
        return self.git_ok("worktree", "remove", "--force", str(path))

    def prune_worktrees(self) -> bool:
        """Forget worktrees whose directories are gone; False instead of an error."""
        return self.git_ok("worktree", "prune")

    def delete_branch(self, branch: str) -> bool:
        """Force-delete the local ``branch``; False instead of an error (for cleanup)."""
        return self.git_ok("branch", "-D", branch)

    def checkout(self, branch: str) -> bool:
        """Check ``branch`` out here; False instead of an error (to restore a checkout)."""
        return self.git_ok("checkout", "--quiet", branch)

    # -- merges and commits --------------------------------------------------------------

    def merge(self, commit: str, *, message: str) -> str | None:
        """Merge ``commit`` into HEAD (always a merge commit, with ``message``): None when
        merged; otherwise git's error message (or its exit status), for a conflict and for a
        failure alike (git's exit status tells them apart no better: :meth:`unmerged_paths`
        does)."""
        status, _out, err = self.git_status("merge", "--no-ff", "--no-edit", "-m", message, commit)
        if status == 0:
            return None
        return err.strip() or f"exit status {status}"

    def unmerged_paths(self) -> list[str]:
        """The paths a merge left conflicted, sorted."""
        out = self.git("diff", "--name-only", "--diff-filter=U", "-z", strip=False)
        return sorted({p for p in out.split("\0") if p})

    def abort_merge(self) -> bool:
        """Abandon a merge under way; False instead of an error (for cleanup)."""
        return self.git_ok("merge", "--abort")

    def commit(self, message: str, *, amend: bool = False, allow_empty: bool = False) -> str:
        """Commit the index with ``message`` (no hook runs); the new commit."""
        args = ["commit", "--quiet", "--no-verify", "-m", message]
        if amend:
            args.append("--amend")
        if allow_empty:
            args.append("--allow-empty")
        self.git(*args)
        return self.rev_parse("HEAD")

    def conclude_merge(self) -> str:
        """Commit a merge whose conflicts were resolved and staged, with git's merge message
        (no hook runs); the new commit."""
        self.git("commit", "--quiet", "--no-verify", "--no-edit")
        return self.rev_parse("HEAD")

    # -- commits from plumbing -----------------------------------------------------------

    def has_identity(self) -> bool:
        """Whether git knows who commits here (``user.name``/``user.email`` or the like)."""
        return self.git_ok("var", "GIT_COMMITTER_IDENT")

    def commit_tree(
        self,
        tree: str,
        parents: Sequence[str],
        message: str,
        env: Mapping[str, str] | None = None,
    ) -> str:
        """A new commit of ``tree`` with ``parents`` (in order) and ``message``; no ref moves.
        ``env`` adds variables (an identity) for this one command."""
        args = ["commit-tree", tree]
        for parent in parents:
            args += ["-p", parent]
        return self.git(*args, "-m", message, env=env or None)

    def tree_with_file(self, parent: str, path: str, data: bytes) -> str:
        """The tree of commit ``parent`` with ``path`` holding exactly ``data`` (mode kept,
        100644 for a new file), written to the object store; the checkout and the index are
        never touched: it is built in a temporary index."""
        listed = self.git("ls-tree", parent, "--", path)
        mode = listed.split(" ", 1)[0] if listed else "100644"
        import tempfile  # here, not at import: the merge driver loads this package per commit

        with tempfile.TemporaryDirectory(prefix="changelog-tools-tree-") as tmp:
            env = {"GIT_INDEX_FILE": os.path.join(tmp, "index")}
            blob_file = Path(tmp) / "blob"
            blob_file.write_bytes(data)
            self.git("read-tree", parent, env=env)
            # --no-filters: the bytes are exactly these, whatever .gitattributes says
            blob = self.git("hash-object", "-w", "--no-filters", "--", str(blob_file))
            self.git("update-index", "--add", "--cacheinfo", f"{mode},{blob},{path}", env=env)
            return self.git("write-tree", env=env)


def merge_file(
    current: Path, ancestor: Path, other: Path, *, labels: tuple[str, str, str], marker_size: int
) -> bytes | None:
    """git's usual three-way text merge of three files, with conflict markers labelled
    ``labels`` (ours, base, theirs); None when git fails. Needs no repository."""
    import subprocess  # here: the merge driver's resolved steps start no process

    try:
        proc = subprocess.run(
            [
                "git", "merge-file", "--stdout", f"--marker-size={marker_size}",
                "-L", labels[0], "-L", labels[1], "-L", labels[2],
                str(current), str(ancestor), str(other),
            ],
            capture_output=True,
            check=False,
        )  # fmt: skip
    except OSError:
        return None
    # merge-file exits with the number of conflicts; negative (>127 here) means it failed.
    return proc.stdout if 0 <= proc.returncode < 128 else None
