"""Benchmark: inputs that amplify work or output, as whole processes (time, peak memory, output).

Run: python bench/bench_amplification.py [--scale 1.0] [--tree PATH]

A hostile or broken pull request must not make `check` or `validate` run for minutes, exhaust
memory or flood the log. The three inputs: an appended entry holding 3,000,000 whitespace-only
lines; 200,000 bare `- config-keys:` entry starts; 20,000 appended entries with unknown keys.
Each runs through `check` (file mode) and `validate`. ``--scale`` shrinks them (0.1: a tenth); ``--tree`` runs the
package from another checkout (``PYTHONPATH``) to measure before a change.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

BASE = (
    b'- config-keys:\n    - a\n  description:\n    - "x"\n'
    b"  pr-link: https://github.com/o/r/pull/1\n"
)

# Runs one command in a child and reports its wall time, peak RSS and output size as JSON.
_MEASURE = """
import json, resource, subprocess, sys, time
t = time.perf_counter()
p = subprocess.run(sys.argv[1:], capture_output=True)
e = time.perf_counter() - t
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"s": e, "kib": rss, "out": len(p.stdout) + len(p.stderr), "rc": p.returncode}))
"""


def cases(scale: float) -> dict[str, bytes]:
    n_ws, n_starts, n_unknown = (int(n * scale) for n in (3_000_000, 200_000, 20_000))
    entry = b'\n- config-keys:\n    - b\n  description:\n    - "y"\n'
    return {
        f"{n_ws:,} whitespace-only lines": BASE + entry + b"  \n" * n_ws + b"  pr-link: XXX\n",
        f"{n_starts:,} bare entry starts": BASE + b"\n" + b"- config-keys:\n" * n_starts,
        f"{n_unknown:,} entries with unknown keys": BASE
        + b"".join(
            b'\n- config-keys:\n    - k%d\n  description:\n    - "d"\n  pr-link: XXX\n'
            b"  evals_onyl: true\n  scenario-typo: x\n" % i
            for i in range(n_unknown)
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--tree", type=Path, help="checkout whose package to run (PYTHONPATH)")
    args = parser.parse_args()
    env = dict(os.environ)
    if args.tree:
        env["PYTHONPATH"] = str(args.tree.resolve())
    cli = [sys.executable, "-m", "changelog_tools"]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "base.yaml").write_bytes(BASE)
        for label, data in cases(args.scale).items():
            head = work / "head.yaml"
            head.write_bytes(data)
            check = ["check", "--base-file", "base.yaml", "--head-file", "head.yaml"]
            runs = {
                "check": [*cli, *check, "--no-config-keys"],
                "validate": [*cli, "validate", "head.yaml"],
            }
            for name, argv in runs.items():
                proc = subprocess.run(
                    [sys.executable, "-c", _MEASURE, *argv],
                    cwd=work, env=env, capture_output=True, text=True, check=True,
                )  # fmt: skip
                got = json.loads(proc.stdout)
                print(
                    f"{label:<36} {name:<9} {len(data) / 1e6:>6.1f} MB in  exit {got['rc']}  "
                    f"{got['s']:>7.2f} s  peak {got['kib'] / 1024:>7.0f} MiB  "
                    f"output {got['out'] / 1e6:>8.2f} MB"
                )


if __name__ == "__main__":
    from _header import print_header  # the date and machine of every figure below

    print_header(__file__)
    main()
