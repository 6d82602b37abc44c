"""The checks on the PR's files, read as data: the ``lint`` rules the bot runs and
``append-only`` (the changelog's `check` rules), plus the config keys the new entries select."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from changelog_tools.config import Config
from changelog_tools.signoff.verdict import LINT_CHECK_IDS, Check

if TYPE_CHECKING:
    from changelog_tools.lint.tree import TreeView


def unreadable(reason: str) -> list[Check]:
    """Every check that reads the PR's files, as an error: they could not be read."""
    return [
        Check(cid, "error", f"could not read the PR's files: {reason}")
        for cid in ("evals", "recipe", "append-only", *LINT_CHECK_IDS)
    ]


def lint(
    config: Config,
    head: TreeView,
    base: TreeView,
    paths: Sequence[str],
    *,
    pr: int,
    today: dt.date,
) -> list[Check]:
    """One check per lint rule the bot runs, from the lint engine's outcome of that rule."""
    from changelog_tools.diagnostics import Severity
    from changelog_tools.lint.engine import LintRequest, run_lint

    request = LintRequest(head=head, base=base, changed=tuple(paths), pr=pr, now=today)
    result = run_lint(request, config, rules=set(LINT_CHECK_IDS))
    out: list[Check] = []
    for cid in LINT_CHECK_IDS:
        outcome = result.outcome(cid)
        if config.lint_rules.get(cid) == "off":
            out.append(Check(cid, "n/a", "turned off by the `lint-rules` option"))
            continue
        if outcome is None:
            out.append(Check(cid, "error", f"lint core has no `{cid}` rule yet"))
            continue
        if not outcome.applicable:
            out.append(Check(cid, "n/a", "nothing in this change for this rule"))
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
            reason = f"{len(errors)} finding(s); first: {where}: {first.message}"
            out.append(Check(cid, "fail", reason, evidence))
        elif warnings:
            reason = f"{len(warnings)} finding(s) need a human; attested by the checked item"
            out.append(Check(cid, "attested", reason, evidence))
        else:
            out.append(Check(cid, "pass", f"{len(outcome.judged)} item(s) judged", evidence))
    return out


@dataclass(frozen=True)
class ChangelogFacts:
    """What the PR's changelog change selects, and the append-only check."""

    keys: dict[str, Any]  # config key -> its master-config entry (empty dict: not found)
    check: Check


def changelog(config: Config, head: TreeView, base: TreeView, *, pr: int) -> ChangelogFacts:
    """Config keys the PR's new changelog entries select (with their master-config entries),
    and the append-only check (the `check` rules)."""
    from changelog_tools.diagnostics import Severity
    from changelog_tools.ledger.check import check_change
    from changelog_tools.ledger.masterconfig import load_masters

    head_raw = head.read(config.changelog)
    if head_raw is None:
        return ChangelogFacts({}, Check("append-only", "n/a", f"the PR has no {config.changelog}"))
    masters_head = {p: head.read(p) for p in config.master_configs}
    masters_base = {p: base.read(p) for p in config.master_configs}
    result = check_change(
        base=base.read(config.changelog),
        head=head_raw,
        config=config,
        mode="pr",
        pr=pr,
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
        return ChangelogFacts(
            keys, Check("append-only", "n/a", "no new entry has `append-only: true`")
        )
    errors = [d for d in result.report.diagnostics if d.severity is Severity.ERROR]
    if errors:
        first = errors[0]
        return ChangelogFacts(
            keys,
            Check(
                "append-only",
                "fail",
                f"{len(errors)} `check` error(s); first: {first.code} {first.message}",
                tuple({"code": d.code, "line": d.line, "message": d.message} for d in errors),
            ),
        )
    return ChangelogFacts(
        keys,
        Check(
            "append-only",
            "attested",
            "the `check` rules pass; that behaviour changes only the appended points "
            "is attested by the checked item",
        ),
    )
