"""The sign-offs on a pull request: each author's latest one, whether it counts for the head,
and whether its author may sign (not a bot, not the PR's author, owns a changed path, can
write)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from changelog_tools.config import Config
from changelog_tools.github.records import PullRequest, Remark
from changelog_tools.signoff import checklist as cl
from changelog_tools.signoff import history
from changelog_tools.signoff.coverage import MembershipUnknown, Owners
from changelog_tools.signoff.facts import PullFacts
from changelog_tools.signoff.freshness import Freshness, edited, freshness, head_appeared
from changelog_tools.signoff.markers import is_bot
from changelog_tools.signoff.trusted import Trusted

WRITE_PERMISSIONS = frozenset({"admin", "maintain", "write"})
# Reviews in these states never sign: dismissed is withdrawn, pending is unpublished, and a
# reviewer who requests changes says the change is not ready, whatever checklist they wrote.
NOT_SIGNING_REVIEWS = frozenset({"DISMISSED", "PENDING", "CHANGES_REQUESTED"})


@dataclass
class Candidate:
    """One author's latest sign-off and what was found about it."""

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

    @property
    def ineligible(self) -> bool:
        return any(p.startswith("ineligible:") for p in self.problems)

    @property
    def relevant(self) -> bool:
        """Fresh, from an eligible code owner: it counts, if its checklist is right."""
        return self.fresh.fresh and self.owns and not self.ineligible

    def why_not(self) -> list[str]:
        """Why this sign-off does not count (empty when it does)."""
        out = []
        if not self.fresh.fresh and self.fresh.why_not:
            out.append(self.fresh.why_not)
        out += self.problems
        if self.fresh.fresh and not self.owns and not self.ineligible:
            out.append("ignored: not a code owner of any changed file")
        return out


def points_at(url: str | None, pr: PullRequest) -> bool:
    """``url`` is PR ``pr``'s page or a comment on it (the verdict comment)."""
    if not url or not pr.html_url:
        return False
    return url == pr.html_url or url.startswith(pr.html_url + "#")


def head_appeared_here(facts: PullFacts, status_context: str) -> datetime | None:
    """When the head became this PR's head: the bot's first status on it for THIS PR since the
    last force push.

    The synchronize run posts one, pointing at this PR's verdict comment. Any other status or
    check suite on the head may come from its time as another PR's head; and the head may have
    been this PR's head before a force push, so only statuses since the last one date its
    current turn (after it, the head only moves forward, so it comes once).
    """
    pr = facts.pr
    ours = [
        s.created_at
        for s in facts.head_statuses()
        if s.context == status_context and points_at(s.target_url, pr)
    ]
    pushes = facts.force_push_times()
    if pushes:
        last = max(pushes)
        ours = [t for t in ours if t is not None and t >= last]
    return head_appeared(ours)


def gather(facts: PullFacts, config: Config, appeared: datetime | None) -> list[Candidate]:
    """Each author's latest sign-off (in their own visible text), with its freshness."""
    raw: list[tuple[Remark, cl.Checklist]] = []
    for r in facts.remarks():
        if is_bot(r, config.signoff_bot_login):
            continue
        if r.kind == "review" and (r.state or "").upper() in NOT_SIGNING_REVIEWS:
            continue
        parsed = cl.find_signoff(r.body, header=config.signoff_checklist_header).checklist
        if parsed is not None:
            raw.append((r, parsed))
    # REST shows no edit of a review, and not who edited anything: ask GraphQL about every
    # review kind (anyone with write access can edit them) and every edited comment
    need = tuple(
        r.node_id for r, _ in raw if (edited(r) or r.kind != "issue_comment") and r.node_id
    )
    edits = facts.edits(need)
    floor = datetime.min.replace(tzinfo=UTC)
    per_author: dict[str, Candidate] = {}
    for r, parsed in raw:
        if (gone := edits.get(r.node_id or "")) is not None and gone.gone:
            continue  # deleted since it was listed: it signs nothing
        fr = freshness(
            r, head_sha=facts.pr.head_sha, appeared=appeared, edit=edits.get(r.node_id or "")
        )
        cand = Candidate(r, parsed, fr)
        key = (r.author or "").lower()
        prev = per_author.get(key)
        prev_when = (prev.fresh.effective_at if prev else None) or floor
        if prev is None or (fr.effective_at or floor) >= prev_when:
            per_author[key] = cand
    return sorted(per_author.values(), key=lambda c: c.remark.id)


def judge(
    facts: PullFacts,
    config: Config,
    trusted: Trusted,
    cands: Sequence[Candidate],
    owners: Owners,
    paths: Sequence[str],
) -> str | None:
    """Eligibility, ownership and the checklist of each fresh candidate (recorded on it);
    returns the text of a team-membership error, if one could not be read."""
    error: str | None = None
    for c in cands:
        if not c.fresh.fresh:
            continue
        login = c.author
        if c.remark.author_type.lower() == "bot" or login.endswith("[bot]"):
            c.problems.append("ineligible: a bot")
            continue
        if not config.signoff_allow_author and login.lower() == (facts.pr.author or "").lower():
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
        permission = facts.permission(login)
        if permission not in WRITE_PERMISSIONS:
            c.problems.append(f"ineligible: @{login} has {permission} permission, not write")
            continue
        c.match = cl.match_signoff(trusted.template, c.parsed, author=login)
        c.version = history.identify(c.parsed, trusted.versions)
        if c.match.failed:
            c.problems.append(
                "checklist: " + ", ".join(f"{r.state} {r.path}" for r in c.match.failed)
            )
        if not c.match.signed_ok:
            c.problems.append(c.match.signed_problem or "Signed: is wrong")
    return error
