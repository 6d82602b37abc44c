"""`changelog-tools fix`: repair what `check` flags mechanically, in place."""

from __future__ import annotations

from pathlib import Path

import click

from changelog_tools.commands._common import PR_NUMBER, config_option, emit, format_option
from changelog_tools.config import Config


@click.command()
@click.argument(
    "path", required=False, type=click.Path(dir_okay=False, readable=False, path_type=Path)
)
@click.option("--base-ref", metavar="REF",
              help="What the change is against (default: merge-base of HEAD and the main "
              "branch).")  # fmt: skip
@click.option("--base-file", type=click.Path(dir_okay=False, readable=False, path_type=Path), metavar="PATH",
              help="Read the base version from a file instead of git.")  # fmt: skip
@click.option("--pr", "--pr-number", "pr", type=PR_NUMBER, metavar="N",
              help="This pull request's number: a near-miss pr-link with no usable number "
              "becomes its canonical link (without it, the placeholder).")  # fmt: skip
@click.option("--dry-run", is_flag=True,
              help="Write nothing: print what would change; exit 1 when something would.")  # fmt: skip
@click.option("--diff", "show_diff", is_flag=True,
              help="Also print the change as a unified diff.")  # fmt: skip
@format_option
@config_option
def fix(
    path: Path | None,
    base_ref: str | None,
    base_file: Path | None,
    pr: int | None,
    dry_run: bool,
    show_diff: bool,
    output_format: str,
    config: Config,
) -> int:
    """Repair every mechanical problem `check` finds in the changelog, keeping every other byte.

    PATH (default: the configured changelog) is rewritten in place, atomically, under the
    writers' lock; the base is read from git (or --base-file). The result is the base's bytes
    exactly, then each entry the change added (its own bytes, in its order) after one empty
    line, so these classes are repaired:

    \b
      CL103  a new entry inserted among existing ones: moved to the end
      CL104/CL105  bytes of existing entries changed, meaning not: restored from the base
      CL108/CL109  separators and final newline: one empty line, one newline
      CL203  a near-miss pr-link in a new entry: canonical (its own or --pr's number), or
             the placeholder

    What needs a human is refused and nothing is written: an existing entry changed in
    meaning or deleted (CL520); a version whose entries cannot all be located, such as one
    with a byte-order mark (CL506). The verdict is `check`'s on the file as written (config
    keys aside); problems `fix` does not touch (a missing field, a link to another pull
    request) are listed after the repairs.

    \b
    Exit status: 0 repaired (or nothing to repair) and `check`'s rules pass on the file as
    written, 1 refused, or problems remain (or, with --dry-run, something would change),
    2 usage error (nothing written).
    \b
    Examples:
      changelog-tools fix                      # against the merge-base with main
      changelog-tools fix --dry-run --diff
      changelog-tools fix --pr 12 --format json
    """
    import contextlib

    from changelog_tools import diagnostics as dx
    from changelog_tools.commands._common import display_path
    from changelog_tools.fsutil import atomic_write, locked, read_input
    from changelog_tools.ledger.canonicalize import unified_diff
    from changelog_tools.ledger.fix import fix_change
    from changelog_tools.ledger.guard import Refusal, verify
    from changelog_tools.ledger.placement import read_base

    target = path or config.changelog_path
    shown = display_path(target, config)
    report = dx.Report(command="fix", subject=shown)
    text = output_format == "text"
    mode = "pr" if pr is not None else "local"

    def verdict(data: bytes) -> tuple[dx.Diagnostic, ...]:
        return verify(base, data, config=config, mode=mode, pr=pr, path=shown, base_label=label)

    with contextlib.nullcontext(target) if dry_run else locked(target) as writable:
        head = read_input(writable, shown, max_size=config.max_file_size)
        base, label = read_base(
            writable, config=config, base_ref=base_ref, base_file=base_file, shown=shown
        )
        try:
            fixed = fix_change(base, head, config=config, path=shown, base_label=label, pr=pr)
        except Refusal as refusal:
            report.extend(refusal.diagnostics)
            report.data.update({"file": shown, "base": label, "written": False, "repairs": []})
            return emit(report, output_format)
        # The verdict is computed before anything is written, so a command that fails (a
        # usage error in the check itself) has written nothing...
        remaining = verdict(fixed.data)
        written = fixed.changed and not dry_run
        if written:
            atomic_write(writable, fixed.data)
            # ...and it is the verdict on the file as written: read back, checked again
            # should the bytes on disk be other than the ones checked.
            on_disk = read_input(writable, shown, max_size=config.max_file_size)
            if on_disk != fixed.data:
                remaining = verdict(on_disk)
    report.extend(remaining)
    diff = unified_diff(head, fixed.data, shown) if fixed.changed else ""
    report.data.update(
        {
            "file": shown,
            "base": label,
            "written": written,
            # what the verdict is on: the file as written, as it was, or as it would be
            "checked": "written" if written else "would-write" if fixed.changed else "unchanged",
            "repairs": [r.as_json() for r in fixed.repairs],
            **({"diff": diff} if show_diff else {}),
        }
    )
    verb = "would repair" if dry_run else "repaired"
    if text:
        for r in fixed.repairs:
            where = f"{shown}:{r.line}" if r.line else shown
            click.echo(dx.visible(f"{where}: {r.code} {verb}: {r.message}"))
        if show_diff and diff:
            click.echo(dx.visible(diff), nl=False)
    if not fixed.changed:
        click.echo(f"fix: {dx.visible(shown)}: nothing to repair", err=True)
    elif dry_run:
        click.echo(
            f"fix: {dx.visible(shown)}: {dx.counted(len(fixed.repairs), 'repair', 'repairs')} "
            "would be made (--dry-run: nothing written)",
            err=True,
        )
    else:
        click.echo(
            f"fix: {dx.visible(shown)}: {dx.counted(len(fixed.repairs), 'repair', 'repairs')} "
            "written atomically",
            err=True,
        )
    code = emit(report, output_format)
    return 1 if dry_run and fixed.changed else code
