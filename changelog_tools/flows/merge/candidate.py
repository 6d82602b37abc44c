"""The git side of the merge flow: build the head the PR will have when it is merged.

In a scratch worktree on the PR head (never the user's checkout): merge main in, resolve a
changelog conflict, canonicalize the PR's placeholder pr-links, commit, and run `check` in PR
mode on exactly that commit. Everything here is local; the push happens later, and only after
every preflight passed.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass

from changelog_tools import diagnostics as dx
from changelog_tools.config import Config
from changelog_tools.errors import AbortedError, DataError
from changelog_tools.flows.landing.plan import Resolution
from changelog_tools.flows.landing.ports import Say
from changelog_tools.flows.merge import git as mg
from changelog_tools.flows.merge.message import flow_commit_message
from changelog_tools.github.adapter import PullRequest
from changelog_tools.gitrepo import GitRepo, read_index_stages
from changelog_tools.ledger.canonicalize import Substitution, canonicalize


@dataclass(frozen=True)
class Candidate:
    """The commit that will be pushed (or kept) as the PR head, and how it came to be."""

    sha: str
    main_sha: str
    merged_main: bool
    conflicted: tuple[str, ...]
    resolution: Resolution | None
    substitutions: tuple[Substitution, ...]
    kind: str  # merge | merge+canonicalize | canonicalize | refresh | resume
    commit_messages: tuple[str, ...]  # the PR's own commits (not main's), oldest first


@contextlib.contextmanager
def scratch_on_head(
    *, repo: GitRepo, config: Config, pull: PullRequest, say: Say
) -> Iterator[tuple[mg.Scratch, str]]:
    """Fetch main and the PR head; a worktree on the head; yields it and main's SHA."""
    say("merge-main", f"fetching {config.remote} {config.main_branch} and {pull.head_ref}")
    main_sha, head_sha = mg.fetch_refs(
        repo,
        remote=config.remote,
        main_branch=config.main_branch,
        head_branch=pull.head_ref,
        pr=pull.number,
    )
    if head_sha != pull.head_sha:
        raise AbortedError(
            f"PR #{pull.number}'s head on GitHub ({pull.head_sha[:12]}) differs from "
            f"{config.remote}/{pull.head_ref} ({head_sha[:12]}); nothing was changed",
            hint="someone pushed just now, or GitHub has not caught up: re-run in a moment",
        )
    with mg.scratch_worktree(repo, start=head_sha, pr=pull.number) as scratch:
        yield scratch, main_sha


def build_candidate(
    *, config: Config, pull: PullRequest, scratch: mg.Scratch, main_sha: str, say: Say
) -> Candidate:
    """Merge main, resolve, canonicalize and commit in ``scratch``; then `check` the result."""
    cfg = config
    n = pull.number
    wt = scratch.repo
    marker = cfg.skip_sweep_marker
    _own_change(cfg, wt, main_sha=main_sha, head=pull.head_sha, pr=n)
    attempt = mg.merge_main(
        scratch,
        main_sha=main_sha,
        message=flow_commit_message(f"Merge {cfg.main_branch} into #{n}", pr=n, marker=marker),
    )
    resolution: Resolution | None = None
    if attempt.conflicted:
        resolution = _resolve(cfg, wt, attempt.conflicted, n)
    say("merge-main", _merge_summary(cfg, attempt, resolution, main_sha))
    base_bytes = wt.read_blob(main_sha, cfg.changelog)
    head_bytes = (
        (scratch.path / cfg.changelog).read_bytes()
        if (scratch.path / cfg.changelog).exists()
        else None
    )
    substitutions: tuple[Substitution, ...] = resolution.substitutions if resolution else ()
    changed = False
    if head_bytes is not None:
        canon = canonicalize(
            base_bytes,
            head_bytes,
            pr=n,
            config=cfg,
            base_label=f"{cfg.changelog}@{cfg.main_branch}",
        )
        substitutions += canon.substitutions
        changed = canon.changed
        if changed:
            mg.write_and_stage(wt, cfg.changelog, canon.data)
    for s in substitutions:
        say("canonicalize", f"{cfg.changelog}:{s.line}: {s.old} -> {s.new}")
    if not substitutions:
        say("canonicalize", "pr-links already canonical")
    is_flow_head = f"{mg.FLOW_TRAILER}: #{n}" in mg.commit_message(wt, pull.head_sha)
    if attempt.merged:
        kind = "merge+canonicalize" if substitutions else "merge"
        if attempt.conflicted:
            mg.commit(
                wt,
                flow_commit_message(f"Merge {cfg.main_branch} into #{n}", pr=n, marker=marker),
            )
        elif changed:
            mg.commit(wt, mg.commit_message(wt, "HEAD"), amend=True)
    elif changed:
        kind = "canonicalize"
        mg.commit(wt, flow_commit_message(f"Canonicalize the pr-link of #{n}", pr=n, marker=marker))
    elif is_flow_head:
        # The head is what an earlier run pushed and it is still current: resume from it.
        kind = "resume"
        say("merge-main", "the PR head is this flow's earlier push and is current; resuming")
    else:
        # A new head SHA is what makes the PR-side reuse gate see the authorization.
        kind = "refresh"
        mg.commit(
            wt,
            flow_commit_message(f"Refresh #{n} for sweep reuse", pr=n, marker=marker),
            allow_empty=True,
        )
    candidate = wt.rev_parse("HEAD")
    _check(cfg, wt, main_sha=main_sha, candidate=candidate, pr=n)
    say("preflight", f"changelog passes check in PR mode at {candidate[:12]}")
    return Candidate(
        sha=candidate,
        main_sha=main_sha,
        merged_main=attempt.merged,
        conflicted=attempt.conflicted,
        resolution=resolution,
        substitutions=substitutions,
        kind=kind,
        commit_messages=tuple(mg.pr_commit_subjects(wt, main_sha=main_sha, head=candidate)),
    )


# An existing entry deleted or changed in meaning: no merge of main can make that eligible.
_HISTORY_EDITS = frozenset({dx.ENTRY_DELETED, dx.ENTRY_CHANGED, dx.MIXED_CORRECTION_APPEND})


def _own_change(cfg: Config, wt: GitRepo, *, main_sha: str, head: str, pr: int) -> None:
    """Refuse a PR whose own change edits changelog history, before main is merged in.

    Judged against the PR's fork point, not main: whether main moved meanwhile (a conflict to
    resolve) or not, the same PR gets the same answer, exit 1 (not eligible), never "stopped
    safely, re-run later".
    """
    from changelog_tools.ledger.appendonly import compare

    data = wt.read_blob(head, cfg.changelog)
    if data is None:
        return
    fork = wt.merge_base(head, main_sha)
    change = compare(
        wt.read_blob(fork, cfg.changelog),
        data,
        path=cfg.changelog,
        base_label=f"{cfg.changelog}@{fork[:12]}",
        max_size=cfg.max_file_size,
        whitespace_separator=cfg.whitespace_only_separator,
    )
    edits = [
        d
        for d in change.diagnostics
        if d.severity is dx.Severity.ERROR and d.code in _HISTORY_EDITS
    ]
    if edits:
        d = edits[0]
        where = f"{d.path}:{d.line}" if d.line else d.path
        more = f" (and {len(edits) - 1} more)" if len(edits) > 1 else ""
        raise DataError(
            f"PR #{pr} is not eligible: it edits changelog history, not only appends: "
            f"{where}: {d.code} {d.message}{more}",
            hint="existing entries are immutable (pr-link corrections aside): restore them on "
            "the PR branch, push, and re-run",
        )


def resolve_changelog(
    *, base: bytes | None, pr_side: bytes, main_side: bytes, pr: int, config: Config
) -> Resolution:
    """Three-way resolution of the changelog (PR side = ours, main side = theirs)."""
    from changelog_tools.ledger import resolve

    result = resolve.resolve(base, pr_side, main_side, pr=pr, config=config)
    return Resolution(
        data=result.data,
        kept=len(result.appended),
        dropped=len(result.dropped),
        detail=result.as_json(),
        substitutions=result.substitutions,
    )


def _resolve(config: Config, wt: GitRepo, conflicted: tuple[str, ...], pr: int) -> Resolution:
    changelog = config.changelog
    others = [p for p in conflicted if p != changelog]
    if others:
        mg.abort_merge(wt)
        raise AbortedError(
            f"merging {config.main_branch} into PR #{pr} conflicts in "
            f"{', '.join(others)}; only {changelog} is resolved automatically. Nothing "
            "was pushed",
            hint=f"merge {config.main_branch} into the PR branch by hand, push, and re-run",
        )
    # The flow merges main INTO the PR branch: ours (stage 2) is the PR, theirs (3) main.
    stages = read_index_stages(wt, changelog)
    base, ours, theirs = stages.get(1), stages.get(2), stages.get(3)
    if ours is None or theirs is None:
        mg.abort_merge(wt)
        raise AbortedError(
            f"{changelog} was deleted on one side of the merge; nothing was pushed",
            hint="resolve the merge by hand",
        )
    try:
        resolution = resolve_changelog(
            base=base, pr_side=ours, main_side=theirs, pr=pr, config=config
        )
    except DataError as exc:
        mg.abort_merge(wt)
        raise AbortedError(
            f"could not resolve the {changelog} conflict safely: {exc.message}; nothing was pushed",
            hint=exc.hint or "resolve the merge by hand",
        ) from None
    mg.write_and_stage(wt, changelog, resolution.data)
    return resolution


def _check(cfg: Config, wt: GitRepo, *, main_sha: str, candidate: str, pr: int) -> None:
    """`check` in PR mode on what will be merged, master configs included."""
    from changelog_tools.ledger.check import check_change

    head = wt.read_blob(candidate, cfg.changelog)
    if head is None:
        raise DataError(f"PR #{pr} has no {cfg.changelog} after merging {cfg.main_branch}")
    result = check_change(
        base=wt.read_blob(main_sha, cfg.changelog),
        head=head,
        config=cfg,
        mode="pr",
        pr=pr,
        path=cfg.changelog,
        base_label=f"{cfg.changelog}@{cfg.main_branch}",
        masters_base={p: wt.read_blob(main_sha, p) for p in cfg.master_configs},
        masters_head={p: wt.read_blob(candidate, p) for p in cfg.master_configs},
    )
    errors = result.report.errors
    if errors:
        shown = "; ".join(
            f"{d.path}:{d.line}: {d.code} {d.message}"
            if d.line
            else f"{d.path}: {d.code} {d.message}"
            for d in errors[:3]
        )
        more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
        raise DataError(
            f"PR #{pr}'s changelog fails `check` in PR mode after merging "
            f"{cfg.main_branch}: {shown}{more}",
            hint=f"run `changelog-tools check --pr {pr}` on the PR branch, fix, push, re-run",
        )


def _merge_summary(
    cfg: Config, attempt: mg.MergeAttempt, resolution: Resolution | None, main_sha: str
) -> str:
    if not attempt.merged:
        return f"already up to date with {cfg.main_branch}"
    text = f"merged {cfg.main_branch} ({main_sha[:12]})"
    if resolution is not None:
        plural = "y" if resolution.kept == 1 else "ies"
        text += f"; {cfg.changelog} conflict resolved: kept {resolution.kept} PR entr{plural}"
        if resolution.dropped:
            text += f", dropped {resolution.dropped} already on main"
    return text
