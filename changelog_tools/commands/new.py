"""`changelog-tools new`: append a correctly formatted changelog entry."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

import click

from changelog_tools.commands._common import config_option, format_option
from changelog_tools.commands._emit import EditOutcome, emit_edit, refused
from changelog_tools.config import Config
from changelog_tools.ledger.new import SCENARIO_TYPES

if TYPE_CHECKING:
    from changelog_tools.ledger.new import Entry


@click.command()
@click.option("--config-key", "config_keys", multiple=True, required=True, metavar="KEY",
              help="A master-config key or `*` wildcard to sweep (repeatable).")  # fmt: skip
@click.option("--description", "descriptions", multiple=True, metavar="TEXT",
              help="One point of the description (repeatable). Without it, $VISUAL or $EDITOR "
              "opens a template, as `git commit` does.")  # fmt: skip
@click.option("--scenario-type", "scenario_types", multiple=True,
              type=click.Choice(SCENARIO_TYPES), help="Scenario the entry selects (repeatable; "
              "default: all).")  # fmt: skip
@click.option("--evals-only", is_flag=True, help="Run evals only (no throughput benchmarks).")
@click.option("--all-evals", is_flag=True, help="Evals on every point, no throughput.")
@click.option("--dry-run", is_flag=True, help="Print the entry and check it; write nothing.")
@format_option
@config_option
def new(
    config_keys: tuple[str, ...],
    descriptions: tuple[str, ...],
    scenario_types: tuple[str, ...],
    evals_only: bool,
    all_evals: bool,
    dry_run: bool,
    output_format: str,
    config: Config,
) -> int:
    """Append a new entry to the changelog, formatted, resolved and checked.

    Every --config-key must match a key of the master configs (`master-configs` option);
    a miss is refused with a "did you mean" hint. The entry goes at the end of the file after
    one blank line, with the placeholder pr-link (`canonicalize` fills in the number once the
    pull request has one). The whole result must pass `check` before anything is written, and
    it is written atomically: on any error the file is untouched.

    \b
    Exit status: 0 appended, 1 refused (diagnostics printed; nothing written),
    2 usage or configuration error, 4 the description was left empty in the editor
    (nothing written).

    \b
    Examples:
      changelog-tools new --config-key 'llama70b-fp8-gpu-b-*' \\
          --description "Bump vLLM to 0.11.1"
      changelog-tools new --config-key llama70b-fp8-gpu-a-vllm \\
          --scenario-type agentic-coding \\
          --description "Add the agentic-coding scenario"
    """
    from changelog_tools.ledger.new import Entry

    for option, values in (
        ("--config-key", config_keys),
        ("--description", descriptions),
        ("--scenario-type", scenario_types),
    ):
        for value in values:
            _require_utf8(value, option)
    entry = Entry(
        config_keys=config_keys,
        description=descriptions,
        scenario_types=scenario_types,
        evals_only=evals_only,
        all_evals=all_evals,
    )
    if not descriptions:
        entry = _described_in_editor(entry, config)
    return emit_edit(_append(entry, config, dry_run=dry_run), output_format)


def _described_in_editor(entry: Entry, config: Config) -> Entry:
    """``entry`` with the description written in $VISUAL or $EDITOR, as `git commit` asks for
    a message; an empty one aborts."""
    import dataclasses

    from changelog_tools.errors import AbortedError, UsageError
    from changelog_tools.ledger.new import description_from_edit, template

    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not editor and not sys.stdin.isatty():
        raise UsageError(
            "no --description and no editor to write one in",
            hint="pass --description TEXT, or set EDITOR",
        )
    try:
        edited = click.edit(template(entry, config=config), editor=editor, extension=".txt")
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"the editor saved bytes that are not UTF-8 (byte {exc.object[exc.start]:#04x} "
            f"at offset {exc.start}); nothing was written",
            hint="save the description as UTF-8",
        ) from None
    points = description_from_edit(edited or "")
    if not points:
        raise AbortedError("aborting: the description is empty; nothing was written")
    return dataclasses.replace(entry, description=points)


def _append(entry: Entry, config: Config, *, dry_run: bool) -> EditOutcome:
    """Append ``entry`` (with ``dry_run``, only prepare and check it)."""
    from changelog_tools import diagnostics as dx
    from changelog_tools.ledger import new as core
    from changelog_tools.ledger.guard import Refusal

    report = dx.Report(command="new")
    try:
        if dry_run:
            _, _, appended = core.prepare(entry, config=config)
        else:
            appended = core.append_entry(entry, config=config)
    except Refusal as exc:
        report.subject = config.changelog
        return refused(report, exc.diagnostics)
    report.extend(appended.warnings)
    verb = "would append" if dry_run else "appended"
    report.subject = f"{verb} an entry at {appended.path}:{appended.line}"
    report.data.update(core.entry_json(appended))
    report.data["written"] = not dry_run
    resolved = tuple(
        f"# {pattern} -> {', '.join(keys)}"
        for pattern, keys in appended.resolved.items()
        if keys != (pattern,)
    )
    return EditOutcome(report, account=appended.text, asides=resolved)


def _require_utf8(value: str, option: str) -> None:
    """Refuse an argument holding bytes that are not UTF-8 (Python keeps them as surrogates):
    the changelog is UTF-8, so such an entry could never be written."""
    from changelog_tools.errors import UsageError

    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raw = value.encode("utf-8", "surrogateescape")[exc.start : exc.start + 1]
        raise UsageError(
            f"{option}: the argument is not valid UTF-8 (byte 0x{raw.hex() or '??'} at character "
            f"{exc.start}); nothing was written"
        ) from None
