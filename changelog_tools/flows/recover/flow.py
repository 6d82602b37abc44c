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
from dataclasses import dataclass, field

from changelog_tools.config import Config
from changelog_tools.errors import AbortedError, ChangelogToolsError, DataError
from changelog_tools.flows.landing.authorize import authorize_body, post_command
from changelog_tools.flows.landing.plan import MergeRequest
from changelog_tools.flows.landing.ports import RecoverGitHub
from changelog_tools.flows.landing.progress import (
    Console,
    LineConsole,
    TerminalConsole,
    WaitReporter,
    duration,
)
from changelog_tools.flows.landing.squash import squash_pinned
from changelog_tools.flows.landing.wait import CheckWaiter
from changelog_tools.flows.merge import git as mg
from changelog_tools.flows.recover import git as rg
from changelog_tools.flows.recover.plan import (
    IngestReport,
    RecoverOutcome,
    RecoverPlan,
    RecoverRequest,
    Step,
    render_outcome,
)
from changelog_tools.flows.recover.scope import (
    Scope,
    read_scope,
    recovery_changelog,
    scope_notes,
)
from changelog_tools.flows.recover.target import (
    Target,
    find_target,
    parse_run_url,
)
from changelog_tools.github.adapter import PullRequest
from changelog_tools.gitrepo import GitRepo
from changelog_tools.reuse.gate import Authorization, Source

__all__ = ["RecoverFlow", "RecoverRequest", "render_outcome", "run_recover"]


def _fill(template: str, **values: object) -> str:
    """``{name}`` placeholders replaced; anything else in a configured text stays as written
    (``str.format`` would fail on a stray brace in a commit message)."""
    for name, value in values.items():
        template = template.replace(f"{{{name}}}", str(value))
    return template


@dataclass
class Remote:
    """What this run (or an earlier one) has on GitHub, so a failure can say so truthfully."""

    request: RecoverRequest
    branch: str
    done: list[str] = field(default_factory=list)

    def add(self, what: str) -> None:
        self.done.append(what)

    def summary(self) -> str:
        if not self.done:
            return ""
        return (
            f"Already on GitHub: {'; '.join(self.done)}. A re-run of `{self.request.command()}` "
            "resumes from there (it does not open, label, post or push that again)"
        )

    def tell(self, exc: ChangelogToolsError) -> None:
        exc.add_sentence(self.summary())


@dataclass
class Existing:
    """The recovery an earlier run left: branch, open or merged PR, label and authorization."""

    state: rg.BranchState
    pull: PullRequest | None = None
    merged: PullRequest | None = None
    authorization: Authorization | None = None


@dataclass
class RecoverFlow:
    """One run of `recover`; collaborators injected so tests can drive every step."""

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

    def say(self, step: str, message: str) -> None:
        self._console.line(f"[{step}] {message}")

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
            try:
                return self._write(request, plan, target, source, scope, existing, remote)
            except ChangelogToolsError as exc:
                remote.tell(exc)
                raise
            except KeyboardInterrupt:
                if remote.summary():
                    self._console.line(f"[recover] interrupted. {remote.summary()}")
                raise

    # -- reads and refusals -------------------------------------------------------------------

    def _check_label(self) -> None:
        cfg = self.config
        if cfg.recover_label not in cfg.full_sweep_labels:
            from changelog_tools.errors import ConfigError

            raise ConfigError(
                f"`recover-label` {cfg.recover_label!r} is not one of `full-sweep-labels` "
                f"({', '.join(cfg.full_sweep_labels)}); the reuse gate would refuse it"
            )

    def _fetch(self, n: int, branch: str) -> tuple[str, str | None]:
        """Fetch the default branch, the original PR's head and the recovery branch (if any)."""
        cfg = self.config
        branch_sha = rg.remote_branch(self.repo, remote=cfg.remote, branch=branch)
        specs = {
            "main": f"refs/heads/{cfg.main_branch}",
            f"pr-{n}-head": f"refs/pull/{n}/head",
        }
        if branch_sha is not None:
            specs["branch"] = f"refs/heads/{branch}"
        got = rg.fetch(self.repo, remote=cfg.remote, refspecs=specs)
        main_sha = got[f"refs/heads/{cfg.main_branch}"]
        if branch_sha is not None:
            branch_sha = got[f"refs/heads/{branch}"]
        return main_sha, branch_sha

    def _source(self, target: Target, request: RecoverRequest) -> Source:
        from changelog_tools.reuse import gate as reuse

        cfg = self.config
        pull = target.pull
        policy = reuse.Policy.from_config(cfg)
        shas = frozenset(c.sha for c in self.github.list_pull_commits(pull.number))
        log = lambda m: self.say("source", m)  # noqa: E731
        if request.source_run is not None:
            source, why = reuse.pinned_source(
                request.source_run, pull, shas, policy, self.github, log
            )
        else:
            source, why = reuse.latest_source(pull, shas, policy, self.github, log)
        if source is None:
            raise DataError(
                why.replace(
                    f"pin one with `{policy.command} RUN_ID`", "pin one with --source-run RUN_ID"
                )
            )
        run = source.run
        self.say(
            "source",
            f"run {run.id} ({run.html_url or 'no URL'}), {run.conclusion} on "
            f"{(run.head_sha or '?')[:12]}; artifacts: {', '.join(source.artifacts)}",
        )
        return source

    def _drift(self, source: Source, *, merged: str, before: str | None, n: int, why: str) -> None:
        from changelog_tools.reuse.drift import check_drift

        cfg = self.config
        report = check_drift(
            self.repo,
            source=source.run.head_sha or "",
            merged=merged,
            before=before,
            patterns=cfg.drift_paths,
            changelog=cfg.changelog,
            pr_number=n,
            remote=cfg.remote,
        )
        items = report.items()
        if items:
            shown = ", ".join(items[:10]) + (
                f" and {len(items) - 10} more" if len(items) > 10 else ""
            )
            raise DataError(
                f"PR #{n} changed benchmark inputs after source run {source.run.id} "
                f"({(source.run.head_sha or '?')[:12]}), so its results do not describe what "
                f"{why}: {shown}",
                hint="pin a run on the PR's final head with --source-run, or let main sweep",
            )

    def _existing(self, n: int, branch: str, branch_sha: str | None, source: Source) -> Existing:
        cfg = self.config
        state = rg.branch_state(self.repo, branch_sha, bootstrap_message=self._bootstrap_message(n))
        pulls = self.github.pulls_from_branch(branch)
        merged = [p for p in pulls if p.merged]
        opened = [p for p in pulls if p.state == "open"]
        if merged:
            p = merged[0]
            self.say("resume", f"recovery PR #{p.number} is already merged as {p.merge_commit_sha}")
            return Existing(state, merged=p)
        if state.kind == "foreign":
            raise DataError(
                f"{branch} holds commits recover did not make (its tip is {branch_sha and branch_sha[:12]}); "
                "refusing to build on them or overwrite them",
                hint=f"delete the branch {branch} (and close its PR) to start the recovery afresh",
            )
        if len(opened) > 1:
            listed = ", ".join(f"#{p.number}" for p in opened)
            raise DataError(f"several open pull requests come from {branch}: {listed}")
        pull = opened[0] if opened else None
        if pull is not None and state.kind == "absent":
            raise DataError(
                f"recovery PR #{pull.number} is open but its branch {branch} is gone",
                hint=f"close PR #{pull.number}, then re-run recover",
            )
        if state.kind == "carrier" and pull is None:
            raise DataError(
                f"{branch} already carries the recovery entries, but no open pull request "
                "comes from it (closed?); its entries name that pull request, not a new one",
                hint=f"delete the branch {branch} to start the recovery afresh",
            )
        if state.kind == "carrier" and state.source != source.run.head_sha:
            raise DataError(
                f"{branch} already carries {(state.source or '?')[:12]}, not source run "
                f"{source.run.id}'s {(source.run.head_sha or '?')[:12]}; a pushed carrier is "
                "never rewritten",
                hint="re-run with --source-run naming the run of that commit, or close the PR "
                "and delete the branch to start afresh",
            )
        auth = None
        if pull is not None:
            labels = set(pull.labels)
            sweep = sorted(labels & (set(cfg.sweep_labels) | set(cfg.full_sweep_labels)))
            extra = [name for name in sweep if name != cfg.recover_label]
            bad = sorted(labels & set(cfg.reuse_incompatible_labels))
            if extra or bad:
                raise DataError(
                    f"recovery PR #{pull.number} has label(s) {', '.join(extra + bad)}; the reuse "
                    f"gate needs exactly one sweep label ({cfg.recover_label}) and no "
                    "reuse-incompatible label",
                    hint=f"remove {', '.join(extra + bad)} from PR #{pull.number}, then re-run",
                )
            from changelog_tools.reuse.gate import find_authorization

            auth = find_authorization(
                self.github.list_issue_comments(pull.number),
                command=cfg.reuse_command,
                allowed=cfg.reuse_allowed_associations,
            )
            self.say(
                "resume",
                f"recovery PR #{pull.number} is open; {branch} holds the {state.kind} commit",
            )
        return Existing(state, pull=pull, authorization=auth)

    def _preview(
        self, scope: Scope, *, start: str, source: Source, n: int, existing: Existing
    ) -> bytes:
        """The recovery's changelog (placeholder link until the PR exists), checked now, and
        the drift the reuse gate will look for on the recovery's merge, predicted now."""
        cfg = self.config
        number = existing.pull.number if existing.pull is not None else None
        link = cfg.canonical_link(number) if number else cfg.placeholder_links()[0]
        current = self.repo.read_blob(start, cfg.changelog) or b""
        data = recovery_changelog(current, scope, link=link, path=cfg.changelog)
        state = existing.state
        if state.kind == "carrier" and self.repo.read_blob(state.sha or "", cfg.changelog) != data:
            raise DataError(
                f"the carrier {(state.sha or '?')[:12]} on the recovery branch does not hold "
                f"exactly PR #{n}'s entries with PR #{number}'s link; a pushed carrier is never "
                "rewritten",
                hint=f"close PR #{number} and delete its branch to start the recovery afresh",
            )
        self._check(current, data, start=start, pr=number)
        recovery = rg.with_file(
            self.repo, parent=start, path=cfg.changelog, data=data, message="preview"
        )
        self._drift(source, merged=recovery, before=start, n=n, why="the recovery merges")
        self._stale(source, start=start, n=n)
        return data

    def _stale(self, source: Source, *, start: str, n: int) -> None:
        """The reuse gate on the recovery's push refuses a sweep whose configs main changed
        since it ran (the staleness rule); refuse now, before anything is written."""
        from changelog_tools.reuse.staleness import check_staleness

        cfg = self.config
        report = check_staleness(
            self.repo, source=source.run.head_sha or "", base=start, config=cfg
        )
        if not report.ok:
            raise DataError(
                f"source run {source.run.id} of PR #{n} is stale: "
                f"{report.describe(main_branch=cfg.main_branch)}; its results do not describe "
                f"what {cfg.main_branch} runs now, and the reuse gate would refuse them",
                hint=f"a new sweep is needed: the configs must be swept again on "
                f"{cfg.main_branch} (recover cannot reuse this run)",
            )

    def _check(self, base: bytes, head: bytes, *, start: str, pr: int | None) -> None:
        """`check` on the recovery's change: PR mode once the PR exists, local mode before."""
        from changelog_tools.ledger.check import check_change

        cfg = self.config
        result = check_change(
            base=base,
            head=head,
            config=cfg,
            mode="pr" if pr else "local",
            pr=pr,
            path=cfg.changelog,
            base_label=f"{cfg.changelog}@{cfg.main_branch}",
            masters_base={p: self.repo.read_blob(start, p) for p in cfg.master_configs},
            masters_head={p: self.repo.read_blob(start, p) for p in cfg.master_configs},
        )
        errors = result.report.errors
        if errors:
            shown = "; ".join(f"{d.code} {d.message}" for d in errors[:3])
            raise DataError(
                f"the recovery entries fail `check` against {cfg.main_branch} as it is now: {shown}",
                hint="a config key may have been renamed or removed since the merge; recover by "
                "hand (docs/recover.md)",
            )

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

    def _bootstrap_message(self, n: int) -> str:
        # Only {pr}: a re-run must recognise the bootstrap whatever source run it settles on.
        return _fill(self.config.recover_bootstrap_message, pr=n)

    # -- writes -------------------------------------------------------------------------------

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
        cfg = self.config
        n = plan.original_pr
        branch = plan.branch
        state = existing.state
        run = source.run
        source_sha = run.head_sha or ""
        fill = {"pr": n, "run": run.id, "sha": source_sha[:12]}
        # 4a. the bootstrap commit
        if state.kind == "absent":
            boot = rg.bootstrap(
                self.repo, main_sha=plan.main_sha, message=self._bootstrap_message(n)
            )
            self.say("bootstrap", f"pushing the empty commit {boot[:12]} to {cfg.remote}/{branch}")
            mg.push(
                self.repo, remote=cfg.remote, sha=boot, branch=branch, what=f"the recovery of #{n}"
            )
            state = rg.BranchState("bootstrap", boot, base=plan.main_sha, bootstrap=boot)
            remote.add(f"pushed {boot[:12]} to {branch}")
        else:
            remote.add(f"{branch} exists (at {(state.sha or '?')[:12]})")
        # 4b. the pull request
        pull = existing.pull
        if pull is None:
            self.say("open", f"opening the recovery PR {branch} -> {cfg.main_branch}")
            pull = self.github.create_pull(
                head=branch,
                base=cfg.main_branch,
                title=_fill(cfg.recover_title, **fill),
                body=self._pull_body(plan),
            )
            self.say(
                "open",
                f"opened PR #{pull.number}" + (f" ({pull.html_url})" if pull.html_url else ""),
            )
        rec = pull.number
        remote.add(f"recovery PR #{rec} is open")
        # 4c. exactly one sweep label
        if cfg.recover_label not in pull.labels:
            self.say("label", f"adding {cfg.recover_label} to PR #{rec}")
            self.github.add_labels(rec, [cfg.recover_label])
            remote.add(f"PR #{rec} has {cfg.recover_label}")
        # 4d. the reuse command, before the changelog changes
        auth = existing.authorization
        if auth is None or auth.run_id != run.id:
            comment = post_command(
                pr=rec,
                body=plan.authorize_body,
                known=auth.comment_id if auth else 0,
                github=self.github,
                config=cfg,
                say=self.say,
                nothing_else="The changelog entries were not pushed; nothing was merged",
            )
            remote.add(f"posted `{plan.authorize_body}` (comment {comment.id})")
        else:
            self.say("authorize", f"already authorized (comment {auth.comment_id})")
        # 4e. the entries and the carrier: one push, never forced
        if state.kind == "bootstrap":
            start = state.bootstrap or ""
            current = self.repo.read_blob(start, cfg.changelog) or b""
            data = recovery_changelog(
                current, scope, link=cfg.canonical_link(rec), path=cfg.changelog
            )
            self._check(current, data, start=start, pr=rec)
            recovery = rg.with_file(
                self.repo,
                parent=start,
                path=cfg.changelog,
                data=data,
                message=_fill(cfg.recover_commit_message, **fill),
            )
            self.repo.git("cat-file", "-e", f"{source_sha}^{{commit}}")
            carrier = rg.carrier(
                self.repo,
                recovery=recovery,
                source=source_sha,
                message=_fill(cfg.recover_carrier_message, **fill),
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
        else:
            carrier = state.sha or ""
            self.say("append", f"{branch} already holds the carrier {carrier[:12]}")
        # 5. verify, wait, merge, and look at the push run
        self._verify(rec, source_sha=source_sha)
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
        merged = squash_pinned(
            pr=rec,
            sha=carrier,
            title=f"{_fill(cfg.recover_title, **fill)} (#{rec})",
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

    def _times(self, request: RecoverRequest) -> tuple[float, float]:
        cfg = self.config
        timeout = float(cfg.check_timeout if request.timeout is None else request.timeout)
        interval = float(
            cfg.check_poll_interval if request.poll_interval is None else request.poll_interval
        )
        return timeout, interval

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
