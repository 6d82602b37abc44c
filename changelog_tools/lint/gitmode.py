"""`lint` over git revisions: the head and base trees, what changed, and the review date."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, replace

from changelog_tools.config import Config
from changelog_tools.errors import GitError
from changelog_tools.lint.engine import LintRequest, LintResult, run_lint
from changelog_tools.lint.tree import GitTree


@dataclass(frozen=True)
class GitLint:
    result: LintResult
    subject: str  # what was linted, for the summary line


def _commit(repo: object, ref: str) -> str:
    sha: str | None = repo.try_rev_parse(ref)  # type: ignore[attr-defined]
    if sha is None:
        raise GitError(
            f"unknown revision {ref!r}",
            hint="fetch it first (CI checkouts need `fetch-depth: 0`), or check the spelling",
        )
    return sha


def lint_git(
    config: Config,
    *,
    base_ref: str | None,
    head_ref: str | None,
    audit: bool,
    pr: int | None,
    now: datetime.date | None,
    rules: Collection[str] | None = None,
    env: Mapping[str, str] | None = None,
    say: Callable[[str], None] = lambda _msg: None,
) -> GitLint:
    from changelog_tools import gitrepo
    from changelog_tools.ledger.check import github_context

    repo = gitrepo.open_repo(config.root)
    event = github_context(env or {}, main_branch=config.main_branch) if not audit else None
    if pr is None and event is not None and event.mode == "pr":
        pr = event.pr
    head_name = head_ref or (event.head if event and event.head else None) or "HEAD"
    head_sha = _commit(repo, head_name)
    # Options name paths from the configuration's directory; git names them from the top.
    masters = tuple(
        gitrepo.repo_relative(repo, p, start=config.root) for p in config.master_configs
    )
    config = replace(config, master_configs=masters)
    head = GitTree(repo, head_sha)
    base_sha: str | None
    if audit:
        base_sha = _commit(repo, base_ref) if base_ref else None
        how = ""
    elif base_ref:
        base_sha, how = _commit(repo, base_ref), f" at {base_ref}"
    else:
        base_sha = gitrepo.default_base(
            repo, head=head_sha, main_branch=config.main_branch, remote=config.remote
        )
        how = f" (merge-base with {config.main_branch}, {base_sha[:12]})"
    base = GitTree(repo, base_sha) if base_sha else None
    changed = None if audit or base_sha is None else tuple(repo.changed_paths(base_sha, head_sha))
    request = LintRequest(
        head=head,
        base=base,
        changed=changed,
        pr=pr,
        now=now or datetime.datetime.now(datetime.UTC).date(),
    )
    if audit:
        subject = f"{head_name} ({head_sha[:12]}), whole tree"
    else:
        subject = f"{head_name} ({head_sha[:12]}) against the base{how}, {len(changed or ())} changed paths"
    say(f"lint: {subject}")
    return GitLint(run_lint(request, config, rules=rules), subject)
