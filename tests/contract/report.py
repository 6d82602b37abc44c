"""A measurement, not a gate: with ``CHANGELOG_TOOLS_CONTRACT_REPORT=1`` every fake GitHub of the
session records its exchanges, and the end of the run prints how many were checked against
GitHub's description, the operations they covered and the findings per operation.

Many tests inject faults or hostile answers on purpose, so the whole suite's findings are
information; the gates are the contract tests (tests/contract/, and the demo's test), which
check the exchanges of scenarios that talk to GitHub the way GitHub talks.
"""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from pathlib import Path

import pytest

from changelog_tools.testing.fakegithub import RECORD_ENV

_FLAG = "CHANGELOG_TOOLS_CONTRACT_REPORT"
_folder: Path | None = None


def pytest_configure(config: pytest.Config) -> None:
    global _folder
    if os.environ.get(_FLAG) and not os.environ.get(RECORD_ENV):
        _folder = Path(tempfile.mkdtemp(prefix="fake-github-exchanges-"))
        os.environ[RECORD_ENV] = str(_folder)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _folder is None:
        return
    from tests.contract import checker

    exchanges = checker.load(_folder)
    operations = Counter(
        checker.operation_of(e.method, e.path)[0] or f"{e.method} {e.path}" for e in exchanges
    )
    findings = checker.check(exchanges)
    by_side = Counter(f.side for f in findings)
    write = terminalreporter.write_line
    write(f"fake GitHub exchanges checked: {len(exchanges)} over {len(operations)} operations")
    write(f"findings: {by_side['request']} request-side, {by_side['answer']} answer-side")
    for text, count in Counter(str(f) for f in findings).most_common(40):
        write(f"  {count:5d}  {text}")
