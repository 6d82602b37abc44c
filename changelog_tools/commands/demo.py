"""`changelog-tools demo`: walk the whole story on a throwaway repository."""

from __future__ import annotations

from pathlib import Path

import click

from changelog_tools.errors import ExitCode


@click.command()
@click.option("--keep", is_flag=True, help="Keep the temporary repositories and print where.")
@click.option(
    "--workdir",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=None,
    help="Create the temporary directory here (default: the system's temp directory).",
)
def demo(keep: bool, workdir: Path | None) -> int:
    """Show the whole flow on a throwaway repository, with the real commands.

    Builds a git repository from the bundled example (inferencex-mini) in a temporary
    directory, starts the bundled fake GitHub on 127.0.0.1 and a fake CI that runs the real
    `check`, opens two pull requests that both append to the changelog, and walks the story:
    `check` flags a wrong pr-link, the author fixes it, `merge` merges PR #1 with reuse, PR #2
    then conflicts and `merge` resolves and canonicalizes it, and `reuse-gate` on main reports
    the reused sweep run. Every command runs in its own process, as you would run it.

    Needs nothing but git; touches nothing outside the temporary directory, talks to no
    network but 127.0.0.1, and leaves nothing running.

    \b
    Exit status: 0 the story ran as expected, 1 a step did not, 3 git failed.
    Example:  changelog-tools demo
    """
    from changelog_tools.flows.demo import run_demo

    result = run_demo(say=click.echo, keep=keep, workdir=workdir)
    click.echo("")
    click.echo(
        f"demo finished in {result.seconds:.1f}s: {len(result.steps)} commands, all as expected"
        if result.ok
        else f"demo finished in {result.seconds:.1f}s with unexpected results"
    )
    if result.workdir is not None:
        click.echo(f"kept the repositories in {result.workdir}")
    return int(ExitCode.OK if result.ok else ExitCode.INVALID)
