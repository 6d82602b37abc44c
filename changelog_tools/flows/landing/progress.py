"""What the merge flow says while it works: progress lines, and a live line while it waits.

Progress goes to stderr (stdout stays data only). On a terminal the wait for checks is one line
redrawn in place (carriage return + erase to the end of the line) every second; in a log, where
a redrawn line would be garbage, the same status is printed as plain lines, only when the set of
pending checks changes or a minute has passed, so a 15-minute wait stays a short log.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol

from changelog_tools.errors import ChangelogToolsError

# Erase the live line: back to column 0, clear to the end of the line (ANSI EL).
CLEAR_LINE = "\r\x1b[K"
# In a log, an unchanged wait is reported at most this often (seconds of the flow's clock).
LOG_HEARTBEAT = 60.0
# On a terminal, the live line is redrawn this often while the flow sleeps between looks.
LIVE_TICK = 1.0


class Console(Protocol):
    """Where progress goes: permanent lines, and (on a terminal) one transient status line."""

    @property
    def live(self) -> bool: ...
    def line(self, text: str) -> None: ...
    def status(self, text: str) -> None: ...
    def clear_status(self) -> None: ...


@dataclass
class LineConsole:
    """Plain lines, one per message (a log file, a CI job, a test)."""

    write_line: Callable[[str], None]  # receives the text without its newline

    @property
    def live(self) -> bool:
        return False

    def line(self, text: str) -> None:
        self.write_line(text)

    def status(self, text: str) -> None:
        self.write_line(text)

    def clear_status(self) -> None:
        return


def stderr_columns() -> int:
    """The width of the terminal on stderr; 0 when unknown."""
    try:
        return os.get_terminal_size(2).columns
    except OSError:
        return 0


@dataclass
class TerminalConsole:
    """A terminal: permanent lines scroll, the status line is redrawn in place below them.

    The status line is cut to the terminal's width: a line that wraps could not be erased by
    returning to column 0, and every redraw would leave a row of debris.
    """

    write: Callable[[str], None]  # receives raw text (no newline added)
    columns: Callable[[], int] = stderr_columns  # 0: unknown, nothing is cut
    _shown: bool = False

    @property
    def live(self) -> bool:
        return True

    def line(self, text: str) -> None:
        self.clear_status()
        self.write(text + "\n")

    def status(self, text: str) -> None:
        width = self.columns() - 1  # the cursor needs the last column
        if 0 < width < len(text):
            text = text[: max(0, width - 3)] + "..."
        self.write(CLEAR_LINE + text)
        self._shown = True

    def clear_status(self) -> None:
        if self._shown:
            self.write(CLEAR_LINE)
            self._shown = False


def duration(seconds: float) -> str:
    """A short human duration: 0.5s, 12s, 1m05s, 15m, 1h02m."""
    if seconds < 60:
        text = f"{seconds:.1f}".rstrip("0").rstrip(".") if seconds < 10 else f"{seconds:.0f}"
        return f"{text}s"
    total = int(seconds)
    if total < 3600:
        minutes, secs = divmod(total, 60)
        return f"{minutes}m" if secs == 0 else f"{minutes}m{secs:02d}s"
    hours, minutes = divmod(total // 60, 60)
    return f"{hours}h" if minutes == 0 else f"{hours}h{minutes:02d}m"


@dataclass(frozen=True)
class WaitStatus:
    """Where a wait for checks stands."""

    sha: str
    pending: tuple[str, ...]
    elapsed: float
    timeout: float
    next_look: float  # seconds until the next look at the checks

    def text(self) -> str:
        return (
            f"[wait] pending on {self.sha[:12]}: {', '.join(self.pending)} "
            f"({duration(self.elapsed)} of {duration(self.timeout)}; "
            f"next look in {duration(self.next_look)})"
        )


@dataclass
class WaitReporter:
    """Shows :class:`WaitStatus` updates on ``console``: live on a terminal, sparse in a log."""

    console: Console
    heartbeat: float = LOG_HEARTBEAT
    _last: tuple[str, ...] | None = None
    _last_at: float = 0.0

    @property
    def tick(self) -> float | None:
        """How often the waiter should report while it sleeps (None: only at each look)."""
        return LIVE_TICK if self.console.live else None

    def update(self, status: WaitStatus) -> None:
        if self.console.live:
            self.console.status(status.text())
            return
        if status.pending != self._last or status.elapsed - self._last_at >= self.heartbeat:
            self.console.line(status.text())
            self._last, self._last_at = status.pending, status.elapsed

    def done(self) -> None:
        self.console.clear_status()


class RemoteRecord(Protocol):
    """What a flow has done on GitHub so far, worded for a failure or an interrupt."""

    def summary(self) -> str: ...
    def tell(self, exc: ChangelogToolsError) -> None: ...


@contextmanager
def telling_what_is_on_github(remote: RemoteRecord, console: Console, flow: str) -> Iterator[None]:
    """Around a flow's writes: a failure's message gains what is already on GitHub, and an
    interrupt (exit 130 follows) first says it, so the user knows what a re-run will find."""
    try:
        yield
    except ChangelogToolsError as exc:
        remote.tell(exc)
        raise
    except KeyboardInterrupt:
        if remote.summary():
            console.line(f"[{flow}] interrupted. {remote.summary()}")
        raise
