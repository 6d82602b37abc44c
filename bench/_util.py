"""Shared helpers for the benchmarks: run the installed CLI as a whole process and time it."""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
INFERENCEX = Path(
    os.environ.get("CHANGELOG_TOOLS_INFERENCEX", REPO_ROOT.parent / "shared/fixtures/inferencex")
)


def console_script() -> str:
    exe = shutil.which("changelog-tools", path=str(Path(sys.executable).parent))
    if exe is None:
        sys.exit("install the package first: pip install -e .")
    return exe


def editable_finders() -> list[Path]:
    """The editable-install finders this interpreter's site-packages runs at every start."""
    import sysconfig

    site = {Path(sysconfig.get_paths()[k]) for k in ("purelib", "platlib")}
    return sorted(p for d in site if d.is_dir() for p in d.glob("__editable__*finder.py"))


def clean_interpreter(where: Path) -> tuple[str, str]:
    """A Python and a ``changelog-tools`` launcher that start as a wheel install would.

    An editable install (``pip install -e .``) puts a finder in site-packages that every
    interpreter of that venv imports at start-up (importlib.util, pathlib, fnmatch, re,
    urllib.parse: about 20 ms here). It inflates ``python -c pass``, the floor the ratios are
    taken to, and hides what those modules cost the tool in a real install. So the timed
    processes run in a venv of their own (no pip, no finder) whose only site entry is a .pth
    naming the package's source root and this venv's site-packages (a .pth path line only
    adds a path; the finder's own .pth inside is not run). The launcher is what pip writes for
    the console script. Returns (python, launcher).
    """
    import sysconfig

    import changelog_tools

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    python = where / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    source_root = Path(changelog_tools.__file__).resolve().parent.parent
    here = {sysconfig.get_paths()[k] for k in ("purelib", "platlib")}
    (Path(purelib) / "changelog-tools-bench.pth").write_text(
        "\n".join([str(source_root), *sorted(here)]) + "\n"
    )
    launcher = where / "bin" / "changelog-tools"
    launcher.write_text(
        f"#!{python}\n"
        "import re\nimport sys\nfrom changelog_tools.cli import main\n"
        "if __name__ == '__main__':\n"
        "    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n"
        "    sys.exit(main())\n"
    )
    launcher.chmod(0o755)
    return str(python), str(launcher)


def run_measured(
    args: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None
) -> tuple[int, bytes, bytes, float, float]:
    """Run ``args`` once: (exit status, stdout, stderr, wall seconds, CPU seconds).

    The CPU time (user + system) is that of this process and the children it waited for,
    read with wait4: a fake server's own git calls in the benchmark process do not count.
    """
    import tempfile

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen(args, cwd=cwd, env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return proc.returncode, out.read(), err.read(), elapsed, usage.ru_utime + usage.ru_stime


def time_command(
    args: list[str],
    *,
    cwd: Path | None = None,
    repeat: int = 7,
    expect: int | None = 0,
    env: dict[str, str] | None = None,
    before: Callable[[], None] | None = None,
) -> dict[str, float]:
    """Run ``args`` ``repeat`` times (after one warm-up run); return min/median/max seconds.

    ``before`` (not timed) runs before every run, to restore an input the command rewrites.

    ``cpu`` is the median CPU time (user + system) of the process and its children, what a
    shared CI runner pays. Bytecode caching is on for the runs (PYTHONDONTWRITEBYTECODE, set
    by some shells and sandboxes, would make every run compile the package from source).
    """
    run_env = dict(os.environ if env is None else env)
    run_env.pop("PYTHONDONTWRITEBYTECODE", None)
    times = []
    cpu = []
    for i in range(repeat + 1):
        if before is not None:
            before()
        code, out, err, elapsed, used = run_measured(args, cwd=cwd, env=run_env)
        if expect is not None and code != expect:
            sys.exit(
                f"{' '.join(args)} exited {code}, expected {expect}:\n"
                f"{out.decode()[-2000:]}{err.decode()[-2000:]}"
            )
        if i:  # the first run warms the page cache and .pyc files
            times.append(elapsed)
            cpu.append(used)
    return {
        "min": min(times),
        "median": statistics.median(times),
        "max": max(times),
        "cpu": statistics.median(cpu),
    }


def report(label: str, size: int, result: dict[str, float]) -> None:
    cpu = f"   CPU {result['cpu']:.3f} s" if "cpu" in result else ""
    print(
        f"{label:<48} {size / 1024:>8.0f} KiB   min {result['min']:.3f} s   "
        f"median {result['median']:.3f} s   max {result['max']:.3f} s{cpu}"
    )


def reference_arguments(parser: argparse.ArgumentParser, *, needs: str) -> None:
    """``--reference DIR`` and ``--reference-python PY``, for the benches that run InferenceX's
    own scripts side by side with the tool.

    The reference tools are not part of this repository. DIR defaults to
    $CHANGELOG_TOOLS_REFERENCE, else /tmp/ref. PY defaults to $CHANGELOG_TOOLS_REFERENCE_PYTHON,
    else /tmp/refvenv/bin/python when it exists (the venv the skip messages suggest creating),
    else this interpreter. ``needs`` names what PY must import, for the help text.
    """
    parser.add_argument(
        "--reference",
        type=Path,
        default=Path(os.environ.get("CHANGELOG_TOOLS_REFERENCE", "/tmp/ref")),
        help="directory holding InferenceX's reference scripts (default: "
        "$CHANGELOG_TOOLS_REFERENCE or /tmp/ref)",
    )
    refvenv = Path("/tmp/refvenv/bin/python")
    parser.add_argument(
        "--reference-python",
        default=os.environ.get(
            "CHANGELOG_TOOLS_REFERENCE_PYTHON",
            str(refvenv) if refvenv.is_file() else sys.executable,
        ),
        help=f"interpreter for the reference, with {needs} (default: "
        "$CHANGELOG_TOOLS_REFERENCE_PYTHON, else /tmp/refvenv/bin/python if present, else this "
        "one)",
    )


def add_latency(fake: Any, seconds: float) -> None:
    """Make every request the fake GitHub answers take ``seconds`` longer.

    The fake answers on loopback in well under a millisecond, where the real API takes tens to
    hundreds of milliseconds a request, so request counts barely show in wall time against it.
    The wait is added in the fake's request handler, before the request is handled (outside its
    lock, in the server thread of that connection), so requests the client makes concurrently
    wait concurrently, as they would on a network. It is one round trip per request: connection
    set-up (TCP, TLS) is not modelled. The fake's own code is unchanged; only this instance's
    ``handle`` is wrapped, so call this after setting up state through ``fake.handle``.
    """
    if seconds <= 0:
        return
    handle = fake.handle

    def delayed(*args: Any, **kwargs: Any) -> Any:
        time.sleep(seconds)
        return handle(*args, **kwargs)

    fake.handle = delayed


def reference_problem(directory: Path, python: str, needs: tuple[str, ...]) -> str | None:
    """Why InferenceX's reference scripts ``needs`` cannot run from ``directory`` with
    ``python`` (they need PyYAML, pydantic and the fixture's utils/matrix_logic), or None."""
    missing = [name for name in needs if not (directory / name).is_file()]
    if missing:
        return f"{', '.join(missing)} not found in {directory} (give --reference DIR)"
    if not (INFERENCEX / "utils" / "matrix_logic").is_dir():
        return f"InferenceX's utils/matrix_logic not found under {INFERENCEX}"
    probe = subprocess.run(
        [python, "-c", "import yaml, pydantic"], capture_output=True, text=True, check=False
    )
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or ["(no output)"])[-1]
        return (
            f"{python} cannot import PyYAML and pydantic ({last}); give --reference-python, "
            "e.g. python3 -m venv /tmp/refvenv && /tmp/refvenv/bin/pip install pyyaml pydantic"
        )
    return None


BENCH_IDENTITY = {"GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
                  "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"}  # fmt: skip
EXAMPLE_REPOSITORY = "example-org/inferencex-mini"
# Settings that keep a bench about the tool, not about its waits.
FAST_FLOWS = "\ngithub-write-interval: 0\ncheck-poll-interval: 0.05\ncheck-timeout: 60\n"


def bench_git(cwd: Path, *args: str) -> str:
    """Run git with the bench's identity; fail loudly."""
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True,
        env={**os.environ, **BENCH_IDENTITY},
    ).stdout.strip()  # fmt: skip


def swept_pr_world(root: Path, *, pr_link: str) -> tuple[Path, Path, str]:
    """A bare origin whose main holds the bundled example (with :data:`FAST_FLOWS`), a branch
    ``feat-a`` that appends one entry with ``pr_link``, and a maintainer's clone: (origin,
    clone, the branch's head)."""
    import changelog_tools

    example = Path(changelog_tools.__file__).parent / "examples" / "inferencex-mini"
    origin, author, clone = root / "origin.git", root / "author", root / "clone"
    bench_git(root, "init", "-q", "--bare", "-b", "main", str(origin))
    bench_git(root, "clone", "-q", str(origin), str(author))
    shutil.copytree(example, author, dirs_exist_ok=True)
    config = author / ".changelog-tools.yaml"
    config.write_text(config.read_text() + FAST_FLOWS)
    bench_git(author, "add", "-A")
    bench_git(author, "commit", "-q", "-m", "Import")
    bench_git(author, "push", "-q", "origin", "HEAD:refs/heads/main")
    bench_git(author, "checkout", "-q", "-b", "feat-a")
    with (author / "perf-changelog.yaml").open("a") as handle:
        handle.write(
            "\n- config-keys:\n    - llama70b-fp8-gpu-a-vllm\n  description:\n"
            f'    - "Tune the TP sizes"\n  pr-link: {pr_link}\n'
        )
    bench_git(author, "commit", "-q", "-am", "Tune")
    bench_git(author, "push", "-q", "origin", "feat-a")
    head = bench_git(author, "rev-parse", "HEAD")
    bench_git(root, "clone", "-q", str(origin), str(clone))
    return origin, clone, head
