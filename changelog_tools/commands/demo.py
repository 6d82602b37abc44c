"""`changelog-tools demo`: walk the whole story on a throwaway repository."""

from __future__ import annotations

from pathlib import Path

import click

from changelog_tools.errors import ExitCode, UsageError


@click.command()
@click.option(
    "--keep",
    is_flag=True,
    help="Keep a sandbox: the repositories, the fake GitHub's state and one more open PR to "
    "merge yourself; prints how to serve it again and what to run.",
)
@click.option(
    "--workdir",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=None,
    help="Create the temporary directory here (default: the system's temp directory).",
)
@click.option(
    "--serve",
    "serve_dir",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=None,
    metavar="SANDBOX",
    help="Serve a sandbox kept by --keep (its fake GitHub and fake CI) until Ctrl-C.",
)
@click.option(
    "--port",
    type=click.IntRange(min=1, max=65535),
    default=None,
    help="With --serve: listen on this port (default: the sandbox's own).",
)
@click.option(
    "--example-path",
    is_flag=True,
    help="Print where the bundled example repository (inferencex-mini) is installed, and exit: "
    "copy it to try the commands on a repository of your own.",
)
def demo(
    keep: bool, workdir: Path | None, serve_dir: Path | None, port: int | None, example_path: bool
) -> int:
    """Show the whole flow on a throwaway repository, with the real commands.

    Builds a git repository from the bundled example (inferencex-mini) in a temporary
    directory, starts the bundled fake GitHub on 127.0.0.1 and a fake CI that runs the real
    `check`, opens two pull requests that both append to the changelog, and walks the story:
    `check` flags a wrong pr-link, the author fixes it, `merge` merges PR #1 with reuse, PR #2
    then conflicts and `merge` resolves and canonicalizes it, and `reuse-gate` on main reports
    the reused sweep run. Every command runs in its own process, as you would run it.

    Needs nothing but git; touches nothing outside the temporary directory, talks to no
    network but 127.0.0.1, and leaves nothing running (also with --keep).

    With --keep the directory stays, with a third pull request left open for you: the
    demo prints how to start the fake GitHub again (`demo --serve SANDBOX`) and how to run
    `merge --dry-run`, `merge` and `reuse-gate` against it yourself (docs/demo.md).

    \b
    Exit status: 0 the story ran as expected, 1 a step did not, 3 git failed.

    \b
    Examples:
      changelog-tools demo
      changelog-tools demo --keep
      changelog-tools demo --serve /tmp/changelog-tools-demo-abc123
      cp -r "$(changelog-tools demo --example-path)" my-bench  # to try by hand
    """
    if example_path:
        if keep or workdir is not None or serve_dir is not None or port is not None:
            raise UsageError("--example-path takes no other option")
        from changelog_tools.flows.demo import EXAMPLE  # inside the package: a wheel has it too

        click.echo(str(EXAMPLE))
        return int(ExitCode.OK)
    if serve_dir is not None:
        if keep or workdir is not None:
            raise UsageError("--serve runs a kept sandbox; it takes no --keep or --workdir")
        from changelog_tools.flows.demo import serve_sandbox

        serve_sandbox(serve_dir, say=click.echo, port=port)
        return int(ExitCode.OK)
    if port is not None:
        raise UsageError("--port goes with --serve")
    from changelog_tools.flows.demo import run_demo

    result = run_demo(say=click.echo, keep=keep, workdir=workdir)
    click.echo("")
    click.echo(
        f"demo finished in {result.seconds:.1f}s: {len(result.steps)} commands, all as expected"
        if result.ok
        else f"demo finished in {result.seconds:.1f}s with unexpected results"
    )
    if result.workdir is not None:
        click.echo(f"kept the sandbox in {result.workdir} (see {result.workdir}/HOWTO.txt)")
    return int(ExitCode.OK if result.ok else ExitCode.INVALID)
