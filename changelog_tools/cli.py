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
    "demo": ("changelog_tools.commands.demo", "demo"),
    "check": ("changelog_tools.commands.check", "check"),
    "lint": ("changelog_tools.commands.lint", "lint"),
    "keys": ("changelog_tools.commands.keys", "keys"),
    "reuse-gate": ("changelog_tools.commands.reuse_gate", "reuse_gate"),
    "signoff": ("changelog_tools.commands.signoff", "signoff"),
    "canonicalize": ("changelog_tools.commands.canonicalize", "canonicalize"),
    "resolve": ("changelog_tools.commands.resolve", "resolve"),
    "merge-driver": ("changelog_tools.commands.merge_driver", "merge_driver"),
    "install-merge-driver": ("changelog_tools.commands.merge_driver", "install_merge_driver"),
}


# name -> the first paragraph of the command's help, so `--help` can list every command
# without importing one (importing them all cost `--help` more than a whole `check`). A test
# keeps each line equal to the command's own help; a command missing here still lists, at the
# price of importing it.
SUMMARIES: dict[str, str] = {
    "validate": "Validate a whole changelog file: bytes, YAML safety, entry shape and schema.",
    "merge": "Merge pull request PR so that main reuses its sweep instead of sweeping again.",
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
    "resolve": "Resolve a conflict in the changelog: main's bytes, then the PR's new entries.",
    "merge-driver": "git merge driver for the changelog: `merge-driver %O %A %B %P` (git runs it).",
    "install-merge-driver": "Install the changelog merge driver in this repository (idempotent).",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Click's command list, from :data:`SUMMARIES` instead of importing every command."""
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows: list[tuple[str, str]] = []
        for name in names:
            summary = SUMMARIES.get(name)
            # A stand-in command shortens the summary exactly as the real one would.
            command = (
                self.get_command(ctx, name)
                if summary is None
                else click.Command(name, help=summary)
            )
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module = importlib.import_module(target[0])
        command: click.Command = getattr(module, target[1])
        return command


@click.group(
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
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
      70 internal error (a log file was saved)

    Run `changelog-tools COMMAND --help` for each command.
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


def run(argv: list[str] | None = None) -> int:
    """Run the CLI and return the exit code instead of exiting (used by tests and main)."""
    try:
        result: Any = cli.main(args=argv, prog_name="changelog-tools", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("interrupted", err=True)
        return int(ExitCode.INTERRUPTED)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        return int(ExitCode.INTERRUPTED)
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        return int(ExitCode.USAGE) if exc.exit_code == 2 else int(exc.exit_code)
    except ChangelogToolsError as exc:
        click.echo(f"error: {exc.message}", err=True)
        if exc.hint:
            click.echo(f"hint: {exc.hint}", err=True)
        return int(exc.exit_code)
    except Exception as exc:
        log = save_crash_log(exc)
        click.echo(
            f"internal error: {type(exc).__name__}: {exc} (details saved to {log}; "
            "please report it)",
            err=True,
        )
        return int(ExitCode.INTERNAL)
    if isinstance(result, int):
        return result
    return 0


def main(argv: list[str] | None = None) -> NoReturn:
    sys.exit(run(argv))
