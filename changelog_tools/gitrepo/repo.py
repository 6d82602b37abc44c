"""The repository: :class:`GitRepo`, found the way git finds it (:func:`open_repo`), and paths
as git names them in a tree."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from changelog_tools.errors import GitError, UsageError
from changelog_tools.gitrepo.merging import Merging
from changelog_tools.gitrepo.runner import _text, git_environment, scrub_environment


class GitRepo(Merging):
    """A local repository (work tree or bare); every git command runs in it.

    Its questions come in layers, each a module of this package: running git
    (:mod:`~changelog_tools.gitrepo.runner`), objects and trees
    (:mod:`~changelog_tools.gitrepo.objects`), history (:mod:`~changelog_tools.gitrepo.history`),
    refs and remotes (:mod:`~changelog_tools.gitrepo.refs`), commits and merges
    (:mod:`~changelog_tools.gitrepo.merging`).
    """


def open_repo(path: Path | str = ".", *, top: bool = False) -> GitRepo:
    """Open the repository containing ``path``.

    Found by one plain ``git rev-parse`` process, not GitPython's ``Repo``: the process costs
    about 2 ms, importing GitPython about 70 ms (160 ms where its bytecode is not compiled
    yet), and in a rebase the merge driver needs nothing
    more than this (it decides from files in the git dir), so it runs without GitPython at
    all. Measured on the real InferenceX changelog (median of 5, 2 cores): a 20-commit
    ``git rebase`` through the driver took 5.1 s this way and 6.3 s with ``Repo`` opened
    here (5.2 s with the adapter before GitPython). It also finds the repository exactly as
    git does (``safe.directory``, ``GIT_CEILING_DIRECTORIES``, ``core.worktree``).
    GitPython opens it only when a question needs more than plain git processes (see
    :mod:`~changelog_tools.gitrepo.runner`).

    ``top=True`` says ``path`` is the top of a work tree (git runs a merge driver there): a
    plain ``.git`` directory in it with an ordinary configuration is then the repository, as
    ``rev-parse`` would answer, and no process is started; anything else is asked of git.
    """
    scrub_environment()
    where = Path(path).absolute()
    if top:
        found = _plain_top(where)
        if found is not None:
            return found
    import subprocess  # here, not at the top: the merge driver's usual path never needs it

    try:
        proc = subprocess.run(
            ["git", "rev-parse", "--is-bare-repository", "--absolute-git-dir", "--show-cdup"],
            cwd=where,
            env=git_environment(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            check=False,
        )
    except FileNotFoundError:
        if not where.is_dir():
            raise UsageError(f"{path} is not inside a git repository") from None
        raise GitError("git is not installed (no `git` on PATH)") from None
    except NotADirectoryError:
        raise UsageError(f"{path} is not inside a git repository") from None
    lines = _text(proc.stdout).split("\n")
    if proc.returncode != 0 or len(lines) < 2:
        raise _not_found(path, where, proc.stderr)
    # One line per answer (a bare repository has no top to go up to), each ended by a newline:
    # a path holding a newline splits into more, and then each question is asked on its own.
    if len(lines) != (3 if lines[0] == "true" else 4) or lines[-1]:
        bare = lines[0] == "true"
        lines = [lines[0], _ask(where, "--absolute-git-dir")]
        lines += [] if bare else [_ask(where, "--show-cdup")]
    git_dir = Path(lines[1])
    if lines[0] == "true":
        return GitRepo(path=git_dir, git_dir=git_dir)
    # The top as the user's path names it (not symlink-resolved), like the caller's paths.
    found_top = Path(os.path.normpath(where / lines[2])) if len(lines) > 2 and lines[2] else where
    return GitRepo(path=found_top, git_dir=git_dir)


def _ask(where: Path, option: str) -> str:
    """git's one answer to ``rev-parse OPTION`` in ``where``, without its final newline."""
    import subprocess

    proc = subprocess.run(
        ["git", "rev-parse", option],
        cwd=where,
        env=git_environment(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=False,
    )
    if proc.returncode != 0:
        raise _not_found(where, where, proc.stderr)
    return _text(proc.stdout).removesuffix("\n")


def _not_found(path: Path | str, where: Path, stderr: bytes) -> UsageError | GitError:
    """Why git found no repository at ``path``: the plain "not a git repository" is the
    command line's fault (exit 2); any other refusal (a repository owned by another user,
    an unreadable ``.git``) keeps git's own words, and the way out git names becomes the hint,
    or the user is sent looking for a repository that is right there."""
    said = [line.strip() for line in _text(stderr).splitlines() if line.strip()]
    if not said or any("not a git repository" in line for line in said):
        return UsageError(f"{path} is not inside a git repository")
    # A message git wraps over lines ("extension found:" then its name) is still one reason;
    # the lines after it that say what to do are the hint.
    reason, advice = said[0], said[1:]
    while advice and reason.endswith(":") and not advice[0].startswith("git "):
        reason, advice = f"{reason} {advice[0]}", advice[1:]
    reason = reason.removeprefix("fatal: ").removeprefix("error: ")
    return GitError(f"git cannot open the repository at {where}: {reason}",
                    hint=" ".join(advice) or None)  # fmt: skip


# Configuration that moves the work tree or makes the repository bare, or includes another file
# that might: with any of these words in `.git/config`, git is asked.
_CONFIG_ASKS_GIT = (b"worktree", b"include", b"bare = true", b"bare=true")


def _plain_top(where: Path) -> GitRepo | None:
    """The repository whose work tree's top is ``where``, read from ``where/.git`` (a real
    directory, not a symlink or a linked worktree's ``.git`` file) when its configuration
    says nothing that changes where git finds things; None when git must be asked."""
    git_dir = where / ".git"
    try:
        if not os.path.isdir(git_dir) or os.path.islink(git_dir):
            return None
        if not os.path.isfile(git_dir / "HEAD"):
            return None
        with open(git_dir / "config", "rb") as file:
            config = file.read().lower()
    except OSError:
        return None
    if any(word in config for word in _CONFIG_ASKS_GIT):
        return None
    return GitRepo(path=where, git_dir=git_dir)


@contextmanager
def working_directory(path: Path) -> Iterator[None]:
    old = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def git_status(repo: GitRepo, *args: str) -> tuple[int, str, str]:
    """Run ``git ARGS`` without raising: (exit status, stdout, stderr), for commands such as
    ``merge-tree`` whose non-zero status is an answer rather than a failure."""
    return repo.git_status(*args)


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
