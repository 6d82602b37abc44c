"""`changelog-tools validate [PATH]`."""

from __future__ import annotations

from pathlib import Path

import click

from changelog_tools.commands._common import config_option, display_path, emit, format_option
from changelog_tools.config import Config
from changelog_tools.ledger.validate import validate_file


@click.command()
@click.argument("path", required=False, type=click.Path(path_type=Path))
@format_option
@config_option
def validate(path: Path | None, output_format: str, config: Config) -> int:
    """Validate a whole changelog file: bytes, YAML safety, entry shape and schema.

    PATH defaults to the configured changelog (`changelog` option, perf-changelog.yaml at the
    repository root). Every problem is reported, not just the first.

    \b
    Checks: valid UTF-8; ends with a newline; no CR, tab or NUL; size limit; one YAML
    document whose root is a list; no anchors, aliases, tags or duplicate keys; every entry
    starts at column 0 with `- config-keys:`; every entry matches the entry schema
    (schemas/perf-changelog.schema.json).

    \b
    Exit status: 0 valid, 1 invalid, 2 usage or configuration error.
    Example:  changelog-tools validate --format github perf-changelog.yaml
    """
    target = path if path is not None else config.changelog_path
    report = validate_file(
        target, display=display_path(target, config), max_size=config.max_file_size
    )
    return emit(report, output_format)
