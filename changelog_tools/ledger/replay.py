"""Replay merged pull requests through `check` and `fix`: the gate's blast radius on history.

Before a maintainer makes `check` a required status, they want to know what it would have said
on the pull requests that already landed. Each commit on the main branch's first-parent history
that changed the changelog is one merged change: its first parent's changelog is the base, its
own the head. It is checked as its pull request would be (pull-request mode with N from a
subject ending in ``(#N)`` or starting ``Merge pull request #N``; main mode, as the push job
checks it, when the subject names no pull request). A failing one goes through `fix` in memory
and the result is checked again. Nothing is written.
"""

from __future__ import annotations

import collections
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from changelog_tools import diagnostics as dx
from changelog_tools.config import Config
from changelog_tools.errors import ChangelogToolsError, UsageError
from changelog_tools.gitrepo import GitRepo, repo_relative
from changelog_tools.ledger.check import check_change
from changelog_tools.ledger.fix import fix_change

_SQUASH = re.compile(r"\(#(?P<pr>[0-9]{1,9})\)\s*$")
_MERGE = re.compile(r"^Merge pull request #(?P<pr>[0-9]{1,9})\b")

# What `fix` did for a failing change.
REPAIRED = "repaired"  # `check` passes on fix's output
STILL_FAILS = "still-fails"  # fix rewrote something, `check` still fails
REFUSED = "refused"  # fix refused (a human's edit of history, unreadable side, ...)


def subject_pr(subject: str) -> int | None:
    """The pull request a merge commit's subject names: ``... (#N)`` (GitHub's squash merge) or
    ``Merge pull request #N ...`` (its merge commit); None otherwise."""
    found = _SQUASH.search(subject) or _MERGE.match(subject)
    return int(found["pr"]) if found and int(found["pr"]) > 0 else None


@dataclass(frozen=True)
class Replayed:
    """One merged change and what `check` and `fix` say about it."""

    commit: str
    # Exactly as git stores it: JSON escapes its control characters, text output would show
    # them as \xNN (diagnostics.visible); replacing them here would lose what was written.
    subject: str
    pr: int | None
    mode: str
    codes: tuple[str, ...]  # the error codes `check` fails it with; empty when it passes
    fix: str | None = None  # REPAIRED, STILL_FAILS or REFUSED for a failing change
    after: tuple[str, ...] = ()  # error codes left after `fix` (the refusal's code if refused)

    def to_json(self) -> dict[str, Any]:
        return {
            "commit": self.commit,
            "subject": self.subject,
            "pr": self.pr,
            "mode": self.mode,
            "passes": not self.codes,
            "codes": list(self.codes),
            "fix": self.fix,
            "after-fix": list(self.after),
        }


@dataclass(frozen=True)
class Replay:
    """The replay of the newest merged changes of the changelog on one branch."""

    branch: str
    changelog: str
    limit: int
    config_keys: bool
    changes: tuple[Replayed, ...] = field(default_factory=tuple)

    @property
    def failing(self) -> list[Replayed]:
        return [c for c in self.changes if c.codes]

    def by_code(self) -> dict[str, dict[str, int]]:
        """code -> {"failing": changes failing with it, "gone": of those, changes where the
        code is gone after `fix`}; most frequent first."""
        failing: collections.Counter[str] = collections.Counter()
        gone: collections.Counter[str] = collections.Counter()
        for c in self.failing:
            failing.update(c.codes)
            if c.fix != REFUSED:
                gone.update(set(c.codes) - set(c.after))
        return {
            code: {"failing": count, "gone": gone[code]}
            for code, count in sorted(failing.items(), key=lambda kv: (-kv[1], kv[0]))
        }

    def fix_counts(self) -> dict[str, int]:
        counts = collections.Counter(c.fix for c in self.failing)
        return {kind: counts[kind] for kind in (REPAIRED, STILL_FAILS, REFUSED)}

    def refusals(self) -> dict[str, int]:
        counts = collections.Counter(c.after[0] for c in self.failing if c.fix == REFUSED)
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

    def to_json(self) -> dict[str, Any]:
        return {
            "command": "replay",
            "branch": self.branch,
            "changelog": self.changelog,
            "limit": self.limit,
            "config-keys": self.config_keys,
            "replayed": len(self.changes),
            "pass": len(self.changes) - len(self.failing),
            "fail": len(self.failing),
            "by-code": {
                code: {"name": _name(code), **counts} for code, counts in self.by_code().items()
            },
            "fix": {**self.fix_counts(), "refused-by-code": self.refusals()},
            "changes": [c.to_json() for c in self.changes],
        }


def _name(code: str) -> str:
    known = dx.CODES.get(code)
    return known.name if known else ""


def _error_codes(report: dx.Report) -> tuple[str, ...]:
    codes = {d.code for d in report.errors}
    codes.update(code for code, (errors, _warnings) in report.hidden.items() if errors)
    return tuple(sorted(codes))


def replay_history(
    repo: GitRepo,
    config: Config,
    *,
    limit: int,
    branch: str | None = None,
    changelog: str | None = None,
    config_keys: bool = True,
    progress: Callable[[str], None] | None = None,
) -> Replay:
    """Replay the newest ``limit`` merged changes of the changelog on ``branch``.

    ``branch`` defaults to the configured main branch (the remote's copy when there is no local
    one). ``config_keys`` False skips the master-config rules, as `check --no-config-keys`.
    """
    if limit < 1:
        raise UsageError(f"--limit must be at least 1, not {limit}")
    say = progress or (lambda _msg: None)
    ref = branch or _main_ref(repo, config)
    tip = repo.user_commit(ref)
    path = (
        repo_relative(repo, changelog)
        if changelog
        else repo_relative(repo, config.changelog, start=config.root)
    )
    masters = [repo_relative(repo, p, start=config.root) for p in config.master_configs]
    if repo.is_shallow():
        # The oldest commit of a shallow clone has no parent here: its whole changelog would
        # look new, and every verdict on it would be wrong.
        raise UsageError(
            f"the clone at {repo.path} is shallow: replaying needs the history of {path}",
            hint="fetch it whole: `git fetch --unshallow` (in a workflow: actions/checkout "
            "with fetch-depth: 0)",
        )
    found = list(_take(repo.first_parent_changes(tip, path), limit))
    say(f"replay: the newest {len(found)} merged changes of {path} on {ref} ({tip[:12]})")
    changes: list[Replayed] = []
    for sha, parent, subject in found:
        one = _replay_one(
            repo, config, sha=sha, parent=parent, subject=subject, path=path,
            masters=masters if config_keys else None,
        )  # fmt: skip
        changes.append(one)
        say(f"replay: {len(changes)}/{len(found)} {sha[:12]} {_who(one)}: {_verdict(one)}")
    return Replay(ref, path, limit, config_keys, tuple(changes))


def _take(
    items: Iterable[tuple[str, str | None, str]], limit: int
) -> Iterable[tuple[str, str | None, str]]:
    for count, item in enumerate(items):
        if count >= limit:
            return
        yield item


def _main_ref(repo: GitRepo, config: Config) -> str:
    if repo.has_commit(f"refs/heads/{config.main_branch}"):
        return config.main_branch
    remote = f"refs/remotes/{config.remote}/{config.main_branch}"
    return (
        f"{config.remote}/{config.main_branch}" if repo.has_commit(remote) else config.main_branch
    )


def _who(one: Replayed) -> str:
    return f"#{one.pr}" if one.pr is not None else "(no pull request named; main mode)"


def _verdict(one: Replayed) -> str:
    if not one.codes:
        return "passes"
    fails = f"fails {', '.join(one.codes)}"
    if one.fix == REPAIRED:
        return f"{fails}; `fix` repairs it"
    if one.fix == REFUSED:
        return f"{fails}; `fix` refuses ({one.after[0]})"
    return f"{fails}; after `fix` still {', '.join(one.after)}"


def _replay_one(
    repo: GitRepo,
    config: Config,
    *,
    sha: str,
    parent: str | None,
    subject: str,
    path: str,
    masters: list[str] | None,
) -> Replayed:
    pr = subject_pr(subject)
    mode = "pr" if pr is not None else "main"
    head = repo.read_blob(sha, path)
    base = repo.read_blob(parent, path) if parent else None
    if head is None:
        # The merge deleted the ledger: `check` fails it (CL101) and nothing repairs that.
        return Replayed(sha, subject, pr, mode, (dx.ENTRY_DELETED,), REFUSED, (dx.ENTRY_DELETED,))
    masters_head = masters_base = None
    if masters is not None:
        masters_head = {p: repo.read_blob(sha, p) for p in masters}
        masters_base = {
            p: masters_head[p]
            if parent and masters_head[p] is not None and repo.same_file(parent, sha, p)
            else (repo.read_blob(parent, p) if parent else None)
            for p in masters
        }

    def verdict(data: bytes) -> tuple[str, ...]:
        result = check_change(
            base=base, head=data, config=config, mode=mode, pr=pr, path=path,
            base_label=f"{sha[:12]}^", masters_base=masters_base, masters_head=masters_head,
        )  # fmt: skip
        return _error_codes(result.report)

    codes = verdict(head)
    if not codes:
        return Replayed(sha, subject, pr, mode, ())
    try:
        fixed = fix_change(base, head, config=config, path=path, base_label=f"{sha[:12]}^", pr=pr)
    except ChangelogToolsError as refusal:
        return Replayed(sha, subject, pr, mode, codes, REFUSED, (_refusal_code(refusal),))
    after = verdict(fixed.data)
    return Replayed(sha, subject, pr, mode, codes, STILL_FAILS if after else REPAIRED, after)


def _refusal_code(error: ChangelogToolsError) -> str:
    code = getattr(error, "code", None)
    if isinstance(code, str):
        return code
    details = getattr(error, "diagnostics", None)
    if details:
        return str(details[0].code)
    return type(error).__name__
