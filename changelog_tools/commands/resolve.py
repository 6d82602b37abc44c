"""`changelog-tools resolve`: resolve a changelog conflict, from the index or from three files."""

from __future__ import annotations

from pathlib import Path

import click

from changelog_tools.commands._common import PR_NUMBER, config_option, format_option
from changelog_tools.config import Config


@click.command()
@click.argument(
    "path", required=False, type=click.Path(dir_okay=False, readable=False, path_type=Path)
)
@click.option("--pr", "--pr-number", "pr", type=PR_NUMBER, metavar="N",
              help="Replace placeholder pr-links of the PR's entries with PR N's link (and "
              "check the result in main mode).")  # fmt: skip
@click.option("--fix-near-misses", is_flag=True,
              help="With --pr, also replace near-miss placeholders (TBD, xxxx, ...), reporting "
              "each one.")  # fmt: skip
@click.option("--repo", "repository", metavar="OWNER/NAME",
              help="Repository of the canonical link (default: the `repository` option).")  # fmt: skip
@click.option("--pr-side", type=click.Choice(["ours", "theirs"]),
              help="Which git side is the pull request (default: detected; see below).")  # fmt: skip
@click.option("--base-file", type=click.Path(dir_okay=False, readable=False, path_type=Path), metavar="PATH",
              help="File mode: the merge-base version (empty file: none).")  # fmt: skip
@click.option("--pr-file", type=click.Path(dir_okay=False, readable=False, path_type=Path), metavar="PATH",
              help="File mode: the pull request's version.")  # fmt: skip
@click.option("--main-file", type=click.Path(dir_okay=False, readable=False, path_type=Path), metavar="PATH",
              help="File mode: main's version.")  # fmt: skip
@click.option("-o", "--output", metavar="PATH|-",
              help="Where to write the result; `-` for stdout (default in index mode: the "
              "conflicted file itself).")  # fmt: skip
@click.option("--add", "stage", is_flag=True,
              help="Index mode: `git add` the resolved file.")  # fmt: skip
@format_option
@config_option
def resolve(
    path: Path | None,
    pr: int | None,
    fix_near_misses: bool,
    repository: str | None,
    pr_side: str | None,
    base_file: Path | None,
    pr_file: Path | None,
    main_file: Path | None,
    output: str | None,
    stage: bool,
    output_format: str,
    config: Config,
) -> int:
    """Resolve a conflict in the changelog: main's bytes, then the PR's new entries.

    Index mode (default): during a conflicted `git merge`, `git rebase` or `git cherry-pick`,
    reads the merge-base, ours and theirs versions of PATH (default: the configured changelog)
    from the index and writes the resolution over the conflicted file. File mode: give
    --base-file, --pr-file and --main-file, and --output.

    \b
    The result is:
      - main's bytes, exactly (its own irregular whitespace included);
      - then each entry the PR appended since the merge-base, as its own bytes, one empty
        line apart, with placeholder links filled in when --pr is given;
      - a PR entry is left out only when it is the same entry, its canonicalized pr-link
        included, as one main appended since the merge-base (a cherry-pick); equal fields
        under another link are the PR's own entry, and older history never counts;
      - a pr-link-correction PR is replayed onto main's bytes when main left those entries
        alone.
    It must pass `check` against main's side (main mode with --pr, local mode without) and is
    written atomically; on any refusal nothing is written.

    \b
    Which side is the PR (index mode), unless --pr-side says:
      - rebase: theirs (the PR's commits are replayed onto main, which is ours);
      - merge / cherry-pick: the side whose commit is not yet on main
        (REMOTE/MAIN or MAIN from the configuration); on the main branch itself, theirs;
      - anything else: refused, asking for --pr-side.

    \b
    Exit status: 0 resolved, 1 refused (history rewritten, nothing of the PR left, a side
    missing, main changed a corrected entry, result fails `check`), 2 usage error, 3 git failed.
    \b
    Examples:
      git merge origin/main; changelog-tools resolve --pr 12 --add
      changelog-tools resolve --pr-side ours
      changelog-tools resolve --base-file b.yaml --pr-file p.yaml --main-file m.yaml -o -
    """
    import re

    from changelog_tools import diagnostics as dx
    from changelog_tools.commands._common import emit
    from changelog_tools.errors import UsageError
    from changelog_tools.fsutil import atomic_write, locked, read_input, write_target
    from changelog_tools.ledger.canonicalize import effective_config
    from changelog_tools.ledger.guard import Refusal
    from changelog_tools.ledger.resolve import Resolution
    from changelog_tools.ledger.resolve import resolve as resolve_bytes

    if repository is not None and not re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", repository):
        raise UsageError(f"--repo must be OWNER/NAME, not {repository!r}")
    files = (base_file, pr_file, main_file)
    file_mode = any(f is not None for f in files)
    to_stdout = output == "-"
    if stage and output is not None:
        raise UsageError(
            "--add stages the conflicted file itself; it cannot be combined with --output"
        )
    if fix_near_misses and pr is None:
        raise UsageError("--fix-near-misses needs --pr N (the link to write)")
    if to_stdout and output_format != "text":
        raise UsageError(f"--output - and --format {output_format} both want stdout; pick one")
    if output is not None and not to_stdout:
        write_target(Path(output))  # a FIFO or device is refused before any work
    cfg = effective_config(config, repository)
    report = dx.Report(command="resolve")
    sides_json: dict[str, str] | None = None

    def say(text: str) -> None:
        # The account is data: stdout, unless stdout carries the resolved file.
        click.echo(dx.no_commands(dx.visible(text)), err=to_stdout)

    try:
        if file_mode:
            if None in files:
                raise UsageError("file mode needs all of --base-file, --pr-file and --main-file")
            if output is None:
                raise UsageError("file mode needs --output PATH (or --output - for stdout)")
            if pr_side is not None or stage:
                raise UsageError("--pr-side and --add apply to index mode only")
            assert base_file is not None and pr_file is not None and main_file is not None
            limit = cfg.max_file_size
            base = read_input(base_file, str(base_file), max_size=limit)
            shown = str(path) if path is not None else cfg.changelog
            resolution: Resolution = resolve_bytes(
                base or None,
                read_input(pr_file, str(pr_file), max_size=limit),
                read_input(main_file, str(main_file), max_size=limit),
                config=cfg,
                pr=pr,
                path=shown,
                fix_near_misses=fix_near_misses,
            )
        else:
            from changelog_tools.gitrepo import open_repo
            from changelog_tools.ledger.mergedriver import resolve_conflict

            repo = open_repo(Path.cwd())
            target = (path or cfg.changelog_path).resolve()
            try:
                shown = target.relative_to(repo.path.resolve()).as_posix()
            except ValueError:
                raise UsageError(f"{target} is not inside the repository {repo.path}") from None
            resolution, sides = resolve_conflict(
                repo,
                shown,
                config=cfg,
                pr=pr,
                given=pr_side,
                write=output is None,
                add=stage and output is None,
                fix_near_misses=fix_near_misses,
            )
            sides_json = sides.as_json()
            click.echo(dx.no_commands(f"{shown}: {sides.describe()}"), err=True)
    except Refusal as refusal:
        report.extend(refusal.diagnostics)
        if output_format == "text":
            click.echo(dx.render_text(report), nl=False, err=to_stdout)
            return 1
        return emit(report, output_format)
    if output is not None and not to_stdout:
        with locked(Path(output)) as target:
            atomic_write(target, resolution.data)
    written = "stdout" if to_stdout else (output or shown)
    report.extend(resolution.warnings)
    report.data.update({"file": shown, "written": written, "resolution": resolution.as_json()})
    if sides_json is not None:
        report.data["sides"] = sides_json
    if output_format == "text":
        for line in resolution.summary():
            say(f"{shown}: {line}")
        for d in resolution.warnings:
            say(f"{d.path}:{d.line}: {d.code} warning {d.message}")
        say(f"resolve: wrote {written}")
    else:
        emit(report, output_format)
    if to_stdout:
        click.echo(resolution.data, nl=False)
    elif stage and file_mode is False:
        click.echo(f"{shown}: staged (git add)", err=True)
    return 0
