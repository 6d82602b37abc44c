"""The resolver inside git: which side is main, and the merge driver.

git names the two sides "ours" and "theirs", and what they are depends on the operation: in
``git merge origin/main`` on a PR branch ours is the PR; in ``git rebase origin/main`` ours is
main (the commits being replayed are theirs). :func:`detect_sides` decides from git's state and
says why, or refuses; it never guesses.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from changelog_tools import diagnostics as dx
from changelog_tools.config import Config
from changelog_tools.errors import ChangelogToolsError
from changelog_tools.fsutil import atomic_write
from changelog_tools.gitrepo import (
    GitRepo,
    operation_in_progress,
    rebase_onto_commit,
    rebase_stop,
    rebased_branch,
    ref_tip_from_files,
    replayed_commit,
    special_head,
)
from changelog_tools.ledger import knownvalid, schema
from changelog_tools.ledger.guard import Refusal
from changelog_tools.ledger.resolve import Resolution, resolve, without_own_entries

PR_SIDES = ("ours", "theirs")
_NOT_DETECTED_HINT = (
    "say which side is the pull request: `changelog-tools resolve --pr-side ours` (the branch "
    "you are on is the PR) or `--pr-side theirs` (the commit being merged or picked is the PR)"
)


@dataclass(frozen=True)
class Sides:
    """Which git side holds the pull request's version, how that was decided, and why."""

    pr_side: str  # "ours" or "theirs"
    operation: str  # merge, rebase, cherry-pick, or "given" (--pr-side)
    reason: str

    @property
    def main_side(self) -> str:
        return "theirs" if self.pr_side == "ours" else "ours"

    def describe(self) -> str:
        return (
            f"{self.operation}: the PR is {self.pr_side}, main is {self.main_side} ({self.reason})"
        )

    def as_json(self) -> dict[str, str]:
        return {
            "operation": self.operation,
            "pr-side": self.pr_side,
            "main-side": self.main_side,
            "reason": self.reason,
        }


def sides_refusal(message: str) -> Refusal:
    return Refusal(dx.SIDE_UNKNOWN, message, path="git", hint=_NOT_DETECTED_HINT)


def _main_refs(repo: GitRepo, config: Config, current: str | None) -> list[str]:
    refs = []
    for ref in (
        f"refs/remotes/{config.remote}/{config.main_branch}",
        f"refs/heads/{config.main_branch}",
    ):
        # The branch being merged into is never evidence for itself.
        if ref != current and repo.try_rev_parse(ref):
            refs.append(ref)
    return refs


def _on_main(repo: GitRepo, commit: str, refs: list[str]) -> str | None:
    """The first of ``refs`` that contains ``commit``, shortened for messages."""
    for ref in refs:
        if repo.is_ancestor(commit, ref):
            return ref.removeprefix("refs/remotes/").removeprefix("refs/heads/")
    return None


def _decide_by_main(repo: GitRepo, *, operation: str, theirs: str, config: Config) -> Sides:
    """Merges and cherry-picks: main is the side whose commit the main branch already contains."""
    current = repo.symbolic_head()
    refs = _main_refs(repo, config, current)
    main_name = f"{config.remote}/{config.main_branch}"
    found = _on_main(repo, theirs, refs)
    if found:
        return Sides("ours", operation, f"theirs, commit {theirs[:12]}, is on {found}")
    if current == f"refs/heads/{config.main_branch}":
        return Sides("theirs", operation, f"you are on {config.main_branch}")
    found = _on_main(repo, "HEAD", refs)
    if found:
        return Sides("theirs", operation, f"ours (HEAD) is on {found}")
    raise sides_refusal(
        f"{operation}: neither side's commit is on {main_name} or {config.main_branch}, so which "
        "side is main cannot be told"
    )


def detect_sides(
    repo: GitRepo,
    *,
    config: Config,
    given: str | None = None,
    reflog_action: str | None = None,
    driver: bool = False,
    environ: Mapping[str, str] | None = None,
) -> Sides:
    """Decide which side is the pull request for the conflict git is in the middle of.

    ``given`` (from ``--pr-side``) wins. A rebase replays the PR onto main, so theirs is the
    PR. A merge or cherry-pick is decided by which commit main already contains, also when it
    is run while a rebase is stopped. ``driver``: called from inside git's merge (the merge
    driver), where MERGE_HEAD and CHERRY_PICK_HEAD do not exist yet; ``reflog_action`` is git's
    ``GIT_REFLOG_ACTION`` then, the only trace of a merge. ``environ``: the environment git
    ran the driver in (this process's when not given), where git's merge leaves a
    ``GITHEAD_<commit>`` for the commit it merges.
    """
    if given is not None:
        if given not in PR_SIDES:
            raise sides_refusal(f"--pr-side must be ours or theirs, not {given!r}")
        return Sides(given, "given", f"--pr-side {given}")
    operation = operation_in_progress(repo)
    words = (reflog_action or "").split() if driver else []
    if operation == "rebase" and words[:1] != ["merge"]:
        stop = rebase_stop(repo)
        pulled: str | None = None
        if driver and stop is None and (repo.git_dir / "rebase-apply").is_dir():
            stop, pulled = _apply_backend_step(reflog_action or "", words, environ)
        if stop is None or (stop == "conflict" and not driver):
            _refuse_replay_of_main(repo, config)
            return Sides("theirs", "rebase", "a rebase replays the PR's commits (theirs) onto main")
        if not (driver and words[:1] == ["pull"]):
            raise sides_refusal(_stopped_rebase(stop, driver=driver))
        operation = None  # a pull (a merge) run at the rebase's stop: decided below
        if pulled is not None:
            return _decide_by_main(repo, operation="merge", theirs=pulled, config=config)
    if operation in ("am", "revert"):
        raise sides_refusal(f"a git {operation} is in progress; it is not a merge of a PR and main")
    theirs: str | None = None
    if operation == "merge":
        theirs = special_head(repo, "MERGE_HEAD")
    elif operation == "cherry-pick":
        theirs = special_head(repo, "CHERRY_PICK_HEAD")
    elif words:
        if words[0] == "merge":
            names = [w for w in words[1:] if not w.startswith("-")]
            if len(names) != 1:
                raise sides_refusal(
                    f"git is merging {len(names)} commits at once ({reflog_action})"
                )
            theirs = repo.try_rev_parse(names[0])
            operation = "merge"
        elif words[0] == "pull":
            theirs = special_head(repo, "FETCH_HEAD")
            operation = "merge"
    if theirs is None or operation is None:
        raise sides_refusal(
            "no merge, rebase or cherry-pick that this tool recognizes is in progress"
        )
    return _decide_by_main(repo, operation=operation, theirs=theirs, config=config)


def _refuse_replay_of_main(repo: GitRepo, config: Config) -> None:
    """Refuse when the commit the rebase replays is already on main: a branch that merged main
    and is rebased onto an older base (or main rebased onto a PR by mistake) replays main's own
    commits, and *theirs* is then main, not the PR. The branch being rebased is not evidence
    (`git pull --rebase` on main replays main's unpushed commits: those are the ones to keep
    last)."""
    replayed = replayed_commit(repo)
    if replayed is None:
        return
    moving = rebased_branch(repo)
    refs = [
        ref
        for ref in (
            f"refs/remotes/{config.remote}/{config.main_branch}",
            f"refs/heads/{config.main_branch}",
        )
        if ref != moving
    ]
    # Replaying onto main's own tip (`git rebase main`, `git pull --rebase`): git replays only
    # commits that tip does not have, so there is nothing to ask.
    onto = rebase_onto_commit(repo)
    if onto is not None and any(ref_tip_from_files(repo, ref) == onto for ref in refs):
        return
    found = repo.refs_containing(replayed, refs)
    if found:
        where = found[0].removeprefix("refs/remotes/").removeprefix("refs/heads/")
        raise sides_refusal(
            f"the rebase replays {replayed[:12]}, a commit {where} already has: main's own, not "
            "the PR's (a branch that merged main, rebased onto an older base?), so which side "
            f"is main cannot be told; rebase onto {where} itself, or pass --pr-side to resolve"
        )


# git's rebase runs the apply backend's `git am` with its reflog action followed by this.
_APPLY_STEP_SUFFIX = " (pick)"


def _merged_commits(environ: Mapping[str, str] | None) -> list[str]:
    """The commits git's own `git merge` is merging, from the ``GITHEAD_<commit>`` variables it
    sets for the merge machinery (and so for a merge driver); none when another command (the
    apply backend's `git am`, a cherry-pick) runs the driver."""
    if environ is None:
        import os  # only the driver at an apply-backend rebase's step gets here

        environ = os.environ
    found = []
    for name in environ:
        sha = name.removeprefix("GITHEAD_")
        if sha != name and len(sha) in (40, 64) and all(c in "0123456789abcdef" for c in sha):
            found.append(sha)
    return sorted(found)


def _apply_backend_step(
    reflog_action: str, words: list[str], environ: Mapping[str, str] | None
) -> tuple[str | None, str | None]:
    """Inside the driver while ``rebase-apply/`` (the apply backend) exists: ``(None, None)``
    for the rebase's own step, ``("apply", commit)`` for a `git pull` (a merge of ``commit``)
    run at the rebase's stop, ``("apply", None)`` for anything else run there.

    The reflog action alone cannot tell a pull's merge from the steps of a rebase that
    `git pull --rebase` (or `pull.rebase`) started: both begin with "pull" (a `git rebase`'s
    own steps begin with "rebase", which nothing run at its stop does). Two facts can:
    git's rebase gives its `git am` the action followed by " (pick)", and git's merge sets
    ``GITHEAD_<commit>`` for the commit it merges, which `git am` never does. When they do not
    agree (an older git, an odd environment) the step is refused, never assumed.
    """
    if words[:1] not in (["rebase"], ["pull"]):
        return "apply", None
    merged = _merged_commits(environ)
    picking = reflog_action.endswith(_APPLY_STEP_SUFFIX)
    # Only the rebase's own `git am` runs with an action starting "rebase".
    if (picking or words[0] == "rebase") and not merged:
        return None, None
    if words[0] == "pull" and not picking and len(merged) == 1:
        return "apply", merged[0]
    if words[0] == "pull" and not picking and len(merged) > 1:
        raise sides_refusal(f"git is merging {len(merged)} commits at once ({reflog_action})")
    raise sides_refusal(
        f"a rebase (apply backend) is under way and git's state does not say whether this "
        f"conflict is its own step or a command run at its stop ({reflog_action!r}); which "
        "side is main cannot be told: run `changelog-tools resolve` once git stops"
    )


def _stopped_rebase(stop: str, *, driver: bool) -> str:
    """Why a conflict met while a rebase is stopped is not the rebase's own."""
    if stop == "merge":
        return (
            "a rebase is recreating a merge (rebase --rebase-merges); which of the merge's "
            "sides is main is not what a rebase says"
        )
    what = (
        "a cherry-pick or another command"
        if driver
        else "a command other than a merge or cherry-pick"
    )
    return (
        f"a rebase is stopped ({stop}) and the conflict comes from {what} run at the stop, "
        "not from the rebase; which side is main cannot be told"
        + (
            ": run `changelog-tools resolve` once git stops (it tells a cherry-pick; anything "
            "else needs `--pr-side`)"
            if driver
            else ""
        )
    )


def rebase_onto(repo: GitRepo, path: str) -> tuple[str, bytes | None] | None:
    """During a rebase: the commit being rebased onto and ``path`` there; None otherwise."""
    for state in ("rebase-merge", "rebase-apply"):
        try:
            sha = (repo.git_dir / state / "onto").read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            continue
        if sha:
            return sha, repo.read_blob(sha, path)
    return None


def resolve_sides(
    repo: GitRepo,
    base: bytes | None,
    pr_side: bytes,
    main_side: bytes,
    *,
    sides: Sides,
    path: str,
    config: Config,
    **options: Any,
) -> tuple[Resolution, str]:
    """:func:`resolve`, and in a rebase the replay of a later commit's edit of the PR's own
    entries (returns the resolution and a note saying which happened).

    In a multi-commit rebase the second commit's merge-base is the PR's first commit, so an
    edit of the PR's own entry looks like an edit of history; it is not: those entries are not
    on the branch being rebased onto. They are cut from both sides and the later commit's
    version appended again (:func:`~changelog_tools.ledger.resolve.without_own_entries`).
    """
    try:
        return resolve(base, pr_side, main_side, config=config, path=path, **options), ""
    except Refusal as refusal:
        if refusal.code != dx.PR_REWROTE_HISTORY or sides.operation != "rebase" or not base:
            raise
        onto = rebase_onto(repo, path)
        stripped = without_own_entries(base, main_side, onto=onto[1] if onto else None)
        if onto is None or stripped is None:
            raise
        history, rest = stripped
        resolution = resolve(history or None, pr_side, rest, config=config, path=path, **options)
        return resolution, (
            f"; replayed this commit's edit of the PR's own entries (not on {onto[0][:12]})"
        )


def _conflict_markers(ancestor: Path, current: Path, other: Path, marker_size: int) -> bytes | None:
    """git's usual text merge of the three files, with conflict markers; None if it fails."""
    from changelog_tools.gitrepo import merge_file

    return merge_file(
        current, ancestor, other, labels=("ours", "merge-base", "theirs"), marker_size=marker_size
    )


def run_merge_driver(
    *,
    ancestor: Path,
    current: Path,
    other: Path,
    path: str,
    load_config: Callable[[], Config],
    given: str | None = None,
    marker_size: int = 7,
    environ: Mapping[str, str],
    open_repo: Callable[[], GitRepo],
    log: Callable[[str], None],
) -> int:
    """git's ``merge-driver %O %A %B %P``: write the resolution to ``current`` and return 0, or
    leave git's usual conflict (markers in ``current``) and return 1. Never raises."""
    prefix = f"changelog-tools merge-driver: {path}"
    try:
        config = load_config()
        repo = open_repo()
        sides = detect_sides(
            repo,
            config=config,
            given=given,
            reflog_action=environ.get("GIT_REFLOG_ACTION"),
            driver=True,
        )
        base = ancestor.read_bytes()
        ours, theirs = current.read_bytes(), other.read_bytes()
        pr, main = (ours, theirs) if sides.pr_side == "ours" else (theirs, ours)
        known, store = _remembered_verdicts(repo)
        # An empty %O is how git says "add/add": no merge-base version.
        with knownvalid.remembering(known):
            resolution, note = resolve_sides(
                repo, base or None, pr, main, sides=sides, path=path, config=config,
                verify_mode="local",
            )  # fmt: skip
        # git's own temporary file, read back as soon as this returns and stored by git under
        # its own durability settings: a sync to disk here would only make each step wait.
        atomic_write(current, resolution.data, sync=False)
        if known is not None:
            # The result's entries, all judged valid: the next replayed commit's main side.
            knownvalid.save(store, known)
    except ChangelogToolsError as exc:
        reason = exc.message
    except Exception as exc:  # a merge driver must never crash git's merge with a traceback
        reason = f"internal error: {type(exc).__name__}: {exc}"
    else:
        kept = len(resolution.appended) + len(resolution.corrections)
        log(
            f"{prefix}: resolved ({sides.describe()}; kept main's {resolution.main_entries} "
            f"entries and {kept} of the PR's{note})"
        )
        return 0
    log(f"{prefix}: not resolved, leaving a conflict with markers in the file: {reason}")
    try:
        atomic_write(current, conflict_text(ancestor, current, other, marker_size))
    except Exception as exc:  # the conflict itself is still recorded by git
        log(
            f"{prefix}: could not write conflict markers ({type(exc).__name__}: {exc}); the "
            "file holds the side git calls ours, untouched: resolve it by hand"
        )
    return 1


# Where the driver keeps the schema's verdicts between runs (inside the git directory: local to
# this clone, never committed, gone with the clone).
VERDICTS_FILE = ("changelog-tools", "entry-verdicts")


def _remembered_verdicts(repo: GitRepo | None) -> tuple[knownvalid.KnownValid | None, Path]:
    """The verdicts an earlier run of the driver stored, under this process's exact key (a
    rebase replays commit after commit; each run's result is the next run's main side).
    None without a git directory to keep them in."""
    git_dir: Path | None = getattr(repo, "git_dir", None)
    key = knownvalid.current_key(schema.entry_schema_bytes()) if git_dir is not None else None
    if git_dir is None or key is None:
        return None, Path()
    store = git_dir.joinpath(*VERDICTS_FILE)
    return knownvalid.load(store, key), store


def conflict_text(ancestor: Path, current: Path, other: Path, marker_size: int) -> bytes:
    """Bytes that never look resolved: git's text merge when it has conflicts, else (git's
    merge is clean, e.g. a rebase's edit next to main's append, or git cannot run) the whole
    differing region between conflict markers."""
    marked = _conflict_markers(ancestor, current, other, marker_size)
    ours, theirs = current.read_bytes(), other.read_bytes()
    if marked is not None and b"\n" + b"=" * marker_size + b"\n" in b"\n" + marked:
        return marked
    return whole_conflict(ours, theirs, marker_size)


def whole_conflict(ours: bytes, theirs: bytes, marker_size: int = 7) -> bytes:
    """``ours`` and ``theirs`` as one conflict: common leading and trailing lines kept, the
    lines between them in conflict markers labelled as git labels them."""
    a, b = ours.splitlines(keepends=True), theirs.splitlines(keepends=True)
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1

    def middle(lines: list[bytes]) -> bytes:
        text = b"".join(lines[head : len(lines) - tail])
        return text if not text or text.endswith(b"\n") else text + b"\n"

    return b"".join(
        [
            *a[:head],
            b"<" * marker_size + b" ours\n",
            middle(a),
            b"=" * marker_size + b"\n",
            middle(b),
            b">" * marker_size + b" theirs\n",
            *a[len(a) - tail :],
        ]
    )
