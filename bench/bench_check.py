"""Benchmark: `changelog-tools check` as a whole process, in git mode and in file mode, and
side by side with InferenceX's merge-time changelog gate.

Run: python bench/bench_check.py [--repeat N] [--python PY | --dev-venv]
         [--reference DIR] [--reference-python PY] [--only scaling|reference]

`check` runs on every pull request, so its whole-process time is what CI pays for it. Cases: the
real 772-entry InferenceX changelog (and its real master configs) plus one appended entry; the
same with the change also adding a search-space row to the selected master config; and a
history ten times longer (the real file repeated) plus one entry, which shows whether the cost
follows the change or the file. Git mode runs inside a real temporary repository (branch behind
nothing, base = merge-base with main); file mode reads the files directly. Targets on a 2-core
machine: < 0.3 s on the real file, and the 10x history at most 1.15x the real one (median CPU).

The tool runs from a clean interpreter (`_util.clean_interpreter`: no editable-install finder,
as a wheel install starts), or as ``PY -m changelog_tools`` with ``--python PY``, or as this
venv's console script with ``--dev-venv``. To time another checkout (before and after a change),
put it first on PYTHONPATH.

Side by side with the reference: InferenceX gates the changelog at merge time with
`validate_perf_changelog.py` (run by its run-sweep workflow as
``validate_perf_changelog.py --changelog-file perf-changelog.yaml --base-ref origin/<base>
--head-ref <head sha>``). Its command line then runs `process_changelog.py`, which is not among
the reference tools here, so the reference runs through a small loader that does what
`validate_perf_changelog.py` itself defines for the same refs: both files read with its
`read_git_file` (``git show``), the final-newline check, `parse_changelog` of base and head (YAML
with unique keys, the ChangelogEntry model on every entry), `compare_entries` (PR mode) and
`validate_raw_change`. It leaves out the matrix generation, so it is a lower bound of the gate's
cost and the ratio is, if anything, unfavourable to `check`. Both run on the same repository
(the real file plus one entry, git mode), interleaved run by run; `check` once in full and once
with --no-config-keys (the reference does not expand config keys either). Target: `check` at or
under 0.2x the reference. The reference needs PyYAML and pydantic (``--reference-python``) and
InferenceX's `utils` (for `matrix_logic`), taken from the fixture; when any is missing the
comparison is skipped with the reason.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import (
    INFERENCEX,
    clean_interpreter,
    console_script,
    reference_arguments,
    reference_problem,
    report,
    run_measured,
    time_command,
)

from changelog_tools.testing import synth

MASTERS = ("configs/amd-master.yaml", "configs/nvidia-master.yaml")
CHANGELOG = "perf-changelog.yaml"
NEW_ENTRY = (
    b"- config-keys:\n"
    b"    - {key}\n"
    b"  description:\n"
    b'    - "Benchmark entry: add a TP2 search-space row"\n'
    b"  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/XXX\n"
)
REFERENCE_SCRIPT = "validate_perf_changelog.py"
# What validate_perf_changelog.py defines for a base and a head ref, short of running
# process_changelog.py (argv: base ref, head ref, changelog path, PR number).
REFERENCE_LOADER = """
import sys
import validate_perf_changelog as gate
base_ref, head_ref, path, pr = sys.argv[1:]
base_raw = gate.read_git_file(base_ref, path)
head_raw = gate.read_git_file(head_ref, path)
if not head_raw.endswith(b"\\n"):
    sys.exit(f"{path} at {head_ref} does not end with a newline")
base = gate.parse_changelog(base_raw, f"{path} at {base_ref}")
head = gate.parse_changelog(head_raw, f"{path} at {head_ref}")
additions, corrections = gate.compare_entries(base, head, int(pr))
gate.validate_raw_change(base_raw, head_raw, len(additions), corrections)
print(f"validated {len(additions)} addition(s), {corrections} correction(s)")
"""


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def _inputs(work: Path) -> tuple[bytes, dict[str, bytes], str]:
    """The real changelog + master configs, or synthetic stand-ins when they are absent."""
    real = INFERENCEX / CHANGELOG
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
    for rel, data in {CHANGELOG: history, **masters}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    _git(root, "add", "-A")
    _git(root, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "base")
    _git(root, "checkout", "-qb", "pr")
    for rel, data in head_files.items():
        (root / rel).write_bytes(data)
    _git(root, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qam", "append")
    return root


def _clean_env() -> dict[str, str]:
    # Bytecode caching on (PYTHONDONTWRITEBYTECODE would time the compiler).
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def scaling(tool: list[str], real: bytes, masters: dict[str, bytes], key: str, repeat: int,
            work: Path) -> Path:  # fmt: skip
    """The git-mode and file-mode cases; returns the repository of the real file + 1 entry."""
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
    repos: list[Path] = []
    for i, (label, history, base_m, head_m) in enumerate(cases):
        head = history + b"\n" + entry
        files = {CHANGELOG: head, **{m: head_m[m] for m in MASTERS}}
        repo = _repo(work / f"repo{i}", history, base_m, files)
        repos.append(repo)
        result = time_command([*tool, "check", "--pr", "2999"], cwd=repo, repeat=repeat)
        report(label, len(head), result)
        medians[label] = result["cpu"]
        if i == 0:
            result = time_command(
                [*tool, "check", "--pr", "2999", "--no-config-keys"], cwd=repo, repeat=repeat
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
            [*tool, "check", "--pr", "2999", "--base-file", str(d / "base.yaml"),
             "--head-file", str(d / "head.yaml"), *master_args],
            cwd=d,
            repeat=repeat,
        )  # fmt: skip
        report(label, len(history), result)
        medians[label] = result["cpu"]
    for mode in ("git", "file"):
        ratio = medians[f"{mode}, 10x history + 1 entry"] / medians[f"{mode}, real + 1 entry"]
        print(f"ratio 10x / 1x, {mode} mode (median CPU): {ratio:.2f}  (target: at most 1.15)")
    return repos[0]


def _reference_problem(directory: Path, python: str) -> str | None:
    """Why the reference cannot run here, or None."""
    return reference_problem(directory, python, (REFERENCE_SCRIPT,))


def versus_reference(tool: list[str], repo: Path, repeat: int, directory: Path,
                     python: str) -> None:  # fmt: skip
    """`check` and the reference's gate on the same repository, interleaved run by run."""
    problem = _reference_problem(directory, python)
    if problem is not None:
        print(f"reference comparison skipped: {problem}")
        return
    ref_env = _clean_env()
    ref_env["PYTHONPATH"] = os.pathsep.join([str(directory), str(INFERENCEX / "utils")])
    ours_env = _clean_env()
    cases = {
        "check (ours, git mode)": ([*tool, "check", "--pr", "2999"], ours_env),
        "check --no-config-keys (ours)": (
            [*tool, "check", "--pr", "2999", "--no-config-keys"],
            ours_env,
        ),
        "reference gate (validate_perf_changelog)": (
            [python, "-c", REFERENCE_LOADER, "main", "pr", CHANGELOG, "2999"],
            ref_env,
        ),
    }
    wall: dict[str, list[float]] = {label: [] for label in cases}
    cpu: dict[str, list[float]] = {label: [] for label in cases}
    for i in range(repeat + 1):
        for label, (args, env) in cases.items():
            code, out, err, elapsed, used = run_measured(args, cwd=repo, env=env)
            if code != 0:
                sys.exit(f"{label} failed (exit {code}):\n{out.decode()[-2000:]}"
                         f"{err.decode()[-3000:]}")  # fmt: skip
            if i:  # the first round warms the page cache and .pyc files
                wall[label].append(elapsed)
                cpu[label].append(used)
    print(f"side by side with the reference ({directory}, run by {python}),")
    print("real file + 1 entry, git mode, medians:")
    med = {
        label: (statistics.median(wall[label]), statistics.median(cpu[label])) for label in cases
    }
    for label, (w, c) in med.items():
        print(f"  {label:<44} wall {w:.3f} s   CPU {c:.3f} s")
    ref_wall, ref_cpu = med["reference gate (validate_perf_changelog)"]
    for label in ("check (ours, git mode)", "check --no-config-keys (ours)"):
        w, c = med[label]
        print(f"  ratio {label} / reference: wall {w / ref_wall:.3f}, CPU {c / ref_cpu:.3f}"
              "  (target: at or under 0.2)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument(
        "--python", help="run the tool as PY -m changelog_tools (default: a clean interpreter)"
    )
    parser.add_argument(
        "--dev-venv", action="store_true", help="run this venv's console script instead"
    )
    reference_arguments(parser, needs="PyYAML and pydantic")
    parser.add_argument(
        "--only",
        choices=["scaling", "reference"],
        help="run only the git/file-mode cases or only the comparison with the reference",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if args.python:
            tool = [args.python, "-m", "changelog_tools"]
        elif args.dev_venv:
            tool = [console_script()]
        else:
            tool = [clean_interpreter(work / "clean-venv")[1]]
        print(f"the tool: {' '.join(tool)}")
        real, masters, key = _inputs(work)
        if args.only != "reference":
            repo = scaling(tool, real, masters, key, args.repeat, work)
        else:
            entry = NEW_ENTRY.replace(b"{key}", key.encode())
            head = {CHANGELOG: real + b"\n" + entry, **masters}
            repo = _repo(work / "repo0", real, masters, head)
        if args.only != "scaling":
            versus_reference(tool, repo, args.repeat, args.reference, args.reference_python)


if __name__ == "__main__":
    from _header import print_header  # the date and machine of every figure below

    print_header(__file__)
    main()
