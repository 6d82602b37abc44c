"""The git adapter: short typed functions over GitPython that hand plain values to the core.

Every git failure becomes :class:`~changelog_tools.errors.GitError` with the command's message.
Variables git exports to hooks (GIT_DIR, GIT_INDEX_FILE, ...) are scrubbed so the tool never
acts on a repository other than the one it was pointed at.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from changelog_tools.errors import GitError, UsageError

# `git rev-parse --local-env-vars` on git 2.39: set by git for hooks, poison for a tool.
GIT_LOCAL_VARS = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_PREFIX",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_IMPLICIT_WORK_TREE",
    "GIT_GRAFT_FILE",
    "GIT_NO_REPLACE_OBJECTS",
    "GIT_REPLACE_REF_BASE",
    "GIT_SHALLOW_FILE",
    "GIT_INTERNAL_SUPER_PREFIX",
)


def scrub_environment() -> None:
    """Remove hook-exported git variables from this process and make git non-interactive."""
    for name in GIT_LOCAL_VARS:
        os.environ.pop(name, None)
    os.environ["GIT_TERMINAL_PROMPT"] = "0"
    os.environ.setdefault("GIT_EDITOR", "true")


@dataclass(frozen=True)
class GitRepo:
    """A local repository (work tree or bare)."""

    repo: Any  # git.Repo; typed loosely so callers never depend on GitPython's types

    @property
    def path(self) -> Path:
        return Path(self.repo.working_tree_dir or self.repo.git_dir)

    @property
    def git_dir(self) -> Path:
        return Path(self.repo.git_dir)

    def git(self, *args: str, strip: bool = True) -> str:
        """Run ``git ARGS`` in this repository and return stdout; raise GitError on failure."""
        import git

        try:
            out: str = self.repo.git.execute(
                ["git", *args], strip_newline_in_stdout=strip, with_extended_output=False
            )
        except git.GitCommandError as exc:
            stderr = (exc.stderr or "").strip().removeprefix("stderr:").strip().strip("'")
            # GitPython's own text spans several lines and repeats the command: one line instead.
            reason = " ".join(stderr.split()) or f"exit status {exc.status}"
            raise GitError(f"git {' '.join(args)} failed: {reason}") from None
        return out

    def update_environment(self, **env: str) -> None:
        """Set variables for every later git command run in this repository."""
        self.repo.git.update_environment(**env)

    def git_ok(self, *args: str) -> bool:
        """Run ``git ARGS``; True when it exits 0 (for yes/no questions such as is-ancestor)."""
        import git

        try:
            self.repo.git.execute(["git", *args])
        except git.GitCommandError:
            return False
        return True

    def rev_parse(self, ref: str) -> str:
        return self.git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")

    def try_rev_parse(self, ref: str) -> str | None:
        try:
            return self.rev_parse(ref)
        except GitError:
            return None

    def read_blob(self, ref: str, path: str) -> bytes | None:
        """Exact bytes of ``path`` at ``ref``; None when the path does not exist there."""
        try:
            commit = self.repo.commit(ref)
        except Exception as exc:  # gitdb raises several types for a bad ref
            raise GitError(f"unknown git revision {ref!r}: {exc}") from None
        try:
            blob = commit.tree / path
        except KeyError:
            return None
        if blob.type != "blob":
            return None  # a directory or a submodule: there is no file of that name
        data: bytes = blob.data_stream.read()
        return data

    def merge_base(self, a: str, b: str) -> str:
        return self.git("merge-base", a, b)

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        return self.git_ok("merge-base", "--is-ancestor", ancestor, descendant)

    def changed_paths(self, a: str, b: str) -> list[str]:
        out = self.git("diff", "--name-only", "--no-renames", a, b)
        return [line for line in out.splitlines() if line]

    def current_branch(self) -> str | None:
        out = self.git("symbolic-ref", "--quiet", "--short", "HEAD") if self._on_branch() else ""
        return out or None

    def _on_branch(self) -> bool:
        return self.git_ok("symbolic-ref", "--quiet", "HEAD")

    def is_clean(self) -> bool:
        return not self.git("status", "--porcelain", "--untracked-files=no")


def open_repo(path: Path | str = ".") -> GitRepo:
    """Open the repository containing ``path``."""
    import git

    scrub_environment()
    try:
        repo = git.Repo(str(path), search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise UsageError(f"{path} is not inside a git repository") from None
    return GitRepo(repo)


@contextmanager
def working_directory(path: Path) -> Iterator[None]:
    old = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def main_ref(repo: GitRepo, main_branch: str, remote: str) -> str:
    """The best local name of the main branch: the remote-tracking ref when present."""
    for candidate in (f"refs/remotes/{remote}/{main_branch}", f"refs/heads/{main_branch}"):
        if repo.try_rev_parse(candidate):
            return candidate
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
        shallow = repo.git_ok("rev-parse", "--is-shallow-repository") and (
            repo.git("rev-parse", "--is-shallow-repository") == "true"
        )
        raise GitError(
            f"{head[:12]} and {main} have no common ancestor"
            + (" in this shallow clone" if shallow else ""),
            hint="fetch the whole history (actions/checkout: `fetch-depth: 0`) or pass --base-ref",
        ) from None


def read_index_stages(repo: GitRepo, path: str) -> dict[int, bytes]:
    """Exact bytes of every index stage of ``path``: 1 merge-base, 2 ours, 3 theirs (0 if clean).

    A stage that is absent (add/add has no 1, delete/modify lacks 2 or 3) is simply not in the
    result; an untracked path gives ``{}``.
    """
    listed = repo.git("ls-files", "--stage", "-z", "--", f":(top,literal){path}", strip=False)
    stages: dict[int, bytes] = {}
    for record in listed.split("\0"):
        meta, tab, name = record.partition("\t")
        if tab and name == path:
            _mode, sha, stage = meta.split()
            stages[int(stage)] = read_object(repo, sha)
    return stages


def read_object(repo: GitRepo, sha: str) -> bytes:
    """Exact bytes of the object ``sha`` (a blob), trailing newline included."""
    data: bytes = repo.repo.odb.stream(bytes.fromhex(sha)).read()
    return data


def operation_in_progress(repo: GitRepo) -> str | None:
    """The git operation under way: rebase, am, cherry-pick, revert or merge; None when idle.

    During a merge driver's run only the rebase markers exist yet (MERGE_HEAD and
    CHERRY_PICK_HEAD are written after the merge machinery returns).
    """
    gd = repo.git_dir
    if (gd / "rebase-merge").is_dir():
        return "rebase"
    if (gd / "rebase-apply").is_dir():
        return "am" if (gd / "rebase-apply" / "applying").exists() else "rebase"
    for name, operation in (
        ("CHERRY_PICK_HEAD", "cherry-pick"),
        ("REVERT_HEAD", "revert"),
        ("MERGE_HEAD", "merge"),
    ):
        if (gd / name).is_file():
            return operation
    return None


def special_head(repo: GitRepo, name: str) -> str | None:
    """The commit in ``$GIT_DIR/NAME`` (MERGE_HEAD, CHERRY_PICK_HEAD, FETCH_HEAD for merge)."""
    try:
        text = (repo.git_dir / name).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        # FETCH_HEAD lines: "<sha>\t[not-for-merge]\t<description>"; the first mergeable wins.
        sha, _, rest = line.partition("\t")
        if sha and not rest.startswith("not-for-merge"):
            return sha.strip()
    return None


def git_status(repo: GitRepo, *args: str) -> tuple[int, str, str]:
    """Run ``git ARGS`` without raising: (exit status, stdout, stderr), for commands such as
    ``merge-tree`` whose non-zero status is an answer rather than a failure."""
    status, out, err = repo.repo.git.execute(
        ["git", *args], with_extended_output=True, with_exceptions=False
    )
    return int(status), str(out), str(err)


def repo_relative(repo: GitRepo, path: Path | str, *, start: Path | None = None) -> str:
    """``path`` as git names it in a tree: relative to the work tree's top, ``/``-separated.

    A relative ``path`` starts from ``start`` (default: the top), so a configuration file in a
    subdirectory, ``./x`` and absolute paths all name the same tree entry. Raises
    :class:`UsageError` for a path outside the work tree.
    """
    top = repo.path.resolve()
    candidate = Path(path)
    if not candidate.is_absolute():
        candidate = (start.resolve() if start is not None else top) / candidate
    # normpath, not resolve(): the path need not exist in the work tree, only at the revision.
    normal = Path(os.path.normpath(candidate))
    for root in (top, repo.path.absolute()):
        try:
            return normal.relative_to(root).as_posix()
        except ValueError:
            continue
    try:
        return normal.resolve().relative_to(top).as_posix()
    except ValueError:
        raise UsageError(f"{path} is outside the repository {top}") from None
