"""What a write command did, as one value, and the one place that prints it.

`canonicalize`, `fix`, `new` and `resolve` each end the same way: a refusal is the report alone;
otherwise an account of the edit (text format only), a verdict in words on stderr, then the
report (or, in text format, a preview standing in for it) and the exit status. Building an
:class:`EditOutcome` first keeps each command a plain function of its flags and gives every
command the same order of output, which the documented examples compare byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass

import click

from changelog_tools import diagnostics as dx
from changelog_tools.commands._common import emit
from changelog_tools.errors import ExitCode


@dataclass(frozen=True)
class EditOutcome:
    """What a write command found or did, before anything is printed.

    Printed in this order: ``account`` (text format, stdout), ``asides`` (text format, stderr),
    ``notes`` (every format, stderr), then the report, except in text format when ``preview`` is given, which is printed in its
    place. ``exit_code`` overrides the report's verdict (a ``--check`` that found work exits 1
    on a clean report).
    """

    report: dx.Report
    account: str = ""  # text format: what was done, ahead of the notes (already made visible)
    # stderr lines for a person reading along (how a key pattern resolved, say): a JSON or
    # GitHub step already has them in the report, so they would only be noise there
    asides: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()  # stderr lines: the verdict in words, in every format
    preview: str | None = None  # text format: printed instead of the report (a diff, a summary)
    exit_code: int | None = None
    # stdout carries the edited file itself, so the text account goes to stderr
    stdout_is_payload: bool = False


def refused(
    report: dx.Report, diagnostics: tuple[dx.Diagnostic, ...], *, stdout_is_payload: bool = False
) -> EditOutcome:
    """The outcome of a refused edit: the refusal's diagnostics, nothing else."""
    report.extend(diagnostics)
    return EditOutcome(report, stdout_is_payload=stdout_is_payload)


def emit_edit(outcome: EditOutcome, output_format: str) -> int:
    """Print ``outcome`` as ``output_format`` says; return the exit status it implies."""
    text = output_format == "text"
    aside = outcome.stdout_is_payload
    if text and outcome.account:
        click.echo(outcome.account, nl=False, err=aside)
    for line in outcome.asides if text else ():
        click.echo(line, err=True)
    for note in outcome.notes:
        click.echo(note, err=True)
    if text and outcome.preview is not None:
        click.echo(outcome.preview, nl=False, err=aside)
        code = int(ExitCode.OK if outcome.report.ok else ExitCode.INVALID)
    else:
        code = emit(outcome.report, output_format, err=text and aside)
    return code if outcome.exit_code is None else outcome.exit_code
