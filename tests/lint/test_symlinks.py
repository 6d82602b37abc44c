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
