"""``signoff verify``: gather a pull request's facts, run every check, publish one verdict.

The run has three parts that never mix. The facts (:mod:`.facts`) are everything read about the
PR, through the API and as git data; the checks (:mod:`.checks`) are small functions from facts
to a :class:`~.verdict.Check`; publishing (:mod:`.publish`) writes the verdict comment and the
status. This module only orders them.

Trust: CODEOWNERS, the checklist and its history, thresholds, MODELS.md and the rest come from
the trusted checkout (the default branch). The PR's files are data: its head is fetched into a
private ref and read as blobs; nothing from it is checked out or run. Every GitHub fact is read
through the API at run time; the event only says which PR to look at and whether to bother.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from changelog_tools.config import Config
from changelog_tools.errors import GitError, GitHubError
from changelog_tools.github.adapter import MAX_PULL_COMMITS, MAX_PULL_FILES, GitHub
from changelog_tools.github.records import WorkflowRun
from changelog_tools.gitrepo import GitRepo
from changelog_tools.signoff import candidates
from changelog_tools.signoff.candidates import Candidate
from changelog_tools.signoff.checks import content, evals, recipe, signers, sweeprun
from changelog_tools.signoff.coverage import Owners, changed_paths
from changelog_tools.signoff.events import Skip, comment_skip, pr_from_event, pull_skip
from changelog_tools.signoff.facts import LiveFacts, PullFacts
from changelog_tools.signoff.markers import find_verdict_comment
from changelog_tools.signoff.publish import Published, publish, publish_failure
from changelog_tools.signoff.trusted import Trusted, load_trusted
from changelog_tools.signoff.verdict import Check, SignoffView, Verdict, aggregate, ordered


@dataclass(frozen=True)
class Outcome:
    skip: Skip | None = None
    verdict: Verdict | None = None
    published: Published | None = None


def evaluate(
    facts: PullFacts,
    config: Config,
    trusted: Trusted,
    *,
    now: datetime,
    log: Callable[[str], None],
) -> Verdict:
    """Every check for the PR's current head, and the verdict they add up to."""
    from changelog_tools.reuse.authorization import find_authorization
    from changelog_tools.reuse.inputs import Policy

    pr = facts.pr
    head = pr.head_sha
    details = _run_details(facts, config, trusted, now)
    log(f"reading PR #{pr.number}: files, commits, conversation")
    files, commits = facts.files(), facts.commits()
    remarks = facts.remarks()
    found = find_verdict_comment(remarks, pr=pr.number, bot_login=config.signoff_bot_login)
    details["spoofs"] = [{"id": r.id, "author": r.author, "kind": r.kind} for r in found.spoofs]
    details["verdict-comment-id"] = found.ours.id if found.ours else None

    appeared = candidates.head_appeared_here(facts, config.signoff_status_context)
    paths = changed_paths([(f.filename, f.previous_filename) for f in files])
    cands = candidates.gather(facts, config, appeared)
    owners = Owners(trusted.codeowners, facts.is_team_member)
    team_error = candidates.judge(facts, config, trusted, cands, owners, paths)
    relevant = [c for c in cands if c.relevant]
    valid = [c for c in relevant if not c.problems]

    checks: list[Check] = [signers.fresh(cands, head)]
    owners_check, owners_details = signers.codeowners(
        owners,
        trusted,
        paths,
        relevant,
        capped=_capped(len(files), len(commits)),
        team_error=team_error,
    )
    checks.append(owners_check)
    details.update(owners_details)
    details["checklist-report"] = signers.checklist_report(
        relevant, trusted, checklist_path=config.signoff_checklist, repository=facts.repository
    )
    checks.append(signers.checklist(relevant, trusted))

    policy = Policy.from_config(config)
    auth = find_authorization(
        sweeprun.conversation(remarks),
        command=policy.command,
        allowed=policy.allowed_associations,
    )
    checks.append(sweeprun.reuse_authorization(policy, auth))
    sweep_check, run = sweeprun.sweep(facts, config, policy, auth, paths)
    checks.append(sweep_check)
    checks += _content_checks(facts, config, trusted, paths, run, valid, now=now)

    report = ordered(checks)
    verdict = aggregate(report, any_fresh_signoff=bool(relevant))
    summary = _summary(verdict, report, [c.author for c in valid], head)
    views = _signoff_views(cands, valid)
    return Verdict(verdict, pr.number, head, report, views, summary, details)


def _run_details(
    facts: PullFacts, config: Config, trusted: Trusted, now: datetime
) -> dict[str, Any]:
    """What the verdict records about the run itself (the checks add theirs)."""
    return {
        "repository": facts.repository,
        "base-sha": facts.pr.base_sha,
        "trusted-sha": trusted.sha,
        "evaluated-at": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "status-context": config.signoff_status_context,
    }


def _capped(files: int, commits: int) -> list[str]:
    """The lists GitHub cut short: the owners check cannot see past them."""
    capped = []
    if files >= MAX_PULL_FILES:
        capped.append(f"{files} files (GitHub lists at most {MAX_PULL_FILES})")
    if commits >= MAX_PULL_COMMITS:
        capped.append(f"{commits} commits (GitHub lists at most {MAX_PULL_COMMITS})")
    return capped


def _content_checks(
    facts: PullFacts,
    config: Config,
    trusted: Trusted,
    paths: Sequence[str],
    run: WorkflowRun | None,
    valid: Sequence[Candidate],
    *,
    now: datetime,
) -> list[Check]:
    """The checks of what the PR's files say: lint, the changelog, the evals, the recipe."""
    try:
        head_tree, base_tree = facts.trees()
    except GitError as exc:
        return list(content.unreadable(exc.message))
    pr = facts.pr.number
    checks = list(content.lint(config, head_tree, base_tree, paths, pr=pr, today=now.date()))
    change = content.changelog(config, head_tree, base_tree, pr=pr)
    checks.append(change.check)
    checks.append(evals.evals(facts, config, trusted, run, change.keys))
    checks.append(recipe.recipe(facts, config, paths, change.keys, valid))
    return checks


def _signoff_views(
    cands: Sequence[Candidate], valid: Sequence[Candidate]
) -> tuple[SignoffView, ...]:
    """Every sign-off found, as the verdict shows it: counted or not, and why not."""
    return tuple(
        SignoffView(
            c.remark.id,
            c.remark.kind,
            c.remark.author,
            c in valid,
            tuple(c.why_not()),
            c.remark.html_url,
            c.version.version.short if c.version else None,
        )
        for c in cands
    )


def _summary(verdict: str, checks: tuple[Check, ...], signers: list[str], head: str) -> str:
    if verdict == "pass":
        return f"CODEOWNER sign-off verified (signers: {', '.join(sorted(set(signers)))})"
    if verdict == "pending":
        return f"Awaiting a fresh CODEOWNER sign-off for {head[:7]}"
    wanted = "error" if verdict == "error" else "fail"
    bad = [c for c in checks if c.status == wanted]
    lead = "Could not verify" if verdict == "error" else "REJECTED"
    return f"{lead}: " + "; ".join(f"{c.id}: {c.reason}" for c in bad)


def run_verify(
    *,
    gh_factory: Callable[[], GitHub],
    config: Config,
    repo: GitRepo,
    pr_number: int | None,
    event_name: str | None,
    event: Mapping[str, Any],
    dry_run: bool,
    now: datetime,
    log: Callable[[str], None],
) -> Outcome:
    """The whole command: skip cheaply, or evaluate and (unless ``dry_run``) publish."""
    if pr_number is None:
        target = pr_from_event(event_name, event)
        if isinstance(target, Skip):
            return Outcome(skip=target)
        pr_number = target
    gh = gh_factory()
    if event_name and event:
        skip = comment_skip(
            gh,
            event_name,
            event,
            reuse_command=config.reuse_command,
            header=config.signoff_checklist_header,
        )
        if skip is not None:
            return Outcome(skip=skip)
    pr = gh.user_pull(pr_number)
    skip = pull_skip(pr)
    if skip is not None:
        return Outcome(skip=skip)
    trusted = load_trusted(repo, config)
    facts = LiveFacts(gh, repo, config.remote, trusted.sha, pr, log)
    try:
        verdict = evaluate(facts, config, trusted, now=now, log=log)
    except (GitHubError, GitError) as exc:
        if not dry_run:
            publish_failure(gh, config, pr.head_sha, exc.message)
        raise
    finally:
        facts.forget()
    published = None if dry_run else publish(gh, config, verdict)
    return Outcome(verdict=verdict, published=published)
