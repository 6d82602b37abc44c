"""What the measurement scripts share: the squash merges of a branch that changed a file."""

from __future__ import annotations

import re

from changelog_tools.gitrepo import GitRepo

# GitHub's subject for a squash merge of pull request N ends in "(#N)".
SQUASH = re.compile(r"\(#(\d+)\)\s*$")


def squash_merges(repo: GitRepo, tip: str, path: str, *, limit: int = 0) -> list[tuple[str, int]]:
    """(commit, pull request) of each squash merge on ``tip``'s first-parent history that
    changed ``path``, newest first; the newest ``limit`` only when it is not 0."""
    log = repo.git("log", "--first-parent", "--format=%H %s", tip, "--", path).splitlines()
    merges = [(line[:40], int(m.group(1))) for line in log if (m := SQUASH.search(line))]
    return merges[:limit] if limit else merges
