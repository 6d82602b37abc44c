"""``signoff verify``: read a pull request's state, decide one verdict, publish it.

Trust: CODEOWNERS, the checklist and its history, thresholds, MODELS.md and the rest come from
the trusted checkout (the default branch). The PR's files are data: its head is fetched into a
private ref and read as blobs; nothing from it is checked out or run. Every GitHub fact is read
through the API at run time; the event only says which PR to look at and whether to bother.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from changelog_tools.config import Config
from changelog_tools.errors import GitError, GitHubError, UsageError
from changelog_tools.github.adapter import (
    MAX_PULL_COMMITS,
    MAX_PULL_FILES,
    Comment,
    GitHub,
    NotFoundError,
    PullRequest,
    Remark,
    WorkflowRun,
)
from changelog_tools.gitrepo import GitRepo
from changelog_tools.signoff import checklist as cl
from changelog_tools.signoff import history
from changelog_tools.signoff.codeowners import CODEOWNERS_LOCATIONS, CodeOwners, parse_codeowners
from changelog_tools.signoff.coverage import MembershipUnknown, Owners, changed_paths, coverage
from changelog_tools.signoff.freshness import Freshness, edited, freshness, head_appeared
from changelog_tools.signoff.markers import find_verdict_comment, is_bot
from changelog_tools.signoff.render import render_markdown, status_description
from changelog_tools.signoff.sweep import (
    MAX_ARTIFACT,
    JobRules,
    judge_evals,
    judge_jobs,
    read_eval_rows,
)
from changelog_tools.signoff.verdict import Check, SignoffView, Verdict, aggregate, ordered

WRITE_PERMISSIONS = frozenset({"admin", "maintain", "write"})
LINT_CHECKS = (
    "images",
    "engine-first",
    "models",
    "arch-overrides",
    "chat-template",
    "engine-patches",
    "golden-al",
)
PRIVATE_REF = "refs/changelog-tools/signoff/pr-{n}"


@dataclass(frozen=True)
class Skip:
    reason: str


@dataclass(frozen=True)
class Published:
    comment_id: int | None
    comment_url: str | None
    created: bool
    state: str | None


@dataclass(frozen=True)
class Outcome:
    skip: Skip | None = None
    verdict: Verdict | None = None
    published: Published | None = None


# ---------------------------------------------------------------------------------------------
# which PR, and whether to bother (cheap: before reading the PR)


def pr_from_event(event_name: str | None, event: Mapping[str, Any]) -> int | Skip:
    """The PR number an event is about, or why the run has nothing to do."""
    if event_name == "issue_comment":
        issue = event.get("issue") if isinstance(event.get("issue"), dict) else {}
        assert isinstance(issue, dict)
        if issue.get("pull_request") is None:  # GitHub sets it (an object) only on PRs
            return Skip("a comment on an issue, not a pull request")
        number = issue.get("number")
    elif event_name in (
        "pull_request_review",
        "pull_request_review_comment",
        "pull_request_target",
        "pull_request",
    ):
        pull = event.get("pull_request") if isinstance(event.get("pull_request"), dict) else {}
        assert isinstance(pull, dict)
        number = pull.get("number")
    elif event_name == "workflow_dispatch":
        inputs = event.get("inputs") if isinstance(event.get("inputs"), dict) else {}
        assert isinstance(inputs, dict)
        number = inputs.get("pr") or inputs.get("pr_number")
    else:
        raise UsageError(
            f"event {event_name or '(none)'} names no pull request; pass --pr N",
        )
    from changelog_tools.numbers import parse_number

    # A JSON number, or the text of a dispatch input: ASCII digits only (int() would read
    # "٥" or "1_0" as a number).
    if isinstance(number, int) and not isinstance(number, bool):
        value: int | None = number
    else:
        value = parse_number(str(number).strip())
    if value is None:
        raise UsageError(f"the {event_name} event names no pull request number; pass --pr N")
    if value < 1:
        raise UsageError(f"pull request number {value} is not positive")
    return value


def _body_has_signoff(body: str, header: str) -> bool:
    return cl.find_signoff(body, header=header).checklist is not None


def comment_skip(
    gh: GitHub,
    event_name: str | None,
    event: Mapping[str, Any],
    *,
    reuse_command: str = "",
    header: str = cl.HEADER,
) -> Skip | None:
    """A comment event whose comment holds no sign-off (re-read through the API) is skipped.

    Edits and deletions are never skipped: they may withdraw a sign-off that counted. Nor is a
    new comment using ``reuse_command``: it decides the reuse-authorization check.
    """
    action = event.get("action")
    if event_name == "issue_comment" and action == "created":
        comment = event.get("comment") if isinstance(event.get("comment"), dict) else {}
        assert isinstance(comment, dict)
        cid = comment.get("id")
        if isinstance(cid, int):
            try:
                body = gh.get_issue_comment(cid).body
            except NotFoundError:
                return None  # deleted since: evaluate
            from changelog_tools.github.reuse import command_runs

            reuse = bool(reuse_command) and bool(command_runs(body, reuse_command))
            if not reuse and not _body_has_signoff(body, header):
                return Skip(
                    "the comment holds no sign-off in its own text (quotes, code and HTML comments do not count)"
                )
    if event_name in ("pull_request_review", "pull_request_review_comment") and action in (
        "submitted",
        "created",
    ):
        item = event.get("review") or event.get("comment") or {}
        text = item.get("body") if isinstance(item, dict) else None
        if not _body_has_signoff(text if isinstance(text, str) else "", header):
            return Skip(
                "the review holds no sign-off in its own text (quotes, code and HTML comments do not count)"
            )
    return None


def pull_skip(pr: PullRequest) -> Skip | None:
    if pr.state != "open":
        return Skip(f"PR #{pr.number} is {'merged' if pr.merged else 'closed'}")
    if pr.draft:
        return Skip(f"PR #{pr.number} is a draft")
    return None


# ---------------------------------------------------------------------------------------------
# the trusted side


@dataclass(frozen=True)
class Trusted:
    repo: GitRepo
    sha: str
    codeowners: CodeOwners
    template: cl.Checklist
    versions: tuple[history.Version, ...]

    def read(self, path: str) -> bytes | None:
        return self.repo.read_blob(self.sha, path)


def load_trusted(repo: GitRepo, config: Config) -> Trusted:
    sha = repo.rev_parse("HEAD")
    tip = repo.try_rev_parse(f"refs/remotes/{config.remote}/{config.main_branch}")
    if tip is not None and tip != sha:
        # CODEOWNERS and the checklist must come from the default branch, never from a branch
        raise UsageError(
            f"the checkout is at {sha[:7]}, not at {config.remote}/{config.main_branch} "
            f"({tip[:7]}): signoff verify trusts only the default branch's files",
            hint="check out the default branch (actions/checkout with ref: the default branch)",
        )
    owners: CodeOwners | None = None
    for location in CODEOWNERS_LOCATIONS:
        raw = repo.read_blob(sha, location)
        if raw is not None:
            owners = parse_codeowners(raw.decode("utf-8", errors="replace"), source=location)
            break
    where = f"{config.main_branch} at {sha[:12]}"
    if owners is None:
        raise UsageError(
            f"no CODEOWNERS file on {where} (looked for {', '.join(CODEOWNERS_LOCATIONS)}): "
            "sign-offs are judged against the default branch's code owners",
            hint="add a CODEOWNERS file to the default branch (GitHub reads the same three places)",
        )
    header = config.signoff_checklist_header
    raw = repo.read_blob(sha, config.signoff_checklist)
    if raw is None:
        raise UsageError(
            f"the review checklist {config.signoff_checklist} does not exist on {where}",
            hint="add it to the default branch, or set `signoff-checklist` to its path",
        )
    template = cl.parse_template(raw.decode("utf-8", errors="replace"), header=header)
    if template is None:
        raise UsageError(
            f"{config.signoff_checklist} on {where} has no line {header!r}, which starts the "
            "checklist a sign-off copies",
            hint="set `signoff-checklist-header` to the checklist's first line, as reviewers "
            "copy it",
        )
    versions = history.template_versions(repo, config.signoff_checklist, ref=sha, header=header)
    return Trusted(repo, sha, owners, template, versions)


# ---------------------------------------------------------------------------------------------
# the evaluation


@dataclass
class Candidate:
    remark: Remark
    parsed: cl.Checklist
    fresh: Freshness
    problems: list[str] = field(default_factory=list)
    match: cl.Match | None = None
    version: history.Identified | None = None
    owns: bool = False

    @property
    def author(self) -> str:
        return self.remark.author or "?"


def _checklist_lines(
    cand: Candidate, trusted: Trusted, config: Config, repository: str
) -> list[str]:
    """The item-level report of one sign-off against the current template."""
    assert cand.match is not None
    out: list[str] = []
    current = trusted.versions[-1].short if trusted.versions else trusted.sha[:9]
    ident = cand.version
    if ident is not None:
        how = "exactly" if ident.exact else "most closely"
        out.append(
            f"@{cand.author}: checklist compared with {config.signoff_checklist} @ {current}; the "
            f"sign-off matches version {ident.version.short} ({ident.version.date[:10]}) {how}"
        )
    for r in cand.match.failed:
        item = trusted.template.item(r.path)
        why = ""
        if r.state in ("missing", "altered") and item is not None:
            att = history.attribute_current(item, trusted.versions)
            if att is not None:
                why = f" ({att.verb} by {att.version.short}: {att.version.subject})"
        if r.state == "obsolete":
            att = history.attribute_removed(cl.canon(r.signoff_text), trusted.versions)
            if att is not None:
                why = f" (removed by {att.version.short}: {att.version.subject})"
            out.append(f"  OBSOLETE item at line {r.line}: {r.signoff_text[:80]!r}{why}")
        elif r.state == "altered":
            out.append(
                f"  ALTERED item {r.path} (line {r.line}, similarity {r.similarity}): {r.diff}{why}"
            )
        elif r.state == "missing":
            out.append(f"  MISSING item {r.path}: {r.template_text[:80]!r}{why}")
        else:
            out.append(
                f"  UNCHECKED item {r.path} (line {r.line}): {r.template_text[:80]!r} (no "
                "reasoning naming it in the Additional detail section with the reasons item "
                "checked)"
            )
    if cand.match.failed:
        out.append(
            f"  Fix: copy the template from https://github.com/{repository}/blob/"
            f"{trusted.sha}/{config.signoff_checklist}"
        )
    return out


@dataclass
class Context:
    gh: GitHub
    config: Config
    trusted: Trusted
    pr: PullRequest
    now: datetime
    log: Callable[[str], None]
    checks: list[Check] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)


def _as_comment(r: Remark) -> Comment:
    return Comment(r.id, r.body, r.author, r.association, r.created_at, r.updated_at, r.html_url)


def evaluate(
    gh: GitHub,
    config: Config,
    trusted: Trusted,
    pr: PullRequest,
    *,
    now: datetime,
    log: Callable[[str], None],
) -> Verdict:
    """Every check for the PR's current head, and the verdict."""
    ctx = Context(gh, config, trusted, pr, now, log)
    head = pr.head_sha
    ctx.details.update(
        {
            "repository": gh.repository,
            "base-sha": pr.base_sha,
            "trusted-sha": trusted.sha,
            "evaluated-at": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "status-context": config.signoff_status_context,
        }
    )
    log(f"reading PR #{pr.number}: files, commits, conversation")
    files = gh.list_pull_files(pr.number)
    commits = gh.list_pull_commits(pr.number)
    capped = []
    if len(files) >= MAX_PULL_FILES:
        capped.append(f"{len(files)} files (GitHub lists at most {MAX_PULL_FILES})")
    if len(commits) >= MAX_PULL_COMMITS:
        capped.append(f"{len(commits)} commits (GitHub lists at most {MAX_PULL_COMMITS})")
    remarks = gh.list_remarks(pr.number)
    found = find_verdict_comment(remarks, pr=pr.number, bot_login=config.signoff_bot_login)
    ctx.details["spoofs"] = [{"id": r.id, "author": r.author, "kind": r.kind} for r in found.spoofs]
    ctx.details["verdict-comment-id"] = found.ours.id if found.ours else None
    # When H became this PR's head: the bot's first status on H for THIS PR (the synchronize
    # run posts one; it points at this PR's verdict comment). Any other status or check suite
    # on H may come from H's time as another PR's head, before this PR ever had it.
    ours = [
        s.created_at
        for s in gh.list_commit_statuses(head)
        if s.context == config.signoff_status_context and _points_at(s.target_url, pr)
    ]
    # H may have been this PR's head before, too: only statuses since the last force push
    # date its current turn (after it, the head only moves forward, so H comes once).
    pushes = gh.force_push_times(pr.number)
    if pushes:
        last = max(pushes)
        ours = [t for t in ours if t is not None and t >= last]
    appeared = head_appeared(ours)
    paths = changed_paths([(f.filename, f.previous_filename) for f in files])
    cands = _candidates(ctx, remarks, appeared)
    owners = Owners(trusted.codeowners, gh.is_team_member)
    team_error = _judge_candidates(ctx, cands, owners, paths)
    relevant = [c for c in cands if c.fresh.fresh and c.owns and not _ineligible(c)]
    valid = [c for c in relevant if not c.problems]

    # fresh
    stale = [c for c in cands if not c.fresh.fresh]
    if relevant:
        ctx.checks.append(
            Check(
                "fresh",
                "pass",
                f"{len(relevant)} sign-off(s) from code owners are fresh for {head[:7]}",
            )
        )
    else:
        why = f"no fresh sign-off from a code owner for {head[:7]}"
        if stale:
            why += f" ({len(stale)} stale: {stale[-1].fresh.why_not})"
        ctx.checks.append(Check("fresh", "fail", why))

    # codeowners
    if capped:
        ctx.checks.append(Check("codeowners", "error", "list cap hit: " + "; ".join(capped)))
    elif team_error:
        ctx.checks.append(Check("codeowners", "error", team_error))
    else:
        # Who signed and what they own: a checklist fault is the checklist check's to judge,
        # not a second failure here.
        ctx.checks.append(_codeowners_check(ctx, owners, paths, relevant))

    # checklist
    report: list[str] = []
    for c in relevant:
        if c.match is not None:
            report += _checklist_lines(c, trusted, config, gh.repository)
    ctx.details["checklist-report"] = report
    bad = [c for c in relevant if c.match is not None and (c.match.failed or not c.match.signed_ok)]
    if not relevant:
        ctx.checks.append(Check("checklist", "n/a", "no fresh sign-off to compare"))
    elif bad:
        parts = []
        for c in bad:
            assert c.match is not None
            kinds: dict[str, list[str]] = {}
            added: list[str] = []
            for r in c.match.failed:
                kinds.setdefault(r.state, []).append(r.path)
                item = trusted.template.item(r.path) if r.state == "missing" else None
                att = history.attribute_current(item, trusted.versions) if item else None
                if att is not None and att.version.short not in added:
                    added.append(att.version.short)
            text = ", ".join(f"{k} {' '.join(v)}" for k, v in kinds.items())
            if c.version is not None:
                text += f" (copied from version {c.version.version.short}"
                text += f"; missing items added by {', '.join(added)})" if added else ")"
            if not c.match.signed_ok:
                text = ", ".join(filter(None, [text, c.match.signed_problem or ""]))
            parts.append(f"@{c.author}: {text}")
        ctx.checks.append(Check("checklist", "fail", "; ".join(parts)))
    else:
        ctx.checks.append(
            Check("checklist", "pass", f"{len(relevant)} sign-off(s) match the current checklist")
        )

    comments = [_as_comment(r) for r in remarks if r.kind == "issue_comment"]
    run = _reuse_and_sweep(ctx, comments, {c.sha for c in commits}, paths)
    _evals_and_data(ctx, run, paths, valid)

    signoffs = tuple(
        SignoffView(
            c.remark.id,
            c.remark.kind,
            c.remark.author,
            c in valid,
            tuple(_why_not(c)),
            c.remark.html_url,
            c.version.version.short if c.version else None,
        )
        for c in cands
    )
    checks = ordered(ctx.checks)
    verdict = aggregate(checks, any_fresh_signoff=bool(relevant))
    summary = _summary(verdict, checks, valid, head)
    return Verdict(verdict, pr.number, head, checks, signoffs, summary, ctx.details)


def _points_at(url: str | None, pr: PullRequest) -> bool:
    """``url`` is PR ``pr``'s page or a comment on it (the verdict comment)."""
    if not url or not pr.html_url:
        return False
    return url == pr.html_url or url.startswith(pr.html_url + "#")


def _codeowners_check(
    ctx: Context, owners: Owners, paths: Sequence[str], signers: Sequence[Candidate]
) -> Check:
    """Every changed path covered by a fresh, eligible signer who owns it; the coverage table
    goes in the details."""
    try:
        cov = coverage(owners, paths, [c.author for c in signers])
    except MembershipUnknown as exc:
        return Check("codeowners", "error", str(exc))
    ctx.details["coverage"] = [row.to_json() for row in cov]
    # Lines GitHub ignores are ignored here too; the comment lists them so owners can fix them.
    ctx.details["codeowners-skipped"] = [
        {"line": sk.line, "text": sk.text, "reason": sk.reason}
        for sk in ctx.trusted.codeowners.skipped
    ]
    if not cov:
        return Check("codeowners", "pass", "the PR changes no path")
    bare = [row.path for row in cov if not row.covered_by]
    if bare:
        return Check(
            "codeowners",
            "fail",
            f"{len(bare)} changed path(s) not covered by a fresh sign-off from an owner: "
            f"{', '.join(bare[:5])}",
        )
    names = sorted({b for row in cov for b in row.covered_by})
    return Check(
        "codeowners", "pass", f"all {len(cov)} changed path(s) covered by {', '.join(names)}"
    )


def _why_not(c: Candidate) -> list[str]:
    out = []
    if not c.fresh.fresh and c.fresh.why_not:
        out.append(c.fresh.why_not)
    out += c.problems
    if c.fresh.fresh and not c.owns and not _ineligible(c):
        out.append("ignored: not a code owner of any changed file")
    return out


def _ineligible(c: Candidate) -> bool:
    return any(p.startswith("ineligible:") for p in c.problems)


def _summary(verdict: str, checks: Sequence[Check], valid: Sequence[Candidate], head: str) -> str:
    if verdict == "pass":
        names = ", ".join(sorted({c.author for c in valid}))
        return f"CODEOWNER sign-off verified (signers: {names})"
    if verdict == "pending":
        return f"Awaiting a fresh CODEOWNER sign-off for {head[:7]}"
    wanted = "error" if verdict == "error" else "fail"
    bad = [c for c in checks if c.status == wanted]
    lead = "Could not verify" if verdict == "error" else "REJECTED"
    return f"{lead}: " + "; ".join(f"{c.id}: {c.reason}" for c in bad)


def _candidates(
    ctx: Context, remarks: Sequence[Remark], appeared: datetime | None
) -> list[Candidate]:
    """Each author's latest sign-off (outside quotes and fences), with its freshness."""
    raw: list[tuple[Remark, cl.Checklist]] = []
    for r in remarks:
        if is_bot(r, ctx.config.signoff_bot_login):
            continue
        if r.kind == "review" and (r.state or "").upper() in (
            "DISMISSED",
            "PENDING",
            "CHANGES_REQUESTED",
        ):
            # dismissed: withdrawn; pending: not published; changes requested: the reviewer
            # says the change is not ready, whatever checklist the review's text holds
            continue
        parsed = cl.find_signoff(r.body, header=ctx.config.signoff_checklist_header).checklist
        if parsed is not None:
            raw.append((r, parsed))
    # REST shows no edit of a review, and not who edited anything: ask GraphQL about every
    # review kind (anyone with write access can edit them) and every edited comment
    need = [r.node_id for r, _ in raw if (edited(r) or r.kind != "issue_comment") and r.node_id]
    edits = ctx.gh.comment_edits([n for n in need if n]) if need else {}
    per_author: dict[str, Candidate] = {}
    for r, parsed in raw:
        fr = freshness(
            r, head_sha=ctx.pr.head_sha, appeared=appeared, edit=edits.get(r.node_id or "")
        )
        cand = Candidate(r, parsed, fr)
        key = (r.author or "").lower()
        when = fr.effective_at or datetime.min.replace(tzinfo=UTC)
        prev = per_author.get(key)
        prev_when = (prev.fresh.effective_at if prev else None) or datetime.min.replace(tzinfo=UTC)
        if prev is None or when >= prev_when:
            per_author[key] = cand
    return sorted(per_author.values(), key=lambda c: c.remark.id)


def _judge_candidates(
    ctx: Context, cands: Sequence[Candidate], owners: Owners, paths: Sequence[str]
) -> str | None:
    """Eligibility, ownership and the checklist of each fresh candidate; a team error text."""
    error: str | None = None
    for c in cands:
        if not c.fresh.fresh:
            continue
        login = c.author
        if c.remark.author_type.lower() == "bot" or login.endswith("[bot]"):
            c.problems.append("ineligible: a bot")
            continue
        if not ctx.config.signoff_allow_author and login.lower() == (ctx.pr.author or "").lower():
            c.problems.append("ineligible: the PR's author")
            continue
        try:
            c.owns = (
                any(owners.covers(login, p) for p in paths)
                if paths
                else owners.listed_anywhere(login)
            )
        except MembershipUnknown as exc:
            error = str(exc)
            continue
        if not c.owns:
            continue
        permission = ctx.gh.collaborator_permission(login)
        if permission not in WRITE_PERMISSIONS:
            c.problems.append(f"ineligible: @{login} has {permission} permission, not write")
            continue
        c.match = cl.match_signoff(ctx.trusted.template, c.parsed, author=login)
        c.version = history.identify(c.parsed, ctx.trusted.versions)
        if c.match.failed:
            c.problems.append(
                "checklist: " + ", ".join(f"{r.state} {r.path}" for r in c.match.failed)
            )
        if not c.match.signed_ok:
            c.problems.append(c.match.signed_problem or "Signed: is wrong")
    return error


def _reuse_and_sweep(
    ctx: Context, comments: Sequence[Comment], shas: set[str], paths: Sequence[str]
) -> WorkflowRun | None:
    from changelog_tools.github import reuse

    policy = reuse.Policy.from_config(ctx.config)
    auth = reuse.find_authorization(
        comments, command=policy.command, allowed=policy.allowed_associations
    )
    if auth is None:
        ctx.checks.append(
            Check(
                "reuse-authorization",
                "fail",
                f"no authorized `{policy.command}` comment (from "
                f"{', '.join(policy.allowed_associations)})",
            )
        )
    else:
        pinned = f" pinning run {auth.run_id}" if auth.run_id else ""
        ctx.checks.append(
            Check(
                "reuse-authorization",
                "pass",
                f"authorized by {auth.describe()}{pinned}",
                ({"comment": auth.comment_id, "url": auth.url},),
            )
        )
    if policy.workflow_path in paths:
        # a pull_request run uses the PR's copy of the workflow file: none of them is trusted
        ctx.checks.append(
            Check(
                "sweep",
                "fail",
                f"the PR changes the sweep workflow {policy.workflow_path}: its runs ran the "
                "PR's version, not the trusted one (land the workflow change on its own first)",
            )
        )
        return None
    frozen = frozenset(shas)
    run: WorkflowRun | None = None
    why = ""
    if auth is not None and auth.run_id:
        try:
            candidate = ctx.gh.get_workflow_run(auth.run_id)
        except NotFoundError:
            candidate, why = None, f"pinned run {auth.run_id} does not exist"
        if candidate is not None:
            problem = reuse.run_problem(
                candidate, pr_number=ctx.pr.number, commit_shas=frozen, policy=policy, pinned=False
            )
            run, why = (candidate, "") if problem is None else (None, f"pinned {problem.message}")
    else:
        skipped = 0
        for candidate in ctx.gh.iter_workflow_runs(
            policy.workflow, event="pull_request", branch=ctx.pr.head_ref, status="completed"
        ):
            if (
                reuse.run_problem(
                    candidate,
                    pr_number=ctx.pr.number,
                    commit_shas=frozen,
                    policy=policy,
                    pinned=False,
                )
                is None
            ):
                run = candidate
                break
            skipped += 1
        if run is None:
            why = (
                f"no successful {policy.workflow} run on a commit still in PR "
                f"#{ctx.pr.number} ({skipped} other completed run(s) checked)"
            )
    if run is None:
        ctx.checks.append(Check("sweep", "fail", why))
        return None
    rules = JobRules(
        ctx.config.signoff_bench_jobs, ctx.config.signoff_eval_jobs, ctx.config.signoff_ignored_jobs
    )
    ctx.checks.append(judge_jobs(run, ctx.gh.list_run_jobs(run.id), rules))
    return run


def _lint_and_data(ctx: Context) -> tuple[Any, Any]:
    """Fetch the PR head into a private ref; (head tree, merge-base tree) to read as data."""
    from changelog_tools.lint.tree import GitTree

    repo = ctx.trusted.repo
    ref = PRIVATE_REF.format(n=ctx.pr.number)
    ctx.log(f"fetching refs/pull/{ctx.pr.number}/head into {ref} (data only, never checked out)")
    repo.git(
        "fetch",
        "--quiet",
        "--no-tags",
        "--no-write-fetch-head",
        ctx.config.remote,
        f"+refs/pull/{ctx.pr.number}/head:{ref}",
    )
    fetched = repo.rev_parse(ref)
    if fetched != ctx.pr.head_sha:
        raise GitError(
            f"refs/pull/{ctx.pr.number}/head is {fetched[:7]} but the PR's head is "
            f"{ctx.pr.head_sha[:7]}: it moved during verification; run again"
        )
    base = repo.merge_base(ctx.trusted.sha, fetched)
    return GitTree(repo, fetched), GitTree(repo, base)


def _evals_and_data(
    ctx: Context, run: WorkflowRun | None, paths: Sequence[str], valid: Sequence[Candidate]
) -> None:
    try:
        head_tree, base_tree = _lint_and_data(ctx)
    except GitError as exc:
        for cid in ("evals", "recipe", "append-only", *LINT_CHECKS):
            ctx.checks.append(Check(cid, "error", f"could not read the PR's files: {exc.message}"))
        return
    _lint_checks(ctx, head_tree, base_tree, paths)
    keys, append_check = _changelog_checks(ctx, head_tree, base_tree)
    ctx.checks.append(append_check)
    if run is None:
        ctx.checks.append(Check("evals", "fail", "no sweep run to read eval results from"))
    else:
        ctx.checks.append(_evals(ctx, run, keys))
    ctx.checks.append(_recipe(ctx, paths, keys, valid))


def _lint_checks(ctx: Context, head: Any, base: Any, paths: Sequence[str]) -> None:
    try:
        from changelog_tools.lint.engine import LintRequest, run_lint
    except ImportError:  # pragma: no cover - the lint core ships with this package
        for cid in LINT_CHECKS:
            ctx.checks.append(Check(cid, "error", "lint core unavailable"))
        return
    import datetime as dt

    from changelog_tools.diagnostics import Severity

    request = LintRequest(
        head=head,
        base=base,
        changed=tuple(paths),
        pr=ctx.pr.number,
        now=ctx.now.date() if isinstance(ctx.now, dt.datetime) else ctx.now,
    )
    result = run_lint(request, ctx.config, rules=set(LINT_CHECKS))
    for cid in LINT_CHECKS:
        outcome = result.outcome(cid)
        if ctx.config.lint_rules.get(cid) == "off":
            ctx.checks.append(Check(cid, "n/a", "turned off by the `lint-rules` option"))
            continue
        if outcome is None:
            ctx.checks.append(Check(cid, "error", f"lint core has no `{cid}` rule yet"))
            continue
        if not outcome.applicable:
            ctx.checks.append(Check(cid, "n/a", "nothing in this change for this rule"))
            continue
        errors = [d for d in outcome.findings if d.severity is Severity.ERROR]
        warnings = [d for d in outcome.findings if d.severity is not Severity.ERROR]
        evidence = tuple(
            {"code": d.code, "file": d.path, "line": d.line, "message": d.message}
            for d in outcome.findings
        )
        if errors:
            first = errors[0]
            where = f"{first.path}:{first.line}" if first.line else f"{first.path}"
            ctx.checks.append(
                Check(
                    cid,
                    "fail",
                    f"{len(errors)} finding(s); first: {where}: {first.message}",
                    evidence,
                )
            )
        elif warnings:
            ctx.checks.append(
                Check(
                    cid,
                    "attested",
                    f"{len(warnings)} finding(s) need a human; attested by the checked item",
                    evidence,
                )
            )
        else:
            ctx.checks.append(Check(cid, "pass", f"{len(outcome.judged)} item(s) judged", evidence))


def _changelog_checks(ctx: Context, head: Any, base: Any) -> tuple[dict[str, Any], Check]:
    """Config keys the PR's new changelog entries select (with their master-config entries),
    and the append-only check (the `check` rules)."""
    from changelog_tools.diagnostics import Severity
    from changelog_tools.ledger.check import check_change
    from changelog_tools.ledger.masterconfig import load_masters

    cfg = ctx.config
    head_raw = head.read(cfg.changelog)
    if head_raw is None:
        return {}, Check("append-only", "n/a", f"the PR has no {cfg.changelog}")
    masters_head = {p: head.read(p) for p in cfg.master_configs}
    masters_base = {p: base.read(p) for p in cfg.master_configs}
    result = check_change(
        base=base.read(cfg.changelog),
        head=head_raw,
        config=cfg,
        mode="pr",
        pr=ctx.pr.number,
        masters_base=masters_base,
        masters_head=masters_head,
    )
    data = result.report.data
    entries = data.get("entries") or []
    masters = load_masters(masters_head, report_missing=False)
    keys: dict[str, Any] = {}
    for name in data.get("master-keys") or []:
        value = masters.value(name)
        keys[name] = value if isinstance(value, dict) else {}
    if not any(e.get("append-only") for e in entries):
        return keys, Check("append-only", "n/a", "no new entry has `append-only: true`")
    errors = [d for d in result.report.diagnostics if d.severity is Severity.ERROR]
    if errors:
        first = errors[0]
        return keys, Check(
            "append-only",
            "fail",
            f"{len(errors)} `check` error(s); first: {first.code} {first.message}",
            tuple({"code": d.code, "line": d.line, "message": d.message} for d in errors),
        )
    return keys, Check(
        "append-only",
        "attested",
        "the `check` rules pass; that behaviour changes only the appended points "
        "is attested by the checked item",
    )


def _evals(ctx: Context, run: WorkflowRun, keys: Mapping[str, Any]) -> Check:
    """The eval artifact of the sweep run: a row per selected key at its threshold."""
    from changelog_tools import yamlload

    cfg = ctx.config
    if not keys:
        return Check("evals", "n/a", "the PR's new changelog entries select no config key")
    raw = ctx.trusted.read(cfg.signoff_thresholds)
    thresholds: Any = {}
    if raw is not None:
        try:
            thresholds = yamlload.load(raw.decode("utf-8")).value or {}
        except (yamlload.YamlProblem, UnicodeDecodeError) as exc:
            return Check("evals", "error", f"{cfg.signoff_thresholds}: {exc}")
    artifact = next(
        (a for a in ctx.gh.list_run_artifacts(run.id) if a.name == cfg.signoff_eval_artifact), None
    )
    if artifact is None or artifact.expired:
        state = "expired" if artifact is not None else "missing"
        return Check("evals", "fail", f"run {run.id}: artifact {cfg.signoff_eval_artifact} {state}")
    if (artifact.size_in_bytes or 0) > MAX_ARTIFACT:
        return Check(
            "evals",
            "fail",
            f"run {run.id}: artifact {artifact.name} is "
            f"{artifact.size_in_bytes} bytes (at most {MAX_ARTIFACT})",
        )
    data = ctx.gh.download_artifact(artifact.id, max_bytes=MAX_ARTIFACT)
    try:
        rows = read_eval_rows(data, cfg.signoff_eval_file)
    except ValueError as exc:
        return Check("evals", "fail", f"run {run.id} artifact {artifact.name}: {exc}")
    return judge_evals(
        rows, keys, thresholds if isinstance(thresholds, dict) else {}, run_id=run.id
    )


def _recipe(
    ctx: Context, paths: Sequence[str], keys: Mapping[str, Any], valid: Sequence[Candidate]
) -> Check:
    single = [p for p in paths if p.startswith("benchmarks/single_node/")]
    engines = [
        k
        for k, v in keys.items()
        if isinstance(v, dict)
        and not v.get("multinode")
        and str(v.get("framework", "")) in ("vllm", "sglang")
    ]
    if not single and not engines:
        return Check("recipe", "n/a", "no single-node vLLM/SGLang change")
    patterns = [re.compile(p) for p in ctx.config.signoff_recipe_links]
    links: list[tuple[str, re.Match[str]]] = []
    seen: set[str] = set()
    for c in valid:
        # only what the signer wrote: the detail section and notes under items (the template's
        # own links to the recipe sites are no evidence of anything)
        written = "\n".join([c.parsed.detail, *(n for i in c.parsed.items for n in i.notes)])
        for p in patterns:
            for m in p.finditer(written):
                if m.group(0) not in seen:
                    seen.add(m.group(0))
                    links.append((c.author, m))
    if not links:
        return Check(
            "recipe",
            "fail",
            "single-node vLLM/SGLang change, but no sign-off links an upstream recipe PR or page",
        )
    evidence: list[dict[str, Any]] = []
    for _author, m in links:
        if m.re.groups >= 2:
            from changelog_tools.numbers import parse_number

            repo, parsed = m.group(1), parse_number(m.group(2))
            if parsed is None:  # a configured pattern may match more than ASCII digits
                return Check("recipe", "fail", f"linked {m.group(0)!r} has no pull request number")
            number = parsed
            try:
                upstream = ctx.gh.get_foreign_pull(repo, number)
            except NotFoundError:
                return Check("recipe", "fail", f"linked {repo}#{number} does not exist")
            evidence.append({"link": m.group(0), "merged": upstream.merged})
            if not upstream.merged or upstream.merged_at is None:
                return Check(
                    "recipe",
                    "fail",
                    f"linked {repo}#{number} is not merged ({upstream.state})",
                    tuple(evidence),
                )
        else:
            evidence.append({"link": m.group(0), "merged": None})
    return Check(
        "recipe",
        "attested",
        f"{len(evidence)} upstream link(s), PRs merged; that the arguments match is attested",
        tuple(evidence),
    )


# ---------------------------------------------------------------------------------------------
# publishing and the whole run


def publish(gh: GitHub, config: Config, verdict: Verdict) -> Published:
    """Keep one verdict comment (edit it in place; create it once) and set the head's status."""
    from changelog_tools.signoff.markers import marker
    from changelog_tools.signoff.verdict import STATE_OF

    body = render_markdown(verdict)
    existing = verdict.details.get("verdict-comment-id")
    if isinstance(existing, int):
        comment = gh.edit_issue_comment(existing, body)
        created = False
    else:
        # upsert re-reads the comments before posting, so a lost answer never posts twice
        comment = gh.upsert_issue_comment(
            verdict.pr, body, marker=marker(verdict.pr), author=config.signoff_bot_login
        )
        created = True
    state = STATE_OF[verdict.verdict]
    gh.create_commit_status(
        verdict.head_sha,
        state=state,
        context=config.signoff_status_context,
        description=status_description(verdict),
        target_url=comment.html_url,
    )
    return Published(comment.id, comment.html_url, created, state)


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
    try:
        verdict = evaluate(gh, config, trusted, pr, now=now, log=log)
    except (GitHubError, GitError) as exc:
        if not dry_run:
            # say so on the head, so the required check is not left without an answer
            with contextlib.suppress(GitHubError):
                gh.create_commit_status(
                    pr.head_sha,
                    state="error",
                    context=config.signoff_status_context,
                    description=f"Could not verify: {exc.message}"[:140],
                )
        raise
    finally:
        _forget_head(repo, pr.number)
    published = None if dry_run else publish(gh, config, verdict)
    return Outcome(verdict=verdict, published=published)


def _forget_head(repo: GitRepo, number: int) -> None:
    """Delete the private ref the PR's head was fetched into: the run is over, and a ref left
    behind would keep a pull request's objects in the trusted checkout for good."""
    with contextlib.suppress(GitError):
        repo.git("update-ref", "-d", PRIVATE_REF.format(n=number))
