"""Benchmark: a CI job's time to verdict, the shipped action's job beside InferenceX's own.

Run: python bench/bench_ci_job.py [--repeat N] [--action DIR] [--cases LIST]
         [--reference DIR] [--reference-python PY]

What a pull request's author waits for is the whole job, from its first step to the verdict,
and on a fresh runner most of that is installing. Both jobs run here on the same repository (the
real InferenceX changelog and master configs on `main`, a PR branch appending one entry; the
synthetic stand-ins when absent), round by round, interleaved:

- ours: the `Check the changelog (annotations)` step of .github/workflows/check-changelog.yml,
  the composite action's `run:` steps in order as a runner runs them (tests/actionrunner.py:
  RUNNER_TEMP, GITHUB_ACTION_PATH, GITHUB_OUTPUT, the inputs' defaults from action.yml), from a
  clean copy of the action (the checkout's tracked files, as `uses:` downloads them). Cases:
  * ``pip``: ``installer: pip``, ``cache: false``: a venv with pip and `pip install` of the
    action's checkout (a build in an isolated environment), as the action did before uv.
  * ``uv-cold``: the defaults on a fresh runner: setup-uv (stood in for by downloading the
    same uv release's wheel by its URL and unpacking the binary: the download counts), no cache
    entry yet, `uv pip install` of the checkout, then `check`; the cache is saved after the
    verdict (a zstd or gzip tar of the venv, not counted).
  * ``uv-cached``: the defaults when an earlier run saved the environment: the restore (the
    tar extracted: the download is not counted), then `check`.
  The medians of the action's own steps are printed too (`step install`: the venv and the
  install, then `changelog-tools --version`; `step run`: the command, on a fresh environment its
  first run, which compiles the bytecode of every module it imports).
  Every case starts from a fresh RUNNER_TEMP and empty pip and uv caches (PIP_CACHE_DIR,
  UV_CACHE_DIR), so nothing of an earlier round helps.
- the reference: InferenceX's check-changelog job, `pip install pydantic pyyaml` into the
  runner's Python, then its gate. A fresh venv with pip stands in for the runner's Python (made
  before the clock starts, as setup-python's Python is there before the job's steps); its gate
  runs as bench_check.py runs it (validate_perf_changelog.py's checks of base and head, short of
  the matrix generation that the gate's command line goes on to: a lower bound of its time).

The action's `uses:` steps other than those above are not run (setup-python: this Python stands
in). Both sides read the package index the same way (this machine's pip configuration; uv is
given pip's find-links when set), so the network is the same for both. The ratio compares wall
times; the installed size is what the install added to the venv (our venv holds no pip).
To time an older action (before a change), give ``--action`` a directory holding that commit's
files (``git archive COMMIT | tar -x -C DIR``); or give it to ``--before`` to run its cases too
(``before:pip``, ``before:uv-cold``, ``before:uv-cached``), in the same rounds, paired round by
round with this one's.
"""

from __future__ import annotations

import argparse
import datetime
import functools
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from _util import INFERENCEX, REPO_ROOT, reference_arguments
from bench_check import CHANGELOG, NEW_ENTRY, REFERENCE_LOADER, REFERENCE_SCRIPT
from bench_check import _inputs as check_inputs
from bench_check import _repo as check_repo

from changelog_tools import yamlload
from tests.actionrunner import find_step, load_steps, run_step

WORKFLOW = REPO_ROOT / ".github/workflows/check-changelog.yml"
STEP = "Check the changelog (annotations)"
PR = "2999"
CASES = ("pip", "uv-cold", "uv-cached", "reference")
# The runner's Python: the interpreter this venv was made from (python3 on the job's PATH).
RUNNER_PYTHON = Path(getattr(sys, "_base_executable", sys.executable))


def _uv_release(action: Path) -> str:
    """The uv version the action's setup-uv step pins (the stand-in fetches the same one)."""
    for line in (action / "action.yml").read_text().splitlines():
        stripped = line.strip()
        if stripped.startswith("version:") and stripped.split(":", 1)[1].strip().strip('"')[:1]:
            value = stripped.split(":", 1)[1].strip().strip('"')
            if value[0].isdigit():
                return value
    return "0.12.4"


def _copy_action(source: Path, target: Path) -> Path:
    """The tracked files of ``source`` (a git checkout) or all of it (an exported tree)."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=source, capture_output=True, check=False)
    if listed.returncode == 0 and listed.stdout:
        for name in listed.stdout.decode().split("\0"):
            if not name:
                continue
            src, dst = source / name, target / name
            dst.parent.mkdir(parents=True, exist_ok=True)
            if src.is_symlink():
                dst.symlink_to(os.readlink(src))
            elif src.is_file():
                shutil.copy2(src, dst)
    else:
        shutil.copytree(source, target, symlinks=True)
    return target


@functools.cache
def _pip_find_links() -> str | None:
    done = subprocess.run(
        [sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True, check=False
    )
    for line in done.stdout.splitlines():
        key, _, value = line.partition("=")
        if key.endswith("find-links"):
            return value.strip().strip("'")
    return os.environ.get("PIP_FIND_LINKS")


def _site_kib(venv: Path) -> int:
    total = 0
    for site in venv.glob("lib/python3*/site-packages"):
        for path in site.rglob("*"):
            if path.is_file() and not path.is_symlink():
                total += path.stat().st_size
    return total // 1024


def _archive_tool() -> tuple[str, str]:
    """(tar compression flag, suffix): zstd as actions/cache uses when present, else gzip."""
    return ("--zstd", "tar.zst") if shutil.which("zstd") else ("-z", "tar.gz")


class Job:
    """One round of one case of our job: fresh RUNNER_TEMP and caches under ``scratch``."""

    def __init__(self, scratch: Path, action: Path, repo: Path) -> None:
        self.scratch = scratch
        self.action = action
        self.repo = repo
        self.saved: Path | None = None  # the cache entry the cold uv run saved
        self.parts: dict[str, list[float]] = {}  # stand-in name -> seconds, per run
        self._uv_url: str | None = None

    def uv_url(self) -> str:
        """Where the package index serves the pinned uv release's wheel for this machine."""
        if self._uv_url is None:
            version = _uv_release(self.action)
            report = self.scratch / "uv-report.json"
            # pip's own resolution (no install) names the file it would fetch for this machine
            done = subprocess.run(
                [sys.executable, "-m", "pip", "install", "--quiet", "--dry-run", "--no-deps",
                 "--ignore-installed", "--report", str(report), f"uv=={version}"],
                capture_output=True, text=True, check=False,
            )  # fmt: skip
            if done.returncode != 0:
                raise SystemExit(f"cannot find uv {version} on the package index:\n{done.stderr}")
            self._uv_url = json.loads(report.read_text())["install"][0]["download_info"]["url"]
        return self._uv_url

    def env(self, temp: Path, uv_bin: Path | None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.pop("VIRTUAL_ENV", None)
        env.update(
            PIP_CACHE_DIR=str(temp / "pip-cache"),
            UV_CACHE_DIR=str(temp / "uv-cache"),
            # the runner's PATH: python3 is the runner's Python, uv only once setup-uv ran
            PATH=os.pathsep.join(
                [*([str(uv_bin)] if uv_bin else []), str(RUNNER_PYTHON.parent), "/usr/bin", "/bin"]
            ),
        )
        links = _pip_find_links()
        if links:
            env["UV_FIND_LINKS"] = links
        return env

    def run(self, case: str, round_: int) -> tuple[float, int, str]:
        """(wall seconds, KiB the install added, how it installed)."""
        temp = self.scratch / f"{case}-{round_}"
        temp.mkdir()
        # One path for every run, as on a hosted runner: a venv is not relocatable, and the
        # cache restores it where it was saved from.
        runner_temp = self.scratch / "runner-temp"
        shutil.rmtree(runner_temp, ignore_errors=True)
        runner_temp.mkdir()
        uv_bin = temp / "uv-bin"
        uv_bin.mkdir()
        with_ = {"command": "check", "pr": PR, "format": "github"}
        declared = yamlload.load((self.action / "action.yml").read_text()).value["inputs"]
        if case == "pip" and "installer" in declared:  # an older action knows only pip
            with_.update(installer="pip", cache="false")
        step = {**find_step(load_steps(WORKFLOW, "check-changelog"), STEP), "with": with_}
        step["uses"] = "./"
        archive_flag, suffix = _archive_tool()

        def setup_uv(_with: Mapping[str, str], steps: Mapping[str, Any]) -> dict[str, str]:
            # the step's `if:`: uv is the installer and nothing is installed or restored yet
            if (
                case == "pip"
                or steps.get("restore", {}).get("outputs", {}).get("cache-hit") == "true"
            ):
                return {}
            # setup-uv downloads the pinned release (a tarball from a mirror, checksum-checked)
            # and puts it on PATH: download the same release's wheel by its URL (looked up
            # before the clock started) and unpack its binary.
            (temp / "uv-download").mkdir()
            url = self.uv_url()
            with urllib.request.urlopen(url, timeout=120) as response:
                (temp / "uv-download" / url.rsplit("/", 1)[-1]).write_bytes(response.read())
            wheel = next((temp / "uv-download").glob("uv-*.whl"))
            with zipfile.ZipFile(wheel) as archive:
                member = next(n for n in archive.namelist() if n.endswith("/scripts/uv"))
                (uv_bin / "uv").write_bytes(archive.read(member))
            (uv_bin / "uv").chmod(0o755)
            return {}

        def restore(with_: Mapping[str, str], steps: Mapping[str, Any]) -> dict[str, str]:
            if case != "uv-cached" or self.saved is None:
                return {"cache-hit": "false"}
            subprocess.run(["tar", archive_flag, "-xf", str(self.saved), "-P"], check=True)
            return {"cache-hit": "true"}

        verdict: list[float] = []

        def save(with_: Mapping[str, str], steps: Mapping[str, Any]) -> dict[str, str]:
            verdict.append(time.perf_counter())  # the command has exited: the verdict is in
            if steps.get("install", {}).get("outputs", {}).get("fresh") != "true":
                return {}
            if not with_.get("key"):
                return {}
            entry = self.scratch / f"cache-entry.{suffix}"
            subprocess.run(
                ["tar", archive_flag, "-cf", str(entry), "-P", with_["path"]], check=True
            )
            if case == "uv-cold":
                self.saved = entry
            return {}

        def timed(name: str, stand_in: Any) -> Any:
            def run(with_: Mapping[str, str], steps: Mapping[str, Any]) -> dict[str, str]:
                began = time.perf_counter()
                try:
                    out: dict[str, str] = stand_in(with_, steps)
                    return out
                finally:
                    self.parts.setdefault(f"{case}: {name}", []).append(time.perf_counter() - began)

            return run

        def venv_kib() -> int:
            return _site_kib(runner_temp / "changelog-tools-venv")

        # The job's environment is the runner's, there before the job starts: building it here
        # asks pip for its configuration (a Python start), which no runner step does.
        env = self.env(temp, uv_bin)
        started = time.perf_counter()
        result = run_step(
            step,
            cwd=self.repo,
            context={},
            env=env,
            install=True,
            runner_temp=runner_temp,
            action_path=self.action,
            stand_ins={
                "astral-sh/setup-uv": timed("setup-uv", setup_uv),
                "actions/cache/restore": timed("cache restore", restore),
                "actions/cache/save": timed("cache save", save),
            },
        )
        elapsed = (verdict[0] if verdict else time.perf_counter()) - started
        for inner, seconds in result.seconds.items():
            self.parts.setdefault(f"{case}: step {inner}", []).append(seconds)
        if result.returncode != 0:
            raise SystemExit(f"{case}: the job failed (exit {result.returncode}):\n"
                             f"{result.stdout[-2000:]}{result.stderr[-4000:]}")  # fmt: skip
        how = (
            "restored"
            if "restored from the cache" in result.stderr
            else ("uv" if (uv_bin / "uv").exists() and case != "pip" else "pip")
        )
        return elapsed, venv_kib(), how


def reference_round(scratch: Path, repo: Path, directory: Path, round_: int) -> tuple[float, int]:
    """InferenceX's job: `pip install pydantic pyyaml` into the runner's Python, then its gate."""
    temp = scratch / f"reference-{round_}"
    temp.mkdir()
    runner_python = temp / "runner-python"
    subprocess.run([str(RUNNER_PYTHON), "-m", "venv", str(runner_python)], check=True)
    before = _site_kib(runner_python)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.pop("VIRTUAL_ENV", None)
    env["PIP_CACHE_DIR"] = str(temp / "pip-cache")
    python = str(runner_python / "bin" / "python")
    gate_env = {**env, "PYTHONPATH": os.pathsep.join([str(directory), str(INFERENCEX / "utils")])}
    started = time.perf_counter()
    subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "pydantic", "pyyaml"],
        check=True, env=env, capture_output=True,
    )  # fmt: skip
    gate = subprocess.run(
        [python, "-c", REFERENCE_LOADER, "main", "pr", CHANGELOG, PR],
        cwd=repo, env=gate_env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    elapsed = time.perf_counter() - started
    if gate.returncode != 0:
        raise SystemExit(f"the reference gate failed:\n{gate.stdout}{gate.stderr[-3000:]}")
    return elapsed, _site_kib(runner_python) - before


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=2, help="rounds (median)")
    parser.add_argument(
        "--action", type=Path, default=REPO_ROOT, help="the action's files (default: this checkout)"
    )
    parser.add_argument(
        "--cases", default=",".join(CASES), help=f"which of {', '.join(CASES)} (comma-separated)"
    )
    parser.add_argument(
        "--before",
        type=Path,
        help="an older action's files: its cases run too, in the same rounds",
    )
    reference_arguments(parser, needs="pip")
    args = parser.parse_args()
    cases = [c for c in args.cases.split(",") if c]
    unknown = set(cases) - set(CASES)
    if unknown:
        parser.error(f"unknown cases: {sorted(unknown)}")
    if "uv-cached" in cases and "uv-cold" not in cases:
        parser.error("uv-cached restores what uv-cold saved: run both")
    # The reference job installs pydantic and PyYAML itself: only its scripts must be there.
    missing = [
        str(p)
        for p in (args.reference / REFERENCE_SCRIPT, INFERENCEX / "utils" / "matrix_logic")
        if not p.exists()
    ]
    if "reference" in cases and missing:
        print(f"reference job skipped: not found: {', '.join(missing)} (give --reference DIR)")
        cases.remove("reference")
    print(
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; {os.cpu_count()}-core "
        f"{platform.machine()} {platform.system()}, Python {platform.python_version()}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        history, masters, key = check_inputs(scratch)
        repo = check_repo(
            scratch / "repo",
            history,
            masters,
            {CHANGELOG: history + b"\n" + NEW_ENTRY.replace(b"{key}", key.encode())},
        )
        action = _copy_action(args.action.resolve(), scratch / "action")
        job = Job(scratch, action, repo)
        jobs = {"": job}
        if args.before:
            (scratch / "before").mkdir()
            before = _copy_action(args.before.resolve(), scratch / "before" / "action")
            jobs["before:"] = Job(scratch / "before", before, repo)
            cases += [f"before:{c}" for c in ("pip", "uv-cold", "uv-cached") if c in cases]
        if "uv-cold" in cases:
            print(f"setup-uv stands in as a download of {job.uv_url()}")
            for each in jobs.values():
                each.uv_url()  # looked up before the clock starts
        wall: dict[str, list[float]] = {c: [] for c in cases}
        size: dict[str, int] = {}
        how: dict[str, str] = {}
        for round_ in range(args.repeat):
            for case in cases:
                if case == "reference":
                    elapsed, kib = reference_round(scratch, repo, args.reference, round_)
                    how[case] = "pip into the runner's Python"
                else:
                    prefix, _, own = case.rpartition(":")
                    elapsed, kib, how[case] = jobs[prefix + ":" if prefix else ""].run(own, round_)
                wall[case].append(elapsed)
                size[case] = kib
                print(f"  round {round_ + 1}: {case:<10} {elapsed:6.2f} s", flush=True)
        print(f"time to verdict, fresh caches every round; medians of {args.repeat}:")
        med = {c: statistics.median(wall[c]) for c in cases}
        for case in cases:
            print(
                f"  {case:<10} {med[case]:6.2f} s   (min {min(wall[case]):.2f}, max "
                f"{max(wall[case]):.2f})   installed {size[case] / 1024:5.1f} MiB   [{how[case]}]"
            )
        for prefix, each in jobs.items():
            for name, seconds in sorted(each.parts.items()):
                if max(seconds) >= 0.01:
                    print(f"    of which {prefix}{name}: {statistics.median(seconds):.2f} s")
        if "reference" in med:
            for case in cases:
                if case != "reference":
                    # the ratio of each round's pair, then their median (the load moves both)
                    paired = [a / b for a, b in zip(wall[case], wall["reference"], strict=True)]
                    print(
                        f"  {case} / reference: {med[case] / med['reference']:.2f} (medians); "
                        f"round by round {', '.join(f'{r:.2f}' for r in paired)}, "
                        f"median {statistics.median(paired):.2f}"
                    )
        for case in cases:
            if case.startswith("before:") and case.partition(":")[2] in wall:
                after = case.partition(":")[2]
                paired = [a / b for a, b in zip(wall[after], wall[case], strict=True)]
                print(
                    f"  {after} / {case}: round by round "
                    f"{', '.join(f'{r:.2f}' for r in paired)}, median {statistics.median(paired):.2f}"
                )


if __name__ == "__main__":
    from _header import print_header  # the date and machine of every figure below

    print_header(__file__)
    main()
