"""diagnostics.py: the report, its per-code cap and hidden counts."""

from __future__ import annotations

import json
from pathlib import Path

from tests.checkdata import (
    appended,
    check_json,
    entry,
    project,
)
from tests.conftest import run_cli

# -- hostile input, pinned through the installed CLI -------------------------------------------


def test_findings_past_the_cap_are_counted_not_printed(tmp_path: Path) -> None:
    typo = "  evals_onyl: true"
    head = appended(*(entry(f"k{i}-x", extra=typo) for i in range(150)))
    project(tmp_path, head)
    proc = run_cli("check", "--base-file", "base.yaml", "--head-file", "head.yaml",
                   "--no-config-keys", cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert sum(" CL050 " in line for line in lines) == 100
    # The first entry's typo is on line 15 (after its config key).
    assert lines[0] == "head.yaml:15:3: CL050 entry 3 has unknown field `evals_onyl`"
    assert "CL050: 50 more unknown-field findings not shown (the first 100 are)" in lines
    assert lines[-1].endswith(": 150 problems (150 errors, 0 warnings)")
    json_proc = check_json(tmp_path)
    doc = json.loads(json_proc.stdout)
    assert doc["hidden"] == {"CL050": {"errors": 50, "warnings": 0}}
    assert doc["summary"]["errors"] == 150


def test_a_consequence_is_never_cut_by_the_cap_nor_counted_as_hidden() -> None:
    from changelog_tools import diagnostics as dx
    from changelog_tools import reportrender

    report = dx.Report(command="demo", per_code=1)
    cause = dx.error(dx.ENTRY_CHANGED, "changed", "log.yaml", 3)
    outcome = dx.Diagnostic("CL520", "nothing was written", "log.yaml", 3, consequence=True)
    report.extend([cause, cause, outcome, outcome])
    assert report.diagnostics == [cause, outcome, outcome]
    assert report.hidden == {dx.ENTRY_CHANGED: (1, 0)}
    assert report.error_count() == 2  # one shown cause and one hidden; no consequence
    text = reportrender.render_text(report)
    assert text.count("CL520 nothing was written (consequence, not counted)\n") == 2
    assert text.endswith("demo: 2 problems (2 errors, 0 warnings)\n")
