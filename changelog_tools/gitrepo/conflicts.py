"""A merge under way: which git operation it is, the commits it merges, the index's stages of a
conflicted file. What the merge driver reads, mostly from files in the git dir, so that a rebase
through it costs no process it can avoid."""

from __future__ import annotations

from changelog_tools.gitrepo.repo import GitRepo


def read_index_stages(repo: GitRepo, path: str) -> dict[int, bytes]:
    """Exact bytes of every index stage of ``path``: 1 merge-base, 2 ours, 3 theirs (0 if clean).

    A stage that is absent (add/add has no 1, delete/modify lacks 2 or 3) is simply not in the
    result; an untracked path gives ``{}``. Listed by ``git ls-files`` (GitPython's
    ``IndexFile`` would parse the whole index in Python, and not every index format git writes).
    """
    listed = repo.git("ls-files", "--stage", "-z", "--", f":(top,literal){path}", strip=False)
    stages: dict[int, bytes] = {}
    for record in listed.split("\0"):
        meta, tab, name = record.partition("\t")
        if tab and name == path:
            _mode, sha, stage = meta.split()
            stages[int(stage)] = read_object(repo, sha)
    return stages


def read_object(repo: GitRepo, sha: str) -> bytes:
    """Exact bytes of the object ``sha`` (a blob), trailing newline included."""
    return repo.read_object(sha)


def operation_in_progress(repo: GitRepo) -> str | None:
    """The git operation under way: rebase, am, cherry-pick, revert or merge; None when idle.

    During a merge driver's run only the rebase markers exist yet (MERGE_HEAD and
    CHERRY_PICK_HEAD are written after the merge machinery returns).
    """
    gd = repo.git_dir
    if (gd / "rebase-merge").is_dir():
        return "rebase"
    if (gd / "rebase-apply").is_dir():
        return "am" if (gd / "rebase-apply" / "applying").exists() else "rebase"
    for name, operation in (
        ("CHERRY_PICK_HEAD", "cherry-pick"),
        ("REVERT_HEAD", "revert"),
        ("MERGE_HEAD", "merge"),
    ):
        if (gd / name).is_file():
            return operation
    return None


def special_head(repo: GitRepo, name: str) -> str | None:
    """The commit in ``$GIT_DIR/NAME`` (MERGE_HEAD, CHERRY_PICK_HEAD, FETCH_HEAD for merge)."""
    try:
        text = (repo.git_dir / name).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        # FETCH_HEAD lines: "<sha>\t[not-for-merge]\t<description>"; the first mergeable wins.
        sha, _, rest = line.partition("\t")
        if sha and not rest.startswith("not-for-merge"):
            return sha.strip()
    return None
