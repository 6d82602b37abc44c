"""`check`: the CI gate on a change to the changelog, from the command line's request to a report.

This module gathers the bytes a check compares (two files, or two git revisions with the base's
configuration) and hands them to :func:`~changelog_tools.ledger.checkrules.check_change`, which
holds the rules. Which mode a check runs in (flags, the GitHub Actions event) is
:mod:`~changelog_tools.ledger.checkmode`. The names callers import from here are re-exported.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from changelog_tools import diagnostics as dx
from changelog_tools.config import Config
from changelog_tools.errors import GitError, UsageError
from changelog_tools.fsutil import read_input, read_regular_file
from changelog_tools.ledger import appendonly
from changelog_tools.ledger.appended import AppendedEntry as AppendedEntry
from changelog_tools.ledger.checkmode import EventContext as EventContext
from changelog_tools.ledger.checkmode import Request as Request
from changelog_tools.ledger.checkmode import github_context as github_context
from changelog_tools.ledger.checkmode import queue_ref_pr as queue_ref_pr
from changelog_tools.ledger.checkmode import resolve_mode as resolve_mode
from changelog_tools.ledger.checkrules import MODES as MODES
from changelog_tools.ledger.checkrules import PHASED_RULES as PHASED_RULES
from changelog_tools.ledger.checkrules import CheckResult as CheckResult
from changelog_tools.ledger.checkrules import check_change as check_change
from changelog_tools.ledger.checkrules import phase_in as phase_in
from changelog_tools.ledger.document import count_entries

BASE_NOT_ANCESTOR = dx.register(
    "CL117",
    "base-not-ancestor",
    "The --base-ref given is not an ancestor of the head; the merge-base is what to compare.",
)


def run_check(
    request: Request,
    config: Config,
    *,
    env: Mapping[str, str],
    progress: Any = None,
) -> CheckResult:
    """Gather the bytes the request names (files or git refs) and run :func:`check_change`."""
    say = progress or (lambda _msg: None)
    event = github_context(env, main_branch=config.main_branch)
    mode, pr = resolve_mode(request, event)
    file_mode = request.head_file is not None or request.base_file is not None
    if file_mode and (request.base_ref is not None or request.head_ref is not None):
        raise UsageError("use either --base-file/--head-file or --base-ref/--head-ref, not both")
    if file_mode:
        return _run_files(request, config, mode=mode, pr=pr, say=say)
    return _run_git(request, config, mode=mode, pr=pr, event=event, say=say)


def _read_optional(path: str) -> bytes | None:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UsageError(f"{path}: cannot read: {exc.strerror}") from None


def _run_files(
    request: Request, config: Config, *, mode: str, pr: int | None, say: Any
) -> CheckResult:
    if request.head_file is None or request.base_file is None:
        raise UsageError("file mode needs both --base-file and --head-file")
    head = read_input(request.head_file, max_size=config.max_file_size)
    base = read_input(request.base_file, max_size=config.max_file_size)
    shown = display_path(Path(request.head_file), config)
    masters_head: dict[str, bytes | None] | None = None
    masters_base: dict[str, bytes | None] | None = None
    if request.config_keys:
        if request.master_configs:
            paths = [Path(p) for p in request.master_configs]
        else:
            paths = [config.root / p for p in config.master_configs]
        names = [display_path(p, config) for p in paths]
        masters_head = {n: _read_optional(str(p)) for n, p in zip(names, paths, strict=True)}
        if request.base_master_configs:
            if len(request.base_master_configs) != len(paths):
                raise UsageError(
                    f"--base-master-config was given {len(request.base_master_configs)} times "
                    f"for {len(paths)} master configs; give one per master config, in order"
                )
            masters_base = {
                n: _read_optional(p)
                for n, p in zip(names, request.base_master_configs, strict=True)
            }
    say(f"check: {request.base_file} -> {request.head_file}; {_mode_text(mode, pr)}")
    return check_change(
        base=base,
        head=head,
        config=config,
        mode=mode,
        pr=pr,
        path=shown,
        base_label=request.base_file,
        masters_base=masters_base,
        masters_head=masters_head,
        strict=request.strict,
    )


def display_path(path: Path, config: Config) -> str:
    """``path`` relative to the repository root when inside it, for stable diagnostics."""
    try:
        return str(path.resolve().relative_to(config.top))
    except ValueError:
        return str(path)


def _deleted_file(base: bytes, path: str, where: str, *, mode: str, pr: int | None) -> CheckResult:
    entries = count_entries(base)
    diagnostic = dx.error(
        dx.ENTRY_DELETED,
        f"the change deletes the changelog and its {dx.counted(entries, 'entry', 'entries')} "
        f"(present at {where})",
        path,
        hint="restore the file; entries are never deleted",
    )
    return _one_finding(diagnostic, base, path, mode=mode, pr=pr)


def _too_large(exc: Any, path: str, head_sha: str, *, mode: str, pr: int | None) -> CheckResult:
    """CL006 for a changelog over ``max-file-size`` at the head (in the words `check` uses for
    a file), or at the base (then saying so), none of it read."""
    where = "" if exc.ref == head_sha else f" at the base ({exc.ref[:12]})"
    diagnostic = dx.error(
        dx.TOO_LARGE,
        f"file{where} is {exc.size:,} bytes; the limit is {exc.limit:,} (`max-file-size`)",
        path,
    )
    return _one_finding(diagnostic, b"", path, mode=mode, pr=pr)


def _one_finding(
    diagnostic: dx.Diagnostic, base: bytes, path: str, *, mode: str, pr: int | None
) -> CheckResult:
    """The result of a change judged by one finding alone (no entry was compared)."""
    change = appendonly.Change(appendonly.ChangeKind.INVALID, base, b"", diagnostics=(diagnostic,))
    report = dx.Report(command="check")
    report.extend([diagnostic])
    report.data.update({"file": path, "mode": mode, "pr": pr, "change": {"kind": "invalid"}})
    return CheckResult(report, change)


def _mode_text(mode: str, pr: int | None) -> str:
    if mode == "main" and pr is not None:
        return f"main branch, landing pull request #{pr}"
    return {"pr": f"pull request #{pr}", "main": "main branch", "local": "local"}[mode]


def _commit(repo: Any, ref: str) -> str:
    sha: str | None = repo.try_rev_parse(ref)
    if sha is None and ref == "HEAD":
        # Only an unborn branch has no HEAD commit; "fetch it" would send the user astray.
        raise GitError(
            f"HEAD does not name a commit: the repository {repo.path} has no commits yet",
            hint="commit the changelog first, or compare two files with --base-file/--head-file",
        )
    if sha is None:
        return str(repo.user_commit(ref))  # the one wording: a usage error with a hint
    return sha


_SQUASH_SUBJECT = re.compile(r"\(#(?P<pr>[0-9]{1,9})\)\s*$")


def squash_subject_pr(repo: Any, *, head_sha: str, base_sha: str) -> int | None:
    """N when ``head_sha`` is one commit on top of ``base_sha`` whose subject ends in ``(#N)``.

    That is how GitHub names a squash merge of pull request N: the entries it appends are
    that PR's, so their pr-links must be pull N. A range of several commits names no one PR.
    """
    if repo.try_rev_parse(f"{head_sha}^") != base_sha:
        return None
    found = _SQUASH_SUBJECT.search(repo.subject(head_sha))
    return int(found["pr"]) if found else None


@dataclass(frozen=True, slots=True)
class _Base:
    """The base revision a git-mode check compares with, and how it was chosen (for the log)."""

    sha: str | None  # None: a root commit, everything in the head is new
    ref: str
    how: str = ""


def _run_git(
    request: Request,
    config: Config,
    *,
    mode: str,
    pr: int | None,
    event: EventContext | None,
    say: Any,
) -> CheckResult:
    """The check in git mode: the head and base revisions chosen, the configuration trusted at
    the base, the changelog (and master configs) read at both, then the rules of ``mode``."""
    from changelog_tools import gitrepo

    repo = gitrepo.open_repo(config.root)
    head_ref = _head_ref(request, event)
    head_sha = _commit(repo, head_ref)
    pushed = mode == "main" and event is not None and event.mode == "main"
    base = _pick_base(repo, request, config, event=event if pushed else None, head_ref=head_ref,
                      head_sha=head_sha)  # fmt: skip
    config, base, config_notes = _trusted_config(
        repo, config, base, head_sha=head_sha, fixed=request.base_ref is not None or pushed
    )
    changelog = _changelog_path(repo, request, config)
    if mode == "main" and pr is None and base.sha:
        # Seed 004's mistake (a link to another PR), caught even when the PR check was skipped.
        pr = squash_subject_pr(repo, head_sha=head_sha, base_sha=base.sha)
    # The work tree's copy of HEAD's file and the head's file itself are what the two blobs
    # usually are (or begin): read that way, git only confirms them by id instead of sending
    # two whole files, which on a long history is most of what git mode adds.
    worktree = _worktree_copy(repo.path / changelog, head_ref, config)
    try:
        head, base_bytes = _read_both(repo, changelog, head_sha, base.sha, worktree, config)
    except gitrepo.BlobTooLarge as exc:
        # Refused from the blob's size alone: reading a 300 MB ledger to say it is too large
        # would take twice that in memory first.
        return _too_large(exc, changelog, head_sha, mode=mode, pr=pr)
    if head is None and base_bytes is not None:
        # The change deleted the whole ledger: a failed rule (exit 1), not a wrong path.
        return _deleted_file(base_bytes, changelog, f"{base.ref}{base.how}", mode=mode, pr=pr)
    if head is None:
        raise UsageError(
            f"{changelog} does not exist at {head_ref} ({head_sha[:12]})",
            hint="pass --changelog-file PATH (relative to the repository root)",
        )
    masters_head, masters_base = (
        _git_masters(repo, request, config, base_sha=base.sha, head_sha=head_sha)
        if request.config_keys
        else (None, None)
    )
    say(
        f"check: {changelog} at {base.ref}{base.how} -> {head_ref} ({head_sha[:12]}); "
        f"{_mode_text(mode, pr)}"
    )
    result = check_change(
        base=base_bytes,
        head=head,
        config=config,
        mode=mode,
        pr=pr,
        path=changelog,
        base_label=f"{changelog}@{base.ref}",
        masters_base=masters_base,
        masters_head=masters_head,
        strict=request.strict,
    )
    result.report.extend(config_notes)
    if request.base_ref and base.sha and not repo.is_ancestor(base.sha, head_sha):
        result.report.extend([_base_not_ancestor(repo, request.base_ref, base.sha, head_sha,
                                                 changelog)])  # fmt: skip
    if head_ref == "HEAD" and worktree is not None and worktree != head:
        result.report.extend([_uncommitted_warning(changelog, head_sha)])
    return result


def _read_both(
    repo: Any,
    changelog: str,
    head_sha: str,
    base_sha: str | None,
    worktree: bytes | None,
    config: Config,
) -> tuple[bytes | None, bytes | None]:
    """The changelog's bytes at the head and at the base (None where it is absent; the base is
    None for a root commit). Bytes already in hand (the work tree's copy for the head, the
    head's for the base) are used when git's blob id proves them; BlobTooLarge beyond
    ``max-file-size``."""
    limit = config.max_file_size
    head = (
        repo.read_blob_from(head_sha, changelog, worktree, max_size=limit)
        if worktree is not None
        else repo.read_blob(head_sha, changelog, max_size=limit)
    )
    if not base_sha:
        return head, None
    if head is not None:
        return head, repo.read_blob_from(base_sha, changelog, head, max_size=limit)
    return head, repo.read_blob(base_sha, changelog, max_size=limit)


def _worktree_copy(path: Path, head_ref: str, config: Config) -> bytes | None:
    """The work tree's changelog when the head is HEAD, for git to confirm by id; None when it
    is not a regular file within ``max-file-size`` (a link to /dev/zero, a FIFO: git's copy is
    read instead, and judged the same)."""
    if head_ref != "HEAD":
        return None
    return read_regular_file(path, max_size=config.max_file_size)


def _head_ref(request: Request, event: EventContext | None) -> str:
    """The head revision: given, the event's, or HEAD. An empty --head-ref (or --base-ref) is
    a revision that does not exist, refused as canonicalize refuses it, never "not given"."""
    if request.head_ref is not None:
        return request.head_ref
    return (event.head if event and event.head else None) or "HEAD"


def _pick_base(
    repo: Any,
    request: Request,
    config: Config,
    *,
    event: EventContext | None,
    head_ref: str,
    head_sha: str,
) -> _Base:
    """The base named on the command line; for a push to main (``event``) the pushed range;
    else the merge-base with the main branch."""
    if request.base_ref is not None:
        return _Base(_commit(repo, request.base_ref), request.base_ref)
    if event is None:
        return _merge_base(repo, head_sha, config)
    # A push to main: the pushed range, or the first parent when `before` is unusable
    # (a new branch or a force push).
    before = event.base and repo.try_rev_parse(event.base)
    parent = before or repo.try_rev_parse(f"{head_sha}^")
    # A root commit has no parent: everything in it is new (comparing it with itself
    # would pass any content).
    how = (
        (
            " (the merge group's base)"
            if event.source.startswith("merge_group")
            else " (the push's previous tip)"
        )
        if before
        else " (first parent)"
        if parent
        else " (none: a root commit, every entry is new)"
    )
    return _Base(parent or None, event.base if before and event.base else f"{head_ref}^", how)


def _merge_base(repo: Any, head_sha: str, config: Config) -> _Base:
    from changelog_tools import gitrepo

    found = gitrepo.default_base(
        repo, head=head_sha, main_branch=config.main_branch, remote=config.remote
    )
    return _Base(found, found[:12], f" (merge-base with {config.main_branch})")


def _trusted_config(
    repo: Any, config: Config, base: _Base, *, head_sha: str, fixed: bool
) -> tuple[Config, _Base, list[dx.Diagnostic]]:
    """The base revision's configuration, with the base chosen again when that configuration
    names another main branch or remote (unless the base is ``fixed``: given, or a push's)."""
    if base.sha is None:
        return config, base, []
    trusted, notes = _config_at_base(config, repo, base.sha, base.ref)
    if (trusted.main_branch, trusted.remote) != (config.main_branch, config.remote) and not fixed:
        base = _merge_base(repo, head_sha, trusted)
    return trusted, base, notes


def _changelog_path(repo: Any, request: Request, config: Config) -> str:
    """The changelog's path from the work tree's top, where git names files: options are
    relative to the configuration's directory, command-line paths to the top (`./x` and
    absolute paths work too)."""
    from changelog_tools import gitrepo

    if request.changelog:
        return gitrepo.repo_relative(repo, request.changelog)
    return gitrepo.repo_relative(repo, config.changelog, start=config.root)


def _git_masters(
    repo: Any, request: Request, config: Config, *, base_sha: str | None, head_sha: str
) -> tuple[dict[str, bytes | None], dict[str, bytes | None] | None]:
    """The master configs' bytes at the head and at the base (None without a base)."""
    from changelog_tools import gitrepo

    paths = [gitrepo.repo_relative(repo, p) for p in request.master_configs] or [
        gitrepo.repo_relative(repo, p, start=config.root) for p in config.master_configs
    ]
    masters_head = {p: repo.read_blob(head_sha, p) for p in paths}
    if not base_sha:
        return masters_head, None
    # A master config the change did not touch is the same blob at both ends: its head
    # bytes are its base bytes (two small tree reads instead of a second copy of it).
    return masters_head, {
        p: masters_head[p]
        if masters_head[p] is not None and repo.same_file(base_sha, head_sha, p)
        else repo.read_blob(base_sha, p)
        for p in paths
    }


def _uncommitted_warning(changelog: str, head_sha: str) -> dx.Diagnostic:
    """`new` writes the working tree; check reads commits. Say so, or an author who just ran
    `new` is told the change appends nothing."""
    return dx.warning(
        dx.UNCOMMITTED_CHANGELOG,
        "the working tree has uncommitted changes to the changelog; check judges "
        f"commits ({head_sha[:12]}), not the working tree",
        changelog,
        hint="commit the change (git commit), then run check again; or compare "
        "files: check --base-file OLD --head-file " + changelog,
    )


def _base_not_ancestor(
    repo: Any, base_ref: str, base_sha: str, head_sha: str, path: str
) -> dx.Diagnostic:
    """A base that is not an ancestor of the head (main's tip, for a pull request behind main)
    makes main's own later entries look like the PR's edits: say so, naming the merge-base.

    Without a merge-base (a shallow clone cut above the fork, or unrelated histories) the
    findings still stand as a comparison of the two files, as `lint` and `canonicalize` make
    it: the warning says what is missing instead of failing the whole check."""
    merge_base = repo.try_merge_base(base_sha, head_sha)
    if merge_base is None:
        shallow = _is_shallow(repo)
        return dx.warning(
            BASE_NOT_ANCESTOR,
            f"the base {base_ref} ({base_sha[:12]}) is not an ancestor of the head "
            f"({head_sha[:12]}) and they have no common ancestor"
            + (" in this shallow clone" if shallow else "")
            + ": the findings compare the two files, whatever history lies between them",
            path,
            hint="fetch the whole history (git fetch --unshallow; actions/checkout: "
            "`fetch-depth: 0`) and compare with the merge-base"
            if shallow
            else "compare with a base the head descends from",
        )
    return dx.warning(
        BASE_NOT_ANCESTOR,
        f"the base {base_ref} ({base_sha[:12]}) is not an ancestor of the head "
        f"({head_sha[:12]}): what the main branch gained since the head branched off counts "
        "as this change; findings about entries the change never touched come from that",
        path,
        hint=f"compare with the merge-base: --base-ref {merge_base[:12]}, or leave --base-ref "
        "out (the default is the merge-base with the main branch)",
    )


def _is_shallow(repo: Any) -> bool:
    # Only to word a warning: a question git cannot answer is not an error of its own.
    try:
        return bool(repo.is_shallow())
    except GitError:
        return False


def _config_at_base(
    config: Config, repo: Any, base_sha: str, base_label: str
) -> tuple[Config, list[dx.Diagnostic]]:
    """``config`` with every option as the base revision's configuration file sets it, and a
    warning naming the options the working tree's file changes.

    A pull request can edit (or add, or leave untracked) a configuration file that turns an
    error into a warning, points `changelog` at another file or `master-configs` at none:
    `check` judges a change by the rules of the branch it targets, as `lint` does. A file
    outside the repository (`--config /elsewhere`) is the caller's own and is kept.
    """
    from changelog_tools.config import OPTIONS, config_file_at_revision, options_at_revision

    found = config_file_at_revision(config, repo, base_sha)
    if found is None:
        return config, []  # a configuration outside the repository is the caller's own
    rel, raw = found
    names = [o.name for o in OPTIONS]
    trusted = options_at_revision(config, raw, name=rel, names=names, at=f"the base {base_label}")
    differ = [o.name for o in OPTIONS if getattr(trusted, o.attr) != getattr(config, o.attr)]
    if not differ:
        return trusted, []
    base = (
        f"{rel} at {base_label}"
        if raw is not None
        else f"the defaults ({base_label} has no configuration file)"
    )
    return trusted, [
        dx.warning(
            dx.CONFIG_NOT_TRUSTED,
            f"the configuration here sets {', '.join(differ)} differently from {base}; check "
            "applies the base's: a change to the configuration takes effect once it is on the "
            "main branch",
            rel,
            hint="merge the configuration change on its own first, if it is meant",
        )
    ]
