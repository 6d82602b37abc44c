"""The staleness rule on real git history: which swept configs main changed since a sweep."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from changelog_tools.config import load_config
from changelog_tools.gitrepo import open_repo
from changelog_tools.reuse.staleness import check_staleness
from tests.conftest import commit_files, git
from tests.mergeworld import EXAMPLE, entry

MASTER = "configs/gpu-a-master.yaml"
KEY = "llama70b-fp8-gpu-a-vllm"
# what `lint`'s config-script naming gives the key's fixed-seq-len scenario (runner gpu-a)
SCRIPT = "benchmarks/single_node/fixed_seq_len/llama70b_fp8_gpu-a_vllm.sh"
OTHER_SCRIPT = "benchmarks/single_node/fixed_seq_len/mixtral_fp4_gpu-a_sglang.sh"
LAUNCHER = "runners/launch_gpu-a-nv.sh"
OTHER_LAUNCHER = "runners/launch_gpu-b-nv.sh"
LIB = "benchmarks/benchmark_lib.sh"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "T")
    shutil.copytree(EXAMPLE, root, dirs_exist_ok=True)
    commit_files(
        root,
        {
            SCRIPT: "vllm serve llama\n",
            OTHER_SCRIPT: "sglang serve mixtral\n",
            LAUNCHER: "bash $SCRIPT\n",
            OTHER_LAUNCHER: "bash $SCRIPT\n",
            LIB: "run_benchmark_serving() { :; }\n",
        },
        "fork point",
    )
    # the PR: one entry for KEY, swept at this commit
    git(root, "checkout", "-q", "-b", "pr")
    text = (root / "perf-changelog.yaml").read_text()
    commit_files(root, {"perf-changelog.yaml": text + "\n" + entry("Tune", key=KEY)}, "PR")
    git(root, "checkout", "-q", "main")
    return root


def _main(repo: Path, files: dict[str, str], message: str = "main moves") -> str:
    return commit_files(repo, files, message)


def _check(repo: Path) -> tuple[str, ...]:
    config = load_config(start=repo)
    report = check_staleness(open_repo(repo), source="pr", base="main", config=config)
    assert report.keys == (KEY,)
    return report.items()


def test_main_changing_the_swept_entry_is_stale_and_names_the_commit(repo: Path) -> None:
    text = (repo / MASTER).read_text()
    sha = _main(repo, {MASTER: text.replace("example/vllm:0.11.0", "example/vllm:0.12.0")})
    _main(repo, {"README.md": "later\n"}, "an unrelated later commit")
    assert _check(repo) == (f"{KEY}: {MASTER} (main {sha[:12]})",)


@pytest.mark.parametrize(
    ("path", "kind"), [(SCRIPT, "script"), (LAUNCHER, "launcher"), (LIB, "shared")]
)
def test_main_changing_what_the_key_runs_is_stale(repo: Path, path: str, kind: str) -> None:
    sha = _main(repo, {path: (repo / path).read_text() + "echo changed\n"})
    assert _check(repo) == (f"{KEY}: {path} (main {sha[:12]})",)
    report = check_staleness(
        open_repo(repo), source="pr", base="main", config=load_config(start=repo)
    )
    assert report.stale[0].what == kind


def test_main_deleting_the_script_the_key_ran_is_stale(repo: Path) -> None:
    git(repo, "rm", "-q", SCRIPT)
    git(repo, "commit", "-q", "-m", "drop the script")
    sha = git(repo, "rev-parse", "HEAD")
    assert _check(repo) == (f"{KEY}: {SCRIPT} (main {sha[:12]})",)


@pytest.mark.parametrize(
    "files",
    [
        {OTHER_SCRIPT: "sglang serve mixtral --new\n"},
        {OTHER_LAUNCHER: "bash $SCRIPT --other\n"},
        {"README.md": "docs only\n"},
    ],
)
def test_main_changing_what_other_keys_run_is_not_stale(repo: Path, files: dict[str, str]) -> None:
    _main(repo, files)
    assert _check(repo) == ()


def test_an_unrelated_key_or_a_comment_in_the_swept_entry_is_not_stale(repo: Path) -> None:
    text = (repo / MASTER).read_text()
    text = text.replace("example/sglang:0.5.5", "example/sglang:0.5.6")
    text = text.replace(f"{KEY}:\n", f"{KEY}:  # tuned by the PR in flight\n")
    _main(repo, {MASTER: text})
    assert _check(repo) == ()


def test_main_not_moved_since_the_source_is_never_stale(repo: Path) -> None:
    config = load_config(start=repo)
    git(repo, "merge", "-q", "--no-edit", "pr")
    report = check_staleness(open_repo(repo), source="pr", base="pr", config=config)
    assert report.ok and report.fork_point == report.base
