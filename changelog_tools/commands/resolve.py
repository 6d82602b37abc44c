"""`changelog-tools resolve`: resolve a changelog conflict, from the index or from three files."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from changelog_tools import diagnostics as dx
from changelog_tools.commands._common import (
    FILE,
    check_repository,
    config_option,
    format_option,
    path_argument,
    pr_option,
    repo_option,
)
from changelog_tools.commands._emit import EditOutcome, emit_edit, refused
from changelog_tools.config import Config
from changelog_tools.errors import UsageError

if TYPE_CHECKING:
    from changelog_tools.ledger.resolvefrom import Resolved


@click.command()
@path_argument
@pr_option("Replace placeholder pr-links of the PR's entries with PR N's link (and "
           "check the result in main mode).")  # fmt: skip
@click.option("--fix-near-misses", is_flag=True,
              help="With --pr, also replace near-miss placeholders (TBD, xxxx, ...), reporting "
              "each one.")  # fmt: skip
@repo_option
@click.option("--pr-side", type=click.Choice(["ours", "theirs"]),
              help="Which git side is the pull request (default: detected; see below).")  # fmt: skip
@click.option("--base-file", type=FILE, metavar="PATH",
              help="File mode: the merge-base version (empty file: none).")  # fmt: skip
@click.option("--pr-file", type=FILE, metavar="PATH",
              help="File mode: the pull request's version.")  # fmt: skip
@click.option("--main-file", type=FILE, metavar="PATH",
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
      - then each entry the PR appended since the merge-base, as its own bytes,
        one empty line apart, with placeholder links filled in when --pr is given;
      - a PR entry is left out only when it is the same entry, its canonicalized
        pr-link included, as one main appended since the merge-base (a
        cherry-pick); equal fields under another link are the PR's own entry,
        and older history never counts;
      - a pr-link-correction PR is replayed onto main's bytes when main left
        those entries alone.

    It must pass `check` against main's side (main mode with --pr, local mode without) and is
    written atomically; on any refusal nothing is written.

    \b
    Which side is the PR (index mode), unless --pr-side says:
      - rebase: theirs (the PR's commits are replayed onto main, which is ours);
      - merge / cherry-pick: the side whose commit is not yet on main (REMOTE/MAIN
        or MAIN from the configuration); on the main branch itself, theirs;
      - anything else: refused, asking for --pr-side.

    \b
    Exit status: 0 resolved, 1 refused (history rewritten, nothing of the PR left,
    a side missing, main changed a corrected entry, result fails `check`), 2 usage
    error, 3 git failed.

    \b
    Examples:
      git merge origin/main; changelog-tools resolve --pr 12 --add
      changelog-tools resolve --pr-side ours
      changelog-tools resolve --base-file b.yaml --pr-file p.yaml \\
          --main-file m.yaml -o -
    """
    from changelog_tools.fsutil import write_target
    from changelog_tools.ledger.canonicalize import effective_config
    from changelog_tools.ledger.guard import Refusal

    files = (base_file, pr_file, main_file)
    to_stdout = output == "-"
    _check_flags(repository, stage, output, fix_near_misses, pr, output_format)
    if output is not None and not to_stdout:
        write_target(Path(output))  # a FIFO or device is refused before any work
    cfg = effective_config(config, repository)
    try:
        resolved = _resolve(path, files, cfg, pr=pr, pr_side=pr_side, output=output,
                            stage=stage, fix_near_misses=fix_near_misses)  # fmt: skip
    except Refusal as refusal:
        report = dx.Report(command="resolve")
        return emit_edit(refused(report, refusal.diagnostics, stdout_is_payload=to_stdout),
                         output_format)  # fmt: skip
    if output is not None and not to_stdout:
        _write(Path(output), resolved.resolution.data)
    written = "stdout" if to_stdout else (output or resolved.shown)
    code = emit_edit(_outcome(resolved, written, to_stdout=to_stdout), output_format)
    if to_stdout:
        click.echo(resolved.resolution.data, nl=False)
    elif stage and resolved.sides is not None:  # index mode
        click.echo(f"{resolved.shown}: staged (git add)", err=True)
    return code


def _resolve(
    path: Path | None,
    files: tuple[Path | None, Path | None, Path | None],
    config: Config,
    *,
    pr: int | None,
    pr_side: str | None,
    output: str | None,
    stage: bool,
    fix_near_misses: bool,
) -> Resolved:
    """Resolve from the three files when any is given, else from git's index."""
    from changelog_tools.ledger.conflictrequest import ConflictRequest
    from changelog_tools.ledger.resolvefrom import from_files, from_index

    if any(f is not None for f in files):
        base, ours, main = _file_mode(files, output, pr_side, stage)
        shown = str(path) if path is not None else config.changelog
        return from_files(base, ours, main, config=config, shown=shown, pr=pr,
                          fix_near_misses=fix_near_misses)  # fmt: skip
    written = output is None
    request = ConflictRequest(config, pr=pr, given=pr_side, write=written, add=stage and written,
                              fix_near_misses=fix_near_misses)  # fmt: skip
    resolved = from_index(Path.cwd(), path or config.changelog_path, request)
    assert resolved.sides is not None
    click.echo(dx.no_commands(f"{resolved.shown}: {resolved.sides.describe()}"), err=True)
    return resolved


def _check_flags(
    repository: str | None,
    stage: bool,
    output: str | None,
    fix_near_misses: bool,
    pr: int | None,
    output_format: str,
) -> None:
    """Refuse the combinations of flags that cannot mean anything, before any work."""
    check_repository(repository)
    if stage and output is not None:
        raise UsageError(
            "--add stages the conflicted file itself; it cannot be combined with --output"
        )
    if fix_near_misses and pr is None:
        raise UsageError("--fix-near-misses needs --pr N (the link to write)")
    if output == "-" and output_format != "text":
        raise UsageError(f"--output - and --format {output_format} both want stdout; pick one")


def _file_mode(
    files: tuple[Path | None, Path | None, Path | None],
    output: str | None,
    pr_side: str | None,
    stage: bool,
) -> tuple[Path, Path, Path]:
    """The three files of file mode, once the flags that go with it are checked."""
    base_file, pr_file, main_file = files
    if base_file is None or pr_file is None or main_file is None:
        raise UsageError("file mode needs all of --base-file, --pr-file and --main-file")
    if output is None:
        raise UsageError("file mode needs --output PATH (or --output - for stdout)")
    if pr_side is not None or stage:
        raise UsageError("--pr-side and --add apply to index mode only")
    return base_file, pr_file, main_file


def _write(output: Path, data: bytes) -> None:
    from changelog_tools.fsutil import atomic_write, locked

    with locked(output) as target:
        atomic_write(target, data)


def _outcome(resolved: Resolved, written: str, *, to_stdout: bool) -> EditOutcome:
    """The report and, in text format, the account of where each part came from."""
    shown, resolution = resolved.shown, resolved.resolution
    report = dx.Report(command="resolve")
    report.extend(resolution.warnings)
    report.data.update({"file": shown, "written": written, "resolution": resolution.as_json()})
    if resolved.sides is not None:
        report.data["sides"] = resolved.sides.as_json()
    lines = [f"{shown}: {line}" for line in resolution.summary()]
    lines += [f"{d.path}:{d.line}: {d.code} warning {d.message}" for d in resolution.warnings]
    lines.append(f"resolve: wrote {written}")
    # The account is data: stdout, unless stdout carries the resolved file.
    account = "".join(dx.no_commands(dx.visible(line)) + "\n" for line in lines)
    return EditOutcome(report, preview=account, exit_code=0, stdout_is_payload=to_stdout)
