"""Benchmark: `changelog-tools resolve` and `canonicalize` as whole processes, and the reference.

Run: python bench/bench_resolve.py [--repeat N] [--python PY]
         [--reference DIR] [--reference-python PY]

Cases: the real 772-entry InferenceX changelog as the merge-base, main appending one entry and
the PR appending one entry with an `XXX` placeholder (resolved with --pr, so the placeholder
is canonicalized and the result checked in main mode); and the same on a history ten times
longer (the real file repeated). `canonicalize` runs on the PR's file against the merge-base,
once from files (--base-file) and once in git mode (base = merge-base with main, read through
git). The cost should follow the change, not the history: the 10x history at most 1.1x the
real one.

The tool runs from a clean interpreter (`_util.clean_interpreter`: no editable-install finder,
as a wheel install starts), or as ``PY -m changelog_tools`` with ``--python PY`` (for example
another checkout's clean interpreter, to time before and after), or as this venv's console
script with ``--dev-venv``.

Side by side with the reference, InferenceX's own resolver (target: ours at or under 0.15x its
CPU time on the real file): with the reference tools in ``--reference DIR`` (default:
$CHANGELOG_TOOLS_REFERENCE, else /tmp/ref; `prepare_perf_changelog_merge.py` and the
`validate_perf_changelog.py` it imports) and an interpreter that has PyYAML and pydantic
(``--reference-python``, default $CHANGELOG_TOOLS_REFERENCE_PYTHON, else /tmp/refvenv/bin/python
when present, else this one), both tools
run on the same git repositories, interleaved run by run: `canonicalize` on the PR branch
against the merge-base (ours in git mode, writing the file), and `resolve` during a conflicted
`git merge main` on the PR branch (ours in index mode, the reference's `resolve-conflict`,
which reads the same index stages). The file is restored before every run (not timed). The
reference needs InferenceX's `utils` (for `matrix_logic`) on its path, taken from the fixture.
When the reference or its interpreter is missing, the comparison is skipped with the reason.
With ``--before PY`` the tool run as ``PY -m changelog_tools`` (another checkout's clean
interpreter: the code before a change) joins both comparisons as a third case, interleaved
with the other two, so before and after are paired run by run as well as each with the
reference.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
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

MAIN_ENTRY = (
    b"- config-keys:\n"
    b"    - dsr1-fp4-mi355x-sglang\n"
    b"  description:\n"
    b'    - "Main: bump the image"\n'
    b"  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2998\n"
)
PR_ENTRY = (
    b"- config-keys:\n"
    b"    - dsr1-fp8-b200-sglang\n"
    b"  description:\n"
    b'    - "PR: add a TP2 search-space row"\n'
    b"  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/XXX\n"
)
REFERENCE_SCRIPT = "prepare_perf_changelog_merge.py"
REFERENCE_NEEDS = ("prepare_perf_changelog_merge.py", "validate_perf_changelog.py")
CHANGELOG = "perf-changelog.yaml"


def _history() -> bytes:
    real = INFERENCEX / CHANGELOG
    if real.is_file():
        return real.read_bytes()
    print(f"(real InferenceX changelog not found under {INFERENCEX}; using a synthetic one)")
    return synth.ledger_of_size(395_528, seed=1, repository="SemiAnalysisAI/InferenceX")


def _git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        ["git", "-c", "user.name=b", "-c", "user.email=b@b", *args],
        cwd=cwd,
        check=check,
        capture_output=True,
    )


def _git_repo(root: Path, base: bytes, main: bytes, pr: bytes) -> Path:
    """main with one more entry; branch `pr` from the merge-base with the PR's entry."""
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    (root / CHANGELOG).write_bytes(base)
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "base")
    _git(root, "checkout", "-qb", "pr")
    (root / CHANGELOG).write_bytes(pr)
    _git(root, "commit", "-qam", "pr")
    _git(root, "checkout", "-q", "main")
    (root / CHANGELOG).write_bytes(main)
    _git(root, "commit", "-qam", "main")
    _git(root, "checkout", "-q", "pr")
    return root


def _clean_env() -> dict[str, str]:
    # Bytecode caching on (PYTHONDONTWRITEBYTECODE would time the compiler).
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _timed_restoring(
    args: list[str], *, cwd: Path, restore: Callable[[], None], repeat: int, expect: int = 0
) -> dict[str, float]:
    """Like ``time_command``, restoring the input (not timed) before every run."""
    return time_command(
        args, cwd=cwd, repeat=repeat, expect=expect, env=_clean_env(), before=restore
    )


def scaling(tool: list[str], real: bytes, repeat: int, work: Path) -> None:
    """The history-scaling cases: the real file, then the same history ten times over."""
    medians: dict[str, float] = {}
    for scale, history in (("real", real), ("10x", b"\n".join([real] * 10))):
        d = work / scale
        d.mkdir()
        main_side = history + b"\n" + MAIN_ENTRY
        pr_side = history + b"\n" + PR_ENTRY
        (d / "base.yaml").write_bytes(history)
        (d / "main.yaml").write_bytes(main_side)
        (d / "pr.yaml").write_bytes(pr_side)
        label = f"resolve, file mode, {scale} history + 1 + 1"
        result = time_command(
            [*tool, "resolve", "--pr", "2999", "--base-file", "base.yaml",
             "--pr-file", "pr.yaml", "--main-file", "main.yaml", "-o", "out.yaml"],
            cwd=d,
            repeat=repeat,
        )  # fmt: skip
        expected = main_side + b"\n" + PR_ENTRY.replace(b"XXX", b"2999")
        if (d / "out.yaml").read_bytes() != expected:
            sys.exit("resolve produced an unexpected result")
        report(label, len(main_side), result)
        medians[label] = result["cpu"]

        label = f"canonicalize, file mode, {scale} history + 1"
        result = _timed_restoring(
            [*tool, "canonicalize", "--pr", "2999", "--base-file", "base.yaml", "work.yaml"],
            cwd=d,
            # Each run needs the placeholder back: copy the PR's file first (not timed).
            restore=lambda d=d: shutil.copyfile(d / "pr.yaml", d / "work.yaml"),  # type: ignore[misc]
            repeat=repeat,
        )
        report(label, len(pr_side), result)
        medians[label] = result["cpu"]

        repo = _git_repo(d / "repo", history, main_side, pr_side)
        label = f"canonicalize --check, git mode, {scale} history + 1"
        result = time_command(
            [*tool, "canonicalize", "--pr", "2999", "--check"], cwd=repo, repeat=repeat,
            expect=1,
        )  # fmt: skip
        report(label, len(pr_side), result)
        medians[label] = result["cpu"]
    for what in ("resolve, file mode", "canonicalize, file mode", "canonicalize --check, git mode"):
        one = next(v for k, v in medians.items() if k.startswith(what) and ", real " in k)
        ten = next(v for k, v in medians.items() if k.startswith(what) and ", 10x " in k)
        print(f"ratio 10x / 1x, {what} (median CPU): {ten / one:.2f}")


def _reference_problem(directory: Path, python: str) -> str | None:
    """Why the reference cannot run here, or None."""
    return reference_problem(directory, python, tuple(REFERENCE_NEEDS))


def _interleaved(
    cases: dict[str, tuple[list[str], dict[str, str]]],
    *,
    cwd: Path,
    restore: Callable[[], None],
    check: Callable[[str], None],
    repeat: int,
) -> dict[str, list[float]]:
    """CPU seconds of each case by round, the cases run in turn in every round (so load on the
    machine hits all alike and ratios can be taken round by round)."""
    cpus: dict[str, list[float]] = {label: [] for label in cases}
    for i in range(repeat + 1):
        for label, (args, env) in cases.items():
            restore()
            code, out, err, _wall, cpu = run_measured(args, cwd=cwd, env=env)
            if code != 0:
                print(
                    f"{label} failed (exit {code}):\n{out.decode()[-2000:]}{err.decode()[-3000:]}"
                )
                sys.exit(1)
            check(label)
            if i:  # the first round warms the page cache and .pyc files
                cpus[label].append(cpu)
    return cpus


def versus_reference(
    tool: list[str],
    real: bytes,
    repeat: int,
    work: Path,
    directory: Path,
    python: str,
    before: list[str] | None = None,
) -> None:
    """Ours and the reference on the same git repositories, on the real file."""
    problem = _reference_problem(directory, python)
    if problem is not None:
        print(f"reference comparison skipped: {problem}")
        return
    ref_env = _clean_env()
    ref_env["PYTHONPATH"] = os.pathsep.join([str(directory), str(INFERENCEX / "utils")])
    ours_env = _clean_env()
    main_side = real + b"\n" + MAIN_ENTRY
    pr_side = real + b"\n" + PR_ENTRY
    canonical = real + b"\n" + PR_ENTRY.replace(b"XXX", b"2999")
    resolved = main_side + b"\n" + PR_ENTRY.replace(b"XXX", b"2999")
    script = str(directory / REFERENCE_SCRIPT)

    repo = _git_repo(work / "ref-canonicalize", real, main_side, pr_side)
    merge_base = _git(repo, "merge-base", "main", "pr").stdout.decode().strip()
    target = repo / CHANGELOG

    def expect(wanted: bytes) -> Callable[[str], None]:
        def check(label: str) -> None:
            if target.read_bytes() != wanted:
                sys.exit(f"{label} wrote an unexpected result")

        return check

    canon_cases = {
        "canonicalize (ours, git mode)": ([*tool, "canonicalize", "--pr", "2999"], ours_env),
        "canonicalize (reference)": (
            [python, script, "canonicalize", "--base-ref", merge_base, "--pr-number", "2999"],
            ref_env,
        ),
    }
    if before:
        canon_cases["canonicalize (--before, git mode)"] = (
            [*before, "canonicalize", "--pr", "2999"],
            ours_env,
        )
    canon = _interleaved(
        canon_cases,
        cwd=repo,
        restore=lambda: target.write_bytes(pr_side),
        check=expect(canonical),
        repeat=repeat,
    )

    repo = _git_repo(work / "ref-resolve", real, main_side, pr_side)
    merge = _git(repo, "merge", "--no-edit", "main", check=False)
    if merge.returncode == 0 or b"CONFLICT" not in merge.stdout + merge.stderr:
        sys.exit(f"expected a conflicted merge: {(merge.stdout + merge.stderr).decode()}")
    target = repo / CHANGELOG
    conflicted = target.read_bytes()
    resolve_cases = {
        "resolve (ours, index mode)": (
            [*tool, "resolve", "--pr", "2999", "--pr-side", "ours"],
            ours_env,
        ),
        "resolve (reference resolve-conflict)": (
            [python, script, "resolve-conflict", "--pr-number", "2999"],
            ref_env,
        ),
    }
    if before:
        resolve_cases["resolve (--before, index mode)"] = (
            [*before, "resolve", "--pr", "2999", "--pr-side", "ours"],
            ours_env,
        )
    res = _interleaved(
        resolve_cases,
        cwd=repo,
        restore=lambda: target.write_bytes(conflicted),
        check=expect(resolved),
        repeat=repeat,
    )
    print(f"side by side with the reference ({directory}, run by {python}), real file, CPU:")
    median = statistics.median
    for results in (canon, res):
        (ours_label, ours), (ref_label, ref), *earlier = results.items()
        print(f"  {ours_label:<40} {median(ours):.3f} s")
        print(f"  {ref_label:<40} {median(ref):.3f} s")
        print(f"  ratio ours / reference: {median(ours) / median(ref):.3f}  "
              "(target: at or under 0.15)")  # fmt: skip
        for label, cpus in earlier:
            paired = median(o / b for o, b in zip(ours, cpus, strict=True))
            print(f"  {label:<40} {median(cpus):.3f} s, ratio to the reference "
                  f"{median(cpus) / median(ref):.3f}; ours / before, round by round: "
                  f"{paired:.3f}")  # fmt: skip


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
        help="run only the history-scaling cases or only the comparison with the reference",
    )
    parser.add_argument(
        "--before",
        metavar="PY",
        help="also run PY -m changelog_tools (the code before a change) in the comparison "
        "with the reference, interleaved with ours and the reference's runs",
    )
    args = parser.parse_args()
    real = _history()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if args.python:
            tool = [args.python, "-m", "changelog_tools"]
        elif args.dev_venv:
            tool = [console_script()]
        else:
            tool = [clean_interpreter(work / "clean-venv")[1]]
        print(f"the tool: {' '.join(tool)}")
        if args.only != "reference":
            scaling(tool, real, args.repeat, work)
        if args.only != "scaling":
            before = [args.before, "-m", "changelog_tools"] if args.before else None
            versus_reference(
                tool, real, args.repeat, work, args.reference, args.reference_python, before
            )


if __name__ == "__main__":
    from _header import print_header  # the date and machine of every figure below

    print_header(__file__)
    main()
