"""A symlinked file is linted once, under its target's name (as GitHub shows the target)."""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import git
from tests.lint.world import found, lint_change, make_world


def test_a_symlink_to_a_launcher_is_reported_once_at_the_target(tmp_path: Path) -> None:
    root = make_world(tmp_path / "w")
    before = found(lint_change(root, audit=True))
    assert ("CL721", "runners/launch_h200-nb.sh", 3) in before  # the finding to double
    git(root, "checkout", "-q", "-b", "pr")
    os.symlink("launch_h200-nb.sh", root / "runners" / "launch_h200-alias.sh")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "link")
    assert git(root, "ls-files", "-s", "runners/launch_h200-alias.sh").startswith("120000")
    after = found(lint_change(root, audit=True))
    assert after == before


def test_a_symlink_out_of_the_tree_is_still_read_as_its_target(tmp_path: Path) -> None:
    from changelog_tools.gitrepo import open_repo
    from changelog_tools.lint.tree import GitTree

    root = make_world(tmp_path / "w")
    os.symlink("../elsewhere.sh", root / "runners" / "dangling.sh")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "link")
    tree = GitTree(open_repo(root), git(root, "rev-parse", "HEAD"))
    assert "runners/dangling.sh" in tree.paths("runners")


# -- a change made through a symlink is judged under the name the configuration gives -------
# git lists an edit under the target's name only; `lint` must judge the master config (and
# the benchmark script) the link names, as `check` and `lint --all` already do.


def _commit_all(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", message)


def _link_file(root: Path, rel: str, target_dir: str) -> Path:
    """Move ``rel`` into ``target_dir`` and leave a relative symlink at ``rel``; the real file."""
    real = root / target_dir / Path(rel).name
    real.parent.mkdir(parents=True, exist_ok=True)
    (root / rel).rename(real)
    os.symlink(os.path.relpath(real, (root / rel).parent), root / rel)
    return real


def _lint_pr(root: Path) -> tuple[int, str]:
    from tests.conftest import run_cli

    proc = run_cli("lint", "--base-ref", "main", "--pr", "7", cwd=root)
    return proc.returncode, proc.stdout + proc.stderr


BAD_TP = "{ tp: 8, conc-start: 4, conc-end: 64 }", '{ tp: "eight", conc-start: 4, conc-end: 64 }'


def test_lint_judges_a_master_config_edited_through_its_symlink(tmp_path: Path) -> None:
    root = make_world(tmp_path / "w")
    real = _link_file(root, "configs/amd-master.yaml", "real")
    _commit_all(root, "link the master config")
    git(root, "checkout", "-q", "-b", "pr")
    real.write_text(real.read_text().replace(*BAD_TP))
    _commit_all(root, "edit through the link")
    assert git(root, "diff", "--name-only", "main", "HEAD") == "real/amd-master.yaml"
    code, out = _lint_pr(root)
    assert code == 1, out
    assert "configs/amd-master.yaml:14: CL703 alpha-fp8-h200-vllm" in out, out


def test_lint_judges_a_master_config_under_a_symlinked_directory(tmp_path: Path) -> None:
    root = make_world(tmp_path / "w")
    (root / "configs").rename(root / "real-configs")
    os.symlink("real-configs", root / "configs")
    _commit_all(root, "link the configs directory")
    assert git(root, "ls-files", "-s", "configs").startswith("120000")
    git(root, "checkout", "-q", "-b", "pr")
    real = root / "real-configs" / "amd-master.yaml"
    real.write_text(real.read_text().replace(*BAD_TP))
    _commit_all(root, "edit through the directory link")
    code, out = _lint_pr(root)
    assert code == 1, out
    assert "configs/amd-master.yaml:14: CL703 alpha-fp8-h200-vllm" in out, out
    # The whole-tree audit reads the same file through the link, as the change does.
    from tests.conftest import run_cli

    audit = run_cli("lint", "--all", cwd=root)
    assert "configs/amd-master.yaml:14: CL703" in audit.stdout, audit.stdout + audit.stderr


def test_an_untouched_symlinked_master_config_leaves_its_entries_unjudged(tmp_path: Path) -> None:
    # The other way round: a link whose target the change leaves alone is no change, so an
    # unrelated pull request is not judged on the entries behind it.
    root = make_world(tmp_path / "w")
    real = _link_file(root, "configs/amd-master.yaml", "real")
    real.write_text(real.read_text().replace(*BAD_TP))
    _commit_all(root, "a latent problem on main")
    git(root, "checkout", "-q", "-b", "pr")
    (root / "README.md").write_text("unrelated\n")
    _commit_all(root, "unrelated")
    code, out = _lint_pr(root)
    assert code == 0, out
    assert "CL703" not in out, out


def test_lint_judges_a_benchmark_script_edited_through_its_symlink(tmp_path: Path) -> None:
    # The script's real file lies outside every `lint-scripts` / `lint-code-paths` pattern:
    # only the link's name brings the edit under the rules.
    from tests.lint.test_patches import APPLY, SCRIPT

    root = make_world(tmp_path / "w")
    real = _link_file(root, SCRIPT, "shared-recipes")
    _commit_all(root, "link the script")
    git(root, "checkout", "-q", "-b", "pr")
    real.write_text(APPLY)
    _commit_all(root, "patch the engine through the link")
    assert git(root, "diff", "--name-only", "main", "HEAD") == "shared-recipes/alpha_fp8_h200.sh"
    code, out = _lint_pr(root)
    assert code == 1, out
    assert f"{SCRIPT}:4: CL740" in out, out


def test_lint_judges_a_benchmark_script_under_a_symlinked_directory(tmp_path: Path) -> None:
    from tests.lint.test_patches import APPLY, SCRIPT

    root = make_world(tmp_path / "w")
    linked = root / "benchmarks" / "single_node" / "fixed_seq_len"
    linked.rename(root / "shared-recipes")
    os.symlink("../../shared-recipes", linked)
    _commit_all(root, "link the scripts directory")
    git(root, "checkout", "-q", "-b", "pr")
    (root / "shared-recipes" / "alpha_fp8_h200.sh").write_text(APPLY)
    _commit_all(root, "patch the engine through the directory link")
    code, out = _lint_pr(root)
    assert code == 1, out
    assert f"{SCRIPT}:4: CL740" in out, out
    # The audit lists the files under the linked directory as a checkout has them.
    from tests.conftest import run_cli

    audit = run_cli("lint", "--all", "--rule", "engine-patches", cwd=root)
    assert f"{SCRIPT}:4: CL740" in audit.stdout, audit.stdout + audit.stderr


def test_a_file_under_a_symlinked_directory_is_reported_once_at_its_target(
    tmp_path: Path,
) -> None:
    # Both names match the script patterns: the finding is the target's, as for a linked file.
    from tests.lint.test_patches import APPLY, SCRIPT

    root = make_world(tmp_path / "w", {SCRIPT: APPLY})
    before = found(lint_change(root, audit=True))
    assert (("CL740", SCRIPT, 4)) in before
    os.symlink("fixed_seq_len", root / "benchmarks" / "single_node" / "alias")
    _commit_all(root, "link the scripts directory under a second name")
    from changelog_tools.gitrepo import open_repo
    from changelog_tools.lint.tree import GitTree

    tree = GitTree(open_repo(root), git(root, "rev-parse", "HEAD"))
    alias = "benchmarks/single_node/alias/alpha_fp8_h200.sh"
    assert alias in tree.paths("benchmarks/single_node/alias")
    assert tree.read(alias) == (root / SCRIPT).read_bytes()
    assert tree.link_target(alias) == SCRIPT
    assert found(lint_change(root, audit=True)) == before


def test_changed_paths_through_links_follow_a_chain_and_stop_at_a_self_loop() -> None:
    from changelog_tools.lint.tree import reached_through_links

    class Links:
        def links(self) -> dict[str, str]:
            return {"a.sh": "b.sh", "b.sh": "real/x.sh", "d": "real", "real/loop": "real"}

    got = reached_through_links(Links(), ["real/x.sh", "real/y.sh"])  # type: ignore[arg-type]
    assert got == {"a.sh", "b.sh", "d/x.sh", "d/y.sh"}


def test_two_directories_linking_to_each_other_are_listed_once_each(tmp_path: Path) -> None:
    # a/l1, a/l2 -> b and b/l1, b/l2 -> a: following links found through links doubled the
    # listing on every pass, so a pull request adding four links made `lint` run out of memory.
    import subprocess
    import sys

    from changelog_tools.gitrepo import open_repo
    from changelog_tools.lint.tree import GitTree, reached_through_links

    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q",
        "--allow-empty", "-m", "i")  # fmt: skip
    (root / "a").mkdir()
    (root / "b").mkdir()
    (root / "a" / "run.sh").write_text("echo hi\n")
    (root / "b" / "bench.sh").write_text("echo there\n")
    for here, there in (("a", "b"), ("b", "a")):
        for name in ("l1", "l2"):
            os.symlink(f"../{there}", root / here / name)
    _commit_all(root, "links")
    tree = GitTree(open_repo(root), git(root, "rev-parse", "HEAD"))
    listed = set(tree.paths())
    # git's own paths, and each directory's files once more under each link to it
    assert listed == {
        "a/run.sh", "a/l1", "a/l2", "b/bench.sh", "b/l1", "b/l2",
        "a/l1/bench.sh", "a/l1/l1", "a/l1/l2", "a/l2/bench.sh", "a/l2/l1", "a/l2/l2",
        "b/l1/run.sh", "b/l1/l1", "b/l1/l2", "b/l2/run.sh", "b/l2/l1", "b/l2/l2",
    }  # fmt: skip
    assert tree.read("a/l1/bench.sh") == b"echo there\n"
    assert reached_through_links(tree, ["b/bench.sh"]) == {"a/l1/bench.sh", "a/l2/bench.sh"}
    # and through the command, in pull-request mode and over the whole tree
    for args in (["--base-ref", "HEAD~1"], ["--all"]):
        proc = subprocess.run(
            [sys.executable, "-m", "changelog_tools", "lint", *args],
            cwd=root, capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "OK" in proc.stdout + proc.stderr
