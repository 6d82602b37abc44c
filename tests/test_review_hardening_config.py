"""Review findings: `check` must judge a change by the configuration the base revision would use."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.checkdata import BASE, CONFIG, MASTER_A, MASTER_B, MASTERS_A, MASTERS_B, REPO
from tests.conftest import commit_files, git, run_cli


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


def test_lint_reads_the_base_pyproject_when_the_pr_adds_a_yaml_config(tmp_path: Path) -> None:
    # The same finding in lint's trusted options: the base's pyproject.toml turns
    # engine-patches off; a PR that adds .changelog-tools.yaml was linted by the defaults
    # (here stricter; with a base that turns a rule to `error`, looser), never by the base.
    from tests.lint.test_patches import APPLY, SCRIPT
    from tests.lint.world import change, make_world

    root = make_world(
        tmp_path / "r",
        {"pyproject.toml": '[tool.changelog-tools]\nlint-rules = {engine-patches = "off"}\n'},
    )
    change(root, {SCRIPT: APPLY, ".changelog-tools.yaml": "lint-rules: {}\n"})
    proc = run_cli("lint", "--base-ref", "main", "--pr", "7", "--rule", "engine-patches", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_lint_reads_the_base_config_when_the_pr_deletes_it(tmp_path: Path) -> None:
    from tests.lint.test_patches import APPLY, SCRIPT
    from tests.lint.world import change, make_world

    root = make_world(
        tmp_path / "r", {".changelog-tools.yaml": "lint-rules: {engine-patches: warning}\n"}
    )
    change(root, {SCRIPT: APPLY, ".changelog-tools.yaml": None})
    proc = run_cli("lint", "--base-ref", "main", "--pr", "7", "--rule", "engine-patches", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "CL740 warning" in proc.stdout or "warning" in proc.stdout
