"""Running git: the one process runner behind every question, and the one place a GitPython
failure becomes :class:`~changelog_tools.errors.GitError` (:func:`_failures`).

Two ways to run a command, one at a time per repository. Until something needs GitPython, each
command is one plain git process (:meth:`Runner._run_plain`): importing GitPython costs about
70 ms with its bytecode compiled and 160 ms on a fresh CI runner (where it compiles, and it runs
``git version`` twice as it loads), a third of `check`'s time there, while `check`, `lint` and
the merge driver only ask git a dozen questions. Once anything needs GitPython, every later
command runs through its command runner (``Git.execute``), so one repository never mixes two
environments or two object readers.

GitPython remains the library for everything that needs more than a question, because the
flows need what git itself does and says: ``Remote.push`` folds a refused push into per-ref
flags and progress lines, where the flow reports the remote's own words; ``IndexFile.commit``
writes a commit in Python without git's merge state (MERGE_HEAD), which concluding a merge
needs; ``Remote.fetch`` parses progress and FETCH_HEAD; worktrees, HEAD and the index are read
through its ``Repo``.

The plain runner runs git as ``Git.execute`` does in everything an answer depends on: the same
program (``git`` on PATH), in the same directory, with the same environment (this process's,
``LANGUAGE=C`` and ``LC_ALL=C`` so git speaks English whatever the user's locale, then the
repository's variables, then the command's), stdin empty unless fed, and stderr decoded the
same way with its last newline removed; a failure reads ``git ARGS failed: REASON`` either way.

Variables git exports to hooks (GIT_DIR, GIT_INDEX_FILE, ...) are scrubbed so the tool never
acts on a repository other than the one it was pointed at; GitPython reads GIT_DIR and its
neighbours too, and runs git with this process's environment, so scrubbing them here covers it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from changelog_tools.errors import GitError

if TYPE_CHECKING:
    from git import Repo

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
# GitPython would run the program this names instead of the `git` on PATH, the one that finds
# the repository here and runs hooks and the merge driver: one run must not mix two gits.
GITPYTHON_VARS = ("GIT_PYTHON_GIT_EXECUTABLE",)
# git's messages in English whatever the user's locale, so errors read the same everywhere:
# what GitPython's ``Git.execute`` sets for every command it runs.
C_LOCALE = {"LANGUAGE": "C", "LC_ALL": "C"}


def git_environment(*layers: Mapping[str, str] | None) -> dict[str, str]:
    """The environment git runs in: this process's, :data:`C_LOCALE`, then ``layers`` in order
    (the repository's variables, a command's), as ``Git.execute`` builds it."""
    env = {**os.environ, **C_LOCALE}
    for layer in layers:
        if layer:
            env.update(layer)
    return env


def scrub_environment() -> None:
    """Remove hook-exported git variables from this process and make git non-interactive.

    Deliberate, and documented for users (docs/check.md, docs/merging.md): a hook exports
    ``GIT_DIR`` and friends for the repository it runs in, and the tool must act on the
    repository it was pointed at (its configuration's or working directory's), not on those.
    """
    for name in (*GIT_LOCAL_VARS, *GITPYTHON_VARS):
        os.environ.pop(name, None)
    os.environ["GIT_TERMINAL_PROMPT"] = "0"
    os.environ.setdefault("GIT_EDITOR", "true")


def _repo_class() -> type[Repo]:
    """GitPython's ``Repo``, importing GitPython on first use; GitError when it cannot be."""
    for name in GITPYTHON_VARS:
        os.environ.pop(name, None)
    try:
        from git import Repo
    except ImportError as exc:  # GitPython refuses to import when it finds no git to run
        if _no_git():
            raise GitError("git is not installed (no `git` on PATH)") from None
        raise GitError(f"GitPython cannot be imported: {_one_line(str(exc))}") from None
    return Repo


@contextmanager
def _failures(action: str) -> Iterator[None]:
    """The one place a GitPython failure becomes GitError: ``action`` and what git said.

    GitPython raises GitCommandError (git's stderr wrapped in its own text), BadName/BadObject,
    ValueError (an object name it cannot resolve, a reply it cannot parse) and OSError.
    """
    from git.exc import CommandError, GitCommandNotFound, ODBError
    from git.exc import GitError as GitPythonError

    try:
        yield
    except GitCommandNotFound as exc:
        if _no_git():
            raise GitError("git is not installed (no `git` on PATH)") from None
        raise GitError(f"{action} failed: {_one_line(str(exc.status))}") from None
    except CommandError as exc:
        said = exc.stderr.removeprefix("\n  stderr: '").removesuffix("'")
        raise GitError(
            f"{action} failed: {_one_line(said) or f'exit status {exc.status}'}"
        ) from None
    except (GitPythonError, ODBError, ValueError, OSError) as exc:
        raise GitError(f"{action} failed: {_one_line(str(exc)) or type(exc).__name__}") from None


class Runner:
    """A local repository (work tree or bare) and the one way commands run in it."""

    def __init__(self, *, path: Path, git_dir: Path) -> None:
        self.path = path  # the work tree's top (the git dir for a bare repository)
        self.git_dir = git_dir
        self._env: dict[str, str] = {}
        self._handle: Repo | None = None
        # Parsed trees by object id (immutable, so never stale): name -> (mode, object id).
        self._trees: dict[str, dict[bytes, tuple[int, str]]] = {}
        # Objects by names that cannot move (see Objects._lookup): name -> (id, type, bytes),
        # oldest first, and the bytes they hold.
        self._objects: dict[str, tuple[str, str, bytes]] = {}
        self._objects_size = 0

    def __repr__(self) -> str:
        return f"GitRepo({str(self.path)!r})"

    @property
    def _repo(self) -> Repo:
        """GitPython's view of this repository, made on first use (see :func:`open_repo`)."""
        if self._handle is None:
            repo_class = _repo_class()
            from git.exc import InvalidGitRepositoryError

            with _failures(f"opening the repository {self.path}"):
                try:
                    handle = repo_class(self.path, expand_vars=False)
                except InvalidGitRepositoryError:  # a work tree set by core.worktree: no .git
                    handle = repo_class(self.git_dir, expand_vars=False)
            handle.git.update_environment(**self._env)
            self._handle = handle
        return self._handle

    # -- running git ---------------------------------------------------------------------

    def _run(
        self, args: tuple[str, ...], env: Mapping[str, str] | None = None
    ) -> tuple[int, bytes, str]:
        """``git ARGS``: (exit status, stdout, stderr without its last newline). A plain process
        while GitPython is not loaded (see the module's docstring), else GitPython's runner."""
        if self._handle is None:
            return self._run_plain(args, env=env)
        if not os.path.isdir(self.path):  # GitPython would run git in this process's directory
            raise GitError(f"git {' '.join(args)} failed: {self.path} is missing")
        runner = self._handle.git
        with _failures(f"git {' '.join(args)}"):
            return runner.execute(
                [os.fspath(runner.GIT_PYTHON_GIT_EXECUTABLE or "git"), *args],
                with_extended_output=True,
                with_exceptions=False,
                stdout_as_string=False,
                strip_newline_in_stdout=False,
                env=env,
            )

    def _run_plain(
        self,
        args: tuple[str, ...],
        stdin: bytes | None = None,
        env: Mapping[str, str] | None = None,
    ) -> tuple[int, bytes, str]:
        """``git ARGS`` as one plain process fed ``stdin`` (none: an empty stdin, as GitPython
        gives), GitPython not loaded: a command that asks git a few questions and nothing else
        would pay more for importing GitPython than for the questions themselves. Answers as
        :meth:`_run` does: exit status, stdout, stderr without its last newline."""
        import subprocess

        try:
            proc = subprocess.run(
                ["git", *args],
                cwd=self.path,
                env=git_environment(self._env, env),
                input=stdin,
                stdin=subprocess.DEVNULL if stdin is None else None,
                capture_output=True,
                check=False,
            )
        except FileNotFoundError:
            if _no_git():
                raise GitError("git is not installed (no `git` on PATH)") from None
            raise GitError(f"git {' '.join(args)} failed: {self.path} is missing") from None
        except OSError as exc:
            raise GitError(f"git {' '.join(args)} failed: {_one_line(str(exc))}") from None
        return proc.returncode, proc.stdout, _text(proc.stderr).removesuffix("\n")

    @property
    def _gitpython_loaded(self) -> bool:
        return self._handle is not None

    def git(self, *args: str, strip: bool = True, env: Mapping[str, str] | None = None) -> str:
        """Run ``git ARGS`` in this repository and return stdout; raise GitError on failure.

        With ``strip`` one trailing newline is removed (git ends its answers with one); ``env``
        adds variables for this one command (a temporary index, say).
        """
        status, out, err = self._run(args, env)
        if status != 0:
            # git's message can span lines: one line instead.
            reason = _one_line(err) or f"exit status {status}"
            raise GitError(f"git {' '.join(args)} failed: {reason}")
        return _strip(_text(out), strip)

    def git_status(self, *args: str) -> tuple[int, str, str]:
        """Run ``git ARGS`` without raising: (exit status, stdout, stderr), each one trailing
        newline removed."""
        status, out, err = self._run(args)
        return status, _strip(_text(out), True), err  # GitPython already removed stderr's

    def git_ok(self, *args: str) -> bool:
        """Run ``git ARGS``; True when it exits 0 (for yes/no questions such as is-ancestor)."""
        return self._run(args)[0] == 0

    def update_environment(self, **env: str) -> None:
        """Set variables for every later git command run in this repository."""
        self._env.update(env)
        if self._handle is not None:
            self._handle.git.update_environment(**env)
        self.close()  # a running object reader would not see them

    def close(self) -> None:
        """Stop the object reader, if one runs (it also stops when this process ends)."""
        if self._handle is not None:
            self._handle.git.clear_cache()

    # -- the repository's settings -------------------------------------------------------

    def config_get(self, key: str, *, scope: str = "local") -> str | None:
        """The value of ``key`` in the ``local`` or ``global`` configuration; None when unset."""
        status, out, _err = self.git_status("config", f"--{scope}", "--get", key)
        return out if status == 0 else None

    def config_set(self, key: str, value: str, *, scope: str = "local") -> None:
        """Set ``key`` in the ``local`` or ``global`` configuration."""
        self.git("config", f"--{scope}", key, value)


def _no_git() -> bool:
    import shutil  # only when something failed: shutil alone costs 2 ms to import

    return shutil.which("git") is None


def _ascii(value: str | bytes) -> str:
    # GitPython's object reader types its id and type as str and hands over git's bytes.
    return value.decode("ascii") if isinstance(value, bytes) else value


def _text(data: bytes) -> str:
    # Paths and messages are bytes to git; undecodable ones survive a round trip.
    return data.decode("utf-8", "surrogateescape")


def _strip(text: str, strip: bool) -> str:
    return text[:-1] if strip and text.endswith("\n") else text


def _one_line(text: str) -> str:
    # git's message can span lines: one line instead.
    return " ".join(text.split())
