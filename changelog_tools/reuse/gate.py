"""The reuse gate: may main reuse a pull request's finished sweep instead of sweeping again?

Pure decision rules over plain records (comments, pull requests, workflow runs, artifacts),
plus :func:`decide`, which asks a :class:`GateAPI` (the GitHub adapter, or anything shaped like
it) only for what the next rule needs, so cheap checks rule runs out before their artifacts are
fetched and the search stops at the first eligible run.

Rules (docs/reuse-gate.md explains each):

- ``pull_request`` ``synchronize``: the PR sweep is skipped only when an authorized reuse
  command is present. Other actions never skip it.
- ``push`` to main: the pushed commit must be the merge commit of exactly one merged PR; that PR
  must carry an authorization (the newest whole-line ``/reuse-sweep-run [RUN_ID]`` outside code,
  from an allowed author association), exactly one sweep label that is a full-sweep label and no
  incompatible label; the source run is the pinned run, or else the newest successful
  ``pull_request`` run of the sweep workflow on a commit still in the PR with unexpired result
  artifacts; the drift guard must find no benchmark-affecting change after that run; and main
  must not have changed what the swept configs run since it (the staleness rule).

Every outcome carries a one-line reason. API failures are not outcomes: they propagate as
:class:`~changelog_tools.errors.GitHubError` and the gate fails closed.
"""

from __future__ import annotations

import fnmatch
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from changelog_tools.errors import UsageError
from changelog_tools.github.adapter import (
    Artifact,
    NotFoundError,
    PullRequest,
    WorkflowRun,
)

# The gate's inputs and its authorization rule have their own modules; what other packages
# import from the gate stays importable here.
from changelog_tools.reuse.authorization import Authorization as Authorization
from changelog_tools.reuse.authorization import find_authorization as find_authorization
from changelog_tools.reuse.inputs import PINNED_CONCLUSIONS, DriftCheck, short
from changelog_tools.reuse.inputs import Event as Event
from changelog_tools.reuse.inputs import GateAPI as GateAPI
from changelog_tools.reuse.inputs import Policy as Policy

OUTPUT_KEYS = (
    "reuse-enabled",
    "skip-pr-sweep",
    "reuse-source-run-id",
    "reuse-source-run-attempt",
    "reuse-source-run-url",
    "reuse-source-pr-number",
    "reuse-source-head-sha",
    "reuse-reason",
)


# ----------------------------------------------------------------------------------------------
# labels, runs, artifacts


def label_problem(pr: PullRequest, policy: Policy) -> str | None:
    """Why the PR's labels forbid reuse, or None: exactly one full-sweep label, no incompatible."""
    labels = set(pr.labels)
    bad = sorted(labels & set(policy.incompatible_labels))
    if bad:
        return f"PR #{pr.number} has reuse-incompatible label(s): {', '.join(bad)}"
    primary = sorted(labels & (set(policy.sweep_labels) | set(policy.full_sweep_labels)))
    if len(primary) > 1:
        return (
            f"PR #{pr.number} has {len(primary)} sweep labels ({', '.join(primary)}); "
            "exactly one is allowed"
        )
    if not primary or primary[0] not in policy.full_sweep_labels:
        has = f" (it has {primary[0]})" if primary else ""
        return (
            f"PR #{pr.number} has no full-sweep label{has}; reuse needs one of: "
            f"{', '.join(policy.full_sweep_labels)}"
        )
    return None


@dataclass(frozen=True, slots=True)
class RunProblem:
    """Why a workflow run cannot be reused: a kind and a message."""

    kind: str  # event / status / conclusion / workflow / commit / artifacts
    message: str


def run_problem(
    run: WorkflowRun,
    *,
    pr_number: int,
    commit_shas: frozenset[str],
    policy: Policy,
    pinned: bool,
) -> RunProblem | None:
    """Why ``run`` cannot be a source, judged from its own fields only (no requests)."""
    label = f"run {run.id}"
    if run.event != "pull_request":
        return RunProblem("event", f"{label} was triggered by {run.event!r}, not pull_request")
    if run.status != "completed":
        return RunProblem(
            "status", f"{label} is {run.status or 'in an unknown state'}, not completed"
        )
    allowed = PINNED_CONCLUSIONS if pinned else ("success",)
    if run.conclusion not in allowed:
        return RunProblem(
            "conclusion",
            f"{label} concluded {run.conclusion or 'nothing'}; expected {' or '.join(allowed)}",
        )
    # A reusable-workflow call shows as "path@ref"; only the file matters.
    path = (run.path or "").split("@", 1)[0]
    if path != policy.workflow_path:
        return RunProblem(
            "workflow",
            f"{label} belongs to {path or 'an unknown workflow'}, not {policy.workflow_path}",
        )
    if not run.head_sha:
        return RunProblem("commit", f"{label} names no head commit")
    if run.head_sha not in commit_shas:
        return RunProblem(
            "commit",
            f"{label} ran on {short(run.head_sha)}, which is no longer one of PR #{pr_number}'s "
            "commits (force-pushed away?)",
        )
    return None


def reusable_artifacts(artifacts: Iterable[Artifact], patterns: Iterable[str]) -> tuple[str, ...]:
    """Names of unexpired artifacts that match a result-artifact pattern (``*`` wildcards)."""
    pats = tuple(patterns)
    return tuple(
        sorted(
            {
                a.name
                for a in artifacts
                if not a.expired and any(fnmatch.fnmatchcase(a.name, p) for p in pats)
            }
        )
    )


# ----------------------------------------------------------------------------------------------
# the decision


@dataclass(frozen=True, slots=True)
class Source:
    """The run chosen for reuse, with its artifacts and whether a comment pinned it."""

    run: WorkflowRun
    artifacts: tuple[str, ...]
    pinned: bool


@dataclass(frozen=True, slots=True)
class Decision:
    """The gate's answer. ``refused`` marks an authorized PR whose reuse could not be granted."""

    reuse_enabled: bool
    skip_pr_sweep: bool
    reason: str
    pr_number: int | None = None
    source: Source | None = None
    authorization: Authorization | None = None
    refused: bool = False
    drift: tuple[str, ...] = ()
    stale: tuple[str, ...] = ()  # swept configs main changed since the source run

    def outputs(self) -> dict[str, str]:
        """The step outputs, under the reference workflow's names (source fields only on reuse)."""
        run = self.source.run if self.source is not None and self.reuse_enabled else None
        return {
            "reuse-enabled": "true" if self.reuse_enabled else "false",
            "skip-pr-sweep": "true" if self.skip_pr_sweep else "false",
            "reuse-source-run-id": str(run.id) if run else "",
            "reuse-source-run-attempt": str(run.run_attempt) if run else "",
            "reuse-source-run-url": (run.html_url or "") if run else "",
            "reuse-source-pr-number": str(self.pr_number) if run and self.pr_number else "",
            "reuse-source-head-sha": (run.head_sha or "") if run else "",
            "reuse-reason": self.reason,
        }


def _quiet(message: str) -> None:
    return None


def decide(
    event: Event,
    policy: Policy,
    api: GateAPI,
    *,
    drift_check: DriftCheck | None = None,
    stale_check: DriftCheck | None = None,
    log: Callable[[str], None] = _quiet,
) -> Decision:
    """Decide reuse for ``event``; GitHub errors propagate (the caller fails closed).

    ``stale_check`` names the swept configs main changed since the source run (the staleness
    rule, :mod:`~changelog_tools.reuse.staleness`); anything it names refuses reuse.
    """
    if event.name == "pull_request":
        return _pull_request(event, policy, api, log)
    if event.name == "push":
        return _push(event, policy, api, drift_check, log, stale_check)
    return Decision(
        False, False, f"event {event.name!r} is neither pull_request nor push; no reuse"
    )


def _who(policy: Policy) -> str:
    return ", ".join(policy.allowed_associations) or "nobody"


def _authorization(
    n: int, policy: Policy, api: GateAPI, log: Callable[[str], None], *, outcome: str
) -> Authorization | Decision:
    """PR ``n``'s newest allowed reuse command, or the decision that explains its absence."""
    log(f"reading the comments of PR #{n}")
    auth = find_authorization(
        api.list_issue_comments(n), command=policy.command, allowed=policy.allowed_associations
    )
    if auth is not None:
        return auth
    why = f"PR #{n} has no {policy.command} authorization from {_who(policy)}; {outcome}"
    return Decision(False, False, why, pr_number=n)


def _pull_request(
    event: Event, policy: Policy, api: GateAPI, log: Callable[[str], None]
) -> Decision:
    action = event.action or "unknown"
    if action != "synchronize":
        return Decision(
            False, False, f"pull_request action {action!r} is not synchronize; the PR sweep runs"
        )
    if event.pr_number is None:
        raise UsageError("a pull_request synchronize event needs the PR number (--pr)")
    n = event.pr_number
    auth = _authorization(n, policy, api, log, outcome="the PR sweep runs")
    if isinstance(auth, Decision):
        return auth
    return Decision(
        False,
        True,
        f"PR #{n} is authorized for reuse by {auth.describe()}; the PR sweep is skipped",
        pr_number=n,
        authorization=auth,
    )


def _push(
    event: Event,
    policy: Policy,
    api: GateAPI,
    drift_check: DriftCheck | None,
    log: Callable[[str], None],
    stale_check: DriftCheck | None = None,
) -> Decision:
    main_ref = f"refs/heads/{policy.main_branch}"
    if event.ref != main_ref:
        return Decision(
            False, False, f"ref {event.ref or '(none)'} is not a push to {main_ref}; no reuse"
        )
    if not event.sha:
        raise UsageError("a push event needs the pushed commit (--commit-sha)")
    sha = event.sha
    pr = _merged_pull(sha, api, log)
    if isinstance(pr, Decision):
        return pr
    n = pr.number
    auth = _authorization(n, policy, api, log, outcome="no reuse")
    if isinstance(auth, Decision):
        return auth
    refusal = _Refusal(n, auth)
    problem = label_problem(pr, policy)
    if problem:
        return refusal(problem)
    log(f"reading the commits of PR #{n}")
    commits = api.list_pull_commits(n)
    if not commits:
        return refusal(f"PR #{n} has no commits")
    shas = frozenset(c.sha for c in commits)
    if auth.run_id is not None:
        source, why = pinned_source(auth.run_id, pr, shas, policy, api, log)
    else:
        source, why = latest_source(pr, shas, policy, api, log)
    if source is None:
        return refusal(why)
    run = source.run
    doing = f"checking for drift between run {run.id} ({short(run.head_sha)}) and {short(sha)}"
    drift = _changes(drift_check, pr, run, log, doing)
    if drift:
        return refusal(
            f"PR #{n} changed benchmark inputs after run {run.id} ({short(run.head_sha)}): "
            f"{_first_ten(drift, ', ')}",
            source,
            drift=drift,
        )
    doing = f"checking whether main changed what run {run.id}'s configs run since it ran"
    stale = _changes(stale_check, pr, run, log, doing)
    if stale:
        return refusal(
            f"main changed what the configs run {run.id} swept execute since "
            f"{short(run.head_sha)}, so its results are stale (a new sweep is needed): "
            f"{_first_ten(stale, '; ')}",
            source,
            stale=stale,
        )
    kind = "pinned " if source.pinned else ""
    return Decision(
        True,
        False,
        f"reusing {kind}run {run.id} (attempt {run.run_attempt}, {run.conclusion}) of PR #{n} "
        f"on {short(run.head_sha)}, authorized by {auth.describe()}",
        pr_number=n,
        source=source,
        authorization=auth,
    )


def _merged_pull(sha: str, api: GateAPI, log: Callable[[str], None]) -> PullRequest | Decision:
    """The one pull request merged as ``sha``, or the decision that explains why there is none."""
    log(f"looking up the pull request merged as {short(sha)}")
    pulls = api.pulls_for_commit(sha)
    # An open PR that contains the commit is listed too; only a merge commit identifies a PR.
    merged_here = [p for p in pulls if p.merged and p.merge_commit_sha == sha]
    if not merged_here:
        listed = ", ".join(f"#{p.number}" for p in pulls)
        why = f" (associated: {listed})" if listed else ""
        return Decision(
            False, False, f"commit {short(sha)} is not the merge commit of any pull request{why}; "
            "no reuse"
        )  # fmt: skip
    if len(merged_here) > 1:
        listed = ", ".join(f"#{p.number}" for p in merged_here)
        return Decision(
            False,
            False,
            f"commit {short(sha)} is the merge commit of {len(merged_here)} pull requests "
            f"({listed}); refusing to guess, no reuse",
        )
    return merged_here[0]


@dataclass(frozen=True, slots=True)
class _Refusal:
    """Refusals of an authorized pull request's reuse: they keep the PR and its authorization."""

    pr_number: int
    authorization: Authorization

    def __call__(
        self,
        why: str,
        source: Source | None = None,
        *,
        drift: tuple[str, ...] = (),
        stale: tuple[str, ...] = (),
    ) -> Decision:
        return Decision(
            False,
            False,
            f"{why}; no reuse, a full sweep runs",
            pr_number=self.pr_number,
            source=source,
            authorization=self.authorization,
            refused=True,
            drift=drift,
            stale=stale,
        )


def _changes(
    check: DriftCheck | None,
    pr: PullRequest,
    run: WorkflowRun,
    log: Callable[[str], None],
    doing: str,
) -> tuple[str, ...]:
    """What ``check`` finds changed since the source run (nothing when there is no check)."""
    if check is None:
        return ()
    log(doing)
    return tuple(check(pr, run))


def _first_ten(items: Sequence[str], separator: str) -> str:
    """The first ten ``items`` and how many more: a refusal stays one readable line."""
    more = f" and {len(items) - 10} more" if len(items) > 10 else ""
    return separator.join(items[:10]) + more


def pinned_source(
    run_id: int,
    pr: PullRequest,
    shas: frozenset[str],
    policy: Policy,
    api: GateAPI,
    log: Callable[[str], None],
) -> tuple[Source | None, str]:
    """Validate the pinned run ``run_id`` as a source; (None, reason) when it cannot be one."""
    log(f"reading pinned run {run_id}")
    try:
        run = api.get_workflow_run(run_id)
    except NotFoundError:
        return None, f"pinned run {run_id} does not exist"
    problem = run_problem(run, pr_number=pr.number, commit_shas=shas, policy=policy, pinned=True)
    if problem is not None:
        return None, f"pinned {problem.message}"
    names = reusable_artifacts(api.list_run_artifacts(run.id), policy.result_artifacts)
    if not names:
        return None, (
            f"pinned run {run.id} has no unexpired result artifact "
            f"({', '.join(policy.result_artifacts)})"
        )
    return Source(run, names, True), ""


_KIND_TEXT = {
    "event": "not pull_request",
    "status": "not completed",
    "conclusion": "not successful",
    "workflow": "of another workflow",
    "commit": "on a commit no longer in the PR",
    "artifacts": "without unexpired result artifacts",
}


def latest_source(
    pr: PullRequest,
    shas: frozenset[str],
    policy: Policy,
    api: GateAPI,
    log: Callable[[str], None],
) -> tuple[Source | None, str]:
    """The newest eligible run (cheap fields first, then artifacts), or (None, reason)."""
    log(f"searching {policy.workflow} pull_request runs on branch {pr.head_ref!r}")
    skipped: Counter[str] = Counter()
    runs = api.iter_workflow_runs(
        policy.workflow, event="pull_request", branch=pr.head_ref, status="completed"
    )
    for run in _workflow_must_exist(runs, policy):
        problem = run_problem(
            run, pr_number=pr.number, commit_shas=shas, policy=policy, pinned=False
        )
        if problem is not None:
            skipped[problem.kind] += 1
            continue
        names = reusable_artifacts(api.list_run_artifacts(run.id), policy.result_artifacts)
        if not names:
            skipped["artifacts"] += 1  # a gated no-op sweep, or results that expired
            continue
        return Source(run, names, False), ""
    total = sum(skipped.values())
    detail = ", ".join(f"{count} {_KIND_TEXT[kind]}" for kind, count in sorted(skipped.items()))
    checked = f"{total} completed run{'s' * (total != 1)} checked" + (
        f": {detail}" if detail else ""
    )
    return None, (
        f"PR #{pr.number} has no reusable {policy.workflow} run on any of its {len(shas)} "
        f"commit(s) ({checked}); pin one with `{policy.command} RUN_ID`"
    )


def _workflow_must_exist(runs: Iterator[WorkflowRun], policy: Policy) -> Iterator[WorkflowRun]:
    """``runs``, with a 404 (unknown workflow file) explained; it stays an error (exit 3)."""
    try:
        yield from runs
    except NotFoundError as exc:
        raise NotFoundError(
            exc.message,
            status=exc.status,
            hint=f"is `sweep-workflow` ({policy.workflow}) the file name of a workflow in "
            ".github/workflows, and may the token read Actions?",
        ) from None


# ----------------------------------------------------------------------------------------------
# the step summary


def render_summary(decision: Decision, event: Event) -> str:
    """Markdown for ``$GITHUB_STEP_SUMMARY``: the decision, why, and the source run's link."""
    if decision.reuse_enabled:
        verdict = "reuse the pull request's sweep"
    elif decision.skip_pr_sweep:
        verdict = "skip the pull-request sweep (reuse authorized)"
    else:
        verdict = "no reuse"
    lines = [
        "### Sweep reuse gate",
        "",
        f"**Decision:** {verdict}",
        "",
        f"{_md(decision.reason)}",
        "",
    ]
    where = f"`{event.name}`" + (f" / `{event.action}`" if event.action else "")
    if event.sha:
        where += f" on `{short(event.sha)}`"
    lines.append(f"- Event: {where}")
    if decision.pr_number is not None:
        lines.append(f"- Pull request: #{decision.pr_number}")
    auth = decision.authorization
    if auth is not None:
        link = (
            f"[comment {auth.comment_id}]({auth.url})" if auth.url else f"comment {auth.comment_id}"
        )
        pin = f", pinning run {auth.run_id}" if auth.run_id is not None else ""
        lines.append(
            f"- Authorized by: @{_md(auth.author or '?')} ({auth.association}) in {link}{pin}"
        )
    if decision.source is not None:
        run = decision.source.run
        label = f"run {run.id} attempt {run.run_attempt}"
        link = f"[{label}]({run.html_url})" if run.html_url else label
        prefix = "Source run" if decision.reuse_enabled else "Candidate run (refused)"
        lines.append(
            f"- {prefix}: {link}, {run.conclusion}, on `{short(run.head_sha)}`; artifacts: "
            + ", ".join(f"`{a}`" for a in decision.source.artifacts)
        )
    if decision.drift:
        lines.append("- Changed after the source run:")
        lines.extend(f"  - `{item}`" for item in decision.drift[:50])
    if decision.stale:
        lines.append("- Changed on main since the source run (a new sweep is needed):")
        lines.extend(f"  - `{item}`" for item in decision.stale[:50])
    return "\n".join(lines) + "\n"


def render_error_summary(message: str) -> str:
    return f"### Sweep reuse gate\n\n**Failed (fail closed):** {_md(message)}\n"


def _md(text: str) -> str:
    # Keep user-controlled text (labels, logins) from opening Markdown/HTML constructs.
    return text.replace("<", "&lt;").replace(">", "&gt;")
