"""ledger/links.py: how pr-link values are classified, through `check`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.checkdata import (
    KEY,
    LINK_LINE,
    PULL,
    appended,
    check_json,
    commit_feature,
    entry,
    error_lines,
    project,
)
from tests.conftest import git, inferencex_file, run_cli

# -- hostile input, pinned through the installed CLI -------------------------------------------


@pytest.mark.parametrize("digit", ["²", "٥", "５"])
def test_a_pr_link_with_a_unicode_digit_is_a_near_miss_on_main_not_pr_5_nor_a_crash(
    tmp_path: Path, digit: str
) -> None:
    project(tmp_path, appended(entry(KEY, link=f"{PULL}{digit}")))
    proc = check_json(tmp_path, "--main")
    assert proc.returncode == 1
    assert error_lines(proc) == [("CL203", LINK_LINE)]
    assert "is not a pull-request number" in proc.stdout


# -- hostile and odd inputs to the ledger commands ---------------------------------------------


def test_seed_004_names_both_pull_requests_on_the_real_changelog(tmp_path: Path) -> None:
    real = inferencex_file("perf-changelog.yaml")
    repo = tmp_path / "inferencex"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    shutil.copy(real, repo / "perf-changelog.yaml")
    shutil.copytree(real.parent / "configs", repo / "configs")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "history")
    history_lines = real.read_bytes().count(b"\n")
    added = entry("qwen3.5-fp8-mi355x-sglang-disagg", link=f"{PULL}2557").replace(
        b"example-org/bench", b"SemiAnalysisAI/InferenceX"
    )
    commit_feature(repo, appended(added, base=real.read_bytes()))
    proc = run_cli("check", "--pr", "2607", "--format", "github", cwd=repo)
    assert proc.returncode == 1, proc.stderr
    # One empty line, then the entry: its pr-link is the sixth line after the history.
    link_line = history_lines + 6
    assert proc.stdout.splitlines()[0] == (
        f"::error file=perf-changelog.yaml,line={link_line},col=3,title=CL201::entry 773: "
        "pr-link points at pull request #2557, but this is pull request #2607%0Awrite "
        "`https://github.com/SemiAnalysisAI/InferenceX/pull/2607` or `XXX` or "
        "`https://github.com/SemiAnalysisAI/InferenceX/pull/XXX`"
    )
