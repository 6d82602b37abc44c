"""The reuse rules of `reuse-gate`, asked by the merge flow before it merges instead of after.

Which authorization counts, which sweep run main will reuse (pinned or the newest eligible),
the drift guard against exactly the commit that will be merged, and the staleness rule (main
changed what the swept configs run since the sweep).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from changelog_tools.config import Config
from changelog_tools.errors import DataError
from changelog_tools.flows.landing.plan import SourceRun
from changelog_tools.github.adapter import Comment, PullRequest
from changelog_tools.gitrepo import GitRepo
from changelog_tools.reuse.gate import Authorization, GateAPI, find_authorization


@dataclass
class GateReuse:
    """The `reuse-gate` rules, asked before the merge instead of after it."""

    config: Config
    github: GateAPI
    repo: GitRepo
    progress: Callable[[str], None] = lambda _m: None

    def authorization(self, comments: Sequence[Comment]) -> Authorization | None:
        return find_authorization(
            comments,
            command=self.config.reuse_command,
            allowed=self.config.reuse_allowed_associations,
        )

    def choose_source(
        self, pull: PullRequest, *, candidate: str, main_sha: str, run_id: int | None
    ) -> SourceRun:
        from changelog_tools.reuse import gate as reuse

        policy = reuse.Policy.from_config(self.config)
        # The PR's commits as they will be once the candidate is pushed: read from git, which
        # costs no request and already includes the commit the flow adds.
        shas = frozenset(self.repo.commits_between(main_sha, candidate, ()))
        log = lambda m: self.progress(f"[preflight] {m}")  # noqa: E731
        if run_id is not None:
            source, why = reuse.pinned_source(run_id, pull, shas, policy, self.github, log)
        else:
            source, why = reuse.latest_source(pull, shas, policy, self.github, log)
        if source is None:
            raise DataError(why, hint=f"let the PR sweep, or pin a run: `{policy.command} RUN_ID`")
        run = source.run
        drift = self._drift(run, candidate=candidate, main_sha=main_sha)
        if drift:
            raise DataError(
                f"PR #{pull.number} changed benchmark inputs after run {run.id} "
                f"({(run.head_sha or '?')[:7]}): {', '.join(drift[:10])}",
                hint="let the PR sweep again on its current head, then re-run the merge",
            )
        self._stale(run, main_sha=main_sha, pr=pull.number)
        return SourceRun(
            id=run.id,
            attempt=run.run_attempt,
            url=run.html_url,
            head_sha=run.head_sha,
            conclusion=run.conclusion,
            latest=run_id is None,
        )

    def _stale(self, run: Any, *, main_sha: str, pr: int) -> None:
        """Refuse when main changed what the configs the run swept execute (a new sweep is
        needed: reusing would ingest results of a configuration main no longer has)."""
        from changelog_tools.reuse.staleness import check_staleness

        report = check_staleness(
            self.repo, source=run.head_sha or "", base=main_sha, config=self.config
        )
        if not report.ok:
            raise DataError(
                f"reuse of run {run.id} refused: {report.describe(main_branch=self.config.main_branch)}",
                hint=f"a new sweep is needed: let PR #{pr} sweep again with "
                f"{self.config.main_branch} merged in, then re-run the merge",
            )

    def _drift(self, run: Any, *, candidate: str, main_sha: str) -> tuple[str, ...]:
        from changelog_tools.reuse.drift import check_drift

        # The squash puts the candidate's tree on top of main, so the candidate with main as
        # its "before" is exactly what main will look like.
        report = check_drift(
            self.repo,
            source=run.head_sha,
            merged=candidate,
            before=main_sha,
            patterns=self.config.drift_paths,
            changelog=self.config.changelog,
        )
        return report.items()
