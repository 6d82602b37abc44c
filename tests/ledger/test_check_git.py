"""`changelog-tools check` end to end: real git repositories, the installed CLI, real files."""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.checkdata import (
    BASE,
    CONFIG,
    MASTER_A,
    MASTER_B,
    MASTERS_A,
    MASTERS_B,
    PULL,
    appended,
    entry,
    init_repo,
)
from tests.conftest import commit_files, git, run_cli

KEY = "alpha-fp8-gpu-a-vllm"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository on `main` holding BASE and the master configs."""
    return init_repo(tmp_path / "repo")


def branch(repo: Path, name: str, files: dict[str, bytes | str], start: str = "main") -> str:
    git(repo, "checkout", "-q", "-b", name, start)
    return commit_files(repo, files, f"{name} change")


def test_a_pull_request_appending_a_placeholder_entry_passes(repo: Path) -> None:
    branch(repo, "feature", {"perf-changelog.yaml": appended(entry(KEY))})
    proc = run_cli("check", "--pr", "7", cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == "check: OK\n"
    assert "merge-base with main" in proc.stderr


def test_a_branch_behind_main_passes_against_the_merge_base(repo: Path) -> None:
    branch(repo, "feature", {"perf-changelog.yaml": appended(entry(KEY))})
    git(repo, "checkout", "-q", "main")
    main_entry = entry("beta-fp4-gpu-b-trt", link=f"{PULL}5", description="Landed meanwhile")
    commit_files(repo, {"perf-changelog.yaml": appended(main_entry)}, "main moves on")
    git(repo, "checkout", "-q", "feature")
    proc = run_cli("check", "--pr", "7", cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # Against main's tip (what the reference job does) the same branch looks like it edits history.
    tip = run_cli("check", "--pr", "7", "--base-ref", "main", "--format", "json", cwd=repo)
    assert tip.returncode == 1
    assert json.loads(tip.stdout)["change"]["kind"] == "invalid"


def test_the_merge_base_uses_the_remote_tracking_main_of_a_clone(
    repo: Path, tmp_path: Path
) -> None:
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(origin))
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    branch(clone, "feature", {"perf-changelog.yaml": appended(entry(KEY))})
    git(clone, "branch", "-D", "main")  # only origin/main is left to find the base
    proc = run_cli("check", "--pr", "7", cwd=clone)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_git_mode_reads_the_refs_never_the_working_tree(repo: Path) -> None:
    branch(repo, "feature", {"perf-changelog.yaml": appended(entry(KEY))})
    (repo / "perf-changelog.yaml").write_bytes(b"garbage: [\n")
    (repo / MASTER_A).unlink()
    proc = run_cli("check", "--pr", "7", cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_link_to_another_pull_request_is_annotated_on_its_line(repo: Path) -> None:
    # Seed 004: the wrong number used to surface only at merge time.
    branch(repo, "feature", {"perf-changelog.yaml": appended(entry(KEY, link=f"{PULL}2650"))})
    proc = run_cli("check", "--pr-number", "2651", "--format", "github", cwd=repo)
    assert proc.returncode == 1
    first = proc.stdout.splitlines()[0]
    assert first.startswith("::error file=perf-changelog.yaml,line=17,col=3,title=CL201::")
    assert "#2650" in first and "#2651" in first


def test_master_configs_are_read_at_the_head_ref(repo: Path) -> None:
    new_key = b"\nalpha-fp8-gpu-a-trt:\n  image: example/trt:1.0\n"
    branch(
        repo,
        "feature",
        {
            "perf-changelog.yaml": appended(entry("alpha-fp8-gpu-a-trt")),
            MASTER_A: MASTERS_A + new_key,
        },
    )
    proc = run_cli("check", "--pr", "7", "--format", "json", cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["entries"][0]["master-keys"] == ["alpha-fp8-gpu-a-trt"]
    assert doc["changed-master-keys"] == [
        {"key": "alpha-fp8-gpu-a-trt", "kind": "added", "path": MASTER_A}
    ]


def test_an_unknown_key_fails_and_no_config_keys_replays_it(repo: Path) -> None:
    branch(repo, "feature", {"perf-changelog.yaml": appended(entry("retired-key"))})
    proc = run_cli("check", "--pr", "7", cwd=repo)
    assert proc.returncode == 1
    assert "perf-changelog.yaml:14:7: CL301" in proc.stdout
    assert run_cli("check", "--pr", "7", "--no-config-keys", cwd=repo).returncode == 0


def test_a_changelog_at_another_path_is_found_with_changelog_file(repo: Path) -> None:
    branch(repo, "feature", {"data/log.yaml": appended(entry(KEY))})
    git(repo, "checkout", "-q", "-b", "feature2")
    commit_files(repo, {"data/log.yaml": appended(entry(KEY), entry(KEY))}, "more")
    proc = run_cli(
        "check", "--pr", "7", "--base-ref", "feature", "--changelog-file", "data/log.yaml",
        "--format", "json", cwd=repo,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(proc.stdout)["file"] == "data/log.yaml"


def test_a_missing_changelog_at_the_head_is_a_usage_error(repo: Path) -> None:
    proc = run_cli("check", "--changelog-file", "nope.yaml", cwd=repo)
    assert proc.returncode == 2
    assert "nope.yaml does not exist at HEAD" in proc.stderr


def test_an_unknown_revision_is_a_usage_error(repo: Path) -> None:
    proc = run_cli("check", "--head-ref", "no-such-branch", cwd=repo)
    assert proc.returncode == 2
    assert "unknown revision 'no-such-branch'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_outside_a_repository_git_mode_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / ".changelog-tools.yaml").write_text(CONFIG)
    proc = run_cli("check", cwd=tmp_path)
    assert proc.returncode == 2
    assert "not inside a git repository" in proc.stderr


def test_git_dir_and_work_tree_in_the_environment_do_not_choose_the_repository(
    tmp_path: Path,
) -> None:
    # A hook exports GIT_DIR (and often GIT_WORK_TREE) for the repository it runs in; check
    # judges the repository its working directory (and configuration) is in, as documented.
    bad = init_repo(tmp_path / "a")
    branch(bad, "feature", {"perf-changelog.yaml": appended(entry("retired-key"))})
    good = init_repo(tmp_path / "b")
    branch(good, "feature", {"perf-changelog.yaml": appended(entry(KEY))})
    elsewhere = {"GIT_DIR": str(bad / ".git"), "GIT_WORK_TREE": str(bad)}
    proc = run_cli("check", "--pr", "7", cwd=good, env=elsewhere)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"-> HEAD ({git(good, 'rev-parse', 'HEAD')[:12]})" in proc.stderr, proc.stderr
    # And the other way round: the failing repository fails whatever the variables name.
    back = {"GIT_DIR": str(good / ".git"), "GIT_WORK_TREE": str(good)}
    failed = run_cli("check", "--pr", "7", cwd=bad, env=back)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "perf-changelog.yaml:14:7: CL301" in failed.stdout


def test_pr_and_local_together_are_a_usage_error(repo: Path) -> None:
    proc = run_cli("check", "--pr", "3", "--local", cwd=repo)
    assert proc.returncode == 2


# -- GitHub Actions auto-detection -----------------------------------------------------------


def _event(tmp_path: Path, payload: dict[str, object]) -> str:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(payload))
    return str(path)


def test_a_pull_request_event_gives_pr_mode_with_its_number_and_head(
    repo: Path, tmp_path: Path
) -> None:
    head = branch(repo, "feature", {"perf-changelog.yaml": appended(entry(KEY, link=f"{PULL}41"))})
    git(repo, "checkout", "-q", "main")  # the checkout is not the PR head; the event says which
    env = {
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": _event(
            tmp_path, {"number": 42, "pull_request": {"number": 42, "head": {"sha": head}}}
        ),
    }
    proc = run_cli("check", "--format", "json", cwd=repo, env=env)
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert (doc["mode"], doc["pr"]) == ("pr", 42)
    assert [d["code"] for d in doc["diagnostics"]] == ["CL201"]
    assert "pull request #42" in proc.stderr


def test_a_pull_request_event_without_a_number_is_a_usage_error(repo: Path, tmp_path: Path) -> None:
    env = {"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": _event(tmp_path, {})}
    proc = run_cli("check", cwd=repo, env=env)
    assert proc.returncode == 2
    assert "--pr N" in proc.stderr


def test_a_push_to_main_checks_the_pushed_range_in_main_mode(repo: Path, tmp_path: Path) -> None:
    before = git(repo, "rev-parse", "HEAD")
    after = commit_files(repo, {"perf-changelog.yaml": appended(entry(KEY))}, "merge #7")
    payload = {"ref": "refs/heads/main", "before": before, "after": after}
    env = {"GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": _event(tmp_path, payload)}
    proc = run_cli("check", "--format", "json", cwd=repo, env=env)
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert doc["mode"] == "main"
    assert [(d["code"], d["line"]) for d in doc["diagnostics"]] == [("CL202", 17)]


def test_a_push_with_an_unusable_before_compares_with_the_first_parent(
    repo: Path, tmp_path: Path
) -> None:
    after = commit_files(
        repo, {"perf-changelog.yaml": appended(entry(KEY, link=f"{PULL}7"))}, "merge #7"
    )
    payload = {"ref": "refs/heads/main", "before": "0" * 40, "after": after}
    env = {"GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": _event(tmp_path, payload)}
    proc = run_cli("check", "--format", "json", cwd=repo, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(proc.stdout)["change"]["kind"] == "appended"
    assert "first parent" in proc.stderr


def test_explicit_local_overrides_the_event(repo: Path, tmp_path: Path) -> None:
    branch(repo, "feature", {"perf-changelog.yaml": appended(entry(KEY, link=f"{PULL}41"))})
    env = {
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": _event(tmp_path, {"number": 42}),
    }
    proc = run_cli("check", "--local", cwd=repo, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# -- file mode ---------------------------------------------------------------------------------


def test_file_mode_checks_two_files_without_git(tmp_path: Path) -> None:
    (tmp_path / ".changelog-tools.yaml").write_text(CONFIG)
    (tmp_path / "base.yaml").write_bytes(BASE)
    (tmp_path / "head.yaml").write_bytes(appended(entry("alpha-fp8-gpu-a-vlm")))
    (tmp_path / "a.yaml").write_bytes(MASTERS_A)
    (tmp_path / "b.yaml").write_bytes(MASTERS_B)
    proc = run_cli(
        "check", "--base-file", "base.yaml", "--head-file", "head.yaml", "--pr", "7",
        "--master-config", "a.yaml", "--master-config", "b.yaml", "--format", "json",
        cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert [(d["code"], d["path"], d["line"]) for d in doc["diagnostics"]] == [
        ("CL301", "head.yaml", 14)
    ]
    assert "did you mean `alpha-fp8-gpu-a-vllm`" in doc["diagnostics"][0]["hint"]


def test_file_mode_with_base_master_configs_checks_coverage(tmp_path: Path) -> None:
    (tmp_path / ".changelog-tools.yaml").write_text(CONFIG)
    (tmp_path / "base.yaml").write_bytes(BASE)
    (tmp_path / "head.yaml").write_bytes(appended(entry(KEY)))
    (tmp_path / "configs").mkdir()
    (tmp_path / MASTER_A).write_bytes(MASTERS_A.replace(b"sglang:1.0", b"sglang:2.0"))
    (tmp_path / MASTER_B).write_bytes(MASTERS_B)
    (tmp_path / "old-a.yaml").write_bytes(MASTERS_A)
    proc = run_cli(
        "check", "--base-file", "base.yaml", "--head-file", "head.yaml", "--strict",
        "--base-master-config", "old-a.yaml", "--base-master-config", MASTER_B,
        cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 1
    assert f"{MASTER_A}:17:1: CL307" in proc.stdout


def test_file_mode_needs_both_files(tmp_path: Path) -> None:
    (tmp_path / "head.yaml").write_bytes(BASE)
    proc = run_cli("check", "--head-file", "head.yaml", cwd=tmp_path)
    assert proc.returncode == 2
    assert "--base-file" in proc.stderr


def test_a_missing_file_is_a_usage_error_without_traceback(tmp_path: Path) -> None:
    proc = run_cli("check", "--base-file", "x.yaml", "--head-file", "y.yaml", cwd=tmp_path)
    assert proc.returncode == 2
    assert "y.yaml: no such file" in proc.stderr


def test_help_teaches_modes_and_exit_codes() -> None:
    proc = run_cli("check", "--help")
    assert proc.returncode == 0
    for text in ("--pr-number", "--changelog-file", "merge-base", "Exit status", "3 git failed"):
        assert text in proc.stdout


# -- the shipped workflow --------------------------------------------------------------------


def test_the_workflow_step_annotates_a_wrong_pr_link_on_the_pull_request(
    repo: Path, tmp_path: Path
) -> None:
    # The shipped workflow's steps run through the composite action (action.yml) as the runner
    # runs them; see tests/actionrunner.py.
    import os

    from tests.actionrunner import find_step, load_steps, run_step
    from tests.conftest import REPO_ROOT

    head = branch(repo, "feature", {"perf-changelog.yaml": appended(entry(KEY, link=f"{PULL}9"))})
    payload = {"number": 10, "pull_request": {"number": 10, "head": {"sha": head}}}
    env = {
        **os.environ,
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": _event(tmp_path, payload),
    }
    context = {"github": {"event": payload}}
    steps = load_steps(REPO_ROOT / ".github/workflows/check-changelog.yml", "check-changelog")
    step = find_step(steps, "Check the changelog (annotations)")
    result = run_step(step, cwd=repo, context=context, env=env)
    assert result.returncode == 1
    assert result.stdout.startswith("::error file=perf-changelog.yaml,line=17,col=3,title=CL201::")
    assert "changelog-tools check --pr 10 --format github" in result.stderr
    json_step = find_step(steps, "Check the changelog (JSON result)")
    assert json_step.get("continue-on-error") is True  # a failed check still uploads its JSON
    run_step(json_step, cwd=repo, context=context, env=env)
    doc = json.loads((repo / "check-changelog.json").read_text())
    assert (doc["mode"], doc["pr"], doc["ok"]) == ("pr", 10, False)


def test_a_config_only_pull_request_passes_with_coverage_warnings_and_fails_strict(
    repo: Path,
) -> None:
    # Real InferenceX PRs change a master config without a changelog entry.
    changed = MASTERS_A.replace(b"conc-list: [4, 8]", b"conc-list: [4, 8, 16]")
    branch(repo, "config-only", {MASTER_A: changed})
    proc = run_cli("check", "--pr", "7", cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{MASTER_A}:11:1: CL307 warning master config key 'alpha-fp8-gpu-a-vllm'" in proc.stdout
    assert "CL114" not in proc.stdout
    strict = run_cli("check", "--pr", "7", "--strict", cwd=repo)
    assert strict.returncode == 1
    assert "CL307 master config key" in strict.stdout


def test_check_right_after_new_says_the_change_is_not_committed(tmp_path: Path) -> None:
    from tests.checkdata import BASE, appended, entry, init_repo

    repo = init_repo(tmp_path / "repo")
    git(repo, "checkout", "-q", "-b", "pr")
    (repo / "perf-changelog.yaml").write_bytes(appended(entry("alpha-fp8-gpu-a-vllm")))
    proc = run_cli("check", "--pr", "5", "--format", "json", cwd=repo)
    found = {d["code"]: d for d in json.loads(proc.stdout)["diagnostics"]}
    assert found["CL115"]["severity"] == "warning"
    assert "uncommitted changes" in found["CL115"]["message"]
    assert (repo / "perf-changelog.yaml").read_bytes() != BASE  # untouched by check


def test_a_comment_only_change_to_a_master_config_passes_with_a_note(tmp_path: Path) -> None:
    from tests.checkdata import MASTER_A, MASTERS_A, init_repo

    repo = init_repo(tmp_path / "repo")
    git(repo, "checkout", "-q", "-b", "pr")
    commented = b"# owners: see CODEOWNERS\n" + MASTERS_A.replace(b"\n", b"  # note\n", 1)
    commit_files(repo, {MASTER_A: commented}, "a comment")
    proc = run_cli("check", "--pr", "5", "--format", "json", cwd=repo)
    assert proc.returncode == 0, proc.stdout
    report = json.loads(proc.stdout)
    assert report["diagnostics"] == []
    assert any("comments or layout only" in n for n in report["notes"])
    # a change that touches neither the changelog nor a master config still has nothing to sweep
    commit_files(repo, {"notes.txt": "x\n"}, "other")
    git(repo, "checkout", "-q", "-b", "pr2", "main")
    commit_files(repo, {"notes.txt": "x\n"}, "other")
    other = run_cli("check", "--pr", "6", "--format", "json", cwd=repo)
    assert other.returncode == 1
    assert [d["code"] for d in json.loads(other.stdout)["diagnostics"]] == ["CL114"]


@pytest.mark.parametrize("committed", [True, False])
def test_a_pull_request_cannot_loosen_its_own_check_through_the_config(
    tmp_path: Path, committed: bool
) -> None:
    # The PR edits history (CL102) and points `changelog` at another file, and softens the
    # separator rule; committed or left untracked, the base's configuration decides.
    from tests.checkdata import CONFIG, init_repo

    repo = init_repo(tmp_path / "repo")
    git(repo, "checkout", "-q", "-b", "pr")
    text = (repo / "perf-changelog.yaml").read_bytes()
    edited = text.replace(b"description:\n", b"description:\n    - rewritten history\n", 1)
    files = {"perf-changelog.yaml": edited, "LICENSE": "x\n"}
    commit_files(repo, files, "edit history")
    loosened = CONFIG + "changelog: LICENSE\nwhitespace-only-separator: warning\n"
    if committed:
        commit_files(repo, {".changelog-tools.yaml": loosened}, "loosen the config")
    else:
        (repo / ".changelog-tools.yaml").write_text(loosened)
    proc = run_cli("check", "--pr", "5", "--format", "json", cwd=repo)
    assert proc.returncode == 1, proc.stdout
    codes = {d["code"]: d for d in json.loads(proc.stdout)["diagnostics"]}
    assert "CL102" in codes  # the history edit, in the base's changelog, is still an error
    assert codes["CL116"]["severity"] == "warning"
    assert "changelog" in codes["CL116"]["message"]
    assert "whitespace-only-separator" in codes["CL116"]["message"]


def test_a_base_that_is_not_an_ancestor_is_named_with_the_merge_base(tmp_path: Path) -> None:
    """A PR one commit behind main, checked against main's tip (the old migration snippet):
    main's newer entry looks deleted by the PR. `check` says why and names the merge-base."""
    from tests.checkdata import BASE, entry, init_repo

    root = init_repo(tmp_path / "bench")
    fork = git(root, "rev-parse", "HEAD")
    commit_files(root, {"perf-changelog.yaml": BASE + b"\n" + entry("alpha-fp8-gpu-a-vllm",
                 description="Main's newer entry")}, "main moves on")  # fmt: skip
    git(root, "checkout", "-q", "-b", "pr", fork)
    commit_files(root, {"perf-changelog.yaml": BASE + b"\n" + entry("alpha-fp8-gpu-a-vllm",
                 description="The PR's entry")}, "the PR")  # fmt: skip
    behind = run_cli("check", "--base-ref", "main", "--no-config-keys", cwd=root)
    assert "CL117" in behind.stdout, behind.stdout
    assert f"--base-ref {fork[:12]}" in behind.stdout
    merge_base = run_cli("check", "--no-config-keys", cwd=root)
    assert merge_base.returncode == 0, merge_base.stdout
    assert "CL117" not in merge_base.stdout


def test_a_base_without_common_ancestor_in_a_shallow_clone_is_a_warning(tmp_path: Path) -> None:
    """Both tips fetched with --depth 1 share no history: the findings still compare the two
    files (as `lint` does with the same base) and CL117 says to fetch the history, where the
    missing merge-base used to end the whole check as a git failure."""
    root = init_repo(tmp_path / "origin")
    branch(root, "pr", {"perf-changelog.yaml": appended(entry(KEY, link=f"{PULL}12"))})
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", "-b", "pr", f"file://{root}", str(shallow))
    git(shallow, "fetch", "-q", "--depth", "1", "origin", "main:main")
    proc = run_cli("check", "--pr", "12", "--base-ref", "main", "--format", "json", cwd=shallow)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    assert report["change"]["appended"] == 1
    (warning,) = [d for d in report["diagnostics"] if d["code"] == "CL117"]
    assert "no common ancestor in this shallow clone" in warning["message"]
    assert "--unshallow" in warning["hint"]
    lint = run_cli("lint", "--base-ref", "main", cwd=shallow)
    assert lint.returncode == 0, lint.stdout + lint.stderr


def test_a_base_of_unrelated_history_is_a_warning_not_a_git_failure(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo")
    git(root, "checkout", "-q", "--orphan", "other")
    other = entry("beta-fp4-gpu-b-trt", link=f"{PULL}5", description="Only over there")
    commit_files(root, {"perf-changelog.yaml": appended(other)}, "unrelated")
    git(root, "checkout", "-q", "main")
    branch(root, "pr", {"perf-changelog.yaml": appended(entry(KEY, link=f"{PULL}12"))})
    proc = run_cli("check", "--pr", "12", "--base-ref", "other", cwd=root)
    # The PR lacks the other history's entry: a finding (exit 1), not a git failure (exit 3).
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "CL117" in proc.stdout
    assert "no common ancestor:" in proc.stdout
    assert "shallow" not in proc.stdout


def _check_limited(
    repo: Path, *args: str, limit: int = 1 << 30
) -> subprocess.CompletedProcess[str]:
    """`check` in a subprocess whose address space is capped, so that reading an endless
    device fails at once (MemoryError) instead of taking the machine's memory."""
    exe = shutil.which("changelog-tools", path=str(Path(sys.executable).parent))
    assert exe

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return subprocess.run(
        [exe, "check", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        preexec_fn=cap,
    )


def test_a_changelog_committed_as_a_link_to_an_endless_device_is_judged_from_git(
    repo: Path,
) -> None:
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "perf-changelog.yaml").unlink()
    (repo / "perf-changelog.yaml").symlink_to("/dev/zero")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "link")
    sha = git(repo, "rev-parse", "HEAD")
    proc = _check_limited(repo, "--pr", "7")
    by_sha = _check_limited(repo, "--pr", "7", "--head-ref", sha)
    assert by_sha.returncode == 1, by_sha.stdout + by_sha.stderr
    assert (proc.returncode, proc.stdout) == (by_sha.returncode, by_sha.stdout), proc.stderr
    assert "CL101" in proc.stdout


def test_a_work_tree_changelog_replaced_by_a_fifo_is_not_opened(repo: Path) -> None:
    branch(repo, "feature", {"perf-changelog.yaml": appended(entry(KEY))})
    (repo / "perf-changelog.yaml").unlink()
    os.mkfifo(repo / "perf-changelog.yaml")
    # Opening the pipe for reading would wait for a writer that never comes.
    proc = run_cli("check", "--pr", "7", cwd=repo, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == "check: OK\n"


@pytest.mark.parametrize("option", ["--base-ref", "--head-ref"])
def test_an_empty_ref_is_refused_as_canonicalize_refuses_it(repo: Path, option: str) -> None:
    branch(repo, "feature", {"perf-changelog.yaml": appended(entry(KEY))})
    proc = run_cli("check", "--pr", "7", option, "", cwd=repo)
    canonicalize = run_cli("canonicalize", "--pr", "7", "--base-ref", "", cwd=repo)
    assert (proc.returncode, canonicalize.returncode) == (2, 2), proc.stdout + proc.stderr
    assert proc.stderr.startswith(f"error: unknown revision '' given to {option}\n"), proc.stderr
    assert canonicalize.stderr.splitlines()[:2] == [
        "error: unknown revision '' given to --base-ref",
        proc.stderr.splitlines()[1],
    ]
    assert proc.stdout == ""


def test_a_committed_changelog_over_the_limit_is_refused_without_reading_it(
    repo: Path, tmp_path: Path
) -> None:
    """300 MB of zeros committed as the changelog (300 KB in git): CL006 from the blob's size,
    in an address space of 400 MB that reading the blob whole (twice its size) cannot fit."""
    big = tmp_path / "zeros"
    with big.open("wb") as file:
        file.truncate(300 << 20)
    oid = git(repo, "hash-object", "-w", str(big))
    big.unlink()
    listing = git(repo, "ls-tree", "HEAD")
    tree = subprocess.run(
        ["git", "mktree"], cwd=repo, capture_output=True, text=True, check=True,
        input="".join(
            (line.rsplit(" ", 1)[0] + f" {oid}\tperf-changelog.yaml" if
             line.endswith("\tperf-changelog.yaml") else line) + "\n"
            for line in listing.splitlines()
        ),
    ).stdout.strip()  # fmt: skip
    huge = git(repo, "commit-tree", tree, "-p", "HEAD", "-m", "huge")
    proc = _check_limited(repo, "--pr", "7", "--head-ref", huge, limit=400 << 20)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stdout == (
        "perf-changelog.yaml: CL006 file is 314,572,800 bytes; the limit is 16,777,216 "
        "(`max-file-size`)\ncheck: 1 problem (1 error, 0 warnings)\n"
    )
    # At the base the same blob is refused the same way, saying where it is.
    base = _check_limited(repo, "--local", "--base-ref", huge, limit=400 << 20)
    assert base.returncode == 1, base.stdout + base.stderr
    assert f"CL006 file at the base ({huge[:12]}) is 314,572,800 bytes" in base.stdout


def test_a_head_tree_naming_the_changelog_twice_is_a_git_error(repo: Path) -> None:
    """git reads the first of two entries of one name; judging the other (the last) could pass
    a rewrite of history that git shows nowhere. Neither is judged: the tree is damaged."""
    branch(repo, "feature", {"perf-changelog.yaml": appended(entry(KEY))})
    good = git(repo, "rev-parse", "HEAD:perf-changelog.yaml")
    bad = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=repo, check=True,
                         input=b"rewritten: history\n", capture_output=True).stdout.decode()  # fmt: skip
    raw = subprocess.run(["git", "cat-file", "tree", "HEAD"], cwd=repo, check=True,
                         capture_output=True).stdout  # fmt: skip
    record = b"100644 perf-changelog.yaml\0"
    kept = record + bytes.fromhex(good)
    doubled = raw.replace(kept, kept + record + bytes.fromhex(bad.strip()))
    assert doubled != raw
    tree = subprocess.run(["git", "hash-object", "-t", "tree", "--literally", "-w", "--stdin"],
                          cwd=repo, input=doubled, capture_output=True, check=True).stdout  # fmt: skip
    commit = git(repo, "commit-tree", tree.decode().strip(), "-p", "HEAD", "-m", "dup")
    assert "rewritten" not in git(repo, "show", f"{commit}:perf-changelog.yaml")  # git: the first
    proc = run_cli("check", "--pr", "7", "--head-ref", commit, cwd=repo)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert proc.stderr.endswith(
        f"error: git tree {tree.decode().strip()} is damaged: it names "
        "'perf-changelog.yaml' twice\n"
    ), proc.stderr


def test_a_base_named_by_a_commit_message_search_is_found_as_git_finds_it(repo: Path) -> None:
    """`git rev-parse ':/text'` names the newest commit whose message matches; `check` and
    `lint` take it as git does, not as an unknown revision."""
    initial = git(repo, "rev-parse", "HEAD")
    message = git(repo, "log", "-1", "--format=%s")
    branch(repo, "feature", {"perf-changelog.yaml": appended(entry(KEY))})
    for command in (("check", "--pr", "7"), ("lint",)):
        proc = run_cli(*command, "--base-ref", f":/{message}", cwd=repo)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert f"at :/{message}" in proc.stderr
    assert git(repo, "rev-parse", f":/{message}") == initial
