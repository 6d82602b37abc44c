"""Where `resolve` reads a conflict from (ledger/resolvefrom.py): three files, or git's index."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from changelog_tools.config import load_config
from changelog_tools.errors import UsageError
from changelog_tools.ledger.conflictrequest import ConflictRequest
from changelog_tools.ledger.guard import Refusal
from changelog_tools.ledger.resolvefrom import from_files, from_index
from tests.checkdata import BASE, KEY, PULL, appended, config, entry, init_repo
from tests.conftest import commit_files, git

PR_ENTRY = entry(KEY)
MAIN_ENTRY = entry("beta-fp4-gpu-b-trt", link=f"{PULL}5")
CHANGELOG = "perf-changelog.yaml"


def _sides(tmp_path: Path, base: bytes = BASE) -> tuple[Path, Path, Path]:
    paths = (tmp_path / "base.yaml", tmp_path / "pr.yaml", tmp_path / "main.yaml")
    for path, data in zip(paths, (base, appended(PR_ENTRY), appended(MAIN_ENTRY)), strict=True):
        path.write_bytes(data)
    return paths


def test_from_files_keeps_main_then_appends_the_pr_entry_with_its_link(tmp_path: Path) -> None:
    resolved = from_files(*_sides(tmp_path), config=config(tmp_path), shown="log.yaml", pr=12)
    assert resolved.shown == "log.yaml"
    assert resolved.sides is None  # no git: nobody had to say which side is the PR
    expected = appended(MAIN_ENTRY, entry(KEY, link=f"{PULL}12"))
    assert resolved.resolution.data == expected


def test_from_files_without_a_pr_number_keeps_the_placeholder(tmp_path: Path) -> None:
    resolved = from_files(*_sides(tmp_path), config=config(tmp_path), shown="log.yaml")
    assert resolved.resolution.data == appended(MAIN_ENTRY, PR_ENTRY)


def test_from_files_refuses_when_the_pr_rewrote_history(tmp_path: Path) -> None:
    base, pr_file, main = _sides(tmp_path)
    pr_file.write_bytes(appended(PR_ENTRY).replace(b"First sweep", b"Rewritten"))
    with pytest.raises(Refusal) as refusal:
        from_files(base, pr_file, main, config=config(tmp_path), shown="log.yaml")
    assert refusal.value.diagnostics[0].path == "log.yaml (PR side)"  # the name it was given


def _conflicted(tmp_path: Path) -> Path:
    """A repository on branch `feature` in the middle of a conflicted `git merge main`."""
    repo = init_repo(tmp_path / "repo")
    git(repo, "checkout", "-q", "-b", "feature")
    commit_files(repo, {CHANGELOG: appended(PR_ENTRY)}, "pr entry")
    git(repo, "checkout", "-q", "main")
    commit_files(repo, {CHANGELOG: appended(MAIN_ENTRY)}, "main entry")
    git(repo, "checkout", "-q", "feature")
    merge = subprocess.run(["git", "merge", "--no-edit", "main"], cwd=repo, capture_output=True)
    assert merge.returncode == 1  # both sides appended: a conflict
    return repo


def test_from_index_resolves_the_conflicted_file_and_says_which_side_was_the_pr(
    tmp_path: Path,
) -> None:
    repo = _conflicted(tmp_path)
    cfg = load_config(repo / ".changelog-tools.yaml")
    resolved = from_index(repo, repo / CHANGELOG, ConflictRequest(cfg, pr=7, add=True))
    assert resolved.shown == CHANGELOG
    assert resolved.sides is not None and resolved.sides.pr_side == "ours"
    expected = appended(MAIN_ENTRY, entry(KEY, link=f"{PULL}7"))
    assert resolved.resolution.data == expected
    assert (repo / CHANGELOG).read_bytes() == expected  # written over the conflict...
    assert git(repo, "diff", "--name-only", "--diff-filter=U") == ""  # ...and staged


def test_from_index_without_write_leaves_the_conflicted_file_alone(tmp_path: Path) -> None:
    repo = _conflicted(tmp_path)
    before = (repo / CHANGELOG).read_bytes()
    cfg = load_config(repo / ".changelog-tools.yaml")
    resolved = from_index(repo, repo / CHANGELOG, ConflictRequest(cfg, write=False))
    assert resolved.resolution.data == appended(MAIN_ENTRY, PR_ENTRY)
    assert (repo / CHANGELOG).read_bytes() == before
    assert git(repo, "diff", "--name-only", "--diff-filter=U") == CHANGELOG


def test_from_index_refuses_a_file_outside_the_repository(tmp_path: Path) -> None:
    repo = _conflicted(tmp_path)
    outside = tmp_path / "elsewhere.yaml"
    cfg = load_config(repo / ".changelog-tools.yaml")
    with pytest.raises(UsageError, match="is not inside the repository"):
        from_index(repo, outside, ConflictRequest(cfg))
