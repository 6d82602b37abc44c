"""`lint` over git revisions: the head and base trees, what changed, and the review date."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, replace

from changelog_tools.config import OPTIONS, Config
from changelog_tools.gitrepo import GitRepo
from changelog_tools.lint.engine import LintRequest, LintResult, run_lint
from changelog_tools.lint.tree import GitTree


@dataclass(frozen=True)
class GitLint:
    result: LintResult
    subject: str  # what was linted, for the summary line


def _commit(repo: GitRepo, ref: str) -> str:
    return repo.user_commit(ref)


# Options that decide what a finding may get away with: read at the base, so a pull request
# cannot allow its own violation or turn a rule off for itself. Every `lint-*` option does:
# a pull request that marks every path a harness path, or empties a pattern, blinds a rule
# as surely as turning it off.
# So do the paths they judge: `master-configs` pointed elsewhere hides every entry, and the
# changelog's path is never judged as code.
TRUSTED_OPTIONS = (
    *(o.name for o in OPTIONS if o.name.startswith("lint-")),
    "master-configs",
    "changelog",
)


def trusted_options(config: Config, repo: GitRepo, base_sha: str) -> Config:
    """``config`` with the trusted options as the base revision's configuration file has them
    (their defaults when the file is absent there); unchanged for a file outside the repo."""
    from changelog_tools.config import config_file_at_revision, options_at_revision

    # The file the search finds at the base, even when the head has none or another one
    # (a deleted or an added configuration file must not choose the defaults: review finding).
    found = config_file_at_revision(config, repo, base_sha)
    if found is None:
        return config  # a configuration outside the repository is the caller's own
    rel, raw = found
    return options_at_revision(
        config, raw, name=rel, names=TRUSTED_OPTIONS, at=f"the base {base_sha[:12]}"
    )


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

    repo = gitrepo.open_repo(config.root)
    event = None
    if not audit and (env or {}).get("GITHUB_EVENT_NAME"):
        # Imported only inside GitHub Actions: the event reader lives with `check`.
        from changelog_tools.ledger.check import github_context

        event = github_context(env or {}, main_branch=config.main_branch)
    if pr is None and event is not None and event.mode == "pr":
        pr = event.pr
    event_head = event.head if event and event.head else None
    head_name = head_ref if head_ref is not None else (event_head or "HEAD")
    head_sha = _commit(repo, head_name)
    head = GitTree(repo, head_sha)
    base_sha: str | None
    if audit:
        base_sha = _commit(repo, base_ref) if base_ref is not None else None
        how = ""
    elif base_ref is not None:
        base_sha, how = _commit(repo, base_ref), f" at {base_ref}"
    else:
        base_sha = gitrepo.default_base(
            repo, head=head_sha, main_branch=config.main_branch, remote=config.remote
        )
        how = f" (merge-base with {config.main_branch}, {base_sha[:12]})"
    base = GitTree(repo, base_sha) if base_sha else None
    if base_sha is not None and not audit:
        config = trusted_options(config, repo, base_sha)
    # Options name paths from the configuration's directory; git names them from the top.
    masters = tuple(
        gitrepo.repo_relative(repo, p, start=config.root) for p in config.master_configs
    )
    config = replace(config, master_configs=masters)
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
        count = len(changed or ())
        subject = (
            f"{head_name} ({head_sha[:12]}) against the base{how}, "
            f"{count} changed path{'s' * (count != 1)}"
        )
    say(f"lint: {subject}")
    return GitLint(run_lint(request, config, rules=rules), subject)
