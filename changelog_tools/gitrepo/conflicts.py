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
    """The git operation whose conflict is in the index: merge, cherry-pick, revert, rebase or
    am; None when idle.

    A merge or cherry-pick run while a rebase is stopped (at an ``edit``, say) is that merge or
    cherry-pick: its MERGE_HEAD or CHERRY_PICK_HEAD wins over the rebase's directory. A
    cherry-pick head naming the commit the rebase stopped on (REBASE_HEAD) is the rebase's own
    pick. During a merge driver's run MERGE_HEAD and CHERRY_PICK_HEAD do not exist yet (git
    writes them after the merge machinery returns): see :func:`rebase_stop`.
    """
    gd = repo.git_dir
    # `git am` refuses to start while a rebase-apply/ exists and a rebase refuses while one
    # does, so an am's own state beside a rebase's is an am run at the rebase's stop.
    applying = (gd / "rebase-apply" / "applying").exists()
    if (gd / "MERGE_HEAD").is_file():
        return "merge"
    if (gd / "REVERT_HEAD").is_file():
        return "revert"
    picked = special_head(repo, "CHERRY_PICK_HEAD")
    if picked is not None and picked != special_head(repo, "REBASE_HEAD"):
        return "cherry-pick"
    if applying:
        return "am"
    if (gd / "rebase-merge").is_dir() or (gd / "rebase-apply").is_dir():
        return "rebase"
    return "cherry-pick" if picked is not None else None


# The rebase commands that replay a commit (and so may merge the changelog), by name and letter.
_REPLAYING = frozenset(["pick", "p", "reword", "r", "edit", "e", "fixup", "f", "squash", "s"])


def rebase_stop(repo: GitRepo) -> str | None:
    """Why a rebase (the default, sequencer backend) is stopped, or None while it is not.

    None: no such rebase, or it is replaying a commit right now (a merge driver running then
    is the rebase's own). "conflict": it stopped on a commit that did not apply. "edit",
    "break", "exec" and the like: it stopped on purpose, so a conflict now comes from a command
    the user ran at the stop (a merge, a cherry-pick). "merge": it is recreating a merge
    (``rebase -r``), whose sides are not the rebase's.

    git writes ``stopped-sha`` and REBASE_HEAD when it stops on a commit, ``amend`` when that
    stop is an ``edit``, and clears all three before it replays the next one; ``done`` ends with
    the command being carried out (a ``break`` or ``exec`` leaves only that).
    """
    state = repo.git_dir / "rebase-merge"
    if not state.is_dir():
        return None
    if (state / "stopped-sha").exists() or (repo.git_dir / "REBASE_HEAD").exists():
        return "edit" if (state / "amend").exists() else "conflict"
    try:
        done = (state / "done").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "unknown"
    commands = [
        line.split()[0] for line in done.splitlines() if line.strip() and line.lstrip()[0] != "#"
    ]
    command = commands[-1] if commands else ""
    if command in _REPLAYING:
        return None
    return "merge" if command in ("merge", "m") else command or "unknown"


def replayed_commit(repo: GitRepo) -> str | None:
    """The commit a rebase (the sequencer backend) is replaying, or is stopped on; None when
    that cannot be read from its files (the apply backend, a ``break`` or ``exec`` last).

    REBASE_HEAD once it stopped; before that the last command of ``done``, which git writes
    with the commit's full name before it replays it."""
    stopped = special_head(repo, "REBASE_HEAD")
    if stopped:
        return stopped
    try:
        done = (repo.git_dir / "rebase-merge" / "done").read_text(
            encoding="utf-8", errors="replace"
        )
    except OSError:
        return None
    for line in reversed(done.splitlines()):
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if words[0] in _REPLAYING and len(words) > 1 and _full_id(words[1]):
            return words[1]
        return None
    return None


def rebased_branch(repo: GitRepo) -> str | None:
    """The branch a rebase under way will move when it ends (``refs/heads/...``); None for a
    detached HEAD or no rebase."""
    for state in ("rebase-merge", "rebase-apply"):
        try:
            name = (repo.git_dir / state / "head-name").read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            continue
        return name if name.startswith("refs/") else None
    return None


def rebase_onto_commit(repo: GitRepo) -> str | None:
    """The commit a rebase under way replays onto (its ``onto`` file); None without one."""
    for state in ("rebase-merge", "rebase-apply"):
        try:
            onto = (repo.git_dir / state / "onto").read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            continue
        return onto if _full_id(onto) else None
    return None


def ref_tip_from_files(repo: GitRepo, ref: str) -> str | None:
    """The commit the full ref name ``ref`` points at, read from the git dir's files: its loose
    file, else its line in ``packed-refs``. None when it is absent or not readable that way (a
    linked worktree's refs live elsewhere, reftable keeps them in another format, a symbolic
    ref): a caller that needs the answer then asks git.

    Read here rather than asked of git because the merge driver asks it on every step of a
    rebase, where one git process (and the import of subprocess) is a tenth of the step."""
    git_dir = repo.git_dir
    if (git_dir / "commondir").exists() or (git_dir / "reftable").exists():
        return None
    try:
        loose = (git_dir / ref).read_text(encoding="ascii").strip()
    except FileNotFoundError:
        loose = None
    except (OSError, UnicodeDecodeError):
        return None
    if loose is not None:
        return loose if _full_id(loose) else None
    try:
        packed = (git_dir / "packed-refs").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for line in packed.splitlines():
        sha, _, name = line.partition(" ")
        if name == ref and _full_id(sha):
            return sha
    return None


def _full_id(word: str) -> bool:
    return len(word) in (40, 64) and all(c in "0123456789abcdef" for c in word)


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
