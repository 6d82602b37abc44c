"""The one exception hierarchy of the tool; the CLI maps each class to its exit code."""

from __future__ import annotations

from enum import IntEnum

from changelog_tools import __version__


class ExitCode(IntEnum):
    """Process exit codes. Each means exactly one thing."""

    OK = 0
    INVALID = 1  # the user's data is invalid (diagnostics were printed)
    USAGE = 2  # bad command line or bad configuration
    EXTERNAL = 3  # git, GitHub or the network failed (after retries)
    ABORTED = 4  # a flow stopped safely; it says what it did remotely, and a re-run resumes
    # `merge` merged the PR, but main's push run did not reuse its sweep and dispatch the
    # ingest (or had not completed in time): the printed `recover` command is the fix
    INGEST_MISSING = 5
    INTERNAL = 70  # a bug in changelog-tools itself (EX_SOFTWARE); a log was saved
    INTERRUPTED = 130  # Ctrl-C


class ChangelogToolsError(Exception):
    """Base of every error the tool raises on purpose.

    ``str(error)`` is a complete, one-line explanation fit for the user; ``hint`` is optional
    advice on what to do next.
    """

    exit_code: ExitCode = ExitCode.INVALID

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def add_sentence(self, sentence: str) -> None:
        """Append ``sentence`` to the message (the same error, the same exit code): what a flow
        had already done remotely when it stopped, say."""
        if sentence:
            self.message = f"{self.message.rstrip('.')}. {sentence}"
            self.args = (self.message,)


class DataError(ChangelogToolsError):
    """The user's data (changelog, master config, PR state) is not acceptable."""

    exit_code = ExitCode.INVALID


class UsageError(ChangelogToolsError):
    """The command line does not make sense."""

    exit_code = ExitCode.USAGE


class ConfigError(UsageError):
    """The tool's configuration file is missing, malformed or contradictory."""


class ExternalError(ChangelogToolsError):
    """An external system failed."""

    exit_code = ExitCode.EXTERNAL


class GitError(ExternalError):
    """A git command failed."""


class GitHubError(ExternalError):
    """The GitHub API failed after retries, or answered something we cannot use."""


class AbortedError(ChangelogToolsError):
    """A multi-step flow stopped safely: before its next remote step, never half-way through one."""

    exit_code = ExitCode.ABORTED


class MissingDependencyError(UsageError):
    """A dependency the tool declares is not installed: an environment to fix, not a bug.

    A partial install does this (the tool with ``--no-deps`` plus only what the local commands
    import, as the composite action installs it): a command that needs the rest reaches an
    import that fails.
    """


# Each distribution of ``[project] dependencies`` in pyproject.toml -> the modules it installs.
# A missing distribution cannot be asked for its module names, hence the table;
# tests/test_errors.py keeps it equal to pyproject.toml and to the installed metadata.
DEPENDENCY_MODULES: dict[str, tuple[str, ...]] = {
    "click": ("click",),
    "ruamel.yaml": ("ruamel.yaml",),
    "ruamel.yaml.clib": ("_ruamel_yaml",),
    "jsonschema": ("jsonschema",),
    "pathspec": ("pathspec",),
    "PyGithub": ("github",),
    "GitPython": ("git",),
    "cmarkgfm": ("cmarkgfm",),
    "html5lib": ("html5lib",),
}


def missing_dependency(exc: BaseException) -> MissingDependencyError | None:
    """The usage error for ``exc`` when it is the import of a declared dependency failing.

    Only the tool's own dependencies qualify: a module of this package that cannot be found, or
    one a dependency itself imports, is still a bug (or a broken install) worth a crash log.
    """
    if not isinstance(exc, ModuleNotFoundError) or not exc.name:
        return None
    name = exc.name
    for distribution, modules in DEPENDENCY_MODULES.items():
        # `ruamel` alone missing is `ruamel.yaml` missing: a namespace package's parent
        if any(name == m or name.startswith(f"{m}.") or m.startswith(f"{name}.") for m in modules):
            return MissingDependencyError(
                f"this command needs {distribution}, which is not installed (no module named "
                f"{name!r}): install the tool with its dependencies: "
                f"pip install perf-changelog-tools=={__version__}"
            )
    return None
