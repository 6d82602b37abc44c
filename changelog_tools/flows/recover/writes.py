"""`recover`'s writes, in order: the bootstrap commit, the pull request, its label, the reuse
command, the entries with the carrier (one push, never forced), then the wait for the checks,
the pinned squash and the push run of the squash commit. Each step is skipped when an earlier
run did it, and :class:`~changelog_tools.flows.recover.base.Remote` records what is on GitHub."""

from __future__ import annotations

import dataclasses

from changelog_tools.errors import AbortedError, DataError
from changelog_tools.flows.landing.authorize import post_command
from changelog_tools.flows.landing.plan import MergeRequest
from changelog_tools.flows.landing.progress import WaitReporter, duration
from changelog_tools.flows.landing.squash import squash_pinned
from changelog_tools.flows.landing.wait import CheckWaiter
from changelog_tools.flows.merge import git as mg
from changelog_tools.flows.recover import git as rg
from changelog_tools.flows.recover.base import Existing, Remote, fill
from changelog_tools.flows.recover.checks import RecoverChecks
from changelog_tools.flows.recover.plan import (
    IngestReport,
    RecoverOutcome,
    RecoverPlan,
    RecoverRequest,
)
from changelog_tools.flows.recover.scope import Scope, recovery_changelog
from changelog_tools.flows.recover.target import Target
from changelog_tools.github.adapter import PullRequest
from changelog_tools.reuse.gate import Source


class RecoverWrites(RecoverChecks):
    """The writes of `recover`, each one resumable."""

    def _write(
        self,
        request: RecoverRequest,
        plan: RecoverPlan,
        target: Target,
        source: Source,
        scope: Scope,
        existing: Existing,
        remote: Remote,
    ) -> RecoverOutcome:
        """Every write, in order; each step skipped when an earlier run did it."""
        cfg = self.config
        run = source.run
        source_sha = run.head_sha or ""
        values = {"pr": plan.original_pr, "run": run.id, "sha": source_sha[:12]}
        state = self._bootstrap(plan, existing.state, remote)
        pull = self._open(plan, existing.pull, values, remote)
        rec = pull.number
        # 4c. exactly one sweep label
        if cfg.recover_label not in pull.labels:
            self.say("label", f"adding {cfg.recover_label} to PR #{rec}")
            self.github.add_labels(rec, [cfg.recover_label])
            remote.add(f"PR #{rec} has {cfg.recover_label}")
        self._authorize(plan, existing, rec, run_id=run.id, remote=remote)
        carrier = self._append(plan, state, scope, rec, source_sha, values, remote)
        # 5. verify, wait, merge, and look at the push run
        self._verify(rec, source_sha=source_sha)
        merged = self._land(request, plan, target, source, rec, carrier, values)
        remote.add(f"recovery PR #{rec} is merged as {merged[:12]}")
        ingest = self._await_ingest(merged, source, request)
        current = self.repo.read_blob(plan.main_sha, cfg.changelog) or b""
        final = recovery_changelog(current, scope, link=cfg.canonical_link(rec), path=cfg.changelog)
        plan = dataclasses.replace(
            plan,
            recovery_pr=rec,
            appended=final[len(current) :].decode("utf-8", "replace"),
            steps=tuple(dataclasses.replace(s, done=True) for s in plan.steps),
        )
        return RecoverOutcome(plan, False, recovery_pr=rec, merge_commit=merged, ingest=ingest)

    def _bootstrap(
        self, plan: RecoverPlan, state: rg.BranchState, remote: Remote
    ) -> rg.BranchState:
        """4a. the bootstrap commit, pushed unless the branch exists."""
        cfg = self.config
        n, branch = plan.original_pr, plan.branch
        if state.kind != "absent":
            remote.add(f"{branch} exists (at {(state.sha or '?')[:12]})")
            return state
        boot = rg.bootstrap(self.repo, main_sha=plan.main_sha, message=self._bootstrap_message(n))
        self.say("bootstrap", f"pushing the empty commit {boot[:12]} to {cfg.remote}/{branch}")
        mg.push(self.repo, remote=cfg.remote, sha=boot, branch=branch, what=f"the recovery of #{n}")
        remote.add(f"pushed {boot[:12]} to {branch}")
        return rg.BranchState("bootstrap", boot, base=plan.main_sha, bootstrap=boot)

    def _open(
        self,
        plan: RecoverPlan,
        pull: PullRequest | None,
        values: dict[str, object],
        remote: Remote,
    ) -> PullRequest:
        """4b. the pull request, opened unless one is open."""
        cfg = self.config
        if pull is None:
            self.say("open", f"opening the recovery PR {plan.branch} -> {cfg.main_branch}")
            pull = self.github.create_pull(
                head=plan.branch,
                base=cfg.main_branch,
                title=fill(cfg.recover_title, **values),
                body=self._pull_body(plan),
            )
            self.say(
                "open",
                f"opened PR #{pull.number}" + (f" ({pull.html_url})" if pull.html_url else ""),
            )
        remote.add(f"recovery PR #{pull.number} is open")
        return pull

    def _authorize(
        self, plan: RecoverPlan, existing: Existing, rec: int, *, run_id: int, remote: Remote
    ) -> None:
        """4d. the reuse command, before the changelog changes."""
        auth = existing.authorization
        if auth is not None and auth.run_id == run_id:
            self.say("authorize", f"already authorized (comment {auth.comment_id})")
            return
        comment = post_command(
            pr=rec,
            body=plan.authorize_body,
            known=auth.comment_id if auth else 0,
            github=self.github,
            config=self.config,
            say=self.say,
            nothing_else="The changelog entries were not pushed; nothing was merged",
        )
        remote.add(f"posted `{plan.authorize_body}` (comment {comment.id})")

    def _append(
        self,
        plan: RecoverPlan,
        state: rg.BranchState,
        scope: Scope,
        rec: int,
        source_sha: str,
        values: dict[str, object],
        remote: Remote,
    ) -> str:
        """4e. the entries and the carrier: one push, never forced; the carrier commit."""
        cfg = self.config
        branch = plan.branch
        if state.kind != "bootstrap":
            carrier = state.sha or ""
            self.say("append", f"{branch} already holds the carrier {carrier[:12]}")
            return carrier
        start = state.bootstrap or ""
        current = self.repo.read_blob(start, cfg.changelog) or b""
        data = recovery_changelog(current, scope, link=cfg.canonical_link(rec), path=cfg.changelog)
        self._check(current, data, start=start, pr=rec)
        recovery = rg.with_file(
            self.repo,
            parent=start,
            path=cfg.changelog,
            data=data,
            message=fill(cfg.recover_commit_message, **values),
        )
        self.repo.rev_parse(source_sha)  # the carrier cannot name a commit not here
        carrier = rg.carrier(
            self.repo,
            recovery=recovery,
            source=source_sha,
            message=fill(cfg.recover_carrier_message, **values),
        )
        self.say(
            "append",
            f"pushing {carrier[:12]} (entries in {recovery[:12]}, second parent "
            f"{source_sha[:12]}) to {cfg.remote}/{branch}",
        )
        mg.push(
            self.repo, remote=cfg.remote, sha=carrier, branch=branch, what=f"recovery PR #{rec}"
        )
        remote.add(f"pushed the carrier {carrier[:12]} to {branch}")
        return carrier

    def _land(
        self,
        request: RecoverRequest,
        plan: RecoverPlan,
        target: Target,
        source: Source,
        rec: int,
        carrier: str,
        values: dict[str, object],
    ) -> str:
        """5. wait for the checks on the carrier, then squash-merge pinned to it; the squash
        commit."""
        cfg = self.config
        run = source.run
        timeout, interval = self._times(request)
        CheckWaiter(
            config=cfg,
            github=self.github,
            say=self.say,
            reporter=WaitReporter(self._console),
            sleep=self.sleep,
            clock=self.clock,
            extra_required=cfg.recover_required_checks,
            rerun=request.command(),
        ).wait(
            sha=carrier,
            pr=rec,
            request=MergeRequest(
                pr=rec, admin=request.admin, timeout=timeout, poll_interval=interval
            ),
        )
        return squash_pinned(
            pr=rec,
            sha=carrier,
            title=f"{fill(cfg.recover_title, **values)} (#{rec})",
            message=self._squash_message(plan, target),
            admin=request.admin,
            github=self.github,
            say=self.say,
            reuses=f"sweep run {run.id}" + (f" ({run.html_url})" if run.html_url else ""),
            rerun=request.command(),
            conflict_hint=f"{cfg.main_branch} changed since the recovery began; run "
            f"`changelog-tools merge {rec}`: it merges {cfg.main_branch} in, keeps its changelog "
            f"bytes and the recovery entry, keeps the `{plan.authorize_body}` pin, and merges",
        )

    def _verify(self, rec: int, *, source_sha: str) -> None:
        """GitHub sees what the reuse gate needs: the source commit among the PR's commits,
        and nothing but the changelog changed."""
        cfg = self.config
        commits = {c.sha for c in self.github.list_pull_commits(rec)}
        if source_sha not in commits:
            raise AbortedError(
                f"GitHub does not list the source commit {source_sha[:12]} among recovery PR "
                f"#{rec}'s {len(commits)} commits (it lists at most 250), so the reuse gate "
                "would refuse; nothing was merged",
                hint="pin a run on a later commit of the original PR with --source-run",
            )
        files = [f.filename for f in self.github.list_pull_files(rec)]
        if files != [cfg.changelog]:
            raise AbortedError(
                f"recovery PR #{rec} changes {', '.join(files) or 'nothing'}, not only "
                f"{cfg.changelog}; nothing was merged",
                hint="someone pushed to the recovery branch; close the PR and start afresh",
            )
        self.say("verify", f"PR #{rec} lists {source_sha[:12]} and changes only {cfg.changelog}")

    def _await_ingest(self, merged: str, source: Source, request: RecoverRequest) -> IngestReport:
        """Wait for the push run of ``merged`` to complete; it must have reused and ingested."""
        from changelog_tools.flows.landing.push_run import wait_push_run

        timeout, interval = self._times(request)
        found = wait_push_run(
            self.github,
            self.config,
            merged,
            timeout=timeout,
            interval=interval,
            say=self.say,
            sleep=self.sleep,
            clock=self.clock,
        )
        run, state = found.run, found.state
        if run is None or state is None:
            where = f"run {run.id} is {run.status}" if run is not None else "no run has started"
            raise AbortedError(
                f"the recovery is merged as {merged[:12]}, but after {duration(timeout)} "
                f"{where}; whether it ingested is not known yet",
                hint=f"re-run `{request.command()}` later: it finds the merged recovery and "
                "checks the push run",
            )
        ok = state.ingest_succeeded()
        if not state.reuse_enabled or not ok or state.lost:
            what = (
                "did not reuse the source run: benchmark jobs ran"
                if not state.reuse_enabled
                else state.why
            )
            raise DataError(
                f"the recovery is merged as {merged[:12]}, but its push run {run.id} "
                f"({run.html_url or 'no URL'}) {what}",
                hint="read the run's reuse gate step summary; recover that run in turn once "
                "the cause is fixed",
            )
        self.say(
            "ingest",
            f"push run {run.id} reused source run {source.run.id}; {', '.join(ok)} succeeded "
            f"(source run {source.run.id}, merge run {run.id})",
        )
        return IngestReport(run.id, run.html_url, True, ok)

    def _pull_body(self, plan: RecoverPlan) -> str:
        link = self.config.canonical_link(plan.original_pr)
        return "\n".join(
            [
                f"Recovers the ingest of {link}, lost in run {plan.target_run}"
                + (f" ({plan.target_url})" if plan.target_url else "")
                + f": {plan.lost_because}.",
                "",
                f"- Source run: {plan.source_run}"
                + (f" ({plan.source_url})" if plan.source_url else "")
                + f", on `{plan.source_sha[:12]}`",
                f"- Config keys: {', '.join(f'`{k}`' for k in plan.config_keys)}",
                "",
                "Opened by `changelog-tools recover`: it appends the original entries with this "
                "PR's link, carries the source commit as a second parent, and squash-merges once "
                "the checks pass. Do not push to this branch.",
            ]
        )

    def _squash_message(self, plan: RecoverPlan, target: Target) -> str:
        return "\n".join(
            [
                f"Recovers the ingest of #{plan.original_pr} (merged as {target.merge_sha[:12]}); "
                f"lost in run {plan.target_run}.",
                f"Source run: {plan.source_run} on {plan.source_sha[:12]}.",
            ]
        )
