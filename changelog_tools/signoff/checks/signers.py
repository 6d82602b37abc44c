"""The checks about who signed: ``fresh``, ``codeowners`` and ``checklist``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from changelog_tools.signoff import checklist as cl
from changelog_tools.signoff import history
from changelog_tools.signoff.candidates import Candidate
from changelog_tools.signoff.coverage import MembershipUnknown, Owners, coverage
from changelog_tools.signoff.trusted import Trusted
from changelog_tools.signoff.verdict import Check


def fresh(cands: Sequence[Candidate], head: str) -> Check:
    """At least one fresh sign-off from an eligible code owner on ``head``."""
    relevant = [c for c in cands if c.relevant]
    if relevant:
        return Check(
            "fresh",
            "pass",
            f"{len(relevant)} sign-off(s) from code owners are fresh for {head[:7]}",
        )
    why = f"no fresh sign-off from a code owner for {head[:7]}"
    stale = [c for c in cands if not c.fresh.fresh]
    if stale:
        why += f" ({len(stale)} stale: {stale[-1].fresh.why_not})"
    return Check("fresh", "fail", why)


def codeowners(
    owners: Owners,
    trusted: Trusted,
    paths: Sequence[str],
    signers: Sequence[Candidate],
    *,
    capped: Sequence[str] = (),
    team_error: str | None = None,
) -> tuple[Check, dict[str, Any]]:
    """Every changed path covered by a fresh, eligible signer who owns it; the coverage table
    and the CODEOWNERS lines GitHub ignores go in the details.

    Who signed and what they own only: a checklist fault is the checklist check's to judge,
    not a second failure here.
    """
    if capped:
        return Check("codeowners", "error", "list cap hit: " + "; ".join(capped)), {}
    if team_error:
        return Check("codeowners", "error", team_error), {}
    try:
        cov = coverage(owners, paths, [c.author for c in signers])
    except MembershipUnknown as exc:
        return Check("codeowners", "error", str(exc)), {}
    details: dict[str, Any] = {
        "coverage": [row.to_json() for row in cov],
        # Lines GitHub ignores are ignored here too; the comment lists them so owners fix them.
        "codeowners-skipped": [
            {"line": sk.line, "text": sk.text, "reason": sk.reason}
            for sk in trusted.codeowners.skipped
        ],
    }
    if not cov:
        return Check("codeowners", "pass", "the PR changes no path"), details
    bare = [row.path for row in cov if not row.covered_by]
    if bare:
        return Check(
            "codeowners",
            "fail",
            f"{len(bare)} changed path(s) not covered by a fresh sign-off from an owner: "
            f"{', '.join(bare[:5])}",
        ), details
    names = sorted({b for row in cov for b in row.covered_by})
    return Check(
        "codeowners", "pass", f"all {len(cov)} changed path(s) covered by {', '.join(names)}"
    ), details


def checklist(relevant: Sequence[Candidate], trusted: Trusted) -> Check:
    """Each counting sign-off matches the current checklist and is signed right."""
    bad = [c for c in relevant if c.match is not None and (c.match.failed or not c.match.signed_ok)]
    if not relevant:
        return Check("checklist", "n/a", "no fresh sign-off to compare")
    if not bad:
        return Check(
            "checklist", "pass", f"{len(relevant)} sign-off(s) match the current checklist"
        )
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
    return Check("checklist", "fail", "; ".join(parts))


def checklist_report(
    relevant: Sequence[Candidate], trusted: Trusted, *, checklist_path: str, repository: str
) -> list[str]:
    """The item-level report of every counting sign-off against the current template."""
    out: list[str] = []
    for c in relevant:
        if c.match is not None:
            out += _report_lines(c, trusted, checklist_path, repository)
    return out


def _report_lines(
    cand: Candidate, trusted: Trusted, checklist_path: str, repository: str
) -> list[str]:
    assert cand.match is not None
    out: list[str] = []
    current = trusted.versions[-1].short if trusted.versions else trusted.sha[:9]
    ident = cand.version
    if ident is not None:
        how = "exactly" if ident.exact else "most closely"
        out.append(
            f"@{cand.author}: checklist compared with {checklist_path} @ {current}; the "
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
            f"{trusted.sha}/{checklist_path}"
        )
    return out
