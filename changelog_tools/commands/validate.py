"""`changelog-tools validate [PATH]`."""

from __future__ import annotations

from pathlib import Path

import click

from changelog_tools.commands._common import config_option, display_path, emit, format_option
from changelog_tools.config import Config
from changelog_tools.ledger.validate import validate_file


@click.command()
# Not readable=True: an unreadable file gets the same one-line error as a missing one,
# from the reader, not click's three-line "Invalid value".
@click.argument("paths", nargs=-1, type=click.Path(readable=False, path_type=Path))
@format_option
@config_option
def validate(paths: tuple[Path, ...], output_format: str, config: Config) -> int:
    """Validate whole changelog files: bytes, YAML safety, entry shape and schema.

    PATH defaults to the configured changelog (`changelog` option, perf-changelog.yaml at the
    repository root); several PATHs (as pre-commit passes them) are each validated and
    reported together. Every problem is reported, not just the first. `-` reads the file from
    standard input (shown as <stdin>).

    \b
    Checks: valid UTF-8; ends with a newline; no CR, tab or NUL; size limit; one
    YAML document whose root is a list; no anchors, aliases, tags or duplicate
    keys; every entry starts at column 0 with `- config-keys:`; every entry
    matches the entry schema (schemas/perf-changelog.schema.json).

    \b
    Exit status: 0 valid, 1 invalid, 2 usage or configuration error.

    \b
    Examples:
      changelog-tools validate --format github perf-changelog.yaml
      git show main:perf-changelog.yaml | changelog-tools validate -
    """
    from changelog_tools import diagnostics as dx

    targets = paths or (config.changelog_path,)
    reports = [
        validate_file(
            t,
            display="<stdin>" if str(t) == "-" else display_path(t, config),
            max_size=config.max_file_size,
        )
        for t in targets
    ]
    if len(reports) == 1:
        return emit(reports[0], output_format)
    merged = dx.Report(command="validate", subject=f"{len(reports)} files")
    for report in reports:
        merged.extend(report.diagnostics)
    merged.data["files"] = [
        {"file": r.data["file"], "entries": r.data["entries"], "ok": r.ok} for r in reports
    ]
    return emit(merged, output_format)
