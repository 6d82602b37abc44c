"""Benchmark: the start-up budget of each command, as ratios to `python -c pass`.

Run: python bench/bench_startup.py [--repeat N]

Every command runs as a whole process of the installed CLI on the real InferenceX changelog
(772 entries) and master configs plus one appended entry (synthetic stand-ins when the fixture
is absent), and is timed in CPU seconds (user + system of the child, which is what a shared CI
runner pays; wall time is printed beside it). Two floors are timed the same way: `python -c
pass` (the interpreter alone) and a minimal script that only reads the files the command reads
(what any Python tool must pay at least). Each line prints the ratio to both floors; the
targets stand beside the ratio they bind:

- `--help` within 2.5x of `python -c pass`;
- `check` (file and git mode) within 4x of `python -c pass`.

Each command runs twice per round: from a clean interpreter (a venv of its own with no
editable-install finder, as a wheel install starts; see `_util.clean_interpreter`) and from
this venv. The clean run is the honest one: an editable install's finder costs every process
of its venv about 20 ms at start-up (more than `python -c pass` itself in a clean venv), which
both inflates the floor and hides what pathlib, re and friends cost the tool. The targets are
judged on both, so the numbers stay comparable with the earlier ones, measured in an editable
venv.

Then the import cost of the HTTP and git clients the tool could use, measured the same way
(the numbers behind dropping PyGithub and GitPython): PyGithub (a test dependency), the
standard library's http.client, and what the tool's client imports (socket, ssl, json), and
GitPython when it happens to be installed.

The reference tools' own times are not reproduced here (their scripts are not in the fixture
snapshot); `bench_resolve.py` and `bench_check.py` hold the history-scaling targets.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import INFERENCEX, clean_interpreter, console_script, editable_finders, run_measured

from changelog_tools.testing import synth

MASTERS = ("configs/amd-master.yaml", "configs/nvidia-master.yaml")
ENTRY = (
    b"- config-keys:\n"
    b"    - {key}\n"
    b"  description:\n"
    b'    - "Benchmark entry: add a TP2 search-space row"\n'
    b"  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/XXX\n"
)
MAIN_ENTRY = (
    b"- config-keys:\n"
    b"    - {key}\n"
    b"  description:\n"
    b'    - "Main: bump the image"\n'
    b"  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2998\n"
)
LIBRARIES = "import click, dataclasses, json, pathlib, subprocess"
READ_FILES = "import sys\nfor p in sys.argv[1:]:\n    open(p, 'rb').read()\n"
# command label -> the ratio to `python -c pass` it must stay within
TARGETS = {"--help": 2.5, "check, file mode": 4.0, "check, git mode": 4.0}


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=b", "-c", "user.email=b@b", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def _inputs() -> tuple[bytes, dict[str, bytes], str]:
    real = INFERENCEX / "perf-changelog.yaml"
    if real.is_file() and all((INFERENCEX / m).is_file() for m in MASTERS):
        return (
            real.read_bytes(),
            {m: (INFERENCEX / m).read_bytes() for m in MASTERS},
            ("dsr1-fp4-mi355x-sglang"),
        )
    print(f"(real InferenceX files not found under {INFERENCEX}; using synthetic stand-ins)")
    import random

    history = synth.ledger_of_size(395_528, seed=1, repository="SemiAnalysisAI/InferenceX")
    keys = sorted({synth.config_key(random.Random(i)) for i in range(300)})
    half = len(keys) // 2
    masters = {
        MASTERS[0]: synth.master_config(keys[:half]),
        MASTERS[1]: synth.master_config(keys[half:]),
    }
    return history, masters, keys[0]


def run_cpu(args: list[str], *, cwd: Path, expect: int | None, env: dict[str, str]) -> float:
    """CPU seconds (user + system) of one whole process ``args`` and its children."""
    code, out, err, _wall, cpu = run_measured(args, cwd=cwd, env=env)
    if expect is not None and code != expect:
        sys.exit(
            f"{' '.join(args)} exited {code}, expected {expect}:\n"
            f"{out.decode()[-2000:]}{err.decode()[-2000:]}"
        )
    return cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument(
        "--only", action="append", default=[], help="time only labels containing this text"
    )
    args = parser.parse_args()
    exe = console_script()
    py = sys.executable
    history, masters, key = _inputs()
    entry = ENTRY.replace(b"{key}", key.encode())
    main_entry = MAIN_ENTRY.replace(b"{key}", key.encode())
    head = history + b"\n" + entry
    main_side = history + b"\n" + main_entry
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp) / "files"
        d.mkdir()
        (d / "base.yaml").write_bytes(history)
        (d / "head.yaml").write_bytes(head)
        (d / "main.yaml").write_bytes(main_side)
        master_args: list[str] = []
        for m in MASTERS:
            (d / Path(m).name).write_bytes(masters[m])
            master_args += ["--master-config", Path(m).name, "--base-master-config", Path(m).name]
        repo = Path(tmp) / "repo"
        repo.mkdir()
        _git(repo, "init", "-q", "-b", "main")
        for rel, data in {"perf-changelog.yaml": history, **masters}.items():
            (repo / rel).parent.mkdir(parents=True, exist_ok=True)
            (repo / rel).write_bytes(data)
        _git(repo, "add", "-A")
        _git(repo, "commit", "-qm", "base")
        _git(repo, "checkout", "-qb", "pr")
        (repo / "perf-changelog.yaml").write_bytes(head)
        _git(repo, "commit", "-qam", "append")

        def fresh_work() -> None:
            (d / "work.yaml").write_bytes(head)

        driver = repo / ".git" / "driver"  # git hands the driver temporary files like these
        driver.mkdir()
        (driver / "base.yaml").write_bytes(history)
        (driver / "theirs.yaml").write_bytes(head)

        def fresh_driver() -> None:
            (driver / "ours.yaml").write_bytes(main_side)

        masters_read = [str(d / Path(m).name) for m in MASTERS]
        clean_py, clean_exe = clean_interpreter(Path(tmp) / "clean")
        interpreters = {"clean": (clean_py, clean_exe), "this venv": (py, exe)}
        chosen = [
            (where, *case)
            for where, (py_, exe_) in interpreters.items()
            for case in _cases(py_, exe_, d, repo, master_args, masters_read, fresh_work,
                               fresh_driver)
            if not args.only
            or case[0] == "python -c pass"
            or case[0].startswith(("read the files", "the libraries alone"))
            or any(o in case[0] for o in args.only)
        ]  # fmt: skip
        env = bytecode_env()
        # Round robin: every case once per round, so a load spike on this shared machine
        # lands on all of them alike instead of skewing one.
        samples: dict[tuple[str, str], list[float]] = {(c[0], c[1]): [] for c in chosen}
        for round_ in range(args.repeat + 1):
            for where, label, argv, cwd, expect, before, _ in chosen:
                if before is not None:
                    before()
                cpu = run_cpu(argv, cwd=cwd, expect=expect, env=env)
                if round_:  # the first round warms the page cache
                    samples[(where, label)].append(cpu)
        medians = {key: statistics.median(v) for key, v in samples.items()}
        finders = editable_finders()
        print(
            f"median CPU seconds of {args.repeat} interleaved runs each; 'clean' = a venv "
            "without the editable-install finder, as a wheel install starts"
            + (f" (this venv runs {len(finders)} editable finder(s) at every start)" if finders
               else " (this venv has no editable finder: both columns measure the same)")
        )  # fmt: skip
        print(
            f"{'command':<48} {'clean s':>7} {'x pass':>7} {'x read':>7}  "
            f"{'venv s':>7} {'x pass':>7}  target"
        )
        labels = list(dict.fromkeys(label for _, label in medians))
        floors = {
            where: (medians[(where, "python -c pass")],
                    medians[(where, "read the files (minimal script)")])
            for where in interpreters
        }  # fmt: skip
        for label in labels:
            clean = medians[("clean", label)]
            venv = medians[("this venv", label)]
            target = TARGETS.get(label)
            verdict = ""
            if target is not None:
                judged = [
                    f"{short} {'met' if cpu / floors[where][0] <= target else 'MISSED'}"
                    for short, where, cpu in (
                        ("clean", "clean", clean),
                        ("venv", "this venv", venv),
                    )
                ]
                verdict = f"<= {target}x pass: " + ", ".join(judged)
            print(
                f"{label:<48} {clean:>7.3f} {clean / floors['clean'][0]:>7.2f} "
                f"{clean / floors['clean'][1]:>7.2f}  {venv:>7.3f} "
                f"{venv / floors['this venv'][0]:>7.2f}  {verdict}"
            )
        if not args.only:
            client_imports(args.repeat, env, clean_py)


def _cases(
    py: str,
    exe: str,
    d: Path,
    repo: Path,
    master_args: list[str],
    masters_read: list[str],
    fresh_work: Callable[[], None],
    fresh_driver: Callable[[], None],
) -> list[tuple[str, list[str], Path, int | None, Callable[[], None] | None, str]]:
    cases: list[tuple[str, list[str], Path, int | None, Callable[[], None] | None, str]] = [
        ("python -c pass", [py, "-c", "pass"], d, 0, None, ""),
        ("read the files (minimal script)",
         [py, "-c", READ_FILES, str(d / "base.yaml"), str(d / "head.yaml"), *masters_read],
         d, 0, None, ""),
        # What every command imports before any of this package's own code runs: click for
        # the CLI and the stdlib modules all of them use (the YAML parser is no longer among
        # them: the usual changelog shapes are read without it). The ratios above this floor
        # are what the package itself can move.
        ("the libraries alone (click, json, subprocess...)", [py, "-c", LIBRARIES], d, 0, None,
         ""),
        ("--help", [exe, "--help"], d, 0, None, "pass"),
        ("validate", [exe, "validate", "head.yaml"], d, 0, None, "read"),
        ("check, file mode",
         [exe, "check", "--pr", "2999", "--base-file", "base.yaml", "--head-file",
          "head.yaml", *master_args], d, 0, None, "read"),
        ("check, git mode", [exe, "check", "--pr", "2999"], repo, 0, None, "read"),
        ("canonicalize, file mode",
         [exe, "canonicalize", "--pr", "2999", "--base-file", "base.yaml", "work.yaml"],
         d, 0, fresh_work, "read"),
        ("canonicalize --check, git mode",
         [exe, "canonicalize", "--pr", "2999", "--check"], repo, 1, None, "read"),
        ("resolve, file mode",
         [exe, "resolve", "--pr", "2999", "--base-file", "base.yaml", "--pr-file",
          "head.yaml", "--main-file", "main.yaml", "-o", "out.yaml"], d, 0, None, "read"),
        ("merge-driver",
         [exe, "merge-driver", "--pr-side", "theirs", ".git/driver/base.yaml",
          ".git/driver/ours.yaml", ".git/driver/theirs.yaml"],
         repo, 0, fresh_driver, "read"),
    ]  # fmt: skip
    cases.append(("lint", [exe, "lint"], repo, None, None, "read"))
    return cases


CLIENT_IMPORTS = {
    "import github (PyGithub)": ("github", "import github"),
    "import socket, ssl, json (the tool's client)": ("socket", "import socket, ssl, json"),
    "import http.client, json": ("http.client", "import http.client, json"),
    "import urllib.request, json": ("urllib.request", "import urllib.request, json"),
    "import git (GitPython)": ("git", "import git"),
}


def client_imports(repeat: int, env: dict[str, str], py: str) -> None:
    import importlib.util

    cases = {"python -c pass": "pass"}
    for label, (module, code) in CLIENT_IMPORTS.items():
        if importlib.util.find_spec(module) is None:
            print(f"({module} is not installed: `{label}` is skipped)")
        else:
            cases[label] = code
    samples: dict[str, list[float]] = {label: [] for label in cases}
    for round_ in range(repeat + 1):
        for label, code in cases.items():
            cpu = run_cpu([py, "-c", code], cwd=Path.cwd(), expect=0, env=env)
            if round_:
                samples[label].append(cpu)
    floor = statistics.median(samples["python -c pass"])
    print("import cost of the clients (median CPU seconds, above python -c pass)")
    for label, values in samples.items():
        if label != "python -c pass":
            print(f"{label:<48} +{statistics.median(values) - floor:.3f} s")


def bytecode_env() -> dict[str, str]:
    """The environment for the timed processes, with bytecode caching on.

    An installed package has .pyc files; with PYTHONDONTWRITEBYTECODE set (some shells and
    sandboxes set it) every run would compile the package from source, which costs more than
    the rest of a `check`. So the variable is dropped and the package compiled once up front.
    """
    import compileall

    import changelog_tools

    compileall.compile_dir(Path(changelog_tools.__file__).parent, quiet=1)
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


if __name__ == "__main__":
    from _header import print_header  # the date and machine of every figure below

    print_header(__file__)
    main()
