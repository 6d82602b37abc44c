"""Small hand-written ledgers and master configs shared by the `check` tests.

Line numbers in the tests are counted from these bytes, so keep them stable.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
from pathlib import Path

from changelog_tools.config import Config, defaults

REPO = "example-org/bench"
PULL = f"https://github.com/{REPO}/pull/"
MASTER_A = "configs/a-master.yaml"
MASTER_B = "configs/b-master.yaml"

# Entry 1 is lines 1-5, a blank line 6, entry 2 lines 7-11. An entry appended after one empty
# line starts at line 13, its first config key is on line 14.
BASE = (
    b"- config-keys:\n"
    b"    - alpha-fp8-gpu-a-vllm\n"
    b"  description:\n"
    b'    - "First sweep"\n'
    b"  pr-link: https://github.com/example-org/bench/pull/1\n"
    b"\n"
    b"- config-keys:\n"
    b"    - beta-fp4-gpu-b-*\n"
    b"  description:\n"
    b'    - "Second sweep"\n'
    b"  pr-link: https://github.com/example-org/bench/pull/2\n"
)

# alpha-fp8-gpu-a-vllm: lines 1-14 (scenarios on 5, fixed-seq-len 6, agentic-coding 12);
# alpha-fp8-gpu-a-sglang: lines 16-25.
MASTERS_A = (
    b"alpha-fp8-gpu-a-vllm:\n"
    b"  image: example/vllm:1.0\n"
    b"  model: example/alpha\n"
    b"  runner: gpu-a\n"
    b"  scenarios:\n"
    b"    fixed-seq-len:\n"
    b"    - isl: 1024\n"
    b"      osl: 1024\n"
    b"      search-space:\n"
    b"      - { tp: 4, conc-start: 4, conc-end: 64 }\n"
    b"      - { tp: 8, conc-list: [4, 8] }\n"
    b"    agentic-coding:\n"
    b"    - search-space:\n"
    b"      - { tp: 8, conc-list: [1, 4, 8] }\n"
    b"\n"
    b"alpha-fp8-gpu-a-sglang:\n"
    b"  image: example/sglang:1.0\n"
    b"  model: example/alpha\n"
    b"  runner: gpu-a\n"
    b"  scenarios:\n"
    b"    fixed-seq-len:\n"
    b"    - isl: 8192\n"
    b"      osl: 1024\n"
    b"      search-space:\n"
    b"      - { tp: 8, conc-start: 4, conc-end: 32 }\n"
)

# beta-fp4-gpu-b-trt: lines 1-10; beta-fp4-gpu-b-vllm: lines 12-21.
MASTERS_B = (
    b"beta-fp4-gpu-b-trt:\n"
    b"  image: example/trt:1.0\n"
    b"  model: example/beta\n"
    b"  runner: gpu-b\n"
    b"  scenarios:\n"
    b"    fixed-seq-len:\n"
    b"    - isl: 1024\n"
    b"      osl: 1024\n"
    b"      search-space:\n"
    b"      - { tp: 8, conc-start: 4, conc-end: 64 }\n"
    b"\n"
    b"beta-fp4-gpu-b-vllm:\n"
    b"  image: example/vllm:1.0\n"
    b"  model: example/beta\n"
    b"  runner: gpu-b\n"
    b"  scenarios:\n"
    b"    fixed-seq-len:\n"
    b"    - isl: 1024\n"
    b"      osl: 1024\n"
    b"      search-space:\n"
    b"      - { tp: 8, conc-start: 4, conc-end: 64 }\n"
)

MASTERS = {MASTER_A: MASTERS_A, MASTER_B: MASTERS_B}


def config(root: Path | None = None) -> Config:
    return dataclasses.replace(
        defaults(root or Path.cwd()), repository=REPO, master_configs=(MASTER_A, MASTER_B)
    )


def entry(
    *keys: str,
    link: str = "XXX",
    description: str = "A change",
    extra: str = "",
) -> bytes:
    """One entry's bytes: config keys, optional extra field lines, description, pr-link."""
    lines = ["- config-keys:", *(f"    - {k}" for k in keys)]
    if extra:
        lines.append(extra.rstrip("\n"))
    lines += ["  description:", f'    - "{description}"', f"  pr-link: {link}"]
    return ("\n".join(lines) + "\n").encode()


def appended(*entries: bytes, base: bytes = BASE) -> bytes:
    """``base`` plus ``entries``, each after exactly one empty line."""
    return b"\n".join([base, *entries])


CONFIG = f"repository: {REPO}\nmaster-configs:\n  - {MASTER_A}\n  - {MASTER_B}\n"


def init_repo(path: Path) -> Path:
    """A repository on `main` at ``path`` holding BASE, the master configs and CONFIG."""
    from tests.conftest import commit_files, git

    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    commit_files(
        path,
        {
            ".changelog-tools.yaml": CONFIG,
            "perf-changelog.yaml": BASE,
            MASTER_A: MASTERS_A,
            MASTER_B: MASTERS_B,
        },
        "initial",
    )
    return path


# -- running `check` and friends on these bytes through the installed console script ----------

KEY = "alpha-fp8-gpu-a-vllm"
# An entry appended to BASE starts on line 13; its description item is line 16, pr-link 17.
DESCRIPTION_LINE = 16
LINK_LINE = 17


def no_crash(proc: subprocess.CompletedProcess[str]) -> None:
    """Bad input is a diagnosed exit, never a traceback or an internal error (exit 70)."""
    text = proc.stdout + proc.stderr
    assert "Traceback" not in text and "internal error" not in text, text
    assert proc.returncode != 70


def project(tmp_path: Path, head: bytes, base: bytes = BASE) -> Path:
    """``tmp_path`` with CONFIG, ``base.yaml`` and ``head.yaml``."""
    (tmp_path / ".changelog-tools.yaml").write_text(CONFIG)
    (tmp_path / "base.yaml").write_bytes(base)
    (tmp_path / "head.yaml").write_bytes(head)
    return tmp_path


def check_json(tmp_path: Path, *mode: str) -> subprocess.CompletedProcess[str]:
    """`check` in file mode on a `project`, JSON output, asserted not to crash."""
    from tests.conftest import run_cli

    proc = run_cli(
        "check", "--base-file", "base.yaml", "--head-file", "head.yaml", "--no-config-keys",
        "--format", "json", *mode, cwd=tmp_path,
    )  # fmt: skip
    no_crash(proc)
    return proc


def error_lines(proc: subprocess.CompletedProcess[str]) -> list[tuple[str, int | None]]:
    """(code, line) of each error-severity diagnostic of a JSON report."""
    return [
        (d["code"], d["line"])
        for d in json.loads(proc.stdout)["diagnostics"]
        if d["severity"] == "error"
    ]


def check_files(tmp_path: Path, base: bytes, head: bytes) -> subprocess.CompletedProcess[str]:
    """`check` in file mode with JSON output, through the installed console script."""
    from tests.conftest import run_cli

    (tmp_path / "base.yaml").write_bytes(base)
    (tmp_path / "head.yaml").write_bytes(head)
    return run_cli(
        "check", "--base-file", "base.yaml", "--head-file", "head.yaml", "--no-config-keys",
        "--format", "json", cwd=tmp_path,
    )  # fmt: skip


def codes_and_lines(proc: subprocess.CompletedProcess[str]) -> list[tuple[str, int | None]]:
    """(code, line) of every diagnostic of a JSON report."""
    return [(d["code"], d["line"]) for d in json.loads(proc.stdout)["diagnostics"]]


def three_side_args(tmp_path: Path) -> list[str]:
    """The side options of `resolve` for three files written into ``tmp_path``."""
    sides = {
        "base.yaml": BASE,
        "pr.yaml": appended(entry(KEY)),
        "main.yaml": appended(entry("beta-fp4-gpu-b-trt", link=f"{PULL}5")),
    }
    for name, data in sides.items():
        (tmp_path / name).write_bytes(data)
    return [
        *("--base-file", str(tmp_path / "base.yaml")),
        *("--pr-file", str(tmp_path / "pr.yaml")),
        *("--main-file", str(tmp_path / "main.yaml")),
    ]


def commit_feature(repo: Path, data: bytes) -> None:
    """Branch `feature` off the current branch with ``data`` as the changelog."""
    from tests.conftest import commit_files, git

    git(repo, "checkout", "-q", "-b", "feature")
    commit_files(repo, {"perf-changelog.yaml": data}, "feature")
