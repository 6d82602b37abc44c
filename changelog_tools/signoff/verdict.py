"""Check results and the one verdict they add up to."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

# The `lint` rules the bot runs on the PR's files; each is a check of the same id.
LINT_CHECK_IDS = (
    "images",
    "engine-first",
    "models",
    "arch-overrides",
    "chat-template",
    "engine-patches",
    "golden-al",
)
# The checks, in report order (ids are part of the JSON contract).
CHECK_IDS = (
    "fresh",
    "codeowners",
    "checklist",
    "sweep",
    "evals",
    "recipe",
    "reuse-authorization",
    *LINT_CHECK_IDS,
    "append-only",
)
STATUSES = ("pass", "fail", "n/a", "attested", "error")
VERDICTS = ("pass", "rejected", "pending", "error")
# verdict -> commit status state
STATE_OF = {"pass": "success", "rejected": "failure", "pending": "pending", "error": "error"}


@dataclass(frozen=True)
class Check:
    id: str
    status: str
    reason: str
    evidence: tuple[Any, ...] = ()

    def __post_init__(self) -> None:
        if self.id not in CHECK_IDS:
            raise ValueError(f"unknown check id {self.id!r}")
        if self.status not in STATUSES:
            raise ValueError(f"unknown check status {self.status!r}")

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "status": self.status,
            "reason": self.reason,
            "evidence": list(self.evidence),
        }


def error_check(check_id: str, reason: str) -> Check:
    return Check(check_id, "error", reason)


@dataclass(frozen=True)
class SignoffView:
    """One sign-off candidate as the verdict lists it."""

    id: int
    kind: str
    author: str | None
    valid: bool
    why_not: tuple[str, ...] = ()
    url: str | None = None
    version: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "author": self.author,
            "valid": self.valid,
            "why-not": list(self.why_not),
            "url": self.url,
            "checklist-version": self.version,
        }


@dataclass(frozen=True)
class Verdict:
    verdict: str
    pr: int
    head_sha: str
    checks: tuple[Check, ...]
    signoffs: tuple[SignoffView, ...] = ()
    summary: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    def check(self, check_id: str) -> Check:
        return next(c for c in self.checks if c.id == check_id)

    def to_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "pr": self.pr,
            "head-sha": self.head_sha,
            "summary": self.summary,
            "signoffs": [s.to_json() for s in self.signoffs],
            "checks": [c.to_json() for c in self.checks],
            **self.details,
        }


def ordered(checks: Iterable[Check]) -> tuple[Check, ...]:
    """One check per id, in report order; an id nobody reported is an error (never a pass)."""
    by_id = {c.id: c for c in checks}
    return tuple(
        by_id.get(cid) or Check(cid, "error", "this check was not evaluated") for cid in CHECK_IDS
    )


def aggregate(checks: Sequence[Check], *, any_fresh_signoff: bool) -> str:
    """The verdict: error beats everything, then pending (nothing to judge), then rejected."""
    if any(c.status == "error" for c in checks):
        return "error"
    if not any_fresh_signoff:
        return "pending"
    if any(c.status == "fail" for c in checks):
        return "rejected"
    return "pass"
