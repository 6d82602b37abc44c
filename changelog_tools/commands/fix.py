"""`changelog-tools fix`: repair what `check` flags mechanically, in place."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

from changelog_tools import diagnostics as dx
from changelog_tools.commands._common import (
    base_options,
    config_option,
    format_option,
    path_argument,
    pr_option,
)
from changelog_tools.commands._emit import EditOutcome, emit_edit, refused
from changelog_tools.config import Config

if TYPE_CHECKING:
    from changelog_tools.ledger.fix import Fixed


@click.command()
@path_argument
@base_options
@pr_option("This pull request's number: a near-miss pr-link with no usable number "
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
      CL104/CL105  bytes of existing entries changed, meaning not: restored from
                   the base
      CL108/CL109  separators and final newline: one empty line, one newline
      CL203  a near-miss pr-link in a new entry: canonical (its own or --pr's
             number), or the placeholder

    What needs a human is refused and nothing is written: an existing entry changed in
    meaning or deleted (CL520); a version whose entries cannot all be located, such as one
    with a byte-order mark (CL506). The verdict is `check`'s on the file as written (config
    keys aside); problems `fix` does not touch (a missing field, a link to another pull
    request) are listed after the repairs.

    \b
    Exit status: 0 repaired (or nothing to repair) and `check`'s rules pass on the
    file as written, 1 refused, or problems remain (or, with --dry-run, something
    would change), 2 usage error (nothing written).

    \b
    Examples:
      changelog-tools fix                      # against the merge-base with main
      changelog-tools fix --dry-run --diff
      changelog-tools fix --pr 12 --format json
    """
    from changelog_tools.commands._common import display_path

    target = path or config.changelog_path
    request = _Request(target, display_path(target, config), base_ref, base_file, pr, dry_run)
    return emit_edit(_fix(request, config, show_diff=show_diff), output_format)


@dataclass(frozen=True)
class _Request:
    """The file to repair, its base, and whether to write."""

    target: Path
    shown: str
    base_ref: str | None
    base_file: Path | None
    pr: int | None
    dry_run: bool


def _fix(request: _Request, config: Config, *, show_diff: bool) -> EditOutcome:
    """Repair the file under the writers' lock (none with --dry-run); the verdict is `check`'s
    on the file as written."""
    import contextlib

    from changelog_tools.fsutil import atomic_write, locked, read_input
    from changelog_tools.ledger.fix import fix_change
    from changelog_tools.ledger.guard import Refusal, verify
    from changelog_tools.ledger.placement import read_base

    shown, pr, dry_run = request.shown, request.pr, request.dry_run
    report = dx.Report(command="fix", subject=shown)
    mode = "pr" if pr is not None else "local"

    def verdict(data: bytes) -> tuple[dx.Diagnostic, ...]:
        return verify(base, data, config=config, mode=mode, pr=pr, path=shown, base_label=label)

    with contextlib.nullcontext(request.target) if dry_run else locked(request.target) as writable:
        head = read_input(writable, shown, max_size=config.max_file_size)
        base, label = read_base(
            writable,
            config=config,
            base_ref=request.base_ref,
            base_file=request.base_file,
            shown=shown,
        )
        try:
            fixed = fix_change(base, head, config=config, path=shown, base_label=label, pr=pr)
        except Refusal as refusal:
            report.data.update({"file": shown, "base": label, "written": False, "repairs": []})
            return refused(report, refusal.diagnostics)
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
    return _account(report, fixed, head, label, written, request, show_diff=show_diff)


def _account(
    report: dx.Report,
    fixed: Fixed,
    head: bytes,
    label: str,
    written: bool,
    request: _Request,
    *,
    show_diff: bool,
) -> EditOutcome:
    """What was repaired (or would be), as the report's data, the text account and the note."""
    from changelog_tools.ledger.canonicalize import unified_diff

    shown = request.shown
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
    verb = "would repair" if request.dry_run else "repaired"
    account = "".join(
        dx.visible(f"{f'{shown}:{r.line}' if r.line else shown}: {r.code} {verb}: {r.message}")
        + "\n"
        for r in fixed.repairs
    )
    if show_diff and diff:
        account += dx.visible(diff)
    repairs = dx.counted(len(fixed.repairs), "repair", "repairs")
    if not fixed.changed:
        note = f"fix: {dx.visible(shown)}: nothing to repair"
    elif request.dry_run:
        note = f"fix: {dx.visible(shown)}: {repairs} would be made (--dry-run: nothing written)"
    else:
        note = f"fix: {dx.visible(shown)}: {repairs} written atomically"
    would_change = request.dry_run and fixed.changed
    return EditOutcome(report, account, (note,), exit_code=1 if would_change else None)
