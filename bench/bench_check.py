"""Benchmark: `changelog-tools check` as a whole process, in git mode and in file mode.

Run: python bench/bench_check.py [--repeat N]

Cases: the real 772-entry InferenceX changelog (and its real master configs) plus one appended
entry; the same with the change also adding a search-space row to the selected master config;
and a history ten times longer (the real file repeated) plus one entry. Git mode runs inside a
real temporary repository (branch behind nothing, base = merge-base with main); file mode reads
the files directly. Targets on a 2-core machine: < 0.3 s on the real file, and the 10x history
at most 1.3x the real one.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import INFERENCEX, console_script, report, time_command

from changelog_tools.testing import synth

MASTERS = ("configs/amd-master.yaml", "configs/nvidia-master.yaml")
NEW_ENTRY = (
    b"- config-keys:\n"
    b"    - {key}\n"
    b"  description:\n"
    b'    - "Benchmark entry: add a TP2 search-space row"\n'
    b"  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/XXX\n"
)


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def _inputs(work: Path) -> tuple[bytes, dict[str, bytes], str]:
    """The real changelog + master configs, or synthetic stand-ins when they are absent."""
    real = INFERENCEX / "perf-changelog.yaml"
    if real.is_file() and all((INFERENCEX / m).is_file() for m in MASTERS):
        masters = {m: (INFERENCEX / m).read_bytes() for m in MASTERS}
        return real.read_bytes(), masters, "dsr1-fp4-mi355x-sglang"
    print(f"(real InferenceX files not found under {INFERENCEX}; using synthetic stand-ins)")
    history = synth.ledger_of_size(395_528, seed=1, repository="SemiAnalysisAI/InferenceX")
    keys = sorted({synth.config_key(__import__("random").Random(i)) for i in range(300)})
    half = len(keys) // 2
    masters = {
        MASTERS[0]: synth.master_config(keys[:half]),
        MASTERS[1]: synth.master_config(keys[half:]),
    }
    return history, masters, keys[0]


def _add_row(master: bytes, key: str) -> bytes:
    """``master`` with one more search-space row in the first group of ``key``."""
    start = master.index(key.encode() + b":\n")
    at = master.index(b"search-space:\n", start) + len(b"search-space:\n")
    indent = master[at : master.index(b"-", at)]
    return master[:at] + indent + b"- { tp: 2, conc-start: 4, conc-end: 8 }\n" + master[at:]


def _repo(
    root: Path, history: bytes, masters: dict[str, bytes], head_files: dict[str, bytes]
) -> Path:
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    for rel, data in {"perf-changelog.yaml": history, **masters}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    _git(root, "add", "-A")
    _git(root, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "base")
    _git(root, "checkout", "-qb", "pr")
    for rel, data in head_files.items():
        (root / rel).write_bytes(data)
    _git(root, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qam", "append")
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    exe = console_script()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        real, masters, key = _inputs(work)
        entry = NEW_ENTRY.replace(b"{key}", key.encode())
        big = b"\n".join([real] * 10)
        owner = next(m for m in MASTERS if f"\n{key}:\n".encode() in b"\n" + masters[m])
        changed = {**masters, owner: _add_row(masters[owner], key)}
        cases = [
            ("git, real + 1 entry", real, masters, masters),
            ("git, real + 1 entry + changed master key", real, masters, changed),
            ("git, 10x history + 1 entry", big, masters, masters),
        ]
        medians: dict[str, float] = {}
        for i, (label, history, base_m, head_m) in enumerate(cases):
            head = history + b"\n" + entry
            files = {"perf-changelog.yaml": head, **{m: head_m[m] for m in MASTERS}}
            repo = _repo(work / f"repo{i}", history, base_m, files)
            result = time_command([exe, "check", "--pr", "2999"], cwd=repo, repeat=args.repeat)
            report(label, len(head), result)
            medians[label] = result["cpu"]
            if i == 0:
                result = time_command(
                    [exe, "check", "--pr", "2999", "--no-config-keys"],
                    cwd=repo,
                    repeat=args.repeat,
                )
                report("git, real + 1 entry, --no-config-keys", len(head), result)
        for label, history in (
            ("file, real + 1 entry", real),
            ("file, 10x history + 1 entry", big),
        ):
            d = work / label.replace(" ", "_").replace(",", "")
            d.mkdir()
            (d / "base.yaml").write_bytes(history)
            (d / "head.yaml").write_bytes(history + b"\n" + entry)
            master_args = []
            for m in MASTERS:
                (d / Path(m).name).write_bytes(masters[m])
                master_args += ["--master-config", str(d / Path(m).name)]
                master_args += ["--base-master-config", str(d / Path(m).name)]
            result = time_command(
                [exe, "check", "--pr", "2999", "--base-file", str(d / "base.yaml"),
                 "--head-file", str(d / "head.yaml"), *master_args],
                cwd=d,
                repeat=args.repeat,
            )  # fmt: skip
            report(label, len(history), result)
            medians[label] = result["cpu"]
        for mode in ("git", "file"):
            ratio = medians[f"{mode}, 10x history + 1 entry"] / medians[f"{mode}, real + 1 entry"]
            print(f"ratio 10x / 1x, {mode} mode (median CPU): {ratio:.2f}")


if __name__ == "__main__":
    main()
