"""`changelog-tools signoff verify`: the deterministic CODEOWNER sign-off verifier; `signoff
explain`: how it reads one comment."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from changelog_tools.commands._common import config_option
from changelog_tools.config import Config
from changelog_tools.errors import UsageError

if TYPE_CHECKING:
    from changelog_tools.signoff.verify import Outcome

F = TypeVar("F", bound=Callable[..., Any])


def _progress(message: str) -> None:
    from changelog_tools.diagnostics import no_commands

    click.echo(no_commands(f"signoff: {message}"), err=True)


def _parse_now(value: str | None) -> datetime:
    if value is None:
        return datetime.now(UTC)
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(
            f"--now {value!r} is not an ISO 8601 time (2026-08-20T13:00:00Z)"
        ) from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _checkout_option(help: str) -> Callable[[F], F]:
    """``--checkout DIR``: an existing directory, the current one by default."""
    return click.option(
        "--checkout",
        type=click.Path(file_okay=False, exists=True, path_type=Path),
        default=Path("."),
        show_default=True,
        help=help,
    )


@click.group("signoff")
def signoff() -> None:
    """Verify CODEOWNER sign-offs on pull requests (see docs/signoff.md)."""


# The whole first sentence: click cuts a derived summary at about 45 columns, mid-list.
@signoff.command(
    "verify",
    short_help="Decide one verdict for a pull request's head: pass, rejected, pending or error.",
)
@click.option(
    "--pr",
    "pr_number",
    type=click.IntRange(min=1),
    help="Pull request number  [default: from $GITHUB_EVENT_PATH]",
)
@click.option(
    "--dry-run", is_flag=True, help="Decide and print, but post no comment and no status."
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json", "markdown"]),
    default="text",
    show_default=True,
    help="text: a summary; json: one object on stdout; markdown: the verdict comment.",
)
@click.option(
    "--now",
    "now_text",
    metavar="ISO8601",
    help="Evaluation time (for date-dependent rules)  [default: now]",
)
@click.option(
    "--repo",
    "repository",
    help="OWNER/NAME  [default: $GITHUB_REPOSITORY, else config `repository`]",
)
@_checkout_option(
    "Checkout of the DEFAULT branch, with history: CODEOWNERS, the checklist and its versions, "
    "thresholds and policy files are read from it."
)
@config_option
def verify(
    pr_number: int | None,
    dry_run: bool,
    output_format: str,
    now_text: str | None,
    repository: str | None,
    checkout: Path,
    config: Config,
) -> int:
    """Decide one verdict for a pull request's head: pass, rejected, pending or error.

    Reads the PR, its conversation, statuses, sweep run and eval artifact through the GitHub
    API (token from GH_TOKEN or GITHUB_TOKEN), and CODEOWNERS, the checklist with its git
    history, thresholds and policy files from --checkout, which must be the default branch. The
    PR's files are fetched into a private ref and read as data; nothing from the PR is checked
    out or run.

    \b
    Skipped with no write and exit 0: a comment on a plain issue, a closed or
    draft PR, and a new comment or review that holds no sign-off in its own text
    (quotes, code, struck and hidden text do not count), and an edit or deletion
    whose old and new bodies both hold no sign-off and no reuse command (judged
    from the event alone: no request).

    \b
    Unless --dry-run: keeps ONE verdict comment per PR (the bot's own, found by
    its login and marker; edited in place) and sets the commit status
    `signoff-status-context` on the head: success only for pass; failure, pending
    or error otherwise.

    \b
    Exit status: 0 a verdict was reached (whatever it is) or the event was
    skipped, 2 usage or configuration error, 3 GitHub or git failed (an `error`
    status is posted first where possible).

    \b
    Examples:
      changelog-tools signoff verify                       # inside GitHub Actions
      changelog-tools signoff verify --pr 5 --dry-run --format json
    """
    from changelog_tools.github.adapter import make_github
    from changelog_tools.gitrepo import open_repo
    from changelog_tools.signoff.verify import run_verify

    env = os.environ
    now = _parse_now(now_text)
    from changelog_tools.actionsevent import ActionsEvent, read_event

    actions = read_event(env) if pr_number is None else ActionsEvent(None)
    event, event_name = actions.payload, actions.name
    repo = open_repo(checkout)
    outcome = run_verify(
        gh_factory=lambda: make_github(config, env=env, repository=repository, log=_progress),
        config=config,
        repo=repo,
        pr_number=pr_number,
        event_name=event_name,
        event=event,
        dry_run=dry_run,
        now=now,
        log=_progress,
    )
    return _report(outcome, output_format, dry_run=dry_run)


def _report(outcome: Outcome, output_format: str, *, dry_run: bool) -> int:
    """Say what the run did on standard error and show the verdict on standard output."""
    from changelog_tools.diagnostics import visible
    from changelog_tools.signoff.render import render_json, render_markdown, render_text

    if outcome.skip is not None:
        _progress(f"skipped: {outcome.skip.reason}")
        if output_format == "json":
            click.echo(json.dumps({"verdict": "skipped", "reason": outcome.skip.reason}))
        return 0
    verdict = outcome.verdict
    assert verdict is not None
    if outcome.published is not None:
        p = outcome.published
        what = "posted" if p.created else "updated"
        _progress(
            f"{what} verdict comment {p.comment_id}; status {p.state} on {verdict.head_sha[:7]}"
        )
    elif dry_run:
        _progress("dry run: no comment, no status")
    renderer = {"text": render_text, "json": render_json, "markdown": render_markdown}
    shown = renderer[output_format](verdict)
    # Paths, logins and comment text are the pull request's: shown, never obeyed (JSON
    # escapes every control character already).
    click.echo(shown if output_format == "json" else visible(shown), nl=False)
    return 0


@signoff.command("explain")
@click.argument("files", nargs=-1, type=click.Path(dir_okay=False, allow_dash=True, path_type=Path))
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help='text: a summary per comment; json: one object whose "comments" list holds one result '
    "per file, in order.",
)
@_checkout_option(
    "Repository whose default branch holds the checklist (and its versions); a directory that "
    "is no repository's top is read as files."
)
@click.option(
    "--author",
    metavar="LOGIN",
    help="The login that posts the comment: `Signed:` must name it  [default: not checked]",
)
@config_option
def explain(
    files: tuple[Path, ...],
    output_format: str,
    checkout: Path,
    author: str | None,
    config: Config,
) -> int:
    """Show how `signoff verify` reads comment bodies: whether each signs off.

    FILE is a comment body (Markdown as typed into GitHub); `-` or none reads standard input.
    For each: whether it signs off and why not, the header's line, the checklist version it
    matches, each item (ok, unchecked, excused, missing, altered, obsolete), the `Signed:`
    value, and every part that does not count with the reason (quoted, code, struck, hidden,
    not visible). No token, no network: only the body and the checklist are read.

    \b
    Exit status: 0 every body was explained (whether it signs off or not), 2 a
    file could not be read or the options are wrong.

    \b
    Examples:
      changelog-tools signoff explain my-signoff.md
      pbpaste | changelog-tools signoff explain --author my-login
      changelog-tools signoff explain a.md b.md --format json
    """
    import sys

    from changelog_tools.signoff.explain import explain as explain_body
    from changelog_tools.signoff.explain import render_text
    from changelog_tools.signoff.trusted import ChecklistSource, load_checklist

    source: ChecklistSource | None = None
    note: str | None = None
    try:
        source = load_checklist(checkout, config)
    except UsageError as exc:
        note = exc.message
    results = []
    for path in files or (Path("-"),):
        if str(path) == "-":
            body = sys.stdin.buffer.read().decode("utf-8", errors="replace")
        else:
            try:
                body = path.read_bytes().decode("utf-8", errors="replace")
            except OSError as exc:
                raise UsageError(f"{path}: cannot read: {exc.strerror or exc}") from None
        results.append(
            explain_body(
                str(path),
                body,
                template=source.template if source else None,
                versions=source.versions if source else (),
                checklist_from=source.where if source else None,
                checklist_note=note,
                header=config.signoff_checklist_header,
                author=author,
            )
        )
    if output_format == "json":
        from changelog_tools.jsontext import json_text

        doc = {"command": "signoff explain", "comments": [r.to_json() for r in results]}
        click.echo(json_text(doc), nl=False)
    else:
        click.echo("".join(render_text(r) for r in results), nl=False)
    return 0
