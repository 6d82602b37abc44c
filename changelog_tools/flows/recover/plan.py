"""`recover`'s request, plan and report: plain records, the JSON of `--format json`, the text.

Nothing here talks to git or GitHub.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from changelog_tools.flows.landing.ingest import recover_command


@dataclass(frozen=True)
class RecoverRequest:
    """What the user asked for: a run URL or the original PR, and how to proceed."""

    target: str | None = None  # a run or job URL
    pr: int | None = None  # --pr: the original pull request
    source_run: int | None = None  # --source-run: pin the sweep run to reuse
    dry_run: bool = False
    admin: bool = False
    timeout: float | None = None  # seconds for each wait; None: `check-timeout`
    poll_interval: float | None = None  # None: `check-poll-interval`

    def command(self) -> str:
        """The command line that runs this request again (for "a re-run resumes" hints)."""
        return recover_command(target=self.target, pr=self.pr, source_run=self.source_run)


@dataclass(frozen=True)
class Step:
    """One step of the plan: what it does and whether an earlier run already did it."""

    name: str
    text: str
    done: bool = False


@dataclass(frozen=True)
class RecoverPlan:
    """Everything decided before anything is written."""

    original_pr: int
    original_title: str
    merge_sha: str
    target_run: int
    target_url: str | None
    lost_because: str
    source_run: int
    source_url: str | None
    source_sha: str
    source_conclusion: str | None
    source_pinned: bool
    artifacts: tuple[str, ...]
    config_keys: tuple[str, ...]
    entries: int
    appended: str  # the text the recovery appends (pr-link as it will be, or the placeholder)
    branch: str
    main_sha: str
    recovery_pr: int | None  # an open recovery PR found from an earlier run
    label: str
    authorize_body: str
    steps: tuple[Step, ...] = ()
    notes: tuple[str, ...] = ()  # how the recovery differs from the original merge

    def to_json(self) -> dict[str, Any]:
        return {
            "original-pr": self.original_pr,
            "original-title": self.original_title,
            "merge-sha": self.merge_sha,
            "target-run": {
                "id": self.target_run,
                "url": self.target_url,
                "lost-because": self.lost_because,
            },
            "source-run": {
                "id": self.source_run,
                "url": self.source_url,
                "head-sha": self.source_sha,
                "conclusion": self.source_conclusion,
                "pinned": self.source_pinned,
                "artifacts": list(self.artifacts),
            },
            "config-keys": list(self.config_keys),
            "notes": list(self.notes),
            "entries": self.entries,
            "appended": self.appended,
            "branch": self.branch,
            "main-sha": self.main_sha,
            "recovery-pr": self.recovery_pr,
            "label": self.label,
            "authorize-comment": self.authorize_body,
            "steps": [{"step": s.name, "action": s.text, "done": s.done} for s in self.steps],
        }


@dataclass(frozen=True)
class IngestReport:
    """The push run of the recovery's squash commit, and what it did."""

    run_id: int
    url: str | None
    reuse_enabled: bool
    ingest_jobs: tuple[str, ...]  # the ingest jobs that succeeded

    def to_json(self) -> dict[str, Any]:
        return {
            "push-run": self.run_id,
            "url": self.url,
            "reuse-enabled": self.reuse_enabled,
            "ingest-jobs": list(self.ingest_jobs),
        }


@dataclass(frozen=True)
class RecoverOutcome:
    plan: RecoverPlan
    dry_run: bool
    recovery_pr: int | None = None
    merge_commit: str | None = None
    ingest: IngestReport | None = None
    already_merged: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "dry-run": self.dry_run,
            "recovery-pr": self.recovery_pr,
            "merged": self.merge_commit is not None,
            "already-merged": self.already_merged,
            "merge-commit": self.merge_commit,
            "ingest": None if self.ingest is None else self.ingest.to_json(),
            "plan": self.plan.to_json(),
        }


def render_outcome(outcome: RecoverOutcome) -> str:
    """The plan and the result as text (stdout)."""
    p = outcome.plan
    lines = [
        f"recovery of PR #{p.original_pr}: {p.original_title}",
        f"  lost ingest:  run {p.target_run}"
        + (f" ({p.target_url})" if p.target_url else "")
        + f": {p.lost_because}",
        f"  source run:  {p.source_run}"
        + (f" ({p.source_url})" if p.source_url else "")
        + f", {p.source_conclusion} on {p.source_sha[:12]}"
        + (" [pinned]" if p.source_pinned else " [latest eligible]")
        + f"; artifacts: {', '.join(p.artifacts)}",
        f"  scope:  {p.entries} entr{'y' if p.entries == 1 else 'ies'}; config keys: "
        + ", ".join(p.config_keys),
        *(f"  note:  {note}" for note in p.notes),
        f"  branch:  {p.branch} (from {p.main_sha[:12]})",
        "  steps:",
    ]
    for step in p.steps:
        mark = "done" if step.done else ("plan" if outcome.dry_run else "    ")
        lines.append(f"    [{mark}] {step.name}: {step.text}")
    if p.appended:
        lines.append("  appended to the changelog:")
        lines.extend(f"    {line}".rstrip() for line in p.appended.splitlines())
    else:
        # A recovery already merged (or whose entry is on main) appends nothing more.
        lines.append("  appended to the changelog: nothing (already on main)")
    if outcome.dry_run:
        lines.append("dry run: nothing was pushed, opened, labelled, posted or merged")
        return "\n".join(lines) + "\n"
    if outcome.merge_commit:
        lines.append(
            f"recovery PR #{outcome.recovery_pr} "
            f"{'was merged before' if outcome.already_merged else 'merged'} as "
            f"{outcome.merge_commit}"
        )
    if outcome.ingest is not None:
        i = outcome.ingest
        lines.append(
            f"push run {i.run_id}"
            + (f" ({i.url})" if i.url else "")
            + f" reused source run {p.source_run}; {', '.join(i.ingest_jobs)} dispatched the "
            f"ingest with source run {p.source_run} and merge run {i.run_id}"
        )
    return "\n".join(lines) + "\n"
