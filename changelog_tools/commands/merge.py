"""`changelog-tools merge PR`: merge a pull request so that main reuses its sweep."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from changelog_tools.commands._common import (
    PR_NUMBER,
    config_option,
    emit_outcome,
    flow_options,
    flow_printers,
)
from changelog_tools.config import Config

if TYPE_CHECKING:
    from changelog_tools.flows.merge.flow import Outcome


@click.command()
@click.argument("pr", type=PR_NUMBER)
@click.option(
    "--dry-run",
    is_flag=True,
    help="Do every local step in a scratch worktree and "
    "every read against GitHub; post, push and merge nothing; print the plan.",
)
@click.option(
    "--admin",
    is_flag=True,
    help="Merge even when GitHub reports the PR as blocked "
    "by branch protection (needs bypass rights). Checks must still pass.",
)
@click.option(
    "--run",
    "run_id",
    type=PR_NUMBER,
    default=None,
    help="Reuse this sweep run; posted as `/reuse-sweep-run RUN` when it is not the "
    "run a bare command would select.",
)
@click.option(
    "--wait-ingest/--no-wait-ingest",
    default=True,
    show_default=True,
    help="After the merge, wait for main's push run of the squash commit and report whether "
    "it reused the sweep and dispatched the ingest (exit 5 and the `recover` command when "
    "not).",
)
@click.option(
    "--ingest-timeout",
    type=click.FloatRange(min=0),
    default=None,
    help="Seconds to wait for main's push run to complete (default: `ingest-timeout`).",
)
@flow_options("the checks")
@config_option
def merge(
    pr: int,
    dry_run: bool,
    admin: bool,
    run_id: int | None,
    wait_ingest: bool,
    ingest_timeout: float | None,
    timeout: float | None,
    poll_interval: float | None,
    output_format: str,
    config: Config,
) -> int:
    """Merge pull request PR so that main reuses its sweep instead of sweeping again.

    \b
    Steps (progress on stderr):
      1 preflight   PR open, not a draft, not a fork; exactly one full-sweep label
                    and no reuse-incompatible label; main merged into the PR head
                    in a scratch worktree (a changelog conflict is resolved, any
                    other conflict aborts); placeholder pr-links canonicalized;
                    `check` passes in PR mode; an eligible source run exists (the
                    `reuse-gate` rules and drift guard, applied to exactly what
                    will be merged); main has not changed what the swept configs
                    run since that run (else a new sweep is needed)
      2 authorize   post `/reuse-sweep-run` unless the newest authorized command
                    already says the same (a maintainer's pin is kept)
      3 push        the new head, never forced (a moved branch stops the flow)
      4 wait        for the changelog check, then every check on the pushed commit
                    (pending checks, elapsed time and the next look are shown: a
                    live line on a terminal, plain lines in a log)
      5 merge       squash, pinned to the pushed commit; the squash message never
                    carries a CI-skip marker
      6 ingest      wait (at most `ingest-timeout`) for main's push run of the
                    squash commit; report its id, whether it reused the sweep, and
                    whether its ingest job ran and succeeded (--no-wait-ingest: do
                    not wait)

    Nothing remote happens before every preflight passed. Re-running after an
    interruption continues from where the PR is (already authorized, pushed, merged).
    Your checkout is never switched: the work happens in a temporary worktree that is
    removed on exit, also on Ctrl-C.

    \b
    GitHub: token from GH_TOKEN or GITHUB_TOKEN; API URL from `github-api-url` or
    GITHUB_API_URL; repository from `repository`.

    \b
    Exit status: 0 merged (or already merged; with --dry-run: the plan is ready),
    1 the PR is not eligible (the reason is printed), 2 usage or configuration
    error, 3 git or GitHub failed after retries, 4 stopped safely before merging
    (the message says what was already posted or pushed; a re-run resumes from
    there), 5 merged, but main's push run lost the ingest or had not completed in
    time (the exact `recover` command is printed; the report, also in --format
    json, says what the run did).

    \b
    Examples:
      changelog-tools merge 5 --dry-run
      changelog-tools merge 5
      changelog-tools merge 5 --run 2003 --format json
    """
    from changelog_tools.flows.merge.flow import MergeRequest, render_outcome, run_merge

    request = MergeRequest(pr=pr, dry_run=dry_run, admin=admin, run_id=run_id, timeout=timeout,
                           poll_interval=poll_interval, wait_ingest=wait_ingest,
                           ingest_timeout=ingest_timeout)  # fmt: skip
    # A terminal gets a live line while the checks run; a log gets plain lines.
    progress, live = flow_printers()
    outcome = run_merge(request, config=config, progress=progress, live=live)
    code = emit_outcome(outcome, render_outcome, output_format)
    return _ingest_missing(outcome, pr) or code


def _ingest_missing(outcome: Outcome, pr: int) -> int | None:
    """Say so, and exit 5, when main's push run of the squash commit did not ingest."""
    from changelog_tools.diagnostics import no_commands
    from changelog_tools.errors import ExitCode

    report = outcome.push_run
    if not outcome.ingest_missing or report is None:
        return None
    click.echo(
        no_commands(
            f"error: PR #{pr} is merged as {outcome.merge_commit}, but {report.sentence()}"
        ),
        err=True,
    )
    click.echo(no_commands(f"hint: recover the ingest with `{report.recover}`"), err=True)
    return int(ExitCode.INGEST_MISSING)
