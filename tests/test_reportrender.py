"""reportrender.py: a report as text lines, GitHub workflow commands and JSON."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest

from changelog_tools import diagnostics as dx
from changelog_tools.reportrender import FORMATS, RENDERERS, render_github, render_text


def _report() -> dx.Report:
    report = dx.Report(command="check", subject="log.yaml")
    report.extend(
        [
            dx.warning(dx.TAB, "a tab, 100% sure", "sub/log.yaml", 4, 2, hint="use spaces\nnow"),
            dx.error(dx.ENTRY_CHANGED, "entry 1: changed", "sub/log.yaml", 3),
        ]
    )
    return report


def test_every_format_has_its_renderer() -> None:
    assert FORMATS == ("text", "json", "github") and set(RENDERERS) == set(FORMATS)
    doc = json.loads(RENDERERS["json"](_report()))
    assert [d["code"] for d in doc["diagnostics"]] == [dx.ENTRY_CHANGED, dx.TAB]
    assert doc["summary"]["errors"] == 1 and doc["summary"]["warnings"] == 1


def test_text_lines_sort_by_place_and_carry_the_hints() -> None:
    assert render_text(_report()) == (
        f"sub/log.yaml:3: {dx.ENTRY_CHANGED} entry 1: changed\n"
        f"sub/log.yaml:4:2: {dx.TAB} warning a tab, 100% sure\n"
        "    hint: use spaces\n"
        "    hint: now\n"
        "check: log.yaml: 2 problems (1 error, 1 warning)\n"
    )


def test_github_annotations_escape_and_name_files_from_the_repository_top(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "log.yaml").write_text("x\n")
    monkeypatch.chdir(tmp_path / "sub")
    report = _report()
    # named from the subdirectory, as a user there gives them; annotated from the top
    report.diagnostics[:] = [replace(d, path="log.yaml") for d in report.diagnostics]
    assert os.getcwd() == str(tmp_path / "sub")
    assert render_github(report) == (
        f"::error file=sub/log.yaml,line=3,title={dx.ENTRY_CHANGED}::entry 1: changed\n"
        f"::warning file=sub/log.yaml,line=4,col=2,title={dx.TAB}::a tab, 100%25 sure"
        "%0Ause spaces%0Anow\n"
        "check: log.yaml: 2 problems (1 error, 1 warning)\n"
    )
