"""`check` on what lands on main: merge-queue commits and squash commits, in real git.

A merge-group commit is what lands on main, so it is checked in main mode (a placeholder fails
there), and its PR number comes from the queue's ref, so the pr-link must be that PR's. On main,
a squash commit whose subject ends in ``(#N)`` must append pull N's links (seed 004: a link to
the PR it was split from, caught even when the PR check was skipped).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from changelog_tools import yamlload
from tests.checkdata import MASTER_A, MASTERS, PULL, appended, entry, init_repo
from tests.conftest import REPO_ROOT, commit_files, git, run_cli

KEY = "alpha-fp8-gpu-a-vllm"
LINE = 17  # the pr-link line of an entry appended to BASE


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return init_repo(tmp_path / "repo")


def queue_commit(repo: Path, pr: int, link: str) -> tuple[str, str, str]:
    """What GitHub's merge queue builds: main plus the PR, on a gh-readonly-queue ref.

    Returns (base sha, queued sha, queue ref)."""
    base = git(repo, "rev-parse", "main")
    git(repo, "checkout", "-q", "-b", f"pr-{pr}", "main")
    pr_head = commit_files(repo, {"perf-changelog.yaml": appended(entry(KEY, link=link))}, "pr")
    ref = f"refs/heads/gh-readonly-queue/main/pr-{pr}-{pr_head}"
    git(repo, "checkout", "-q", "--detach", "main")
    git(repo, "merge", "-q", "--squash", f"pr-{pr}")
    git(repo, "commit", "-q", "-m", f"Merge pull request #{pr} into the queue")
    queued = git(repo, "rev-parse", "HEAD")
    git(repo, "update-ref", ref, queued)
    git(repo, "checkout", "-q", "main")  # the checkout is not the queued commit: the event says
    return base, queued, ref


def merge_group_env(tmp_path: Path, base: str, head: str, ref: str) -> dict[str, str]:
    event = tmp_path / "merge_group.json"
    payload = {
        "action": "checks_requested",
        "merge_group": {"head_sha": head, "head_ref": ref, "base_sha": base,
                        "base_ref": "refs/heads/main"},
    }  # fmt: skip
    event.write_text(json.dumps(payload))
    return {"GITHUB_EVENT_NAME": "merge_group", "GITHUB_EVENT_PATH": str(event)}


@pytest.mark.parametrize(
    ("link", "code"),
    [("XXX", "CL202"), (f"{PULL}XXX", "CL202"), (f"{PULL}8", "CL201"), (f"{PULL}7", None)],
    ids=["placeholder", "url-placeholder", "another-pr", "own-link"],
)
def test_a_merge_group_commit_is_checked_in_main_mode_for_the_queue_refs_pr(
    repo: Path, tmp_path: Path, link: str, code: str | None
) -> None:
    base, queued, ref = queue_commit(repo, 7, link)
    env = merge_group_env(tmp_path, base, queued, ref)
    proc = run_cli("check", "--format", "json", cwd=repo, env=env)
    doc = json.loads(proc.stdout)
    assert (doc["mode"], doc["pr"]) == ("main", 7)
    assert [(d["code"], d["line"]) for d in doc["diagnostics"]] == ([(code, LINE)] if code else [])
    assert proc.returncode == (1 if code else 0)
    assert "landing pull request #7" in proc.stderr
    assert "merge group's base" in proc.stderr


def test_a_merge_group_event_with_a_ref_that_is_not_a_queue_ref_is_a_usage_error(
    repo: Path, tmp_path: Path
) -> None:
    base, queued, _ = queue_commit(repo, 7, f"{PULL}7")
    env = merge_group_env(tmp_path, base, queued, "refs/heads/feature")
    proc = run_cli("check", cwd=repo, env=env)
    assert proc.returncode == 2
    assert "is not a merge-queue ref" in proc.stderr and "--main --pr N" in proc.stderr


def test_the_shipped_workflow_runs_on_merge_groups_and_its_step_fails_a_placeholder(
    repo: Path, tmp_path: Path
) -> None:
    workflow = yamlload.load((REPO_ROOT / ".github/workflows/check-changelog.yml").read_text())
    on = workflow.value["on"]
    assert on["merge_group"] == {"types": ["checks_requested"]}
    job = workflow.value["jobs"]["check-changelog"]
    assert "github.event_name == 'merge_group'" in job["if"]
    # the step runs through the composite action, as the runner runs it
    from tests.actionrunner import find_step, run_step

    step = find_step(job["steps"], "Check the changelog (annotations)")
    base, queued, ref = queue_commit(repo, 7, "XXX")
    # github.event.pull_request.number is empty in a merge_group run
    env = {**os.environ, **merge_group_env(tmp_path, base, queued, ref)}
    proc = run_step(step, cwd=repo, context={"github": {"event": {}}}, env=env)
    assert proc.returncode == 1
    assert f"::error file=perf-changelog.yaml,line={LINE},col=3,title=CL202::" in proc.stdout


# -- squash commits on main ----------------------------------------------------------------------


def push_env(tmp_path: Path, before: str, after: str) -> dict[str, str]:
    event = tmp_path / "push.json"
    event.write_text(json.dumps({"ref": "refs/heads/main", "before": before, "after": after}))
    return {"GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": str(event)}


def test_a_squash_commit_on_main_must_append_the_link_of_the_pr_its_subject_names(
    repo: Path, tmp_path: Path
) -> None:
    before = git(repo, "rev-parse", "HEAD")
    # Seed 004: the entry links to the PR it was split from, not the PR that landed.
    after = commit_files(
        repo,
        {"perf-changelog.yaml": appended(entry(KEY, link=f"{PULL}2557"))},
        "[AMD] Qwen3.5-FP8 MI355X SGLang disagg MTP (#2607)",
    )
    proc = run_cli("check", "--format", "json", cwd=repo, env=push_env(tmp_path, before, after))
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert (doc["mode"], doc["pr"]) == ("main", 2607)
    (diag,) = doc["diagnostics"]
    assert (diag["code"], diag["line"]) == ("CL201", LINE)
    assert "#2557, but this is pull request #2607" in diag["message"]
    # The same from a shell, outside Actions.
    local = run_cli("check", "--main", "--base-ref", "HEAD^", cwd=repo)
    assert local.returncode == 1 and f"perf-changelog.yaml:{LINE}:3: CL201" in local.stdout


def test_a_squash_commit_with_its_own_link_passes(repo: Path, tmp_path: Path) -> None:
    before = git(repo, "rev-parse", "HEAD")
    after = commit_files(
        repo, {"perf-changelog.yaml": appended(entry(KEY, link=f"{PULL}2607"))}, "Tune (#2607)"
    )
    proc = run_cli("check", cwd=repo, env=push_env(tmp_path, before, after))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "landing pull request #2607" in proc.stderr


def test_a_pushed_range_of_several_commits_names_no_single_pr(repo: Path, tmp_path: Path) -> None:
    before = git(repo, "rev-parse", "HEAD")
    commit_files(repo, {MASTER_A: MASTERS[MASTER_A] + b"\n"}, "unrelated (#3)")
    after = commit_files(
        repo, {"perf-changelog.yaml": appended(entry(KEY, link=f"{PULL}2557"))}, "Tune (#2607)"
    )
    proc = run_cli("check", "--format", "json", cwd=repo, env=push_env(tmp_path, before, after))
    doc = json.loads(proc.stdout)
    assert (doc["mode"], doc["pr"]) == ("main", None)
    assert doc["diagnostics"] == []
