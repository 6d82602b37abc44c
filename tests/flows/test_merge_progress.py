"""`merge` says what it is doing while it waits for checks: a live line on a terminal, plain
lines in a log. The checks come from the fake GitHub over real HTTP; the clock and the sleeps
are injected, so the lines are exact and no test waits for real time."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from changelog_tools import config as config_mod
from changelog_tools.errors import AbortedError, ChangelogToolsError, DataError
from changelog_tools.flows.landing.plan import MergeRequest
from changelog_tools.flows.landing.progress import (
    Console,
    LineConsole,
    TerminalConsole,
    WaitReporter,
    duration,
    telling_what_is_on_github,
)
from changelog_tools.flows.landing.wait import CheckWaiter
from changelog_tools.github.adapter import GitHub
from changelog_tools.testing.fakegithub import FakeGitHub
from tests.fakegithub_fixtures import Clock, sha_of

SHA = sha_of("pushed-head")
S12 = SHA[:12]


def finish_at(
    fake: FakeGitHub, clock: Clock, schedule: dict[str, float]
) -> Callable[[float], None]:
    """A sleep that advances ``clock`` and completes check ``name`` once ``schedule[name]``
    seconds have passed (as CI would, meanwhile)."""
    start = clock.now
    for name in schedule:
        fake.add_check_run(SHA, name, status="in_progress", conclusion=None)

    def sleep(seconds: float) -> None:
        clock.sleep(seconds)
        with fake._lock:
            for run in fake.check_runs:
                if clock.now - start >= schedule[run.name] - 1e-6:
                    run.status, run.conclusion = "completed", "success"

    return sleep


def waiter(
    gh: GitHub, clock: Clock, sleep: Callable[[float], None], console: Console
) -> CheckWaiter:
    def say(step: str, message: str) -> None:
        console.line(f"[{step}] {message}")

    return CheckWaiter(
        config=config_mod.defaults(),
        github=gh,
        say=say,
        reporter=WaitReporter(console),
        sleep=sleep,
        clock=clock.time,
    )


def test_in_a_log_the_wait_prints_plain_lines_on_change_and_once_a_minute(
    fake: FakeGitHub, gh: GitHub, clock: Clock
) -> None:
    lines: list[str] = []
    sleep = finish_at(fake, clock, {"lint": 30, "check-changelog": 105})

    waiter(gh, clock, sleep, LineConsole(lines.append)).wait(
        sha=SHA, pr=7, request=MergeRequest(pr=7, poll_interval=15)
    )

    assert lines == [
        f"[wait] waiting for check-changelog and every other check on {S12} (PR #7's head) to "
        "pass; a look every 15s, for at most 15m",
        f"[wait] pending on {S12}: check-changelog, lint (0s of 15m; next look in 15s)",
        # 15s: nothing changed, no line; 30s: lint finished
        f"[wait] pending on {S12}: check-changelog (30s of 15m; next look in 15s)",
        # 45s, 60s, 75s: unchanged; 90s: a minute since the last line
        f"[wait] pending on {S12}: check-changelog (1m30s of 15m; next look in 15s)",
        f"[wait] all checks passed on {S12} after 1m45s",
    ]
    assert not any("\r" in line or "\x1b" in line for line in lines)
    assert clock.sleeps == [15.0] * 7  # one sleep per look: a log is not redrawn


def test_on_a_terminal_the_wait_is_one_line_redrawn_every_second(
    fake: FakeGitHub, gh: GitHub, clock: Clock
) -> None:
    out: list[str] = []
    sleep = finish_at(fake, clock, {"lint": 3, "check-changelog": 6})

    waiter(gh, clock, sleep, TerminalConsole(out.append, columns=lambda: 0)).wait(
        sha=SHA, pr=7, request=MergeRequest(pr=7, poll_interval=3)
    )

    status = "\r\x1b[K[wait] pending on " + S12
    assert "".join(out) == (
        f"[wait] waiting for check-changelog and every other check on {S12} (PR #7's head) to "
        "pass; a look every 3s, for at most 15m\n"
        f"{status}: check-changelog, lint (0s of 15m; next look in 3s)"
        f"{status}: check-changelog, lint (1s of 15m; next look in 2s)"
        f"{status}: check-changelog, lint (2s of 15m; next look in 1s)"
        f"{status}: check-changelog (3s of 15m; next look in 3s)"
        f"{status}: check-changelog (4s of 15m; next look in 2s)"
        f"{status}: check-changelog (5s of 15m; next look in 1s)"
        "\r\x1b[K"  # the live line is erased before the next permanent line
        f"[wait] all checks passed on {S12} after 6s\n"
    )
    assert clock.sleeps == [1.0] * 6


def test_the_last_look_falls_on_the_deadline_and_the_live_line_is_erased_on_timeout(
    fake: FakeGitHub, gh: GitHub, clock: Clock
) -> None:
    out: list[str] = []
    sleep = finish_at(fake, clock, {"check-changelog": 1e9})

    with pytest.raises(
        AbortedError, match=f"timed out after 2.5s waiting for check-changelog on {S12}"
    ):
        waiter(gh, clock, sleep, TerminalConsole(out.append, columns=lambda: 0)).wait(
            sha=SHA, pr=7, request=MergeRequest(pr=7, timeout=2.5, poll_interval=2)
        )

    assert clock.sleeps == [1.0, 1.0, 0.5]  # 2s, then the 0.5s left, not another 2s
    assert "".join(out).endswith("(2s of 2.5s; next look in 0.5s)\r\x1b[K")


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0, "0s"), (0.25, "0.2s"), (9.5, "9.5s"), (12.4, "12s"), (60, "1m"), (65, "1m05s"),
     (900, "15m"), (3600, "1h"), (3720, "1h02m")],
)  # fmt: skip
def test_durations_read_like_a_person_would_write_them(seconds: float, text: str) -> None:
    assert duration(seconds) == text


def test_the_live_line_is_cut_to_the_terminal_width_so_a_redraw_never_wraps() -> None:
    out: list[str] = []
    console = TerminalConsole(out.append, columns=lambda: 30)
    console.status("[wait] pending on 0123456789ab: check-changelog, lint")
    console.line("[wait] a permanent line is never cut, whatever its length")
    assert out == [
        "\r\x1b[K[wait] pending on 01234567...",  # 29 columns: the cursor keeps the 30th
        "\r\x1b[K",
        "[wait] a permanent line is never cut, whatever its length\n",
    ]
    assert len(out[0]) - len("\r\x1b[K") == 29


class Record:
    """What a flow has done on GitHub, as the flows keep it."""

    def __init__(self, done: str) -> None:
        self.done = done

    def summary(self) -> str:
        return self.done

    def tell(self, exc: ChangelogToolsError) -> None:
        exc.add_sentence(self.done)


def test_a_failure_or_an_interrupt_says_what_is_already_on_github() -> None:
    lines: list[str] = []
    console = LineConsole(lines.append)
    done = Record("Already on GitHub: PR #4")
    with pytest.raises(DataError) as failed, telling_what_is_on_github(done, console, "recover"):
        raise DataError("the push was refused")
    assert "the push was refused" in failed.value.message
    assert "Already on GitHub: PR #4" in failed.value.message
    assert lines == []  # the error carries it; nothing printed twice
    with pytest.raises(KeyboardInterrupt), telling_what_is_on_github(done, console, "merge"):
        raise KeyboardInterrupt
    assert lines == ["[merge] interrupted. Already on GitHub: PR #4"]
    with pytest.raises(KeyboardInterrupt), telling_what_is_on_github(Record(""), console, "merge"):
        raise KeyboardInterrupt
    assert len(lines) == 1  # nothing on GitHub yet: nothing to say
    with telling_what_is_on_github(done, console, "merge"):
        pass
    assert len(lines) == 1
