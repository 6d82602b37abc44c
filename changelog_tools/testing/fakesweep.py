"""Sweep runs for the fake GitHub: pushes to main that lose their ingest, and ones that reuse.

Shaped like InferenceX's sweep workflow: benchmark jobs (``single-node 1k1k / …``, ``eval / …``)
that are skipped when the push reuses a pull request's sweep, and an ingest job
(``trigger-ingest``) that dispatches the database ingest. Used by the recovery tests and the
demo; nothing here sends a request.
"""

from __future__ import annotations

from collections.abc import Sequence

from changelog_tools.github.records import Comment
from changelog_tools.reuse.authorization import find_authorization
from changelog_tools.testing.fakeci import OnMerge
from changelog_tools.testing.fakegithub import FakeGitHub, FakeRun, Request

WORKFLOW = "run-sweep.yml"
SWEEP_JOBS = ("single-node 1k1k / llama70b", "eval / llama70b")
INGEST_JOB = "trigger-ingest"


def merge_now(fake: FakeGitHub, number: int, *, title: str | None = None) -> str:
    """Squash-merge PR ``number`` as a maintainer's button would (no reuse authorized)."""
    body = {"merge_method": "squash"}
    if title is not None:
        body["commit_title"] = title
    response = fake._merge_pull(
        Request("PUT", f"/repos/{fake.repository}/pulls/{number}/merge", {}, body, {}),
        str(number),
    )
    if response.status != 200:
        raise RuntimeError(f"the fake could not merge PR #{number}: {response.body}")
    return str(response.body["sha"])


def lost_ingest_run(
    fake: FakeGitHub, sha: str, *, how: str = "cancelled", workflow: str = WORKFLOW
) -> FakeRun:
    """A push run on main of ``sha`` that lost its ingest.

    ``how``: ``cancelled`` (the sweep was cancelled and the ingest skipped), ``failed`` (the
    ingest job failed), ``bogus`` (the sweep was cancelled but the ingest ran anyway),
    ``ingested`` (a healthy run that reused a sweep: nothing to recover), ``running``.
    """
    jobs: list[tuple[str, str | None]]
    conclusion: str | None = "cancelled"
    status = "completed"
    if how == "cancelled":
        jobs = [(SWEEP_JOBS[0], "cancelled"), (SWEEP_JOBS[1], "cancelled"), (INGEST_JOB, "skipped")]
    elif how == "failed":
        jobs = [(SWEEP_JOBS[0], "success"), (SWEEP_JOBS[1], "success"), (INGEST_JOB, "failure")]
        conclusion = "failure"
    elif how == "bogus":
        jobs = [(SWEEP_JOBS[0], "cancelled"), (SWEEP_JOBS[1], "skipped"), (INGEST_JOB, "success")]
    elif how == "ingested":
        jobs = [(SWEEP_JOBS[0], "skipped"), (SWEEP_JOBS[1], "skipped"), (INGEST_JOB, "success")]
        conclusion = "success"
    elif how == "running":
        jobs = [(SWEEP_JOBS[0], None), (INGEST_JOB, None)]
        conclusion, status = None, "in_progress"
    else:
        raise ValueError(f"unknown how: {how}")
    return fake.add_run(
        workflow,
        sha,
        event="push",
        head_branch="main",
        status=status,
        conclusion=conclusion,
        jobs=jobs,
    )


def push_run_like_ci(
    fake: FakeGitHub,
    number: int,
    sha: str,
    *,
    command: str = "/reuse-sweep-run",
    allowed: Sequence[str] = ("OWNER", "MEMBER", "COLLABORATOR"),
    full_sweep_labels: Sequence[str] = ("full-sweep-enabled",),
    workflow: str = WORKFLOW,
) -> FakeRun:
    """The push run CI makes for the merge of PR ``number`` as ``sha``: it reuses a sweep when
    the PR carries an authorization and one full-sweep label (the gate's first rules), and then
    only ingests; otherwise it sweeps, which here is cancelled (the lost-ingest story)."""
    with fake._lock:
        pull = fake.pulls[number]
        comments = [
            Comment(c.id, c.body, c.login, c.association, None, None, None)
            for c in fake.comments.values()
            if c.issue == number
        ]
        labels = [name for name in pull.labels if name in full_sweep_labels]
    auth = find_authorization(comments, command=command, allowed=allowed)
    reuse = auth is not None and len(labels) == 1
    return lost_ingest_run(fake, sha, how="ingested" if reuse else "cancelled", workflow=workflow)


def ci_push_runs(fake: FakeGitHub, **rules: object) -> OnMerge:
    """A FakeCI ``on_merge`` callback: the push run :func:`push_run_like_ci` makes, unless the
    merge commit has a push run of the workflow already (a test or story added its own)."""
    workflow = str(rules.get("workflow", WORKFLOW))

    def on_merge(number: int, sha: str) -> None:
        with fake._lock:
            ran = any(
                r.head_sha == sha and r.event == "push" and r.workflow == workflow
                for r in fake.runs.values()
            )
        if not ran:
            push_run_like_ci(fake, number, sha, **rules)  # type: ignore[arg-type]

    return on_merge
