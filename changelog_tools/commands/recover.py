"""`changelog-tools recover (RUN_URL | --pr N)`: recover a lost ingest of main's sweep."""

from __future__ import annotations

import click

from changelog_tools.commands._common import (
    PR_NUMBER,
    config_option,
    emit_outcome,
    flow_options,
    flow_printers,
)
from changelog_tools.config import Config
from changelog_tools.errors import UsageError


@click.command()
@click.argument("run_url", required=False, metavar="[RUN_URL]")
@click.option(
    "--pr",
    type=PR_NUMBER,
    default=None,
    help="The original pull request; its merge commit's push run is the target.",
)
@click.option(
    "--source-run",
    type=PR_NUMBER,
    default=None,
    help="Reuse this sweep run of the original PR (a failed or cancelled one is accepted only "
    "when named here). Default: its newest successful run with result artifacts.",
)
@click.option(
    "--dry-run",
    is_flag=True,
    help="Read everything and check everything; push, open, label, post and merge nothing; "
    "print the plan.",
)
@click.option(
    "--yes",
    "-y",
    is_flag=True,
    help="Do not ask before the first write (needed without a terminal).",
)
@click.option(
    "--admin",
    is_flag=True,
    help="Merge even when GitHub reports the recovery PR as blocked by branch protection.",
)
@flow_options("the checks, and then for the push run")
@config_option
def recover(
    run_url: str | None,
    pr: int | None,
    source_run: int | None,
    dry_run: bool,
    yes: bool,
    admin: bool,
    timeout: float | None,
    poll_interval: float | None,
    output_format: str,
    config: Config,
) -> int:
    """Recover a lost ingest on main: a pull request that reuses the original sweep.

    RUN_URL is the push run on main whose ingest was lost
    (https://github.com/OWNER/NAME/actions/runs/ID, optionally /job/ID); or name the
    original pull request with --pr N.

    \b
    Steps (progress on stderr; docs/recover.md maps each to the manual procedure):
      1 target    a completed push run of `sweep-workflow` on the default branch
                  whose ingest jobs did not succeed, or succeeded on a cancelled
                  sweep; exactly one merged PR has its commit as merge commit
      2 source    the original PR's sweep run: --source-run, or its newest
                  successful run on one of its commits with unexpired result
                  artifacts; no drift between that commit and what was merged
      3 scope     the entries the original merge appended (a clean append,
                  else refused)
      4 recovery  an empty commit pushed to `recover-branch-prefix`N, the PR
                  opened, the `recover-label` added, `/reuse-sweep-run RUN`
                  posted; then the entries appended with the recovery PR's link
                  (checked by `check`), and a commit whose second parent is the
                  source commit, pushed once, never forced
      5 merge     the source commit listed and only the changelog changed; wait
                  for the checks; squash-merge; wait for the push run of the
                  squash commit and report whether it reused the source run and
                  ran the ingest

    Every read and every refusal comes before the first write. A re-run after any failure
    resumes from what GitHub has (branch, PR, label, comment, entries, merge) and never
    opens, labels, posts or appends twice. Your checkout is never touched.

    \b
    Exit status: 0 recovered (with --dry-run: the plan is ready), 1 not
    recoverable as asked (the reason is printed), 2 usage or configuration error,
    3 git or GitHub failed, 4 stopped safely (the message says what GitHub already
    has; a re-run resumes).

    \b
    Examples:
      changelog-tools recover --dry-run \\
          https://github.com/example-org/inferencex-mini/actions/runs/2002
      changelog-tools recover --pr 6 --yes
      changelog-tools recover --pr 6 --source-run 2001 --yes --format json
    """
    from changelog_tools.flows.recover.flow import RecoverRequest, render_outcome, run_recover

    _check_flags(run_url, pr, dry_run=dry_run, yes=yes)
    progress, live = flow_printers()
    request = RecoverRequest(target=run_url, pr=pr, source_run=source_run, dry_run=dry_run,
                             admin=admin, timeout=timeout, poll_interval=poll_interval)  # fmt: skip
    confirm = None if (yes or dry_run) else _confirm
    outcome = run_recover(request, config=config, progress=progress, live=live, confirm=confirm)
    return emit_outcome(outcome, render_outcome, output_format)


def _check_flags(run_url: str | None, pr: int | None, *, dry_run: bool, yes: bool) -> None:
    """Exactly one target, and consent to write: --yes, or a terminal to ask on."""
    import sys

    if (run_url is None) == (pr is None):
        raise UsageError(
            "give the run URL or --pr N (exactly one)",
            hint="changelog-tools recover --pr 6 --dry-run",
        )
    if not dry_run and not yes and not sys.stdin.isatty():
        raise UsageError(
            "recover pushes, opens a pull request and merges it; pass --yes to go ahead "
            "without a terminal",
            hint="see the plan first with --dry-run",
        )


def _confirm(outcome: object) -> bool:
    """Show the plan on stderr and ask before the first write."""
    from changelog_tools.diagnostics import no_commands
    from changelog_tools.flows.recover.flow import render_outcome

    click.echo(no_commands(render_outcome(outcome)), err=True, nl=False)  # type: ignore[arg-type]
    return click.confirm("Push, open, post and merge as planned?", default=False, err=True)
