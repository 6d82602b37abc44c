"""`recover`: a lost main-branch ingest recovered by a pull request that reuses an earlier sweep.

Steps (docs/recover.md maps each to the manual procedure it replaces):

1. *target*: the completed push run on the default branch whose ingest was lost, and the one
   pull request merged as its head (:mod:`~changelog_tools.flows.recover.target`);
2. *source*: the original PR's sweep run to reuse (pinned, or the newest eligible one: the
   reuse gate's rules), with unexpired result artifacts, on one of the PR's commits, and no
   drift between that commit and what was merged (the drift guard);
3. *scope*: the entries the original merge appended, refused unless it was a clean append
   (:mod:`~changelog_tools.flows.recover.scope`);
4. *recovery PR*: an empty bootstrap commit pushed to the recovery branch, the PR opened, its
   one sweep label, the reuse command pinning the source run posted *before* the changelog
   changes; then the entries appended (the recovery PR's own link), checked by `check`, and the
   carrier commit (second parent: the source commit) pushed once, never forced
   (:mod:`~changelog_tools.flows.recover.git`);
5. *verify and merge*: the source commit among the PR's commits and only the changelog changed;
   the merge flow's wait for the checks and pinned squash; then the push run of the squash
   commit: did it reuse the source run and dispatch the ingest?

Everything remote is read, and every refusal made, before the first write. A re-run resumes
from what GitHub and the remote hold (the branch, the PR, its label and comments, the pushed
carrier, a merged recovery PR): nothing is opened, labelled, posted or appended twice.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from changelog_tools.config import Config
from changelog_tools.errors import AbortedError
from changelog_tools.flows.landing.authorize import authorize_body
from changelog_tools.flows.landing.ports import RecoverGitHub
from changelog_tools.flows.landing.progress import (
    Console,
    LineConsole,
    TerminalConsole,
    telling_what_is_on_github,
)
from changelog_tools.flows.merge import git as mg
from changelog_tools.flows.recover import git as rg
from changelog_tools.flows.recover.base import Existing, Remote
from changelog_tools.flows.recover.plan import (
    RecoverOutcome,
    RecoverPlan,
    RecoverRequest,
    Step,
    render_outcome,
)
from changelog_tools.flows.recover.scope import Scope, read_scope, scope_notes
from changelog_tools.flows.recover.target import Target, find_target, parse_run_url
from changelog_tools.flows.recover.writes import RecoverWrites
from changelog_tools.gitrepo import GitRepo
from changelog_tools.reuse.gate import Source

__all__ = ["RecoverFlow", "RecoverRequest", "render_outcome", "run_recover"]


@dataclass
class RecoverFlow(RecoverWrites):
    """One run of `recover`; collaborators injected so tests can drive every step. The steps
    are in :mod:`~changelog_tools.flows.recover.checks` (reads and refusals, before any write)
    and :mod:`~changelog_tools.flows.recover.writes`; here, their order and the plan."""

    config: Config
    repo: GitRepo
    github: RecoverGitHub
    progress: Callable[[str], None] = lambda _m: None
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    console: Console | None = None
    confirm: Callable[[RecoverOutcome], bool] | None = None  # None: go ahead (--yes)

    def __post_init__(self) -> None:
        self._console: Console = self.console or LineConsole(self.progress)

    # -- the flow ---------------------------------------------------------------------------

    def run(self, request: RecoverRequest) -> RecoverOutcome:
        cfg = self.config
        with mg.sigterm_as_interrupt(), contextlib.ExitStack() as stack:
            stack.callback(rg.delete_private_refs, self.repo)
            self._check_label()
            ref = (
                parse_run_url(request.target, repository=cfg.repository) if request.target else None
            )
            target = find_target(self.github, cfg, ref=ref, pr=request.pr, say=self.say)
            n = target.pull.number
            branch = f"{cfg.recover_branch_prefix}{n}"
            main_sha, branch_sha = self._fetch(n, branch)
            scope = read_scope(self.repo, cfg, pr=n, merge_sha=target.merge_sha)
            self.say(
                "scope",
                f"{len(scope.entries)} entr{'y' if len(scope.entries) == 1 else 'ies'} of PR "
                f"#{n}; config keys: {', '.join(scope.config_keys) or '(none)'}",
            )
            for note in scope_notes(scope):
                self.say("scope", note)
            source = self._source(target, request)
            self._drift(source, merged=target.merge_sha, before=None, n=n, why="merged")
            existing = self._existing(n, branch, branch_sha, source)
            if existing.merged is not None:
                return self._after_merge(request, target, source, scope, existing, main_sha)
            start = existing.state.base or main_sha
            preview = self._preview(scope, start=start, source=source, n=n, existing=existing)
            plan = self._plan(target, source, scope, existing, branch, start, preview)
            outcome = RecoverOutcome(plan, request.dry_run, recovery_pr=plan.recovery_pr)
            if request.dry_run:
                self.say("plan", "dry run: nothing was pushed, opened, labelled, posted or merged")
                return outcome
            if self.confirm is not None and not self.confirm(outcome):
                raise AbortedError("stopped before the first write; nothing was changed")
            remote = Remote(request, branch)
            with telling_what_is_on_github(remote, self._console, "recover"):
                return self._write(request, plan, target, source, scope, existing, remote)

    def _plan(
        self,
        target: Target,
        source: Source,
        scope: Scope,
        existing: Existing,
        branch: str,
        start: str,
        preview: bytes,
    ) -> RecoverPlan:
        cfg = self.config
        run = source.run
        body = authorize_body(cfg.reuse_command, run.id)
        state = existing.state
        pull = existing.pull
        current = self.repo.read_blob(start, cfg.changelog) or b""
        authorized = existing.authorization is not None and existing.authorization.run_id == run.id
        labelled = pull is not None and cfg.recover_label in pull.labels
        steps = (
            Step(
                "bootstrap",
                f"push an empty commit on {start[:12]} to {branch}",
                state.kind != "absent",
            ),
            Step(
                "open",
                f"open the recovery PR {branch} -> {cfg.main_branch}"
                + (f" (#{pull.number})" if pull else ""),
                pull is not None,
            ),
            Step("label", f"add the label {cfg.recover_label}", labelled),
            Step("authorize", f"post `{body}`", authorized),
            Step(
                "append",
                f"append {len(scope.entries)} entr{'y' if len(scope.entries) == 1 else 'ies'} "
                f"with the recovery PR's link; carrier commit with second parent "
                f"{(run.head_sha or '?')[:12]}; push (never forced)",
                state.kind == "carrier",
            ),
            Step(
                "wait",
                f"wait for {', '.join(dict.fromkeys((cfg.changelog_check_name, *cfg.required_checks, *cfg.recover_required_checks)))} "
                "and every other check",
            ),
            Step("merge", "squash-merge, pinned to the pushed carrier"),
            Step(
                "ingest",
                f"find the push run of the squash commit; expect it to reuse run {run.id} and ingest",
            ),
        )
        return RecoverPlan(
            original_pr=target.pull.number,
            original_title=target.pull.title,
            merge_sha=target.merge_sha,
            target_run=target.run.id,
            target_url=target.run.html_url,
            lost_because=target.ingest.why,
            source_run=run.id,
            source_url=run.html_url,
            source_sha=run.head_sha or "",
            source_conclusion=run.conclusion,
            source_pinned=source.pinned,
            artifacts=source.artifacts,
            config_keys=scope.config_keys,
            notes=scope_notes(scope),
            entries=len(scope.entries),
            appended=preview[len(current) :].decode("utf-8", "replace"),
            branch=branch,
            main_sha=start,
            recovery_pr=pull.number if pull else None,
            label=cfg.recover_label,
            authorize_body=body,
            steps=steps,
        )

    def _after_merge(
        self,
        request: RecoverRequest,
        target: Target,
        source: Source,
        scope: Scope,
        existing: Existing,
        main_sha: str,
    ) -> RecoverOutcome:
        """The recovery PR was merged by an earlier run: only the ingest is left to check."""
        assert existing.merged is not None
        p = existing.merged
        branch = p.head_ref
        current = self.repo.read_blob(main_sha, self.config.changelog) or b""
        plan = self._plan(target, source, scope, existing, branch, main_sha, current)
        steps = tuple(Step(s.name, s.text, s.name != "ingest") for s in plan.steps)
        plan = dataclasses.replace(plan, recovery_pr=p.number, steps=steps)
        if request.dry_run:
            return RecoverOutcome(
                plan,
                True,
                recovery_pr=p.number,
                merge_commit=p.merge_commit_sha,
                already_merged=True,
            )
        merged = p.merge_commit_sha or ""
        ingest = self._await_ingest(merged, source, request)
        return RecoverOutcome(
            plan,
            False,
            recovery_pr=p.number,
            merge_commit=merged,
            ingest=ingest,
            already_merged=True,
        )


def run_recover(
    request: RecoverRequest,
    *,
    config: Config,
    progress: Callable[[str], None],
    live: Callable[[str], None] | None = None,
    confirm: Callable[[RecoverOutcome], bool] | None = None,
    env: Mapping[str, str] | None = None,
) -> RecoverOutcome:
    """Build the collaborators from configuration and the environment, then run the flow."""
    from changelog_tools import gitrepo
    from changelog_tools.github.adapter import make_github

    console: Console = LineConsole(progress) if live is None else TerminalConsole(live)
    repo = gitrepo.open_repo(config.root)
    github = make_github(config, env=env, log=console.line)
    flow = RecoverFlow(
        config=config, repo=repo, github=github, progress=progress, console=console, confirm=confirm
    )
    return flow.run(request)
