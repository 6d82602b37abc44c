"""The lint core: which rules run, over what, and what they found.

:func:`run_lint` is the one entry point (the `lint` command and `signoff verify` call it). A
request names the head tree, the base tree (trusted inputs such as MODELS.md come from it), the
paths the change touched (None: audit the whole head tree) and the review date. Each rule
reports whether it had anything to judge (``applicable``) and its findings; the configuration
can turn a rule off, change its severities, or allow findings with a written reason.
"""

from __future__ import annotations

import datetime
import importlib
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from changelog_tools import diagnostics as dx
from changelog_tools.config import LINT_RULE_IDS, Config
from changelog_tools.errors import UsageError
from changelog_tools.lint.tree import TreeView

if TYPE_CHECKING:
    from changelog_tools.lint.context import Context


@dataclass(frozen=True)
class LintRequest:
    head: TreeView
    base: TreeView | None  # trusted inputs (MODELS.md, golden AL, existing waivers) come from base
    changed: tuple[str, ...] | None  # paths changed base->head; None = audit the whole head tree
    pr: int | None
    now: datetime.date


@dataclass(frozen=True)
class RuleOutcome:
    rule: str  # "master-schema", "chat-template", ... (the ids)
    applicable: bool  # False: nothing for this rule to judge in this change (n/a)
    findings: tuple[dx.Diagnostic, ...]
    enabled: bool = True  # False: turned off by the `lint-rules` option (then not applicable)
    judged: tuple[str, ...] = ()  # what it looked at (paths or config keys), for reports


@dataclass(frozen=True)
class LintResult:
    outcomes: tuple[RuleOutcome, ...]

    @property
    def findings(self) -> tuple[dx.Diagnostic, ...]:
        return tuple(d for o in self.outcomes for d in o.findings)

    def outcome(self, rule: str) -> RuleOutcome | None:
        return next((o for o in self.outcomes if o.rule == rule), None)

    @property
    def ok(self) -> bool:
        return not any(d.severity is dx.Severity.ERROR for d in self.findings)


# rule id -> module of changelog_tools.lint that implements it (imported when it runs).
RULE_MODULES: dict[str, str] = {
    "master-schema": "masterschema",
    "chat-template": "scripts",
    "spec-launchers": "launchers",
    "config-script": "launchers",
    "engine-patches": "patches",
    "arch-overrides": "patches",
    "images": "entries",
    "engine-first": "entries",
    "models": "models",
    "golden-al": "goldenal",
}

# What a rule function returns: (applicable, findings, judged).
Check = Callable[["Context"], tuple[bool, list[dx.Diagnostic], list[str]]]


def rule_function(rule: str) -> Check:
    module = importlib.import_module(f"changelog_tools.lint.{RULE_MODULES[rule]}")
    check: Check = module.CHECKS[rule]
    return check


def _apply_setting(findings: list[dx.Diagnostic], setting: str) -> tuple[dx.Diagnostic, ...]:
    if setting == "warning":
        return tuple(replace(d, severity=dx.Severity.WARNING) for d in findings)
    if setting == "error":
        return tuple(replace(d, severity=dx.Severity.ERROR) for d in findings)
    return tuple(findings)


def _without_link_echoes(found: list[dx.Diagnostic], head: object) -> list[dx.Diagnostic]:
    """``found`` without the findings a symlink only repeats from its target.

    A symlink reads as its target, so a rule that judges both reports the same finding twice
    (a launcher linked under a second name). A finding at the link is dropped when its target
    has the same one (code, line, message); one that depends on the link's own name (an `_mtp`
    script name) differs from the target's and stays.
    """
    link_target = getattr(head, "link_target", None)
    if link_target is None:
        return found
    seen = {(d.path, d.code, d.line, d.message) for d in found}
    out: list[dx.Diagnostic] = []
    for d in found:
        target = link_target(d.path)
        if (
            target is not None
            and (target, d.code, d.line, d.message.replace(d.path, target)) in seen
        ):
            continue
        out.append(d)
    return out


def run_lint(
    request: LintRequest, config: Config, *, rules: Collection[str] | None = None
) -> LintResult:
    """Run ``rules`` (default: every rule the configuration does not turn off)."""
    from changelog_tools.lint.context import Context

    wanted = tuple(r for r in LINT_RULE_IDS if r in RULE_MODULES and (rules is None or r in rules))
    unknown = set(rules or ()) - set(LINT_RULE_IDS)
    if unknown:
        raise UsageError(
            f"unknown lint rule {', '.join(sorted(unknown))}",
            hint="rules: " + ", ".join(LINT_RULE_IDS),
        )
    ctx = Context(request, config)
    outcomes: list[RuleOutcome] = []
    for rule in wanted:
        setting = config.lint_rules.get(rule, "on")
        if setting == "off":
            outcomes.append(RuleOutcome(rule, False, (), enabled=False))
            continue
        applicable, found, judged = rule_function(rule)(ctx)
        tagged = [replace(d, rule=rule) for d in _without_link_echoes(found, request.head)]
        outcomes.append(
            RuleOutcome(rule, applicable, _apply_setting(tagged, setting), judged=tuple(judged))
        )
    return LintResult(tuple(outcomes))


def report(result: LintResult, *, subject: str) -> dx.Report:
    """The command's report: every finding, plus each rule's outcome for JSON readers."""
    rep = dx.Report("lint", list(result.findings), subject=subject)
    rep.data["rules"] = [
        {
            "rule": o.rule,
            "status": "off"
            if not o.enabled
            else "n/a"
            if not o.applicable
            else "fail"
            if any(d.severity is dx.Severity.ERROR for d in o.findings)
            else "pass",
            "errors": sum(d.severity is dx.Severity.ERROR for d in o.findings),
            "warnings": sum(d.severity is dx.Severity.WARNING for d in o.findings),
            "judged": len(o.judged),
        }
        for o in result.outcomes
    ]
    return rep
