"""Options and helpers shared by every command."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from changelog_tools.config import Config, load_config
from changelog_tools.errors import ExitCode, UsageError

if TYPE_CHECKING:
    from changelog_tools import diagnostics as dx

F = TypeVar("F", bound=Callable[..., Any])


# A file argument the command reads (or rewrites) itself: click neither opens nor checks it, so a
# missing or unreadable file gets the tool's own one-line error.
FILE = click.Path(dir_okay=False, readable=False, path_type=Path)

path_argument = click.argument("path", required=False, type=FILE)
"""``PATH``: the changelog to work on (default: the configured one)."""

repo_option = click.option(
    "--repo",
    "repository",
    metavar="OWNER/NAME",
    help="Repository of the canonical link (default: the `repository` option).",
)
"""``--repo OWNER/NAME`` of the commands that write canonical links (see :func:`check_repository`)."""


def _given_revision(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    # An empty revision (`--base-ref "$UNSET_VARIABLE"`) names nothing: taken for "not given",
    # it would silently compare with the default instead. Refused here, before any command
    # reads it, with the wording git's unknown revisions get.
    if value == "":
        raise UsageError(
            f"unknown revision '' given to {param.opts[0] if param.opts else param.name}",
            hint="name a branch, tag or commit, or leave the option out for its default",
        )
    return value


def revision_option(name: str, help_text: str, dest: str | None = None) -> Callable[[F], F]:
    """``NAME REF``: a git revision the user names; an empty one is a usage error (exit 2)."""
    names = (name, dest) if dest else (name,)
    return click.option(*names, metavar="REF", callback=_given_revision, help=help_text)


def base_options(func: F) -> F:
    """``--base-ref REF`` and ``--base-file PATH``: what a change to the changelog is against."""
    func = click.option("--base-file", type=FILE, metavar="PATH",
                        help="Read the base version from a file instead of git.")(func)  # fmt: skip
    return revision_option("--base-ref", "What the change is against (default: merge-base of "
                           "HEAD and the main branch).")(func)  # fmt: skip


def config_option(func: F) -> F:
    """Add ``--config PATH``; the command receives the loaded :class:`Config` as ``config``."""

    @click.option(
        "--config",
        "config_path",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="Configuration file (default: nearest .changelog-tools.yaml or pyproject.toml "
        "[tool.changelog-tools], searching upward).",
    )
    @functools.wraps(func)
    def wrapper(*args: Any, config_path: Path | None, **kwargs: Any) -> Any:
        return func(*args, config=load_config(config_path), **kwargs)

    return wrapper  # type: ignore[return-value]


def format_option(func: F) -> F:
    # Imported here: a command without diagnostics (reuse-gate, merge) never loads them.
    from changelog_tools.reportrender import FORMATS

    return click.option(
        "--format",
        "output_format",
        type=click.Choice(FORMATS),
        default="text",
        show_default=True,
        help="text: PATH:LINE:COL: CODE message; json: one JSON document on stdout; "
        "github: workflow annotations.",
    )(func)


def emit(report: dx.Report, output_format: str, *, err: bool = False) -> int:
    """Print ``report`` on stdout (stderr with ``err``) in ``output_format``; return the exit
    code it implies."""
    from changelog_tools.reportrender import RENDERERS

    click.echo(RENDERERS[output_format](report), nl=False, err=err)
    return int(ExitCode.OK if report.ok else ExitCode.INVALID)


def display_path(path: Path, config: Config) -> str:
    """``path`` relative to the repository root when inside it, for stable diagnostics."""
    if not path.is_absolute():
        return str(path)  # as the user typed it
    real = path.parent.resolve() / path.name  # the directories' real names, as config.top's
    try:
        return str(real.relative_to(config.top))
    except ValueError:
        return str(path)


class PullRequestNumber(click.ParamType):  # type: ignore[type-arg]
    """A pull-request number (or run id): ASCII digits, at least 1.

    click's INT accepts whatever ``int()`` does (``٥``, ``５``, ``1_0``, `` 5 ``); a PR number is
    written in ASCII digits only, the same rule the pr-link reader applies.
    """

    name = "integer"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        from changelog_tools.numbers import parse_number

        if isinstance(value, int) and not isinstance(value, bool):
            number: int | None = value
        else:
            number = parse_number(str(value))
        if number is None or number < 1:
            self.fail(f"{value!r} is not a pull-request number (ASCII digits 0-9, at least 1)")
        return number


PR_NUMBER = PullRequestNumber()


def flow_options(waits_for: str) -> Callable[[F], F]:
    """``--timeout``, ``--poll-interval`` and ``--format text|json`` of a remote flow (merge,
    recover); ``waits_for`` completes "Seconds to wait for ..."."""

    def decorate(func: F) -> F:
        func = click.option(
            "--format",
            "output_format",
            type=click.Choice(["text", "json"]),
            default="text",
            show_default=True,
            help="json: the plan and the outcome as one JSON document.",
        )(func)
        func = click.option(
            "--poll-interval",
            type=click.FloatRange(min=0.01),
            default=None,
            help="Seconds between two looks while waiting (default: `check-poll-interval`).",
        )(func)
        return click.option(
            "--timeout",
            type=click.FloatRange(min=0),
            default=None,
            help=f"Seconds to wait for {waits_for} (default: `check-timeout`).",
        )(func)

    return decorate


def flow_printers() -> tuple[Callable[[str], None], Callable[[str], None] | None]:
    """Where a flow's progress goes: plain lines on stderr, and (on a terminal only) raw
    writes for a live line. Check names, titles and GitHub's messages are data: never a
    workflow command."""
    import sys

    from changelog_tools.diagnostics import no_commands, visible

    def progress(message: str) -> None:
        click.echo(no_commands(visible(message)), err=True)

    def live(text: str) -> None:
        click.echo(no_commands(text), err=True, nl=False)

    return progress, (live if sys.stderr.isatty() else None)


def emit_outcome(outcome: Any, render: Callable[[Any], str], output_format: str) -> int:
    """Print a flow's outcome on stdout (its JSON, or ``render``'s text); exit 0."""
    if output_format == "json":
        from changelog_tools.jsontext import json_text

        click.echo(json_text(outcome.to_json()), nl=False)
    else:
        from changelog_tools.diagnostics import no_commands, visible

        click.echo(no_commands(visible(render(outcome))), nl=False)
    return int(ExitCode.OK)


def pr_option(help_text: str) -> Callable[[F], F]:
    """``--pr N`` (also ``--pr-number``, the reference tool's spelling) as ``pr``."""
    return click.option("--pr", "--pr-number", "pr", type=PR_NUMBER, metavar="N", help=help_text)


def check_repository(repository: str | None) -> None:
    """Refuse a ``--repo`` that is not OWNER/NAME (the canonical link is built from it)."""
    import re

    from changelog_tools.errors import UsageError

    if repository is not None and not re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", repository):
        raise UsageError(f"--repo must be OWNER/NAME, not {repository!r}")
