"""`recover`'s reads and refusals: everything remote is read, and every refusal made, before
the first write (the source run, drift, staleness, what an earlier run left, `check` on the
recovery's entries)."""

from __future__ import annotations

from changelog_tools.errors import DataError
from changelog_tools.flows.recover import git as rg
from changelog_tools.flows.recover.base import Existing, FlowBase
from changelog_tools.flows.recover.plan import RecoverRequest
from changelog_tools.flows.recover.scope import Scope, recovery_changelog
from changelog_tools.flows.recover.target import Target
from changelog_tools.reuse.gate import Source


class RecoverChecks(FlowBase):
    """The reads of `recover` and the refusals they lead to."""

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
