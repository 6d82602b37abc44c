"""`changelog-tools canonicalize`: fill in the PR's placeholder pr-links."""

from __future__ import annotations

from pathlib import Path

import click

from changelog_tools.commands._common import PR_NUMBER, config_option, emit, format_option
from changelog_tools.config import Config


@click.command()
@click.argument(
    "path", required=False, type=click.Path(dir_okay=False, readable=False, path_type=Path)
)
@click.option("--pr", "--pr-number", "pr", type=PR_NUMBER,
              metavar="N", help="The pull request whose link replaces the placeholders "
              "(required, except with --fix-placement).")  # fmt: skip
@click.option("--base-ref", metavar="REF",
              help="What the change is against (default: merge-base of HEAD and the main "
              "branch).")  # fmt: skip
@click.option("--base-file", type=click.Path(dir_okay=False, readable=False, path_type=Path), metavar="PATH",
              help="Read the base version from a file instead of git.")  # fmt: skip
@click.option("--repo", "repository", metavar="OWNER/NAME",
              help="Repository of the canonical link (default: the `repository` option).")  # fmt: skip
@click.option("--changelog-file", "changelog", metavar="PATH",
              help="Same as PATH (the reference tool's spelling).")  # fmt: skip
@click.option("--fix-near-misses", is_flag=True,
              help="Also replace near-miss placeholders (TBD, xxxx, .../pull/ without a "
              "number, ...), reporting each one.")  # fmt: skip
@click.option("--fix-placement", is_flag=True,
              help="Move entries the change inserted among existing ones (CL103) to the end, "
              "byte for byte; with --pr, then fill in their links.")  # fmt: skip
@click.option("--check", "check_only", is_flag=True,
              help="Write nothing; exit 1 and print a unified diff when a change would be made.")  # fmt: skip
@format_option
@config_option
def canonicalize(
    path: Path | None,
    pr: int | None,
    base_ref: str | None,
    base_file: Path | None,
    repository: str | None,
    changelog: str | None,
    fix_near_misses: bool,
    fix_placement: bool,
    check_only: bool,
    output_format: str,
    config: Config,
) -> int:
    """Replace placeholder pr-links in the entries this change appended with PR N's link.

    PATH (default: the configured changelog) is the file in the working tree, rewritten in
    place; the base is read from git (or --base-file). Only entries appended since the base
    are touched, and in each only the value of its pr-link line:
    every other byte of the file stays identical. Placeholders are the
    configured spellings (default `XXX` and `https://github.com/{repo}/pull/XXX`); the link
    written is `https://github.com/OWNER/NAME/pull/N`, OWNER/NAME from --repo or the
    `repository` option (the same repository the result is then validated against).

    \b
    Refuses, naming the entry and its line, and writes nothing, when:
      - an appended link is neither a placeholder nor PR N's own link;
      - an appended link is a near-miss placeholder (TBD, xxxx, a bare .../pull/) and
        --fix-near-misses is not given;
      - the change is not a valid append, or the result would not pass `check` in main mode.
    Running it again changes nothing and says so. The write is atomic.

    \b
    --fix-placement: entries the change inserted in the middle of history (CL103) are taken
    out, the rest must be the base byte for byte, and they are appended at the end in their
    order, one empty line apart; the result must pass `check` and `validate` (then, with --pr,
    their links are filled in). Nothing else moves.

    \b
    Exit status: 0 done or nothing to do, 1 refused (or --check found work), 2 usage error,
    3 git failed.
    \b
    Examples:
      changelog-tools canonicalize --pr 12
      changelog-tools canonicalize --pr 12 --check
      changelog-tools canonicalize --pr 12 --base-ref origin/main --fix-near-misses
      changelog-tools canonicalize --pr 7 --base-file base.yaml --repo acme/bench changelog.yaml
      changelog-tools canonicalize --fix-placement
    """
    import re

    from changelog_tools import diagnostics as dx
    from changelog_tools.commands._common import display_path
    from changelog_tools.errors import UsageError
    from changelog_tools.ledger import canonicalize as core
    from changelog_tools.ledger.guard import Refusal

    if repository is not None and not re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", repository):
        raise UsageError(f"--repo must be OWNER/NAME, not {repository!r}")
    if base_ref is not None and base_file is not None:
        raise UsageError("--base-ref and --base-file are mutually exclusive")
    if path is not None and changelog is not None:
        raise UsageError("give the changelog either as PATH or as --changelog-file, not both")
    target = path or (Path(changelog) if changelog else config.changelog_path)
    cfg = core.effective_config(config, repository)
    report = dx.Report(command="canonicalize")
    if fix_placement:
        return _fix_placement(target, pr, base_ref, base_file, fix_near_misses, check_only,
                              output_format, cfg, config, report)  # fmt: skip
    if pr is None:
        raise UsageError("--pr N is required (the pull request whose link replaces the "
                         "placeholders), except with --fix-placement")  # fmt: skip
    try:
        outcome = core.canonicalize_file(
            target,
            pr=pr,
            config=cfg,
            base_ref=base_ref,
            base_file=base_file,
            fix_near_misses=fix_near_misses,
            write=not check_only,
            display=display_path(target, config),
        )
    except Refusal as refusal:
        report.extend(refusal.diagnostics)
        return emit(report, output_format)
    result = outcome.result
    shown = outcome.display
    report.extend(result.warnings)
    report.data.update({"file": shown, "base": outcome.base_label, "pr": pr, **result.as_json()})
    report.data["written"] = outcome.written
    text = output_format == "text"
    if not result.changed:
        what = (
            f"all {result.appended} appended entr{'y links' if result.appended == 1 else 'ies link'} "
            f"to #{pr} already"
            if result.appended
            else f"no entries appended since {outcome.base_label}"
        )
        click.echo(f"{shown}: nothing to canonicalize ({what})", err=True)
        return emit(report, output_format)
    n = len(result.substitutions)
    if check_only:
        diff = core.unified_diff(outcome.before, result.data, shown)
        report.data["diff"] = diff
        click.echo(
            f"{shown}: {n} pr-link{'s' * (n != 1)} would change (--check: nothing written)",
            err=True,
        )
        if text:
            click.echo(dx.visible(diff), nl=False)
        else:
            emit(report, output_format)
        return 1
    if text:
        for sub in result.substitutions:
            click.echo(f"{shown}:{sub.line}: entry {sub.entry}: pr-link {sub.old!r} -> {sub.new}")
    click.echo(f"{shown}: replaced {n} pr-link{'s' * (n != 1)} (written atomically)", err=True)
    return emit(report, output_format)


def _fix_placement(
    target: Path,
    pr: int | None,
    base_ref: str | None,
    base_file: Path | None,
    fix_near_misses: bool,
    check_only: bool,
    output_format: str,
    cfg: Config,
    config: Config,
    report: object,
) -> int:
    from changelog_tools import diagnostics as dx
    from changelog_tools.commands._common import display_path
    from changelog_tools.ledger import canonicalize as core
    from changelog_tools.ledger.guard import Refusal
    from changelog_tools.ledger.placement import fix_placement_file

    assert isinstance(report, dx.Report)
    try:
        outcome, canon = fix_placement_file(
            target,
            config=cfg,
            base_ref=base_ref,
            base_file=base_file,
            pr=pr,
            fix_near_misses=fix_near_misses,
            write=not check_only,
            display=display_path(target, config),
        )
    except Refusal as refusal:
        report.extend(refusal.diagnostics)
        return emit(report, output_format)
    shown, result = outcome.display, outcome.result
    report.extend(result.warnings + (canon.warnings if canon else ()))
    report.data.update(
        {
            "file": shown,
            "base": outcome.base_label,
            "pr": pr,
            "moved": [m.as_json() for m in result.moves],
            "substitutions": [s.as_json() for s in canon.substitutions] if canon else [],
            "written": outcome.written,
        }
    )
    text = output_format == "text"
    if result.data == outcome.before:
        click.echo(f"{shown}: nothing to move (no entry inserted among history)", err=True)
        return emit(report, output_format)
    if check_only:
        diff = core.unified_diff(outcome.before, result.data, shown)
        report.data["diff"] = diff
        click.echo(f"{shown}: would move {len(result.moves)} entr"
                   f"{'y' if len(result.moves) == 1 else 'ies'} (--check: nothing written)",
                   err=True)  # fmt: skip
        if text:
            click.echo(dx.visible(diff), nl=False)
        else:
            emit(report, output_format)
        return 1
    if text:
        for m in result.moves:
            click.echo(
                f"{shown}:{m.new_line}: moved entry {m.entry} (was line {m.line}) to the end "
                f"as entry {m.new_entry}"
            )
        for sub in canon.substitutions if canon else ():
            click.echo(f"{shown}:{sub.line}: entry {sub.entry}: pr-link {sub.old!r} -> {sub.new}")
    click.echo(f"{shown}: moved {len(result.moves)} entr"
               f"{'y' if len(result.moves) == 1 else 'ies'} to the end (written atomically)",
               err=True)  # fmt: skip
    return emit(report, output_format)
