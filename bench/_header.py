"""The first line every bench and measure script prints: when and on what the figures were taken.

docs/benchmarks.md quotes a figure together with this line, so a reader can tell a fresh number
from an old one and a loaded 2-core machine from a quiet workstation.
"""

from __future__ import annotations

import datetime
import os
import platform
from pathlib import Path


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def measured_on() -> str:
    """``2026-12-05 13:02 UTC, Linux x86_64, 2 CPUs (MODEL), Python 3.11.7, load 1.52``."""
    now = datetime.datetime.now(datetime.UTC)
    load = f", load {os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else ""
    return (
        f"{now:%Y-%m-%d %H:%M} UTC, {platform.system()} {platform.machine()}, "
        f"{os.cpu_count()} CPUs ({_cpu_model()}), Python {platform.python_version()}{load}"
    )


def print_header(script: str) -> None:
    """Print ``# SCRIPT: measured DATE on MACHINE`` before any figure."""
    print(f"# {Path(script).name}: measured {measured_on()}", flush=True)
