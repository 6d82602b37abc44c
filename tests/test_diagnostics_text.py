"""Text output never lets data start a workflow command.

Messages carry strings from elsewhere (a file name or title from a pull request, GitHub's error
text). The Actions runner reads a log line that starts with ``::`` (after blanks; a CR starts a
line too) as a command, so every text path puts a zero-width space in front of it: the text
renderer, the progress lines of the GitHub client, and the top-level error line.
"""

from __future__ import annotations

from changelog_tools import diagnostics as dx
from changelog_tools import reportrender
from changelog_tools.github.policy import RetryPolicy
from changelog_tools.github.traffic import Traffic

HOSTILE = "x\n::add-mask::secret\r  ::stop-commands::tok\n::error::forged"


def _starts_a_command(text: str) -> bool:
    import re

    return any(line.lstrip().startswith("::") for line in re.split(r"[\r\n]", text))


def test_no_commands_neutralises_every_line_start_and_keeps_the_text() -> None:
    out = dx.no_commands(HOSTILE)
    assert not _starts_a_command(out)
    assert out.replace("\u200b", "") == HOSTILE
    assert dx.no_commands("a :: b") == "a :: b"  # only at the start of a line


def test_render_text_neutralises_a_message_from_data() -> None:
    report = dx.Report(command="lint")
    report.extend([dx.error("CL001", f"file {HOSTILE}", path="runners/a.sh", line=3)])
    assert _starts_a_command(HOSTILE)
    text = reportrender.render_text(report)
    assert not _starts_a_command(text)
    assert "forged" in text


def test_github_progress_lines_neutralise_a_server_message() -> None:
    said: list[str] = []
    traffic = Traffic(RetryPolicy(), log=said.append, secret="sekrit-token-1")
    traffic.begin("GET", "/repos/o/r/pulls/1", traffic.mode)
    traffic.say(f"answered SEKRIT-TOKEN-1 {HOSTILE}")
    assert len(said) == 1
    assert not _starts_a_command(said[0])
    assert "SEKRIT" not in said[0] and "***" in said[0]


def test_a_refusal_is_not_counted_on_top_of_the_problem_that_caused_it() -> None:
    from changelog_tools.ledger.guard import Refusal

    cause = dx.error(dx.ENTRY_CHANGED, "existing entry 1 changed", "p", 5)
    refusal = Refusal(dx.NOT_AN_APPEND, "not a valid append; nothing written", path="p",
                      details=[cause])  # fmt: skip
    report = dx.Report(command="canonicalize")
    report.extend(refusal.diagnostics)
    assert report.summary() == "canonicalize: 1 problem (1 error, 0 warnings)"
    assert [d.code for d in report.sorted()] == [dx.NOT_AN_APPEND, dx.ENTRY_CHANGED] or [
        d.code for d in report.sorted()
    ] == [dx.ENTRY_CHANGED, dx.NOT_AN_APPEND]  # both shown
    alone = Refusal(dx.NOT_AN_APPEND, "cannot be parsed", path="p")
    solo = dx.Report(command="fix")
    solo.extend(alone.diagnostics)
    assert solo.summary() == "fix: 1 problem (1 error, 0 warnings)" and not solo.ok
