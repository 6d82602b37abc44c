"""Shared helpers for the benchmarks: run the installed CLI as a whole process and time it."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
INFERENCEX = Path(
    os.environ.get("CHANGELOG_TOOLS_INFERENCEX", REPO_ROOT.parent / "shared/fixtures/inferencex")
)


def console_script() -> str:
    exe = shutil.which("changelog-tools", path=str(Path(sys.executable).parent))
    if exe is None:
        sys.exit("install the package first: pip install -e .")
    return exe


def time_command(
    args: list[str], *, cwd: Path | None = None, repeat: int = 7, expect: int | None = 0
) -> dict[str, float]:
    """Run ``args`` ``repeat`` times (after one warm-up run); return min/median/max seconds."""
    times = []
    for i in range(repeat + 1):
        started = time.perf_counter()
        proc = subprocess.run(args, cwd=cwd, capture_output=True, check=False)
        elapsed = time.perf_counter() - started
        if expect is not None and proc.returncode != expect:
            sys.exit(
                f"{' '.join(args)} exited {proc.returncode}, expected {expect}:\n"
                f"{proc.stdout.decode()[-2000:]}{proc.stderr.decode()[-2000:]}"
            )
        if i:  # the first run warms the page cache and .pyc files
            times.append(elapsed)
    return {"min": min(times), "median": statistics.median(times), "max": max(times)}


def report(label: str, size: int, result: dict[str, float]) -> None:
    print(
        f"{label:<48} {size / 1024:>8.0f} KiB   min {result['min']:.3f} s   "
        f"median {result['median']:.3f} s   max {result['max']:.3f} s"
    )
