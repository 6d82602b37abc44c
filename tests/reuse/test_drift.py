"""The drift guard over real git histories: what the PR changed after its sweep, main aside."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from changelog_tools import config as config_mod
from changelog_tools.commands.reuse_gate import gate
from changelog_tools.errors import ExitCode, GitError
from changelog_tools.gitrepo import open_repo
from changelog_tools.reuse.drift import check_drift, merge_base_before, path_spec
from changelog_tools.reuse.gate import Event
from changelog_tools.testing.fakegithub import FakeCommit, FakeGitHub
from tests.conftest import commit_files, git, run_cli
from tests.fakegithub_fixtures import REPO, WORKFLOW, env_for, gate_env, init_origin

PATTERNS = config_mod.defaults().drift_paths
LOG = "perf-changelog.yaml"


def entry(key: str, description: str, link: str = "XXX") -> str:
    return (
        f'- config-keys:\n    - {key}\n  description:\n    - "{description}"\n  pr-link: {link}\n'
    )


FIRST = entry("llama-fp8-gpu-a-vllm", "First sweep", "https://github.com/octo/widgets/pull/1")
BASE = {
    LOG: FIRST,
    "configs/gpu-a-master.yaml": "a: 1\n",
    "configs/gpu-b-master.yaml": "b: 1\n",
    "benchmarks/run.sh": "echo v1\n",
    "README.md": "readme\n",
}
PR_ENTRY = entry("llama-fp8-gpu-a-vllm", "Tune gpu-a")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A clone whose main holds BASE, with branch `feature` checked out from it."""
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    commit_files(path, BASE, "base")
    git(path, "checkout", "-q", "-b", "feature")
    return path


def pr_sweep_commit(repo: Path) -> str:
    """The PR's first commit, the one the sweep ran on: a config change plus its entry."""
    return commit_files(
        repo, {"configs/gpu-a-master.yaml": "a: 2\n", LOG: f"{FIRST}\n{PR_ENTRY}"}, "tune gpu-a"
    )


def on_main(repo: Path, files: dict[str, str | bytes], message: str) -> str:
    git(repo, "checkout", "-q", "main")
    sha = commit_files(repo, files, message)
    git(repo, "checkout", "-q", "feature")
    return sha


def squash(repo: Path, message: str = "Tune gpu-a (#7)") -> str:
    """Squash-merge `feature` into main the way GitHub does; return the merge commit."""
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--squash", "feature")
    git(repo, "commit", "-q", "-m", message)
    sha = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "feature")
    return sha


def drift(repo: Path, source: str, merged: str, **kw: object) -> tuple[str, ...]:
    report = check_drift(
        open_repo(repo), source=source, merged=merged, patterns=PATTERNS, changelog=LOG, **kw
    )  # type: ignore[arg-type]
    return report.items()


def test_no_drift_when_the_sweep_ran_on_the_final_head(repo: Path) -> None:
    source = pr_sweep_commit(repo)
    assert drift(repo, source, squash(repo)) == ()


def test_a_benchmark_script_changed_after_the_sweep_is_drift(repo: Path) -> None:
    source = pr_sweep_commit(repo)
    commit_files(repo, {"benchmarks/run.sh": "echo v2\n"}, "faster script")
    assert drift(repo, source, squash(repo)) == ("benchmarks/run.sh",)


def test_a_main_merge_that_changed_other_configs_is_allowed(repo: Path) -> None:
    source = pr_sweep_commit(repo)
    on_main(repo, {"configs/gpu-b-master.yaml": "b: 2\n", "benchmarks/run.sh": "echo m\n"}, "main")
    git(repo, "merge", "-q", "--no-edit", "main")
    assert drift(repo, source, squash(repo)) == ()


def test_a_change_outside_the_drift_paths_after_the_sweep_is_allowed(repo: Path) -> None:
    source = pr_sweep_commit(repo)
    commit_files(repo, {"README.md": "better words\n", "docs/x.md": "new\n"}, "docs")
    assert drift(repo, source, squash(repo)) == ()


def test_a_changelog_entry_edited_after_the_sweep_is_drift(repo: Path) -> None:
    source = pr_sweep_commit(repo)
    commit_files(repo, {LOG: f"{FIRST}\n{entry('llama-fp8-gpu-a-vllm', 'Tune gpu-a more')}"}, "e")
    assert drift(repo, source, squash(repo)) == (
        f"{LOG}: appended entry 1 changed after the source run (beyond pr-link)",
    )


def test_an_entry_appended_after_the_sweep_is_drift(repo: Path) -> None:
    source = pr_sweep_commit(repo)
    extra = entry("mixtral-fp4-gpu-b-trt", "Also gpu-b")
    commit_files(repo, {LOG: f"{FIRST}\n{PR_ENTRY}\n{extra}"}, "more")
    assert drift(repo, source, squash(repo)) == (
        f"{LOG}: the PR appended 1 entry at the source run but 2 in the merge",
    )


def test_an_entry_inserted_before_older_ones_is_still_the_prs_entry(repo: Path) -> None:
    # a merge that broke the byte rule (its entry first, not appended) has known entries
    source = commit_files(
        repo, {"configs/gpu-a-master.yaml": "a: 2\n", LOG: f"{PR_ENTRY}\n{FIRST}"}, "tune"
    )
    assert drift(repo, source, squash(repo)) == ()


def test_an_inserted_entry_edited_after_the_sweep_is_drift(repo: Path) -> None:
    source = commit_files(
        repo, {"configs/gpu-a-master.yaml": "a: 2\n", LOG: f"{PR_ENTRY}\n{FIRST}"}, "tune"
    )
    commit_files(repo, {LOG: f"{entry('llama-fp8-gpu-a-vllm', 'Tune more')}\n{FIRST}"}, "e")
    assert drift(repo, source, squash(repo)) == (
        f"{LOG}: appended entry 1 changed after the source run (beyond pr-link)",
    )


def test_a_pr_link_filled_in_after_the_sweep_is_allowed(repo: Path) -> None:
    source = pr_sweep_commit(repo)
    linked = entry("llama-fp8-gpu-a-vllm", "Tune gpu-a", "https://github.com/octo/widgets/pull/7")
    commit_files(repo, {LOG: f"{FIRST}\n{linked}"}, "canonicalize link")
    assert drift(repo, source, squash(repo)) == ()


def test_entries_main_appended_meanwhile_are_not_drift(repo: Path) -> None:
    source = pr_sweep_commit(repo)
    other = entry("dsr1-fp4-gpu-c-sglang", "Someone else's sweep", "https://x.invalid/pull/5")
    on_main(repo, {LOG: f"{FIRST}\n{other}"}, "other PR")
    # the merge helper resolves the changelog: main's history first, the PR's entry after it
    git(repo, "merge", "-q", "--no-edit", "-s", "ours", "main")
    commit_files(repo, {LOG: f"{FIRST}\n{other}\n{PR_ENTRY}"}, "resolve changelog")
    assert drift(repo, source, squash(repo)) == ()


def test_a_script_named_with_non_ascii_changed_after_the_sweep_is_drift(repo: Path) -> None:
    # Review finding: `git diff-tree --name-only` C-quotes such a path ("benchmarks/\303\274.sh"),
    # so no drift pattern matched it and the gate reused a sweep of other code.
    source = pr_sweep_commit(repo)
    commit_files(repo, {"benchmarks/run ü.sh": "echo v2\n"}, "a new helper")
    assert drift(repo, source, squash(repo)) == ("benchmarks/run ü.sh",)


def test_a_non_ascii_path_that_conflicted_with_main_is_drift(repo: Path) -> None:
    name = "benchmarks/ü.sh"
    on_main(repo, {name: "echo base\n"}, "main adds it")
    git(repo, "merge", "-q", "--no-edit", "main")
    source = commit_files(repo, {name: "echo pr\n", LOG: f"{FIRST}\n{PR_ENTRY}"}, "s")
    on_main(repo, {name: "echo main\n"}, "main edits the same line")
    git(repo, "merge", "-q", "--no-edit", "-s", "ours", "main")
    commit_files(repo, {name: "echo pr and main\n"}, "resolve by hand")
    assert drift(repo, source, squash(repo)) == (name,)


def test_a_drift_path_that_conflicted_with_main_and_was_resolved_later_is_drift(repo: Path) -> None:
    source = commit_files(
        repo, {"benchmarks/run.sh": "echo pr\n", LOG: f"{FIRST}\n{PR_ENTRY}"}, "s"
    )
    on_main(repo, {"benchmarks/run.sh": "echo main\n"}, "main edits the same line")
    git(repo, "merge", "-q", "--no-edit", "-s", "ours", "main")
    commit_files(repo, {"benchmarks/run.sh": "echo pr and main\n"}, "resolve by hand")
    assert drift(repo, source, squash(repo)) == ("benchmarks/run.sh",)


def test_the_push_before_is_main_before_the_merge_when_it_leads_there(repo: Path) -> None:
    source = pr_sweep_commit(repo)
    before = git(repo, "rev-parse", "main")
    merged = squash(repo)
    git(repo, "checkout", "-q", "main")
    pushed = commit_files(repo, {"runners/gpu-a.sh": "new runner\n"}, "direct push, same push")
    git(repo, "checkout", "-q", "feature")
    handle = open_repo(repo)
    assert merge_base_before(handle, pushed, before) == before
    assert merge_base_before(handle, pushed, "0" * 40) == merged
    assert merge_base_before(handle, pushed, None) == merged
    # measured from `before`, the runner that arrived in the same push is a change too
    assert drift(repo, source, pushed, before=before) == ("runners/gpu-a.sh",)


def test_drift_paths_are_gitignore_style_globs() -> None:
    spec = path_spec(PATTERNS)
    matched = [
        p
        for p in (
            "configs/amd-master.yaml",
            "configs/sub/amd-master.yaml",
            "configs/amd.yaml",
            "benchmarks/a/b/c.py",
            "runners/x.sh",
            "utils/matrix_logic/gen.py",
            "utils/other.py",
            "x/benchmarks/y",
        )
        if spec.match_file(p)
    ]
    assert matched == [
        "configs/amd-master.yaml",
        "benchmarks/a/b/c.py",
        "runners/x.sh",
        "utils/matrix_logic/gen.py",
    ]


# -- commits the clone lacks -----------------------------------------------------------------------


def _ci_clone(tmp_path: Path) -> tuple[Path, str, str]:
    """Origin with a squash-merged PR 7 (branch deleted, refs/pull/7/head kept); a CI clone."""
    origin, seed = init_origin(tmp_path, BASE)
    git(seed, "checkout", "-q", "-b", "feature")
    source = pr_sweep_commit(seed)
    git(seed, "push", "-q", "origin", f"{source}:refs/pull/7/head")
    merged = squash(seed)
    git(seed, "push", "-q", "origin", "main")
    ci = tmp_path / "ci"
    # --no-local: a path clone would copy every object, reachable or not
    git(tmp_path, "clone", "-q", "--no-local", str(origin), str(ci))
    return ci, source, merged


def test_a_source_commit_missing_from_the_clone_is_fetched_from_the_pr_ref(tmp_path: Path) -> None:
    ci, source, merged = _ci_clone(tmp_path)
    assert not open_repo(ci).git_ok("cat-file", "-e", source)
    assert drift(ci, source, merged, pr_number=7) == ()
    assert git(ci, "rev-parse", "refs/changelog-tools/pull/7/head") == source


def test_a_source_commit_that_cannot_be_found_is_a_git_error(tmp_path: Path) -> None:
    ci, source, merged = _ci_clone(tmp_path)
    with pytest.raises(GitError, match=f"source run commit {source} is not in the clone") as info:
        drift(ci, source, merged)  # no PR number: nothing to fetch
    assert info.value.exit_code == ExitCode.EXTERNAL and "fetch-depth: 0" in (info.value.hint or "")


def test_a_pushed_commit_missing_from_the_clone_is_a_git_error(repo: Path) -> None:
    source = pr_sweep_commit(repo)
    with pytest.raises(GitError, match=r"pushed commit 0{40} is not in the clone"):
        drift(repo, source, "0" * 40)


# -- wired into the gate ---------------------------------------------------------------------------


def test_the_gate_refuses_reuse_when_the_script_changed_after_the_sweep(
    repo: Path, fake: FakeGitHub
) -> None:
    source = pr_sweep_commit(repo)
    later = commit_files(repo, {"benchmarks/run.sh": "echo v2\n"}, "faster script")
    merged = squash(repo)
    fake.add_pull(
        7, "feature", head_sha=later, state="closed", merged=True, merged_at="2024-02-01T00:00:00Z",
        merge_commit_sha=merged, labels=["full-sweep-enabled"],
        commits=[FakeCommit(source), FakeCommit(later)],
    )  # fmt: skip
    fake.add_comment(7, "/reuse-sweep-run", "bob", "OWNER")
    run = fake.add_run(WORKFLOW, source, head_branch="feature", artifacts=["results_bmk"])
    config = dataclasses.replace(config_mod.defaults(repo), github_retry_backoff=0.0)
    decision = gate(
        config,
        Event("push", sha=merged, ref="refs/heads/main"),
        env=env_for(fake),
        repository=None,
        workflow=None,
        checkout=repo,
    )
    assert not decision.reuse_enabled and decision.drift == ("benchmarks/run.sh",)
    assert decision.reason == (
        f"PR #7 changed benchmark inputs after run {run.id} ({source[:7]}): benchmarks/run.sh; "
        "no reuse, a full sweep runs"
    )


def _tree_of(repo: Path) -> str:
    git(repo, "add", "-A")
    return git(repo, "write-tree")


def test_tree_changes_lists_what_git_diff_tree_lists(tmp_path: Path) -> None:
    """The drift guard diffs trees through the blob reader; git diff-tree is the reference."""
    path = tmp_path / "trees"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    files = {
        "same/deep/a.txt": "a\n", "same/b.txt": "b\n", "edit/x.sh": "v1\n", "gone.txt": "g\n",
        "gone_dir/one": "1\n", "gone_dir/sub/two": "2\n", "file_to_dir": "f\n",
        "dir_to_file/inner": "i\n", "mode.sh": "m\n", "überall/ä.sh": "u\n", "link_target": "t\n",
    }  # fmt: skip
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    (path / "link").symlink_to("link_target")
    left = _tree_of(path)
    git(path, "update-index", "--add", "--cacheinfo", f"160000,{'1' * 40},sub")
    with_submodule = git(path, "write-tree")
    (path / "edit/x.sh").write_text("v2\n")
    (path / "gone.txt").unlink()
    for name in ("gone_dir/one", "gone_dir/sub/two", "file_to_dir", "dir_to_file/inner"):
        (path / name).unlink()
    (path / "dir_to_file").rmdir()
    (path / "file_to_dir").mkdir()
    (path / "file_to_dir/now").write_text("n\n")
    (path / "dir_to_file").write_text("d\n")
    (path / "mode.sh").chmod(0o755)
    (path / "überall/ä.sh").write_text("u2\n")
    (path / "added/new/deep.txt").parent.mkdir(parents=True)
    (path / "added/new/deep.txt").write_text("new\n")
    (path / "link").unlink()
    (path / "link").symlink_to("same")
    git(path, "rm", "-q", "--cached", "sub")
    right = _tree_of(path)
    git(path, "update-index", "--add", "--cacheinfo", f"160000,{'2' * 40},sub")
    right_submodule = git(path, "write-tree")
    repo = open_repo(path)
    pairs = [(left, right), (right, left), (left, left), (with_submodule, right_submodule),
             (with_submodule, left), (right_submodule, with_submodule)]  # fmt: skip
    for a, b in pairs:
        expected = git(path, "-c", "core.quotePath=false", "diff-tree", "-r", "--name-only",
                       "--no-renames", a, b)  # fmt: skip
        assert sorted(repo.tree_changes(a, b)) == sorted(expected.splitlines())
    assert "überall/ä.sh" in repo.tree_changes(left, right)
    assert len(repo.tree_changes(left, right)) == 12
    commit = git(path, "commit-tree", right, "-m", "c")
    assert repo.tree_changes(left, f"{commit}^{{tree}}") == repo.tree_changes(left, right)
    with pytest.raises(GitError, match="names no tree"):
        repo.tree_changes(left, commit)


def test_same_file_is_true_only_for_one_regular_file_at_both_revisions(tmp_path: Path) -> None:
    """`check` reuses a master config's head bytes as its base bytes when this says so."""
    path = tmp_path / "same"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    files = {"configs/a.yaml": "a: 1\n", "configs/b.yaml": "b: 1\n", "top.yaml": "t\n",
             "target.yaml": "x\n"}  # fmt: skip
    first = commit_files(path, files, "one")
    (path / "link.yaml").symlink_to("target.yaml")
    second = commit_files(path, {"configs/b.yaml": "b: 2\n"}, "two")
    third = commit_files(path, {"target.yaml": "y\n"}, "three")  # the link's target changes
    (path / "configs/a.yaml").chmod(0o755)
    fourth = commit_files(path, {}, "four")
    repo = open_repo(path)
    assert repo.same_file(first, second, "configs/a.yaml")
    assert repo.same_file(first, second, "top.yaml")  # at the root
    assert not repo.same_file(first, second, "configs/b.yaml")
    assert not repo.same_file(first, second, "link.yaml")  # absent at first
    assert not repo.same_file(second, third, "link.yaml")  # a link: its target may differ
    assert repo.read_blob(second, "link.yaml") != repo.read_blob(third, "link.yaml")
    assert not repo.same_file(third, fourth, "configs/a.yaml")  # the mode changed
    assert not repo.same_file(first, second, "configs/none.yaml")
    assert not repo.same_file(first, "no-such-rev", "configs/a.yaml")
    for a, b, p in [(first, second, "configs/a.yaml"), (first, second, "configs/b.yaml")]:
        assert repo.same_file(a, b, p) == (repo.read_blob(a, p) == repo.read_blob(b, p))


# -- hostile and failing GitHub-side situations ------------------------------------------------


def test_the_drift_guard_in_a_shallow_clone_asks_for_full_history(tmp_path: Path) -> None:
    origin, seed = init_origin(tmp_path, {"benchmarks/run.sh": "echo v1\n", "README": "x\n"})
    git(seed, "checkout", "-q", "-b", "feature")
    swept = commit_files(seed, {"benchmarks/run.sh": "echo v2\n"}, "tune")
    git(seed, "push", "-q", "origin", "feature")
    with FakeGitHub(REPO, git_origin=origin) as fake:
        fake.add_pull(7, "feature", labels=["full-sweep-enabled"], title="Tune")
        fake.add_run(WORKFLOW, swept, head_branch="feature", artifacts=["results_bmk"])
        fake.add_comment(7, "/reuse-sweep-run", "bob", "MEMBER")
        body = json.dumps({"merge_method": "squash", "sha": swept}).encode()
        status, _, _ = fake.handle("PUT", f"{fake.prefix}/repos/{REPO}/pulls/7/merge", {}, body)
        assert status == 200
        ci = tmp_path / "ci"
        git(tmp_path, "clone", "-q", "--depth", "1", f"file://{origin}", str(ci))
        merged = fake.pulls[7].merge_commit_sha
        assert merged is not None
        env = gate_env(fake, tmp_path, GITHUB_EVENT_NAME="push")
        (ci / ".changelog-tools.yaml").write_text("github-retry-backoff: 0\n")
        proc = run_cli(
            "reuse-gate", "--ref", "refs/heads/main", "--commit-sha", merged, cwd=ci, env=env
        )
    assert proc.returncode == 3, proc.stderr
    assert proc.stderr.splitlines()[-2:] == [
        f"error: the clone at {ci} is shallow: the parent of {merged} is missing",
        "hint: check out with full history (actions/checkout with fetch-depth: 0)",
    ]
