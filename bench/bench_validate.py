"""Benchmark: `changelog-tools validate` as a whole process, on the real file and a 10x one.

Run: python bench/bench_validate.py [--repeat N]
Targets on a 2-core machine: the real 395 KB InferenceX file under 0.4 s, and a file ten times
its size in under ten times that.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import INFERENCEX, console_script, report, time_command

from changelog_tools.testing import synth


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    exe = console_script()
    real = INFERENCEX / "perf-changelog.yaml"
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if real.is_file():
            base_size = real.stat().st_size
            rows = [("real InferenceX perf-changelog.yaml", real)]
        else:
            print(f"(real file not found at {real}; using a synthetic stand-in of 395 KB)")
            base_size = 395_528
            stand_in = work / "stand-in.yaml"
            stand_in.write_bytes(synth.ledger_of_size(base_size, seed=1))
            rows = [("synthetic 395 KB stand-in", stand_in)]
        big = work / "synthetic-10x.yaml"
        big.write_bytes(synth.ledger_of_size(10 * base_size, seed=2))
        rows.append(("synthetic 10x file", big))
        results = []
        for label, path in rows:
            result = time_command([exe, "validate", str(path)], repeat=args.repeat, expect=0)
            report(f"validate {label}", path.stat().st_size, result)
            results.append(result["median"])
        print(f"ratio 10x / 1x (median): {results[1] / results[0]:.2f}")


if __name__ == "__main__":
    from _header import print_header  # the date and machine of every figure below

    print_header(__file__)
    main()
