"""cli.py: the error boundary and interrupts."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

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
    fifo = tmp_path / "slow.fifo"
    os.mkfifo(fifo)
    exe = Path(sys.executable).parent / "changelog-tools"
    proc = subprocess.Popen(
        [str(exe), "validate", str(fifo)], cwd=tmp_path, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    writer_done = threading.Event()

    def feed() -> None:
        # Opening blocks until the CLI opens the FIFO; the CLI then waits for more bytes.
        with open(fifo, "wb", buffering=0) as pipe, contextlib.suppress(BrokenPipeError):
            pipe.write(b"- config-keys:\n")
            proc.send_signal(signal.SIGINT)
            writer_done.wait(30)

    thread = threading.Thread(target=feed)
    thread.start()
    _out, err = proc.communicate(timeout=60)
    writer_done.set()
    thread.join()
    assert proc.returncode == 130
    assert err.splitlines()[-1] == "interrupted"
    assert "Traceback" not in err
