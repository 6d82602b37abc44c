"""`check` (ledger/check.py): the configuration it judges by, where findings point, git mode."""

from __future__ import annotations

import json
import os
from pathlib import Path

from changelog_tools import gitrepo
from tests.checkdata import (
    BASE,
    CONFIG,
    KEY,
    MASTER_A,
    MASTER_B,
    MASTERS_A,
    MASTERS_B,
    PULL,
    REPO,
    appended,
    check_files,
    check_json,
    codes_and_lines,
    entry,
    error_lines,
    project,
)
from tests.conftest import commit_files, git, run_cli

# -- check and lint judge by the configuration the base revision uses --------------------------


def _history_edit(repo: Path) -> bytes:
    text = (repo / "perf-changelog.yaml").read_bytes()
    return text.replace(b"description:\n", b"description:\n    - rewritten history\n", 1)


def _pyproject(config: str) -> str:
    # the same options as CONFIG, as a [tool.changelog-tools] table
    return (
        "[tool.changelog-tools]\n"
        f'repository = "{REPO}"\n'
        f'master-configs = ["{MASTER_A}", "{MASTER_B}"]\n' + config
    )


def test_a_yaml_config_added_by_the_pr_does_not_hide_the_base_pyproject(tmp_path: Path) -> None:
    # The base configures the tool in pyproject.toml; the PR adds .changelog-tools.yaml (which
    # the search prefers) pointing `changelog` elsewhere. At the base the search finds
    # pyproject.toml, so its options decide; reading only the head's file name at the base found
    # nothing and fell back to the defaults, i.e. the PR's own choice of file loosened check.
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit_files(
        repo,
        {
            "pyproject.toml": _pyproject('changelog = "perf-changelog.yaml"\n'),
            "perf-changelog.yaml": BASE,
            MASTER_A: MASTERS_A,
            MASTER_B: MASTERS_B,
        },
        "initial",
    )
    git(repo, "checkout", "-q", "-b", "pr")
    commit_files(
        repo,
        {
            "perf-changelog.yaml": _history_edit(repo),
            "LICENSE": "x\n",
            ".changelog-tools.yaml": CONFIG + "changelog: LICENSE\n",
        },
        "edit history, add a config",
    )
    proc = run_cli("check", "--pr", "5", "--format", "json", cwd=repo)
    codes = {d["code"]: d for d in json.loads(proc.stdout)["diagnostics"]}
    assert proc.returncode == 1, proc.stdout
    assert "CL102" in codes, codes
    # only `changelog` differs from the base's pyproject.toml; `master-configs` and
    # `repository` were silently reset to their defaults (coverage rules off)
    assert "sets changelog differently from pyproject.toml" in codes["CL116"]["message"]


def test_a_symlinked_config_is_read_through_its_link_at_the_base(tmp_path: Path) -> None:
    # A legitimate setup: .changelog-tools.yaml is a symlink to a shared file. At the base the
    # tree entry is the link (its blob is the target's name); reading that as YAML made every
    # check a configuration error.
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit_files(
        repo,
        {
            "tools/changelog.yaml": CONFIG,
            "perf-changelog.yaml": BASE,
            MASTER_A: MASTERS_A,
            MASTER_B: MASTERS_B,
        },
        "initial",
    )
    os.symlink("tools/changelog.yaml", repo / ".changelog-tools.yaml")
    git(repo, "add", ".changelog-tools.yaml")
    git(repo, "commit", "-q", "-m", "link")
    git(repo, "checkout", "-q", "-b", "pr")
    commit_files(repo, {"notes.txt": "x\n"}, "other")
    proc = run_cli("check", "--pr", "5", "--format", "json", cwd=repo)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    assert "CL116" not in {d["code"] for d in report["diagnostics"]}, report


# -- hostile input, pinned through the installed CLI -------------------------------------------


def test_a_history_link_corrected_to_a_long_run_of_spaces_is_judged_at_its_line(
    tmp_path: Path,
) -> None:
    # Quadratic before: 100,000 spaces took `check` 47 s. The test asserts the outcome only.
    base = BASE.replace(f"{PULL}2".encode(), b"XXX")
    head = BASE.replace(f"{PULL}2".encode(), f"{PULL}2{' ' * 100_000}x".encode())
    project(tmp_path, head, base=base)
    proc = check_json(tmp_path, "--pr", "2")
    assert proc.returncode == 1
    assert error_lines(proc) == [("CL205", 11)]  # a bad correction, at the history line


# -- hostile and odd inputs to the ledger commands ---------------------------------------------


def test_a_changed_description_item_is_reported_on_its_own_line(tmp_path: Path) -> None:
    head = BASE.replace(b'"First sweep"', b'"First sweep, edited"')
    proc = check_files(tmp_path, BASE, head)
    found = codes_and_lines(proc)
    assert found == [("CL102", 4)]  # the item, not the `description:` key on line 3


def test_a_config_key_added_to_history_is_reported_on_the_new_key(tmp_path: Path) -> None:
    head = BASE.replace(b"    - beta-fp4-gpu-b-*\n", b"    - beta-fp4-gpu-b-*\n    - extra\n")
    proc = check_files(tmp_path, BASE, head)
    found = codes_and_lines(proc)
    assert found == [("CL102", 9)]


def test_deleting_an_entry_and_appending_one_is_reported_as_a_deletion(tmp_path: Path) -> None:
    _first, second = BASE.split(b"\n\n")
    proc = check_files(tmp_path, BASE, second + b"\n" + entry(KEY))  # same entry count
    found = codes_and_lines(proc)
    assert found == [("CL101", 1)]


def test_a_deleted_last_entry_is_reported_on_the_files_last_line_not_after_it(
    tmp_path: Path,
) -> None:
    first = BASE[: BASE.index(b"\n- config-keys:") + 1].rstrip(b"\n") + b"\n"  # lines 1-5
    proc = check_files(tmp_path, BASE, first)
    found = codes_and_lines(proc)
    assert found == [("CL101", 5)]


def test_a_directory_is_not_a_changelog_in_git_mode(repo: Path) -> None:
    proc = run_cli("check", "--changelog-file", "configs", cwd=repo)
    assert proc.returncode == 2, proc.stdout
    assert "configs does not exist at HEAD" in proc.stderr
    assert gitrepo.open_repo(repo).read_blob("HEAD", "configs") is None


def test_a_repository_without_commits_says_so(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    proc = run_cli("check", cwd=tmp_path)
    assert proc.returncode == 3
    assert "has no commits yet" in proc.stderr
    assert "fetch" not in proc.stderr


def test_a_push_of_a_root_commit_checks_every_entry_as_new(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    root = commit_files(
        tmp_path,
        {
            ".changelog-tools.yaml": CONFIG,
            "perf-changelog.yaml": appended(entry(KEY)),  # a placeholder on main
            MASTER_A: MASTERS_A,
            MASTER_B: MASTERS_B,
        },
        "root",
    )
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"ref": "refs/heads/main", "before": "0" * 40, "after": root}))
    env = {"GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": str(event)}
    proc = run_cli("check", "--format", "json", cwd=tmp_path, env=env)
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    assert [(d["code"], d["line"]) for d in doc["diagnostics"]] == [("CL202", 17)]
    assert "root commit" in proc.stderr


def test_a_pull_request_deleting_the_changelog_fails_the_rule_not_the_usage(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "feature")
    git(repo, "rm", "-q", "perf-changelog.yaml")
    git(repo, "commit", "-q", "-m", "delete the ledger")
    proc = run_cli("check", "--pr", "7", "--format", "json", cwd=repo)
    assert proc.returncode == 1, proc.stderr
    [found] = json.loads(proc.stdout)["diagnostics"]
    assert found["code"] == "CL101"
    assert found["message"].startswith("the change deletes the changelog and its 2 entries")
