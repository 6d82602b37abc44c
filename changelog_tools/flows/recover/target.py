"""`recover`'s target: the push run on the default branch whose ingest was lost, and its PR.

A run is named by its URL (``…/OWNER/NAME/actions/runs/ID[/job/ID]``) or found from the
original pull request (``--pr N``: the push run of the sweep workflow on its merge commit). It
must be a completed ``push`` run of the sweep workflow on the default branch whose ingest did not
complete, and exactly one merged pull request must have its head as merge commit.

Whether the ingest completed is read from the run's jobs, by the rules the landing steps share
with `merge` (:mod:`~changelog_tools.flows.landing.ingest`).
"""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass
from typing import Any

from changelog_tools.config import Config
from changelog_tools.errors import DataError, UsageError
from changelog_tools.flows.landing.ingest import IngestState, ingest_state
from changelog_tools.flows.landing.ports import RecoverGitHub
from changelog_tools.github.adapter import Job, NotFoundError, PullRequest, WorkflowRun

_RUN_PATH = re.compile(
    r"/(?P<repo>[^/]+/[^/]+)/actions/runs/(?P<run>[0-9]{1,19})(?:/job/(?P<job>[0-9]{1,19}))?/?"
)


@dataclass(frozen=True)
class RunRef:
    run_id: int
    job_id: int | None = None


def parse_run_url(text: str, *, repository: str) -> RunRef:
    """The run (and job) a URL names; a URL of another repository is a usage error."""
    split = urllib.parse.urlsplit(text.strip())
    match = _RUN_PATH.fullmatch(split.path) if split.scheme in ("http", "https") else None
    if match is None:
        raise UsageError(
            f"not a GitHub Actions run URL: {text!r}",
            hint="give https://github.com/OWNER/NAME/actions/runs/RUN_ID (optionally ending in "
            "/job/JOB_ID), or --pr N",
        )
    if match.group("repo").lower() != repository.lower():
        raise UsageError(
            f"the run URL is of {match.group('repo')}, but the repository is {repository}",
            hint="set `repository` (or GITHUB_REPOSITORY) to the repository of the run",
        )
    job = match.group("job")
    return RunRef(int(match.group("run")), int(job) if job else None)


@dataclass(frozen=True)
class Target:
    run: WorkflowRun
    job: Job | None
    ingest: IngestState
    pull: PullRequest
    merge_sha: str


def find_target(
    github: RecoverGitHub, config: Config, *, ref: RunRef | None, pr: int | None, say: Any
) -> Target:
    """The target run and its pull request, or DataError (exit 1) saying why it is not one."""
    workflow = config.sweep_workflow
    if ref is not None:
        try:
            run = github.get_workflow_run(ref.run_id)
        except NotFoundError:
            raise UsageError(
                f"run {ref.run_id} not found in {config.repository}",
                hint="check the URL; a token that cannot read Actions gets the same answer",
            ) from None
    else:
        assert pr is not None
        pull = github.user_pull(pr)
        if not pull.merged or not pull.merge_commit_sha:
            raise DataError(
                f"PR #{pr} is not merged, so no push run ingested it",
                hint="recover runs after a merge whose ingest was lost",
            )
        say("target", f"looking for the push run of {workflow} on {pull.merge_commit_sha[:12]}")
        runs = github.iter_workflow_runs(workflow, event="push", head_sha=pull.merge_commit_sha)
        found = next(iter(runs), None)
        if found is None:
            raise DataError(
                f"no push run of {workflow} on PR #{pr}'s merge commit "
                f"{pull.merge_commit_sha[:12]}",
                hint="give the run's URL instead, if it ran under another workflow file",
            )
        run = found
    _check_run(run, config)
    say("target", f"run {run.id} ({run.html_url or 'no URL'}): {run.event} on {run.head_branch}, "
        f"{run.conclusion}")  # fmt: skip
    jobs = github.list_run_jobs(run.id)
    job = None
    if ref is not None and ref.job_id is not None:
        job = next((j for j in jobs if j.id == ref.job_id), None)
        if job is None:
            raise DataError(f"job {ref.job_id} is not a job of run {run.id}")
    state = ingest_state(jobs, config)
    if not state.lost:
        raise DataError(
            f"run {run.id} did not lose its ingest: {state.why}; nothing to recover",
            hint="recover is for a push run whose ingest failed, was skipped, or took a "
            "cancelled sweep",
        )
    say("target", f"the ingest was lost: {state.why}")
    sha = run.head_sha or ""
    merged = [p for p in github.pulls_for_commit(sha) if p.merged and p.merge_commit_sha == sha]
    if len(merged) != 1:
        listed = ", ".join(f"#{p.number}" for p in merged)
        raise DataError(
            f"run {run.id}'s commit {sha[:12]} is the merge commit of {len(merged)} pull "
            f"requests{f' ({listed})' if listed else ''}; exactly one is needed",
            hint="a push that was not a pull request's merge has no changelog entries to recover",
        )
    pull = merged[0]
    if pr is not None and pull.number != pr:
        raise DataError(f"run {run.id} is the push of PR #{pull.number}, not #{pr}")
    say("target", f"PR #{pull.number} ({pull.title}) merged as {sha[:12]}")
    return Target(run, job, state, pull, sha)


def _check_run(run: WorkflowRun, config: Config) -> None:
    expected = f".github/workflows/{config.sweep_workflow}"
    path = (run.path or "").split("@", 1)[0]
    problems = []
    if path != expected:
        problems.append(f"belongs to {path or 'an unknown workflow'}, not {expected}")
    if run.event != "push":
        problems.append(f"was triggered by {run.event!r}, not push")
    if run.head_branch != config.main_branch:
        problems.append(f"ran on {run.head_branch or 'no branch'!r}, not {config.main_branch!r}")
    if problems:
        raise DataError(f"run {run.id} is not a push run of the sweep: it {'; it '.join(problems)}")
    if run.status != "completed":
        raise DataError(
            f"run {run.id} is still {run.status or 'running'}; its ingest may yet happen",
            hint="wait until the run has completed, then re-run recover",
        )
