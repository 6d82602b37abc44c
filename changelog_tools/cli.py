"""The `changelog-tools` command group and the one place errors become exit codes.

Subcommands live in ``changelog_tools/commands/`` and are imported only when invoked, so a CI
step that runs one command does not pay for the imports of all the others.
"""

from __future__ import annotations

import sys

try:
    import importlib
    import os
    from pathlib import Path
    from typing import Any, NoReturn

    import click

    from changelog_tools import __version__
    from changelog_tools.errors import ChangelogToolsError, ExitCode
except KeyboardInterrupt:
    # Ctrl-C while Python is still loading the CLI (before `run` can catch it): the same one
    # line and exit status 130 as an interrupt at any later moment, not a traceback.
    sys.stderr.write("interrupted\n")
    raise SystemExit(130) from None

# name -> (module, attribute). Add a line here to add a subcommand.
COMMANDS: dict[str, tuple[str, str]] = {
    "validate": ("changelog_tools.commands.validate", "validate"),
    "new": ("changelog_tools.commands.new", "new"),
    "merge": ("changelog_tools.commands.merge", "merge"),
    "recover": ("changelog_tools.commands.recover", "recover"),
    "demo": ("changelog_tools.commands.demo", "demo"),
    "replay": ("changelog_tools.commands.replay", "replay"),
    "check": ("changelog_tools.commands.check", "check"),
    "lint": ("changelog_tools.commands.lint", "lint"),
    "keys": ("changelog_tools.commands.keys", "keys"),
    "reuse-gate": ("changelog_tools.commands.reuse_gate", "reuse_gate"),
    "signoff": ("changelog_tools.commands.signoff", "signoff"),
    "canonicalize": ("changelog_tools.commands.canonicalize", "canonicalize"),
    "fix": ("changelog_tools.commands.fix", "fix"),
    "resolve": ("changelog_tools.commands.resolve", "resolve"),
    "merge-driver": ("changelog_tools.commands.merge_driver", "merge_driver"),
    "install-merge-driver": ("changelog_tools.commands.merge_driver", "install_merge_driver"),
}


# name -> the first paragraph of the command's help, so `--help` can list every command
# without importing one (importing them all cost `--help` more than a whole `check`). A test
# keeps each line equal to the command's own help; a command missing here still lists, at the
# price of importing it.
SUMMARIES: dict[str, str] = {
    "validate": "Validate whole changelog files: bytes, YAML safety, entry shape and schema.",
    "new": "Append a new entry to the changelog, formatted, resolved and checked.",
    "merge": "Merge pull request PR so that main reuses its sweep instead of sweeping again.",
    "recover": "Recover a lost ingest on main: a pull request that reuses the original sweep.",
    "replay": "Replay the last N merged pull requests through `check` and `fix`: the gate's "
    "blast radius.",
    "demo": "Show the whole flow on a throwaway repository, with the real commands.",
    "check": "Check a change to the changelog: what CI runs on every pull request and push to "
    "main.",
    "keys": "Show which master-config keys changelog `config-keys` select.",
    "lint": "Lint benchmark scripts, launchers and master configs: the rules reviewers check by "
    "hand.",
    "signoff": "Verify CODEOWNER sign-offs on pull requests (see docs/signoff.md).",
    "reuse-gate": "Decide whether CI may reuse a pull request's finished sweep instead of "
    "sweeping again.",
    "canonicalize": "Replace placeholder pr-links in the entries this change appended with PR "
    "N's link.",
    "fix": "Repair every mechanical problem `check` finds in the changelog, keeping every other "
    "byte.",
    "resolve": "Resolve a conflict in the changelog: main's bytes, then the PR's new entries.",
    "merge-driver": "git merge driver for the changelog: `merge-driver %O %A %B %P` (git runs it).",
    "install-merge-driver": "Install the changelog merge driver in this repository (idempotent).",
}

# Who runs each command, and one example, for `changelog-tools --help`. Add a line here with
# each line added to COMMANDS; a command missing here is listed under "Other".
ROLES = ("Authors", "CI", "Maintainers", "git")
HELP: dict[str, tuple[str, str]] = {
    "new": (
        "Authors",
        "changelog-tools new --config-key 'llama70b-fp8-gpu-a-*' --description 'Bump vLLM'",
    ),
    "validate": ("Authors", "changelog-tools validate perf-changelog.yaml"),
    "keys": ("Authors", "changelog-tools keys 'llama70b-*'"),
    "fix": ("Authors", "changelog-tools fix --dry-run --diff"),
    "lint": ("Authors", "changelog-tools lint"),
    "check": ("CI", "changelog-tools check --pr 12 --format github"),
    "reuse-gate": ("CI", "changelog-tools reuse-gate"),
    "signoff": ("CI", "changelog-tools signoff --help"),
    "merge": ("Maintainers", "changelog-tools merge 5 --dry-run"),
    "recover": ("Maintainers", "changelog-tools recover --pr 6 --dry-run"),
    "canonicalize": ("Maintainers", "changelog-tools canonicalize --pr 12"),
    "resolve": ("Maintainers", "changelog-tools resolve --pr 12 --add"),
    "demo": ("Maintainers", "changelog-tools demo"),
    "replay": ("Maintainers", "changelog-tools replay --last 200"),
    "install-merge-driver": ("git", "changelog-tools install-merge-driver"),
    "merge-driver": ("git", "git merge origin/main  # git runs it once installed"),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands grouped by who runs them, each with its summary and one example.

        Summaries come from :data:`SUMMARIES`, so listing them imports no command."""
        names = self.list_commands(ctx)
        if not names:
            return
        limit = 90  # the first sentence, whole; write_dl wraps it to the width
        groups: dict[str, list[tuple[str, str]]] = {role: [] for role in (*ROLES, "Other")}
        for name in names:
            summary = SUMMARIES.get(name)
            # A stand-in command shortens the summary exactly as the real one would.
            command = (
                self.get_command(ctx, name)
                if summary is None
                else click.Command(name, help=summary)
            )
            if command is None or command.hidden:
                continue
            role, example = HELP.get(name, ("Other", ""))
            groups[role].append((name, command.get_short_help_str(limit)))
            if example:
                groups[role].append(("", f"e.g. {example}"))
        titles = {
            "Authors": "For authors of a change",
            "CI": "For CI (workflow steps)",
            "Maintainers": "For maintainers",
            "git": "For git (hooks and drivers)",
            "Other": "Other commands",
        }
        for role, rows in groups.items():
            if rows:
                with formatter.section(titles[role]):
                    formatter.write_dl(rows, col_spacing=2)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module = importlib.import_module(target[0])
        command: click.Command = getattr(module, target[1])
        return command


@click.group(
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 80},
)
@click.version_option(__version__, prog_name="changelog-tools")
def cli() -> None:
    """Keep an append-only performance changelog honest and merge benchmark PRs safely.

    \b
    Exit codes:
      0  success
      1  the data is invalid (diagnostics printed) / PR not eligible
      2  usage or configuration error
      3  git or GitHub failed (after retries)
      4  a flow stopped safely; what it did remotely is printed, a re-run resumes
      5  merged, but main's push run did not reuse the sweep and ingest (or not in
         time); the `recover` command that fixes it is printed
      70 internal error (a log file was saved)
      130 interrupted (Ctrl-C, SIGINT)

    Run `changelog-tools COMMAND --help` for each command. With --format json, an error
    that prints no report of its own is also one JSON object on stdout:
    {"schema-version", "error": {"code", "exit-code", "message", ...}}.

    \b
    Shell completion (bash; zsh and fish likewise with zsh_source / fish_source):
      eval "$(_CHANGELOG_TOOLS_COMPLETE=bash_source changelog-tools)"
    """


def _crash_log_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "changelog-tools"


def save_crash_log(exc: BaseException) -> Path:
    """Write the traceback of an unexpected error to a log file and return its path."""
    import datetime as _dt  # only a crash needs these
    import tempfile
    import traceback

    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    text = (
        f"changelog-tools {__version__}\nargv: {sys.argv!r}\npython: {sys.version}\n\n"
        + "".join(traceback.format_exception(exc))
    )
    for directory in (_crash_log_dir(), Path(tempfile.gettempdir())):
        try:
            directory.mkdir(parents=True, exist_ok=True)
            path = directory / f"crash-{stamp}-{os.getpid()}.log"
            path.write_text(text, encoding="utf-8")
            return path
        except OSError:
            continue
    raise exc  # pragma: no cover - nowhere to write; let Python print it


# Where a GitHub token may be, to keep it out of anything the tool prints.
_TOKEN_VARIABLES = ("GH_TOKEN", "GITHUB_TOKEN")


def printable(text: str) -> str:
    """``text`` as the tool may print it in a CI log: no token, no workflow command.

    Messages carry text from elsewhere (a GitHub error body, a file name from a pull request).
    The token is replaced in any case spelling (a server may echo it upper-cased), and a line
    that starts with ``::`` gets a zero-width space in front, so that the runner, which trims
    whitespace before it looks for ``::``, never reads it as a workflow command such as
    ``::add-mask::`` or ``::stop-commands::``; no control character (a terminal escape, a CR
    that rewrites the line) is printed as itself.
    """
    import re

    for name in _TOKEN_VARIABLES:
        token = os.environ.get(name, "")
        if len(token) >= 8:
            text = re.sub(re.escape(token), "***", text, flags=re.IGNORECASE)
    from changelog_tools.diagnostics import no_commands, visible

    return no_commands(visible(text))


def _json_requested(args: list[str]) -> bool:
    """Whether the command line asks for ``--format json`` (read before click parses it)."""
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg == "--format=json" or (arg == "--format" and args[i + 1 : i + 2] == ["json"]):
            return True
    return False


def _command_name(args: list[str]) -> str | None:
    return next((a for a in args if a in COMMANDS), None)


def _error_code(exc: BaseException) -> str:
    from changelog_tools import errors

    for cls, code in (
        (errors.ConfigError, "config"),
        (errors.UsageError, "usage"),
        (errors.GitError, "git"),
        (errors.GitHubError, "github"),
        (errors.ExternalError, "external"),
        (errors.AbortedError, "aborted"),
        (errors.DataError, "data"),
        (click.ClickException, "usage"),
        (KeyboardInterrupt, "interrupted"),
        (click.exceptions.Abort, "interrupted"),
    ):
        if isinstance(exc, cls):
            return code
    return "internal"


def _print_json_error(
    args: list[str], exc: BaseException, exit_code: int, message: str, hint: str | None
) -> None:
    """One JSON object on stdout for a failed command, so a `--format json` step can parse it."""
    from changelog_tools.jsontext import json_text

    error: dict[str, Any] = {"code": _error_code(exc), "exit-code": exit_code, "message": message}
    if hint:
        error["hint"] = hint
    doc = {"command": _command_name(args), "ok": False, "error": error}
    click.echo(json_text(doc), nl=False)


def _environment_error(exc: Exception) -> ChangelogToolsError | None:
    """The usage error ``exc`` stands for when the environment, not the tool, is at fault."""
    from changelog_tools.errors import UsageError, missing_dependency

    # Commands import their heavier dependencies only when they run, so a partial install
    # fails at that import, not at startup.
    missing = missing_dependency(exc)
    if missing is not None:
        return missing
    if isinstance(exc, FileNotFoundError):
        # Started in a directory deleted since (by another shell, a cleanup step): every
        # relative path fails then, wherever the command first needs one.
        try:
            os.getcwd()
        except FileNotFoundError:
            return UsageError(
                "the current directory no longer exists (deleted or moved after the shell "
                "entered it): cd to an existing directory and run the command again"
            )
    return None


def _report_error(args: list[str], exc: ChangelogToolsError, *, as_json: bool) -> int:
    """Print ``exc`` as the tool's one-line error (and hint); return its exit code."""
    message, hint = printable(exc.message), printable(exc.hint) if exc.hint else None
    click.echo(f"error: {message}", err=True)
    if hint:
        click.echo(f"hint: {hint}", err=True)
    # Every refusal, not only a usage or git failure: a `--format json` step parses stdout
    # whatever the exit status (a flow's "not eligible" or "stopped safely" included).
    if as_json:
        _print_json_error(args, exc, int(exc.exit_code), message, hint)
    return int(exc.exit_code)


def run(argv: list[str] | None = None) -> int:
    """Run the CLI and return the exit code instead of exiting (used by tests and main)."""
    args = list(sys.argv[1:] if argv is None else argv)
    as_json = _json_requested(args)
    try:
        result: Any = cli.main(args=args, prog_name="changelog-tools", standalone_mode=False)
    except (click.exceptions.Abort, KeyboardInterrupt) as exc:
        click.echo("interrupted", err=True)
        if as_json:
            # A step that parses stdout gets its error object for an interrupt too.
            _print_json_error(args, exc, int(ExitCode.INTERRUPTED), "interrupted", None)
        return int(ExitCode.INTERRUPTED)
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        code = int(ExitCode.USAGE) if exc.exit_code == 2 else int(exc.exit_code)
        if as_json:
            _print_json_error(args, exc, code, exc.format_message(), None)
        return code
    except ChangelogToolsError as exc:
        return _report_error(args, exc, as_json=as_json)
    except Exception as exc:
        environment = _environment_error(exc)
        if environment is not None:
            return _report_error(args, environment, as_json=as_json)
        log = save_crash_log(exc)
        message = printable(f"internal error: {type(exc).__name__}: {exc}")
        click.echo(f"{message} (details saved to {log}; please report it)", err=True)
        if as_json:
            _print_json_error(args, exc, int(ExitCode.INTERNAL), message, f"details in {log}")
        return int(ExitCode.INTERNAL)
    if isinstance(result, int):
        return result
    return 0


def main(argv: list[str] | None = None) -> NoReturn:
    sys.exit(run(argv))
