"""`merge`: merge a benchmark pull request so that main reuses its sweep, as explicit steps.

Steps: preflight (PR state, labels, local merge of main + changelog resolution +
canonicalization in a scratch worktree, `check` in PR mode, an eligible source run including the
drift guard against exactly that result) -> authorize (`/reuse-sweep-run`, only if needed) ->
push (never forced) -> wait (the changelog check, then every check) -> merge (squash pinned to
the pushed SHA) -> main's push run of the squash commit (did it reuse the sweep and dispatch
the ingest? bounded wait; the `recover` command when it did not).

Nothing remote happens until every preflight passed. A re-run continues from where the PR is:
a merged PR is reported, an authorization already in place is not posted again, and a head this
flow pushed that is still current with main is not rebuilt (the state comes from GitHub and git,
never from a file).

This module runs the steps in order; each step lives in a module of its own:
``merge_preflight`` (is the PR eligible), ``merge_candidate`` (the git side: the head to push),
``merge_reuse`` (the source run), ``merge_authorize``, ``merge_wait`` (the checks),
``merge_squash`` (the merge), ``merge_plan`` (the plan and the report) and ``merge_message``
(the squash message).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from changelog_tools.config import Config
from changelog_tools.errors import ChangelogToolsError
from changelog_tools.flows.landing.authorize import (
    authorization_needed,
    authorize_body,
    post_authorization,
)
from changelog_tools.flows.landing.plan import (
    MergeRequest,
    Outcome,
    Plan,
    PushRunReport,
    Resolution,
    SourceRun,
    render_outcome,
)
from changelog_tools.flows.landing.ports import MergeGitHub, ReusePort
from changelog_tools.flows.landing.progress import (
    Console,
    LineConsole,
    TerminalConsole,
    WaitReporter,
    telling_what_is_on_github,
)
from changelog_tools.flows.landing.squash import squash_merge
from changelog_tools.flows.landing.wait import FAILING_CONCLUSIONS, CheckWaiter
from changelog_tools.flows.merge import git as mg
from changelog_tools.flows.merge.candidate import (
    Candidate,
    build_candidate,
    resolve_changelog,
    scratch_on_head,
)
from changelog_tools.flows.merge.message import (
    CI_SKIP_MARKERS,
    flow_commit_message,
    has_ci_skip,
    squash_message,
    strip_ci_skip,
)
from changelog_tools.flows.merge.preflight import read_pull
from changelog_tools.flows.merge.reuse import GateReuse
from changelog_tools.github.adapter import Comment, PullRequest
from changelog_tools.gitrepo import GitRepo

__all__ = [
    "CI_SKIP_MARKERS",
    "FAILING_CONCLUSIONS",
    "Flow",
    "GateReuse",
    "MergeGitHub",
    "MergeRequest",
    "Outcome",
    "Plan",
    "Resolution",
    "ReusePort",
    "SourceRun",
    "authorize_body",
    "flow_commit_message",
    "has_ci_skip",
    "render_outcome",
    "resolve_changelog",
    "run_merge",
    "squash_message",
    "strip_ci_skip",
]


@dataclass
class RemoteState:
    """What this run changed on GitHub, so a failure after it can say so truthfully."""

    plan: Plan
    posted: Comment | None = None
    pushed: bool = False

    def summary(self) -> str:
        """One sentence on what is on GitHub now and that a re-run resumes ('' before any)."""
        p = self.plan
        done: list[str] = []
        if self.posted is not None:
            done.append(f"posted `{p.authorize_body}` on PR #{p.pr} (comment {self.posted.id})")
        elif p.authorization is not None and p.commit_kind == "resume":
            done.append(f"reuse was authorized before (comment {p.authorization.comment_id})")
        if self.pushed:
            done.append(f"pushed {p.candidate[:12]} to {p.head_branch}")
        elif p.commit_kind == "resume":
            done.append(f"{p.head_branch} holds {p.candidate[:12]}, pushed by an earlier run")
        if not done:
            return ""
        return (
            f"Already done on GitHub: {'; '.join(done)}. A re-run of `changelog-tools merge "
            f"{p.pr}` resumes from there (it does not post or push that again)"
        )

    def tell(self, exc: ChangelogToolsError) -> None:
        """Add :meth:`summary` to ``exc``'s message (the same error, the same exit code)."""
        exc.add_sentence(self.summary())


@dataclass
class Flow:
    """One run of the merge flow; collaborators are injected so tests can drive every step."""

    config: Config
    repo: GitRepo
    github: MergeGitHub
    reuse: ReusePort
    progress: Callable[[str], None] = lambda _m: None  # one line at a time, no newline
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    console: Console | None = None  # a terminal's live line; default: plain lines to progress

    def __post_init__(self) -> None:
        self._console: Console = self.console or LineConsole(self.progress)

    def say(self, step: str, message: str) -> None:
        self._console.line(f"[{step}] {message}")

    def run(self, request: MergeRequest) -> Outcome:
        """Run every step for ``request``; always leaves the user's checkout as it found it."""
        with mg.sigterm_as_interrupt(), contextlib.ExitStack() as stack:
            start_branch = self.repo.current_branch()
            start_sha = self.repo.try_rev_parse("HEAD")
            stack.callback(self._check_restored, start_branch, start_sha)
            stack.callback(mg.delete_private_refs, self.repo, request.pr)
            # 1. preflight: nothing remote happens before all of it passed
            pull = read_pull(
                repo=self.repo, github=self.github, config=self.config, pr=request.pr, say=self.say
            )
            if pull is None:
                merged = self.github.get_pull(request.pr)
                self.say(
                    "merge", f"PR #{request.pr} is already merged as {merged.merge_commit_sha}"
                )
                report = None
                if merged.merge_commit_sha and not request.dry_run:
                    # a re-run after a wait that ended early: report main's push run now
                    report = self.push_run(request, merged.merge_commit_sha, source_run=None)
                return Outcome(None, True, merged.merge_commit_sha, request.dry_run, True, report)
            scratch, main_sha = stack.enter_context(
                scratch_on_head(repo=self.repo, config=self.config, pull=pull, say=self.say)
            )
            candidate = build_candidate(
                config=self.config, pull=pull, scratch=scratch, main_sha=main_sha, say=self.say
            )
            plan = self.plan(pull, request, candidate)
            if request.dry_run:
                self.say("plan", "dry run: nothing was posted, pushed or merged")
                return Outcome(plan, False, None, True)
            # 2. authorize, 3. push, 4. wait, 5. merge
            remote = RemoteState(plan)
            with telling_what_is_on_github(remote, self._console, "merge"):
                remote.posted = post_authorization(
                    plan=plan, github=self.github, config=self.config, say=self.say
                )
                remote.pushed = self.push(plan)
                CheckWaiter(
                    config=self.config,
                    github=self.github,
                    say=self.say,
                    reporter=WaitReporter(self._console),
                    sleep=self.sleep,
                    clock=self.clock,
                ).wait(sha=plan.candidate, pr=plan.pr, request=request)
                result = squash_merge(plan=plan, request=request, github=self.github, say=self.say)
            # 6. main's push run: did it reuse the sweep and dispatch the ingest?
            report = self.push_run(request, result, source_run=plan.source.id)
            return Outcome(plan, True, result, False, push_run=report)

    def push_run(self, request: MergeRequest, sha: str, *, source_run: int | None) -> PushRunReport:
        """Wait (bounded) for main's push run of ``sha`` and say what it did."""
        if not request.wait_ingest:
            self.say("ingest", "not waiting for main's push run (--no-wait-ingest)")
            return PushRunReport(False, sha, source_run)
        from changelog_tools.flows.landing.push_run import push_run_report, wait_push_run

        cfg = self.config
        timeout = float(
            cfg.ingest_timeout if request.ingest_timeout is None else request.ingest_timeout
        )
        interval = float(
            cfg.check_poll_interval if request.poll_interval is None else request.poll_interval
        )
        try:
            found = wait_push_run(
                self.github,
                cfg,
                sha,
                timeout=timeout,
                interval=interval,
                say=self.say,
                sleep=self.sleep,
                clock=self.clock,
            )
        except ChangelogToolsError as exc:
            exc.add_sentence(
                f"PR #{request.pr} is merged as {sha[:12]}; only the report of main's push run "
                "is missing"
            )
            raise
        report = push_run_report(found, sha=sha, source_run=source_run, pr=request.pr)
        self.say("ingest", report.sentence())
        return report

    def plan(self, pull: PullRequest, request: MergeRequest, candidate: Candidate) -> Plan:
        """The source run, the authorization to post and the squash message for ``candidate``."""
        n = pull.number
        comments = self.github.list_issue_comments(n)
        auth = self.reuse.authorization(comments)
        pinned = request.run_id if request.run_id is not None else (auth.run_id if auth else None)
        source = self.reuse.choose_source(
            pull, candidate=candidate.sha, main_sha=candidate.main_sha, run_id=pinned
        )
        body = authorization_needed(
            command=self.config.reuse_command, auth=auth, source=source, request=request
        )
        self.say(
            "preflight",
            f"source run {source.id}"
            + (f" ({source.url})" if source.url else "")
            + (" [pinned]" if pinned is not None else " [latest eligible]"),
        )
        title, message = squash_message(
            pr=n,
            title=pull.title,
            commit_messages=candidate.commit_messages,
            source=source,
            skip_marker=self.config.skip_sweep_marker,
        )
        return Plan(
            pr=n,
            title=pull.title,
            head_branch=pull.head_ref,
            start_head=pull.head_sha,
            main_sha=candidate.main_sha,
            merged_main=candidate.merged_main,
            conflicted=candidate.conflicted,
            resolution=candidate.resolution,
            substitutions=candidate.substitutions,
            commit_kind=candidate.kind,
            candidate=candidate.sha,
            source=source,
            authorization=auth,
            authorize_body=body,
            squash_title=title,
            squash_message=message,
        )

    def push(self, plan: Plan) -> bool:
        """Push the candidate unless the branch already holds it; True when pushed."""
        if not plan.push_needed:
            self.say("push", f"{plan.head_branch} is already at {plan.candidate[:12]}")
            return False
        self.say(
            "push", f"pushing {plan.candidate[:12]} to {self.config.remote}/{plan.head_branch}"
        )
        mg.push(
            self.repo,
            remote=self.config.remote,
            sha=plan.candidate,
            branch=plan.head_branch,
            what=f"PR #{plan.pr}",
        )
        return True

    def _check_restored(self, branch: str | None, sha: str | None) -> None:
        # The flow never checks anything out in the user's worktree; this guards that promise.
        moved = self.repo.current_branch() != branch or self.repo.try_rev_parse("HEAD") != sha
        if moved and branch:
            self.repo.checkout(branch)


def run_merge(
    request: MergeRequest,
    *,
    config: Config,
    progress: Callable[[str], None],
    live: Callable[[str], None] | None = None,
    env: Mapping[str, str] | None = None,
) -> Outcome:
    """Build the collaborators from configuration and the environment, then run the flow.

    ``progress`` receives plain lines; with ``live`` (raw writes to a terminal) the wait for
    checks is one line redrawn in place instead, and every other line goes to ``live`` too.
    """
    from changelog_tools import gitrepo
    from changelog_tools.github.adapter import make_github

    console: Console = LineConsole(progress) if live is None else TerminalConsole(live)
    repo = gitrepo.open_repo(config.root)
    github = make_github(config, env=env, log=console.line)
    flow = Flow(
        config=config,
        repo=repo,
        github=github,
        reuse=GateReuse(config=config, github=github, repo=repo, progress=console.line),
        progress=progress,
        console=console,
    )
    return flow.run(request)
