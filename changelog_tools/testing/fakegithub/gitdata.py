"""Git data: the bare repository standing in for GitHub's copy of the code."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from changelog_tools.gitrepo import GIT_LOCAL_VARS
from changelog_tools.testing.fakegithub.state import FakeCommit


class GitOrigin:
    """A bare repository standing in for GitHub's copy of the code."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def _env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in GIT_LOCAL_VARS}
        env.update(extra or {})
        return env

    def git(
        self, *args: str, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", "--git-dir", str(self.path), *args],
            capture_output=True,
            text=True,
            env=self._env(env),
            check=False,
        )

    def _out(self, *args: str) -> str:
        proc = self.git(*args)
        if proc.returncode != 0:
            raise RuntimeError(f"git {' '.join(args)} failed: {proc.stderr.strip()}")
        return proc.stdout.strip()

    def resolve(self, ref: str) -> str | None:
        proc = self.git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
        return proc.stdout.strip() if proc.returncode == 0 else None

    def set_ref(self, ref: str, sha: str) -> None:
        self._out("update-ref", ref, sha)

    def commits(self, base: str, head: str) -> list[FakeCommit]:
        """Commits reachable from ``head`` but not ``base``, oldest first (GitHub's PR list)."""
        out = self._out("log", "--reverse", "--format=%H%x1f%P%x1f%B%x1e", f"{base}..{head}")
        commits = []
        for record in out.split("\x1e"):
            record = record.strip("\n")
            if not record:
                continue
            sha, parents, message = record.split("\x1f", 2)
            commits.append(FakeCommit(sha, message.strip(), parents.split()))
        return commits

    def files(self, base: str, head: str) -> list[dict[str, Any]]:
        """What ``GET /pulls/N/files`` lists: the diff from the merge base, renames found."""
        merge_base = self._out("merge-base", base, head)
        out = self._out("diff", "--name-status", "-M", "-z", merge_base, head)
        fields = [f for f in out.split("\0") if f]
        names = {"A": "added", "D": "removed", "M": "modified", "R": "renamed", "T": "changed"}
        files: list[dict[str, Any]] = []
        i = 0
        while i < len(fields):
            code = fields[i]
            if code.startswith("R") or code.startswith("C"):
                files.append(
                    {
                        "filename": fields[i + 2],
                        "previous_filename": fields[i + 1],
                        "status": "renamed" if code[0] == "R" else "copied",
                    }
                )
                i += 3
            else:
                files.append({"filename": fields[i + 1], "status": names.get(code[0], "modified")})
                i += 2
        return files

    def merge_tree(self, base: str, head: str) -> str | None:
        """The tree of merging ``head`` into ``base``, or None when they conflict."""
        proc = self.git("merge-tree", "--write-tree", "--no-messages", base, head)
        if proc.returncode == 1:
            return None
        if proc.returncode != 0:
            raise RuntimeError(f"git merge-tree failed: {proc.stderr.strip()}")
        return proc.stdout.split("\n", 1)[0].strip()

    def squash(
        self, base_ref: str, head: str, *, title: str, message: str, author: str
    ) -> tuple[str, str] | None:
        """Squash ``head`` onto ``base_ref``; return (old base, new commit) or None on conflict."""
        ref = f"refs/heads/{base_ref}"
        base = self.resolve(ref)
        if base is None:
            raise RuntimeError(f"the git origin has no branch {base_ref}")
        tree = self.merge_tree(base, head)
        if tree is None:
            return None
        identity = {
            "GIT_AUTHOR_NAME": author,
            "GIT_AUTHOR_EMAIL": f"{author}@users.noreply.github.invalid",
            "GIT_COMMITTER_NAME": "GitHub",
            "GIT_COMMITTER_EMAIL": "noreply@github.invalid",
        }
        text = title + (f"\n\n{message}" if message else "")
        proc = self.git("commit-tree", tree, "-p", base, "-m", text, env=identity)
        if proc.returncode != 0:
            raise RuntimeError(f"git commit-tree failed: {proc.stderr.strip()}")
        new = proc.stdout.strip()
        # compare-and-swap: fails if the branch moved since we read it
        self._out("update-ref", ref, new, base)
        return base, new
