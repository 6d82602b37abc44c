"""`changelog-tools keys`: config keys resolved as `check` resolves them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.checkdata import MASTER_A, MASTER_B, MASTERS_A, MASTERS_B
from tests.conftest import commit_files, git, run_cli

CONFIG = f"repository: example-org/bench\nmaster-configs:\n  - {MASTER_A}\n  - {MASTER_B}\n"


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit_files(
        repo, {".changelog-tools.yaml": CONFIG, MASTER_A: MASTERS_A, MASTER_B: MASTERS_B}, "init"
    )
    return repo


def test_a_wildcard_lists_its_matches_with_file_and_line(tmp_path: Path) -> None:
    proc = run_cli("keys", "*-vllm", cwd=_repo(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (
        f"*-vllm\talpha-fp8-gpu-a-vllm\t{MASTER_A}:1\n*-vllm\tbeta-fp4-gpu-b-vllm\t{MASTER_B}:12\n"
    )


def test_an_unknown_key_exits_1_with_a_suggestion(tmp_path: Path) -> None:
    proc = run_cli("keys", "beta-fp4-gpu-b-tr", cwd=_repo(tmp_path))
    assert proc.returncode == 1
    assert "CL301" in proc.stdout and "did you mean `beta-fp4-gpu-b-trt`" in proc.stdout


def test_keys_at_a_revision_ignore_the_working_tree(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / MASTER_A).write_text("renamed:\n  image: x\n")
    assert run_cli("keys", "alpha-fp8-gpu-a-vllm", cwd=repo).returncode == 1
    proc = run_cli("keys", "--ref", "HEAD", "alpha-fp8-gpu-a-vllm", "--format", "json", cwd=repo)
    assert proc.returncode == 0, proc.stdout
    (row,) = json.loads(proc.stdout)["patterns"]
    assert row["matches"] == [{"key": "alpha-fp8-gpu-a-vllm", "path": MASTER_A, "line": 1}]


def test_an_unknown_revision_is_a_usage_error(tmp_path: Path) -> None:
    assert run_cli("keys", "--ref", "nope", cwd=_repo(tmp_path)).returncode == 2
