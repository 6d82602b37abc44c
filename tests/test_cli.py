"""cli.py: the error boundary and interrupts."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from changelog_tools import __version__
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


# -- a declared dependency that is not installed -----------------------------------------------

# Runs the CLI as the console script does, with the named modules made unimportable, as in an
# install of the tool with `--no-deps` plus only the local commands' dependencies.
_WITHOUT = """
import importlib.abc, sys
blocked = sys.argv[1].split(",")
class Missing(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if any(name == b or name.startswith(b + ".") for b in blocked):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, Missing())
from changelog_tools.cli import main
sys.argv = ["changelog-tools", *sys.argv[2:]]
main()
"""


def _run_without(modules: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    import os

    env = {
        **os.environ,
        "XDG_CACHE_HOME": str(cwd / "cache"),
        "TMPDIR": str(cwd / "tmp"),
        "GH_TOKEN": "token-for-a-test",
        "GITHUB_REPOSITORY": "example-org/inferencex-mini",
    }
    (cwd / "tmp").mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, "-c", _WITHOUT, modules, *args],
        cwd=cwd, capture_output=True, text=True, env=env, check=False, timeout=120,
    )  # fmt: skip


def _crash_logs(root: Path) -> list[Path]:
    return list(root.rglob("crash-*.log"))


@pytest.fixture
def example_repo(tmp_path: Path) -> Path:
    import shutil

    import changelog_tools
    from tests.conftest import git

    root = tmp_path / "bench"
    shutil.copytree(Path(changelog_tools.__file__).parent / "examples" / "inferencex-mini", root)
    git(root, "init", "-q", "-b", "main")
    return root


@pytest.mark.parametrize(
    ("missing", "args", "distribution"),
    [
        ("github", ("merge", "5", "--dry-run"), "PyGithub"),
        ("github", ("recover", "--pr", "3", "--dry-run"), "PyGithub"),
        ("github", ("signoff", "verify", "--pr", "3"), "PyGithub"),
        ("cmarkgfm", ("signoff", "explain", "perf-changelog.yaml"), "cmarkgfm"),
    ],
)
def test_a_missing_dependency_is_a_usage_error_naming_it(
    example_repo: Path, missing: str, args: tuple[str, ...], distribution: str
) -> None:
    proc = _run_without(missing, *args, cwd=example_repo)
    assert proc.returncode == 2, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and f"needs {distribution}," in errors[0]
    assert "pip install perf-changelog-tools==" + __version__ in errors[0]
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
    assert _crash_logs(example_repo) == []


def test_a_missing_dependency_in_json_format_is_one_error_object(example_repo: Path) -> None:
    import json

    proc = _run_without("cmarkgfm", "signoff", "explain", "perf-changelog.yaml", "--format",
                        "json", cwd=example_repo)  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["error"]["exit-code"] == 2 and "cmarkgfm" in doc["error"]["message"]


def test_a_missing_module_of_the_tool_itself_is_still_an_internal_error(
    example_repo: Path,
) -> None:
    # The package's own modules always ship with it: one missing is a broken install or a bug.
    proc = _run_without("changelog_tools.signoff", "signoff", "explain", "perf-changelog.yaml",
                        cwd=example_repo)  # fmt: skip
    assert proc.returncode == 70
    assert "internal error: ModuleNotFoundError" in proc.stderr
    assert len(_crash_logs(example_repo)) == 1


# -- started in a directory that was deleted ---------------------------------------------------


@pytest.mark.parametrize("command", ["check", "validate", "keys"])
def test_a_deleted_current_directory_is_a_one_line_usage_error(
    tmp_path: Path, command: str
) -> None:
    import os
    import shutil

    exe = shutil.which("changelog-tools", path=str(Path(sys.executable).parent))
    assert exe
    proc = subprocess.run(
        ["sh", "-c", f'mkdir gone && cd gone && rmdir ../gone && exec "{exe}" {command}'],
        cwd=tmp_path, capture_output=True, text=True, check=False,
        env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")},
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("error: the current directory no longer exists")
    assert len(proc.stderr.splitlines()) == 1
    assert _crash_logs(tmp_path) == []
