"""Time `changelog-tools demo` as a new user runs it: the whole story, one process, wall clock.

The demo builds its repositories, starts the fake GitHub and a fake CI, and runs every step as a
process of its own, so most of its time is process start-up and git; it is the figure the
README's "a few seconds" stands for (docs/benchmarks.md, "The demo").

    .venv/bin/python bench/bench_demo.py --repeat 3
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from _util import console_script, time_command


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="timed runs after one warm-up")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-demo-") as work:
        result = time_command(
            [console_script(), "demo", "--workdir", work], cwd=Path(work), repeat=args.repeat
        )
    print(
        f"changelog-tools demo (wall, {args.repeat} runs)   min {result['min']:.1f} s   "
        f"median {result['median']:.1f} s   max {result['max']:.1f} s   "
        f"CPU (median, with its processes) {result['cpu']:.1f} s"
    )


if __name__ == "__main__":
    from _header import print_header  # the date and machine of every figure below

    print_header(__file__)
    main()
