"""`changelog-tools validate`: every file-level and schema rule on one whole changelog."""

from __future__ import annotations

from pathlib import Path

from changelog_tools import diagnostics as dx
from changelog_tools.fsutil import TooLarge, read_input
from changelog_tools.ledger.document import parse_ledger


def validate_file(path: Path, *, display: str | None = None, max_size: int) -> dx.Report:
    """Validate the changelog at ``path``; the report's ``data`` carries the entry count."""
    shown = display or str(path)
    report = dx.Report(command="validate")
    try:
        raw = read_input(path, shown, max_size=max_size)
    except TooLarge as exc:
        report.extend([dx.error(dx.TOO_LARGE, exc.message.removeprefix(f"{shown}: "), shown)])
        report.subject = shown
        report.data["file"] = shown
        report.data["entries"] = None
        return report
    ledger = parse_ledger(raw, path=shown, max_size=max_size)
    report.extend(ledger.diagnostics)
    entries = len(ledger.loaded.value) if ledger.structured and ledger.loaded else None
    report.subject = (
        shown if entries is None else f"{shown} ({dx.counted(entries, 'entry', 'entries')})"
    )
    report.data["file"] = shown
    report.data["entries"] = entries
    return report
