"""cli.py: the error boundary and interrupts."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from changelog_tools.cli import printable
from tests.conftest import run_cli

# -- Ctrl-C during start-up and in a running command -------------------------------------------


def test_ctrl_c_while_the_cli_loads_exits_130_without_a_traceback(tmp_path: Path) -> None:
    # A real SIGINT, delivered while the CLI's own imports run (a module they import sends it).
    (tmp_path / "click.py").write_text("import os, signal\nos.kill(os.getpid(), signal.SIGINT)\n")
    proc = run_cli("--version", env={"PYTHONPATH": str(tmp_path)})
    assert proc.returncode == 130
    assert proc.stderr == "interrupted\n"
    assert proc.stdout == ""


def test_ctrl_c_in_a_running_command_exits_130(tmp_path: Path) -> None:
    (tmp_path / ".changelog-tools.yaml").write_text("max-file-size: 100000000\n")
    exe = Path(sys.executable).parent / "changelog-tools"
    # Standard input that never ends: the command waits for more bytes (a named pipe would be
    # refused before it is opened).
    proc = subprocess.Popen(
        [str(exe), "validate", "-"], cwd=tmp_path, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        assert proc.stdin is not None
        proc.stdin.write(b"- config-keys:\n")
        proc.stdin.flush()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and "pipe" not in _wait_channel(proc.pid):
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _out, err_bytes = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    err = err_bytes.decode()
    assert proc.returncode == 130
    assert err.splitlines()[-1] == "interrupted"
    assert "Traceback" not in err


def _wait_channel(pid: int) -> str:
    """What the kernel says process ``pid`` waits on ("" where /proc does not say)."""
    try:
        return Path(f"/proc/{pid}/wchan").read_text()
    except OSError:
        return ""


# -- printable: the last step before a message reaches a CI log -------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The Actions runner reads its output with .NET ReadLine: CR, LF and CRLF end a line.
        # A CR is shown as an escape, so it ends no line; a line after LF is neutralised.
        ("x.yaml: bad \r::add-mask::s", "x.yaml: bad \\x0d::add-mask::s"),
        ("a\r\n::warning::x", "a\\x0d\n\u200b::warning::x"),
        ("a\r\t ::error::x", "a\\x0d\\x09 ::error::x"),
        # a terminal escape (an OSC 8 hyperlink, a C1 CSI) is shown, not obeyed
        ("k\x1b]8;;http://x\x1b\\t\x9b2J", "k\\x1b]8;;http://x\\x1b\\t\\x9b2J"),
        # unchanged from before: LF, leading blanks, the first line
        ("::stop-commands::t", "\u200b::stop-commands::t"),
        ("a\n  ::warning::x", "a\n  \u200b::warning::x"),
        ("\n\n::a\n::b", "\n\n\u200b::a\n\u200b::b"),
        # legitimate text is left alone
        ("std::vector in a message", "std::vector in a message"),
        ("line\nnext: 10:30::00", "line\nnext: 10:30::00"),
    ],
)
def test_every_line_the_runner_sees_is_neutralised(text: str, expected: str) -> None:
    assert printable(text) == expected
