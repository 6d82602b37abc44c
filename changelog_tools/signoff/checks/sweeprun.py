"""The checks about the sweep: ``reuse-authorization`` (an authorized reuse command) and
``sweep`` (a green run of the trusted sweep workflow on a commit still in the PR)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from changelog_tools.config import Config
from changelog_tools.github.records import Comment, Remark, WorkflowRun
from changelog_tools.signoff.facts import PullFacts
from changelog_tools.signoff.sweep import JobRules, judge_jobs
from changelog_tools.signoff.verdict import Check

if TYPE_CHECKING:
    from changelog_tools.reuse.authorization import Authorization
    from changelog_tools.reuse.inputs import Policy


def conversation(remarks: Sequence[Remark]) -> list[Comment]:
    """The conversation comments among ``remarks`` (where reuse commands are written)."""
    return [
        Comment(r.id, r.body, r.author, r.association, r.created_at, r.updated_at, r.html_url)
        for r in remarks
        if r.kind == "issue_comment"
    ]


def reuse_authorization(policy: Policy, auth: Authorization | None) -> Check:
    """An authorized reuse command is on the PR."""
    if auth is None:
        return Check(
            "reuse-authorization",
            "fail",
            f"no authorized `{policy.command}` comment (from "
            f"{', '.join(policy.allowed_associations)})",
        )
    pinned = f" pinning run {auth.run_id}" if auth.run_id else ""
    return Check(
        "reuse-authorization",
        "pass",
        f"authorized by {auth.describe()}{pinned}",
        ({"comment": auth.comment_id, "url": auth.url},),
    )


def sweep(
    facts: PullFacts,
    config: Config,
    policy: Policy,
    auth: Authorization | None,
    paths: Sequence[str],
) -> tuple[Check, WorkflowRun | None]:
    """The sweep check and the run it judged (None when there is none to read evals from)."""
    from changelog_tools.reuse import gate as reuse

    pr = facts.pr
    if policy.workflow_path in paths:
        # a pull_request run uses the PR's copy of the workflow file: none of them is trusted
        return Check(
            "sweep",
            "fail",
            f"the PR changes the sweep workflow {policy.workflow_path}: its runs ran the "
            "PR's version, not the trusted one (land the workflow change on its own first)",
        ), None
    shas = frozenset(c.sha for c in facts.commits())

    def problem(run: WorkflowRun) -> str | None:
        found = reuse.run_problem(
            run, pr_number=pr.number, commit_shas=shas, policy=policy, pinned=False
        )
        return None if found is None else found.message

    run: WorkflowRun | None = None
    why = ""
    if auth is not None and auth.run_id:
        candidate = facts.workflow_run(auth.run_id)
        if candidate is None:
            why = f"pinned run {auth.run_id} does not exist"
        else:
            found = problem(candidate)
            run, why = (candidate, "") if found is None else (None, f"pinned {found}")
    else:
        skipped = 0
        for candidate in facts.pull_request_runs(policy.workflow):
            if problem(candidate) is None:
                run = candidate
                break
            skipped += 1
        if run is None:
            why = (
                f"no successful {policy.workflow} run on a commit still in PR "
                f"#{pr.number} ({skipped} other completed run(s) checked)"
            )
    if run is None:
        return Check("sweep", "fail", why), None
    rules = JobRules(
        config.signoff_bench_jobs, config.signoff_eval_jobs, config.signoff_ignored_jobs
    )
    return judge_jobs(run, facts.run_jobs(run.id), rules), run
