"""Preflight of the merge flow: is this pull request one the flow may merge with reuse?

Reads only: the working tree must be clean, the PR open, not a draft, not from a fork, aimed at
main, with exactly one full-sweep label and no label that makes its sweep unusable for reuse.
"""

from __future__ import annotations

from changelog_tools.config import Config
from changelog_tools.errors import DataError
from changelog_tools.flows.landing.ports import MergeGitHub, Say
from changelog_tools.github.adapter import PullRequest
from changelog_tools.gitrepo import GitRepo


def read_pull(
    *, repo: GitRepo, github: MergeGitHub, config: Config, pr: int, say: Say
) -> PullRequest | None:
    """PR state and labels; None when the PR is already merged (nothing left to do)."""
    n = pr
    if not repo.is_clean():
        raise DataError(
            "the working tree has uncommitted changes",
            hint="commit or stash them first (the merge flow never touches them, but a "
            "clean tree keeps what you run and what you merge the same)",
        )
    say("preflight", f"reading PR #{n}")
    pull = github.user_pull(n)
    if pull.merged:
        return None
    check_eligible(pull, config)
    return pull


def check_eligible(pull: PullRequest, cfg: Config) -> None:
    """Raise DataError (exit 1, with what to do) unless the flow may merge ``pull``."""
    n = pull.number
    if pull.state != "open":
        raise DataError(f"PR #{n} is {pull.state}, not open", hint="reopen it first")
    if pull.draft:
        raise DataError(f"PR #{n} is a draft", hint="mark it ready for review first")
    if pull.is_fork:
        raise DataError(
            f"PR #{n} comes from a fork ({pull.head_repo or 'deleted'}); the merge flow "
            "cannot push to its branch",
            hint="merge it by hand, or ask the author to push the branch to this repository",
        )
    if pull.base_ref != cfg.main_branch:
        raise DataError(f"PR #{n} targets {pull.base_ref}, not {cfg.main_branch}")
    sweep = [lb for lb in pull.labels if lb in cfg.sweep_labels]
    if len(sweep) != 1:
        have = ", ".join(sweep) or "none"
        raise DataError(
            f"PR #{n} must carry exactly one sweep label (has: {have})",
            hint=f"use one of: {', '.join(cfg.full_sweep_labels)}",
        )
    if sweep[0] not in cfg.full_sweep_labels:
        raise DataError(
            f"PR #{n} has sweep label {sweep[0]}, which is not a full sweep; its results "
            "cannot be reused on main",
            hint=f"relabel with one of: {', '.join(cfg.full_sweep_labels)} and let it sweep",
        )
    bad = [lb for lb in pull.labels if lb in cfg.reuse_incompatible_labels]
    if bad:
        raise DataError(
            f"PR #{n} has label {', '.join(bad)}, which makes its sweep unusable for reuse",
            hint="remove the label and let the PR sweep again, or merge without reuse",
        )
