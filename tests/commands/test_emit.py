"""The write commands' one emitter (commands/_emit.py): what goes where, in which order."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from changelog_tools import diagnostics as dx
from changelog_tools import reportrender
from changelog_tools.commands._emit import EditOutcome, emit_edit, refused


def _report(**data: object) -> dx.Report:
    report = dx.Report(command="demo-edit", subject="log.yaml")
    report.data.update(data)
    return report


def _refusal() -> tuple[dx.Diagnostic, ...]:
    return (dx.error("CL520", "an existing entry changed", "log.yaml", 3, 1),)


def test_text_prints_the_account_on_stdout_and_the_notes_on_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    outcome = EditOutcome(_report(), account="log.yaml:4: fixed\n", notes=("log.yaml: done",))
    assert emit_edit(outcome, "text") == 0
    out, err = capsys.readouterr()
    assert out.startswith("log.yaml:4: fixed\n")
    assert out[len("log.yaml:4: fixed\n") :] == reportrender.render_text(outcome.report)
    assert err == "log.yaml: done\n"


def test_json_leaves_the_account_out_and_prints_the_report_alone(
    capsys: pytest.CaptureFixture[str],
) -> None:
    outcome = EditOutcome(_report(written=True), account="an account\n", notes=("a note",))
    assert emit_edit(outcome, "json") == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["written"] is True
    assert "an account" not in out
    assert err == "a note\n"  # the note is for people, in every format


def test_a_preview_stands_in_for_the_report_in_text_only(
    capsys: pytest.CaptureFixture[str],
) -> None:
    outcome = EditOutcome(_report(diff="-a\n+b\n"), preview="-a\n+b\n", exit_code=1)
    assert emit_edit(outcome, "text") == 1
    assert capsys.readouterr().out == "-a\n+b\n"
    assert emit_edit(outcome, "json") == 1
    assert json.loads(capsys.readouterr().out)["diff"] == "-a\n+b\n"


def test_a_refusal_prints_its_diagnostics_and_exits_1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert emit_edit(refused(_report(), _refusal()), "text") == 1
    out, err = capsys.readouterr()
    assert "log.yaml:3:1: CL520 an existing entry changed" in out
    assert err == ""


def test_when_stdout_carries_the_file_the_text_goes_to_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert emit_edit(refused(_report(), _refusal(), stdout_is_payload=True), "text") == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert "CL520 an existing entry changed" in err
    outcome = EditOutcome(_report(), preview="resolve: wrote stdout\n", stdout_is_payload=True)
    assert emit_edit(outcome, "text") == 0
    assert capsys.readouterr() == ("", "resolve: wrote stdout\n")


def test_the_streams_interleave_in_one_order_account_notes_report() -> None:
    # The documented examples compare stdout and stderr as one interleaved stream.
    script = textwrap.dedent(
        """
        from changelog_tools import diagnostics as dx
        from changelog_tools.commands._emit import EditOutcome, emit_edit
        report = dx.Report(command="demo-edit", subject="log.yaml")
        emit_edit(EditOutcome(report, account="ACCOUNT\\n", notes=("NOTE 1", "NOTE 2")), "text")
        """
    )
    proc = subprocess.run(
        [sys.executable, "-u", "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=True,
    )
    lines = proc.stdout.splitlines()
    assert lines[:3] == ["ACCOUNT", "NOTE 1", "NOTE 2"]
    assert (
        lines[3:]
        == reportrender.render_text(dx.Report(command="demo-edit", subject="log.yaml")).split("\n")[
            :-1
        ]
    )
