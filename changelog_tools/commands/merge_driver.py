"""`changelog-tools merge-driver` (run by git) and `changelog-tools install-merge-driver`."""

from __future__ import annotations

from pathlib import Path

import click

from changelog_tools.commands._common import config_option, format_option
from changelog_tools.config import Config

GITHUB_NOTE = (
    "note: GitHub's own merges (the web button, the API, merge queues) ignore custom merge "
    "drivers, so a pull request can still show a changelog conflict there; `changelog-tools "
    "merge` merges main in locally with the resolver and pushes the result, which is why the "
    "merge flow does not depend on this driver."
)


@click.command("merge-driver")
@click.argument("ancestor", type=click.Path(path_type=Path))
@click.argument("current", type=click.Path(path_type=Path))
@click.argument("other", type=click.Path(path_type=Path))
@click.argument("path", default="")
@click.option("--pr-side", type=click.Choice(["ours", "theirs"]),
              help="Which side is the pull request (default: detected from git's state).")  # fmt: skip
@click.option("--marker-size", type=click.IntRange(min=1), default=7, show_default=True,
              help="Conflict-marker size when it cannot resolve (git's %L).")  # fmt: skip
@click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Configuration file (default: found from the work tree).")  # fmt: skip
def merge_driver(
    ancestor: Path,
    current: Path,
    other: Path,
    path: str,
    pr_side: str | None,
    marker_size: int,
    config_path: Path | None,
) -> int:
    """git merge driver for the changelog: `merge-driver %O %A %B %P` (git runs it).

    Resolves like `changelog-tools resolve` and writes the result to %A (CURRENT). It does
    not know the PR number, so placeholder links stay placeholders and the result is checked
    in local mode. During `git merge` the PR is the side not yet on main; during `git rebase`
    it is theirs (%B).

    \b
    Exit status: 0 resolved (%A holds the result); 1 not resolved: %A holds git's
    usual conflict markers and git reports a conflict, and one line on stderr says
    why. It never exits above 128 on purpose (git would treat that as a crash) and
    never prints a traceback.

    \b
    Install it with `changelog-tools install-merge-driver`; it then runs by itself
    in `git merge origin/main`, `git rebase origin/main` and `git pull`.
    """
    import os

    from changelog_tools.config import load_config
    from changelog_tools.gitrepo import open_repo
    from changelog_tools.ledger.mergedriver import run_merge_driver

    return run_merge_driver(
        ancestor=ancestor,
        current=current,
        other=other,
        path=path or str(current),
        # git runs drivers at the top of the work tree and %P is relative to it: search for the
        # configuration from the changelog's own directory, as the other commands do from theirs.
        load_config=lambda: load_config(
            config_path, start=(Path.cwd() / path).parent if path else None
        ),
        given=pr_side,
        marker_size=marker_size,
        environ=dict(os.environ),
        open_repo=lambda: open_repo(Path.cwd()),
        log=lambda line: click.echo(line, err=True),
    )


@click.command("install-merge-driver")
@click.option("--global", "global_", is_flag=True,
              help="Write the driver into your global git config (~/.gitconfig) instead of "
              "this repository's .git/config.")  # fmt: skip
@format_option
@config_option
def install_merge_driver(global_: bool, output_format: str, config: Config) -> int:
    """Install the changelog merge driver in this repository (idempotent).

    \b
    Writes:
      - `.gitattributes`: `/<changelog> merge=<name>` (commit it so every clone
        uses it);
      - git config `merge.<name>.driver`: this Python, by absolute path, running
        `-m changelog_tools merge-driver --marker-size %L %O %A %B %P`, so it
        works whatever PATH git has; plus `merge.<name>.name` and
        `merge.<name>.recursive = binary`.

    <changelog> and <name> come from the `changelog` and `merge-driver-name` options.
    Running it again changes nothing. git config is per clone: run it in every clone (CI
    included) that merges.

    GitHub's web and API merges ignore custom drivers; `changelog-tools merge` resolves the
    conflict itself for that reason. When everything was already in place it prints one line.

    \b
    Exit status: 0 installed (or already installed), 2 usage error, 3 git failed.

    \b
    Example:
      changelog-tools install-merge-driver
    """

    from changelog_tools.gitrepo import open_repo
    from changelog_tools.ledger.driverinstall import install

    repo = open_repo(Path.cwd())
    done = install(repo, config=config, global_=global_)
    if output_format == "json":
        from changelog_tools.jsontext import json_text

        click.echo(json_text({"command": "install-merge-driver", **done.as_json()}), nl=False)
    elif not (done.attributes_changed or done.config_changed):
        # Run again (by a setup script, in CI): one line, as `git config` says nothing when
        # it changes nothing.
        click.echo(f"install-merge-driver: already installed for {done.attributes_line}")
        return 0
    else:
        line = done.attributes_line
        state = "added" if done.attributes_changed else "already present"
        click.echo(f"{done.attributes_file}: {line} ({state})")
        state = "written" if done.config_changed else "already set"
        for key, value in done.config.items():
            click.echo(f"git config --{done.config_scope} {key} {value!r}")
        click.echo(f"git config ({done.config_scope}): {state}")
        if done.attributes_changed:
            click.echo("commit .gitattributes so every clone picks the driver for the changelog")
    click.echo(GITHUB_NOTE, err=True)
    return 0
