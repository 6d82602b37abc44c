"""`changelog-tools validate`: every file-level and schema rule on one whole changelog."""

from __future__ import annotations

from pathlib import Path

from changelog_tools import diagnostics as dx
from changelog_tools.errors import UsageError
from changelog_tools.ledger import parse_ledger


def validate_file(path: Path, *, display: str | None = None, max_size: int) -> dx.Report:
    """Validate the changelog at ``path``; the report's ``data`` carries the entry count."""
    shown = display or str(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise UsageError(f"{shown}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{shown}: is a directory, not a changelog file") from None
    except OSError as exc:
        raise UsageError(f"{shown}: cannot read: {exc.strerror}") from None
    ledger = parse_ledger(raw, path=shown, max_size=max_size)
    report = dx.Report(command="validate")
    report.extend(ledger.diagnostics)
    entries = len(ledger.loaded.value) if ledger.structured and ledger.loaded else None
    report.subject = shown if entries is None else f"{shown} ({entries} entries)"
    report.data["file"] = shown
    report.data["entries"] = entries
    return report
