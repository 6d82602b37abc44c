"""`merge`: merge a benchmark pull request so that main reuses its sweep, as explicit steps.

Steps: preflight (PR state, labels, local merge of main + changelog resolution +
canonicalization in a scratch worktree, `check` in PR mode, an eligible source run including the
drift guard against exactly that result) -> authorize (`/reuse-sweep-run`, only if needed) ->
push (never forced) -> wait (the changelog check, then every check) -> merge (squash pinned to
the pushed SHA).

Nothing remote happens until every preflight passed. A re-run continues from where the PR is:
a merged PR is reported, an authorization already in place is not posted again, and a head this
flow pushed that is still current with main is not rebuilt (the state comes from GitHub and git,
never from a file).
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from changelog_tools.config import Config
from changelog_tools.errors import AbortedError, DataError, GitHubError
from changelog_tools.flows import mergeflow_git as mg
from changelog_tools.github.adapter import (
    AmbiguousWriteError,
    CheckRun,
    CombinedStatus,
    Comment,
    MergeRejectedError,
    MergeResult,
    PullRequest,
)
from changelog_tools.github.reuse import Authorization, find_authorization
from changelog_tools.gitrepo import GitRepo, read_index_stages
from changelog_tools.ledger.canonicalize import Substitution, canonicalize

# Conclusions of a completed check run that block a merge (GitHub's list).
FAILING_CONCLUSIONS = frozenset(
    {"failure", "cancelled", "timed_out", "action_required", "startup_failure", "stale"}
)
# Commit-message markers that make CI skip work. A squash message carrying one would skip the
# main sweep (the reference once leaked `[skip-sweep]` into main this way).
CI_SKIP_MARKERS = (
    "[skip ci]",
    "[ci skip]",
    "[no ci]",
    "[skip actions]",
    "[actions skip]",
    "***NO_CI***",
)
# Blanks, not \s: `^\s*` also eats newlines, so each line start rescanned every blank line after
# it (quadratic on a message of many empty lines).
_SKIP_CHECKS_TRAILER = re.compile(r"(?im)^[ \t]*skip-checks[ \t]*:[ \t]*true[ \t]*$\n?")


class MergeGitHub(Protocol):
    """The part of :class:`changelog_tools.github.adapter.GitHub` the flow uses."""

    def get_pull(self, number: int) -> PullRequest: ...
    def list_issue_comments(self, number: int) -> tuple[Comment, ...]: ...
    def create_issue_comment(self, number: int, body: str) -> Comment: ...
    def delete_issue_comment(self, comment_id: int) -> None: ...
    def list_check_runs(self, sha: str) -> tuple[CheckRun, ...]: ...
    def get_combined_status(self, sha: str) -> CombinedStatus: ...
    def merge_pull(
        self, number: int, *, sha: str, method: str = ..., title: str | None = ...,
        message: str | None = ...,
    ) -> MergeResult: ...  # fmt: skip


@dataclass(frozen=True)
class SourceRun:
    """The pull-request sweep run main will reuse."""

    id: int
    attempt: int
    url: str | None
    head_sha: str | None
    conclusion: str | None
    latest: bool  # the newest eligible run (what a bare command selects)


class ReusePort(Protocol):
    """Reuse rules shared with `reuse-gate` (authorization parsing, source choice, drift)."""

    def authorization(self, comments: Sequence[Comment]) -> Authorization | None: ...

    def choose_source(
        self, pull: PullRequest, *, candidate: str, main_sha: str, run_id: int | None
    ) -> SourceRun:
        """The eligible source run (pinned ``run_id`` or the latest); DataError when none."""
        ...


@dataclass(frozen=True)
class Resolution:
    """How the changelog conflict was resolved (for the plan)."""

    data: bytes
    kept: int  # PR entries carried over
    dropped: int  # PR entries already on main
    detail: Mapping[str, Any] = field(default_factory=dict)
    substitutions: tuple[Substitution, ...] = ()


@dataclass(frozen=True)
class MergeRequest:
    """What the user asked for."""

    pr: int
    dry_run: bool = False
    admin: bool = False
    run_id: int | None = None  # --run: reuse this run (posted as a pin when not the latest)
    timeout: float | None = None  # seconds to wait for checks; None: config `check-timeout`
    poll_interval: float | None = None  # None: config `check-poll-interval`


@dataclass(frozen=True)
class Plan:
    """Everything the flow decided before touching anything remote."""

    pr: int
    title: str
    head_branch: str
    start_head: str
    main_sha: str
    merged_main: bool
    conflicted: tuple[str, ...]
    resolution: Resolution | None
    substitutions: tuple[Substitution, ...]
    commit_kind: str  # merge | merge+canonicalize | canonicalize | refresh | resume
    candidate: str  # the head the PR will have when merged
    source: SourceRun
    authorization: Authorization | None
    authorize_body: str | None  # the comment to post, None when already authorized
    squash_title: str
    squash_message: str

    @property
    def push_needed(self) -> bool:
        return self.candidate != self.start_head

    def to_json(self) -> dict[str, Any]:
        res = self.resolution
        return {
            "pr": self.pr,
            "title": self.title,
            "head_branch": self.head_branch,
            "start_head": self.start_head,
            "main_sha": self.main_sha,
            "merge_main": {
                "merged": self.merged_main,
                "conflicted": list(self.conflicted),
                "resolution": None
                if res is None
                else {"kept": res.kept, "dropped": res.dropped, "detail": dict(res.detail)},
            },
            "substitutions": [s.as_json() for s in self.substitutions],
            "commit": self.commit_kind,
            "candidate": self.candidate,
            "push": self.push_needed,
            "source_run": {
                "id": self.source.id,
                "attempt": self.source.attempt,
                "url": self.source.url,
                "head_sha": self.source.head_sha,
                "latest": self.source.latest,
            },
            "authorization": None
            if self.authorization is None
            else {
                "comment_id": self.authorization.comment_id,
                "run_id": self.authorization.run_id,
                "author": self.authorization.author,
                "url": self.authorization.url,
            },
            "authorize_comment": self.authorize_body,
            "squash_title": self.squash_title,
            "squash_message": self.squash_message,
        }


@dataclass(frozen=True)
class Outcome:
    plan: Plan | None  # None when the PR was already merged
    merged: bool
    merge_commit: str | None
    dry_run: bool
    already_merged: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "merged": self.merged,
            "already_merged": self.already_merged,
            "merge_commit": self.merge_commit,
            "plan": None if self.plan is None else self.plan.to_json(),
        }


# ----------------------------------------------------------------------------------------------
# pure helpers


def strip_ci_skip(text: str, *, extra: Sequence[str] = ()) -> str:
    """``text`` without CI-skip markers (case-insensitive) and `skip-checks: true` trailers."""
    markers = "|".join(re.escape(m) for m in (*CI_SKIP_MARKERS, *extra))
    # A match starts only where a run of blanks starts (the lookbehind), so a long run of spaces
    # is scanned once rather than once from each of its positions.
    pattern = re.compile(r"(?<![ \t])[ \t]*(?:" + markers + ")", re.IGNORECASE)
    out = text
    while True:  # removing one marker can join the halves of another: repeat until none
        new = pattern.sub("", _SKIP_CHECKS_TRAILER.sub("", out))
        if new == out:
            return out
        out = new


def has_ci_skip(text: str, *, extra: Sequence[str] = ()) -> bool:
    return strip_ci_skip(text, extra=extra) != text


def squash_message(
    *,
    pr: int,
    title: str,
    commit_messages: Sequence[str],
    source: SourceRun,
    skip_marker: str,
) -> tuple[str, str]:
    """(title, body) of the squash commit: the PR's own commits, no CI-skip marker anywhere."""
    # Collapse whitespace first: collapsing after stripping could form a marker ("[skip\tci]").
    clean_title = " ".join(strip_ci_skip(" ".join(title.split()), extra=[skip_marker]).split())
    clean_title = clean_title or f"PR #{pr}"
    lines: list[str] = []
    for message in commit_messages:
        if f"{mg.FLOW_TRAILER}:" in message:
            continue  # the flow's own merge/refresh commits say nothing about the change
        text = strip_ci_skip(message, extra=[skip_marker]).strip()
        if not text:
            continue
        first, *rest = text.splitlines()
        lines.append(f"* {first.strip()}")
        lines.extend(f"  {r}".rstrip() for r in rest)
    run = f"sweep run {source.id}" + (f" (attempt {source.attempt})" if source.attempt > 1 else "")
    lines += [
        "",
        f"Main reuses {run} of this pull request" + (f": {source.url}" if source.url else "."),
    ]
    body = "\n".join(lines).strip() + "\n"
    full_title = f"{clean_title} (#{pr})"
    assert not has_ci_skip(full_title + "\n" + body, extra=[skip_marker])
    return full_title, body


def flow_commit_message(summary: str, *, pr: int, marker: str) -> str:
    """A message for a commit the flow makes on the PR branch (skips the PR-side sweep)."""
    return f"{summary} {marker}\n\n{mg.FLOW_TRAILER}: #{pr}\n"


def authorize_body(command: str, run_id: int | None) -> str:
    return command if run_id is None else f"{command} {run_id}"


def _merge_summary(
    cfg: Config, attempt: mg.MergeAttempt, resolution: Resolution | None, main_sha: str
) -> str:
    if not attempt.merged:
        return f"already up to date with {cfg.main_branch}"
    text = f"merged {cfg.main_branch} ({main_sha[:12]})"
    if resolution is not None:
        plural = "y" if resolution.kept == 1 else "ies"
        text += f"; {cfg.changelog} conflict resolved: kept {resolution.kept} PR entr{plural}"
        if resolution.dropped:
            text += f", dropped {resolution.dropped} already on main"
    return text


def _newer(a: CheckRun, b: CheckRun) -> bool:
    if a.started_at is not None and b.started_at is not None and a.started_at != b.started_at:
        return a.started_at > b.started_at
    return a.id > b.id


# ----------------------------------------------------------------------------------------------
# the flow


@dataclass
class Flow:
    """One run of the merge flow; collaborators are injected so tests can drive every step."""

    config: Config
    repo: GitRepo
    github: MergeGitHub
    reuse: ReusePort
    progress: Callable[[str], None] = lambda _m: None
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic

    def say(self, step: str, message: str) -> None:
        self.progress(f"[{step}] {message}")

    # -- entry point ------------------------------------------------------------------------------

    def run(self, request: MergeRequest) -> Outcome:
        """Run every step for ``request``; always leaves the user's checkout as it found it."""
        with mg.sigterm_as_interrupt(), contextlib.ExitStack() as stack:
            start_branch = self.repo.current_branch()
            start_sha = self.repo.try_rev_parse("HEAD")
            stack.callback(self._check_restored, start_branch, start_sha)
            stack.callback(mg.delete_private_refs, self.repo, request.pr)
            pull = self.preflight_pull(request)
            if pull is None:
                merged = self.github.get_pull(request.pr)
                self.say(
                    "merge", f"PR #{request.pr} is already merged as {merged.merge_commit_sha}"
                )
                return Outcome(None, True, merged.merge_commit_sha, request.dry_run, True)
            scratch, main_sha = stack.enter_context(self._scratch(pull))
            plan = self.prepare(pull, request, scratch, main_sha)
            if request.dry_run:
                self.say("plan", "dry run: nothing was posted, pushed or merged")
                return Outcome(plan, False, None, True)
            self.authorize(plan)
            self.push(plan)
            self.wait(plan, request)
            result = self.merge(plan, request)
            return Outcome(plan, True, result, False)

    def _check_restored(self, branch: str | None, sha: str | None) -> None:
        # The flow never checks anything out in the user's worktree; this guards that promise.
        moved = self.repo.current_branch() != branch or self.repo.try_rev_parse("HEAD") != sha
        if moved and branch:
            self.repo.git_ok("checkout", "--quiet", branch)

    @contextlib.contextmanager
    def _scratch(self, pull: PullRequest) -> Iterator[tuple[mg.Scratch, str]]:
        """Fetch main and the PR head; a worktree on the head; yields it and main's SHA."""
        self.say(
            "merge-main",
            f"fetching {self.config.remote} {self.config.main_branch} and {pull.head_ref}",
        )
        main_sha, head_sha = mg.fetch_refs(
            self.repo,
            remote=self.config.remote,
            main_branch=self.config.main_branch,
            head_branch=pull.head_ref,
            pr=pull.number,
        )
        if head_sha != pull.head_sha:
            raise AbortedError(
                f"PR #{pull.number}'s head on GitHub ({pull.head_sha[:12]}) differs from "
                f"{self.config.remote}/{pull.head_ref} ({head_sha[:12]}); nothing was changed",
                hint="someone pushed just now, or GitHub has not caught up: re-run in a moment",
            )
        with mg.scratch_worktree(self.repo, start=head_sha, pr=pull.number) as scratch:
            yield scratch, main_sha

    # -- step 1: preflight ---------------------------------------------------------------------

    def preflight_pull(self, request: MergeRequest) -> PullRequest | None:
        """PR state and labels; None when the PR is already merged (nothing left to do)."""
        n = request.pr
        if not self.repo.is_clean():
            raise DataError(
                "the working tree has uncommitted changes",
                hint="commit or stash them first (the merge flow never touches them, but a "
                "clean tree keeps what you run and what you merge the same)",
            )
        self.say("preflight", f"reading PR #{n}")
        pull = self.github.get_pull(n)
        if pull.merged:
            return None
        cfg = self.config
        if pull.state != "open":
            raise DataError(f"PR #{n} is {pull.state}, not open", hint="reopen it first")
        if pull.draft:
            raise DataError(f"PR #{n} is a draft", hint="mark it ready for review first")
        if pull.is_fork:
            raise DataError(
                f"PR #{n} comes from a fork ({pull.head_repo or 'deleted'}); the merge flow "
                "cannot push to its branch",
                hint="merge it by hand, or ask the author to push the branch to this repository",
            )
        if pull.base_ref != cfg.main_branch:
            raise DataError(f"PR #{n} targets {pull.base_ref}, not {cfg.main_branch}")
        sweep = [lb for lb in pull.labels if lb in cfg.sweep_labels]
        if len(sweep) != 1:
            have = ", ".join(sweep) or "none"
            raise DataError(
                f"PR #{n} must carry exactly one sweep label (has: {have})",
                hint=f"use one of: {', '.join(cfg.full_sweep_labels)}",
            )
        if sweep[0] not in cfg.full_sweep_labels:
            raise DataError(
                f"PR #{n} has sweep label {sweep[0]}, which is not a full sweep; its results "
                "cannot be reused on main",
                hint=f"relabel with one of: {', '.join(cfg.full_sweep_labels)} and let it sweep",
            )
        bad = [lb for lb in pull.labels if lb in cfg.reuse_incompatible_labels]
        if bad:
            raise DataError(
                f"PR #{n} has label {', '.join(bad)}, which makes its sweep unusable for reuse",
                hint="remove the label and let the PR sweep again, or merge without reuse",
            )
        return pull

    def prepare(
        self, pull: PullRequest, request: MergeRequest, scratch: mg.Scratch, main_sha: str
    ) -> Plan:
        """Merge main, resolve, canonicalize and commit locally; then check and choose the run."""
        cfg = self.config
        n = pull.number
        wt = scratch.repo
        marker = cfg.skip_sweep_marker
        attempt = mg.merge_main(
            scratch,
            main_sha=main_sha,
            message=flow_commit_message(f"Merge {cfg.main_branch} into #{n}", pr=n, marker=marker),
        )
        resolution: Resolution | None = None
        if attempt.conflicted:
            resolution = self._resolve(wt, attempt.conflicted, n)
        self.say("merge-main", _merge_summary(cfg, attempt, resolution, main_sha))
        base_bytes = wt.read_blob(main_sha, cfg.changelog)
        head_bytes = (
            (scratch.path / cfg.changelog).read_bytes()
            if (scratch.path / cfg.changelog).exists()
            else None
        )
        substitutions: tuple[Substitution, ...] = resolution.substitutions if resolution else ()
        changed = False
        if head_bytes is not None:
            canon = canonicalize(
                base_bytes,
                head_bytes,
                pr=n,
                config=cfg,
                base_label=f"{cfg.changelog}@{cfg.main_branch}",
            )
            substitutions += canon.substitutions
            changed = canon.changed
            if changed:
                mg.write_and_stage(wt, cfg.changelog, canon.data)
        for s in substitutions:
            self.say("canonicalize", f"{cfg.changelog}:{s.line}: {s.old} -> {s.new}")
        if not substitutions:
            self.say("canonicalize", "pr-links already canonical")
        is_flow_head = f"{mg.FLOW_TRAILER}: #{n}" in mg.commit_message(wt, pull.head_sha)
        if attempt.merged:
            kind = "merge+canonicalize" if substitutions else "merge"
            if attempt.conflicted:
                mg.commit(
                    wt,
                    flow_commit_message(f"Merge {cfg.main_branch} into #{n}", pr=n, marker=marker),
                )
            elif changed:
                mg.commit(wt, mg.commit_message(wt, "HEAD"), amend=True)
        elif changed:
            kind = "canonicalize"
            mg.commit(
                wt, flow_commit_message(f"Canonicalize the pr-link of #{n}", pr=n, marker=marker)
            )
        elif is_flow_head:
            # The head is what an earlier run pushed and it is still current: resume from it.
            kind = "resume"
            self.say(
                "merge-main", "the PR head is this flow's earlier push and is current; resuming"
            )
        else:
            # A new head SHA is what makes the PR-side reuse gate see the authorization.
            kind = "refresh"
            mg.commit(
                wt,
                flow_commit_message(f"Refresh #{n} for sweep reuse", pr=n, marker=marker),
                allow_empty=True,
            )
        candidate = wt.rev_parse("HEAD")
        self._check(wt, main_sha=main_sha, candidate=candidate, pr=n)
        self.say("preflight", f"changelog passes check in PR mode at {candidate[:12]}")
        comments = self.github.list_issue_comments(n)
        auth = self.reuse.authorization(comments)
        pinned = request.run_id if request.run_id is not None else (auth.run_id if auth else None)
        source = self.reuse.choose_source(
            pull, candidate=candidate, main_sha=main_sha, run_id=pinned
        )
        body = self._authorization_needed(auth, source, request)
        self.say(
            "preflight",
            f"source run {source.id}"
            + (f" ({source.url})" if source.url else "")
            + (" [pinned]" if pinned is not None else " [latest eligible]"),
        )
        messages = mg.pr_commit_subjects(wt, main_sha=main_sha, head=candidate)
        title, message = squash_message(
            pr=n, title=pull.title, commit_messages=messages, source=source, skip_marker=marker
        )
        return Plan(
            pr=n,
            title=pull.title,
            head_branch=pull.head_ref,
            start_head=pull.head_sha,
            main_sha=main_sha,
            merged_main=attempt.merged,
            conflicted=attempt.conflicted,
            resolution=resolution,
            substitutions=substitutions,
            commit_kind=kind,
            candidate=candidate,
            source=source,
            authorization=auth,
            authorize_body=body,
            squash_title=title,
            squash_message=message,
        )

    def _resolve(self, wt: GitRepo, conflicted: tuple[str, ...], pr: int) -> Resolution:
        changelog = self.config.changelog
        others = [p for p in conflicted if p != changelog]
        if others:
            mg.abort_merge(wt)
            raise AbortedError(
                f"merging {self.config.main_branch} into PR #{pr} conflicts in "
                f"{', '.join(others)}; only {changelog} is resolved automatically. Nothing "
                "was pushed",
                hint=f"merge {self.config.main_branch} into the PR branch by hand, push, and "
                "re-run",
            )
        # The flow merges main INTO the PR branch: ours (stage 2) is the PR, theirs (3) main.
        stages = read_index_stages(wt, changelog)
        base, ours, theirs = stages.get(1), stages.get(2), stages.get(3)
        if ours is None or theirs is None:
            mg.abort_merge(wt)
            raise AbortedError(
                f"{changelog} was deleted on one side of the merge; nothing was pushed",
                hint="resolve the merge by hand",
            )
        try:
            resolution = resolve_changelog(
                base=base, pr_side=ours, main_side=theirs, pr=pr, config=self.config
            )
        except DataError as exc:
            mg.abort_merge(wt)
            raise AbortedError(
                f"could not resolve the {changelog} conflict safely: {exc.message}; nothing "
                "was pushed",
                hint=exc.hint or "resolve the merge by hand",
            ) from None
        mg.write_and_stage(wt, changelog, resolution.data)
        return resolution

    def _check(self, wt: GitRepo, *, main_sha: str, candidate: str, pr: int) -> None:
        """`check` in PR mode on what will be merged, master configs included."""
        from changelog_tools.ledger.check import check_change

        cfg = self.config
        head = wt.read_blob(candidate, cfg.changelog)
        if head is None:
            raise DataError(f"PR #{pr} has no {cfg.changelog} after merging {cfg.main_branch}")
        result = check_change(
            base=wt.read_blob(main_sha, cfg.changelog),
            head=head,
            config=cfg,
            mode="pr",
            pr=pr,
            path=cfg.changelog,
            base_label=f"{cfg.changelog}@{cfg.main_branch}",
            masters_base={p: wt.read_blob(main_sha, p) for p in cfg.master_configs},
            masters_head={p: wt.read_blob(candidate, p) for p in cfg.master_configs},
        )
        errors = result.report.errors
        if errors:
            shown = "; ".join(
                f"{d.path}:{d.line}: {d.code} {d.message}"
                if d.line
                else f"{d.path}: {d.code} {d.message}"
                for d in errors[:3]
            )
            more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
            raise DataError(
                f"PR #{pr}'s changelog fails `check` in PR mode after merging "
                f"{cfg.main_branch}: {shown}{more}",
                hint=f"run `changelog-tools check --pr {pr}` on the PR branch, fix, push, re-run",
            )

    def _authorization_needed(
        self, auth: Authorization | None, source: SourceRun, request: MergeRequest
    ) -> str | None:
        """The comment to post, or None when the newest authorization already says it."""
        command = self.config.reuse_command
        if auth is not None and request.run_id is None:
            return None  # a bare command, or a maintainer's pin: keep it as it is
        if auth is not None and auth.run_id == request.run_id:
            return None
        if auth is not None and auth.run_id is None and source.latest:
            return None  # --run named the run a bare command selects anyway
        return authorize_body(
            command, None if source.latest and request.run_id is None else source.id
        )

    # -- step 2: authorize ---------------------------------------------------------------------

    def authorize(self, plan: Plan) -> None:
        if plan.authorize_body is None:
            self.say(
                "authorize",
                f"already authorized (comment {plan.authorization.comment_id if plan.authorization else '?'})",
            )
            return
        self.say("authorize", f"posting `{plan.authorize_body}` on PR #{plan.pr}")
        try:
            comment = self.github.create_issue_comment(plan.pr, plan.authorize_body)
        except AmbiguousWriteError:
            # The answer was lost: the comment may exist. Look before posting once more, so a
            # flaky POST neither fails the flow nor leaves two comments.
            found = self._posted_authorization(plan)
            if found is None:
                self.say("authorize", "the post did not land; posting once more")
                found = self.github.create_issue_comment(plan.pr, plan.authorize_body)
            else:
                self.say("authorize", f"the post landed as comment {found.id}")
            comment = found
        allowed = {a.upper() for a in self.config.reuse_allowed_associations}
        if comment.author_association.upper() not in allowed:
            # It authorizes nothing; left in place, every re-run would add another one.
            try:
                self.github.delete_issue_comment(comment.id)
                left = "it was deleted again"
            except GitHubError as exc:
                left = f"deleting it failed ({exc.message}); delete comment {comment.id} by hand"
            raise AbortedError(
                f"the authorization comment was posted as {comment.author or 'unknown'} "
                f"({comment.author_association}), which `reuse-allowed-associations` does not "
                f"accept; {left}. Nothing was pushed or merged",
                hint="run the merge with a maintainer's token",
            )

    def _posted_authorization(self, plan: Plan) -> Comment | None:
        """The comment a lost POST of ``plan.authorize_body`` created, if it exists.

        Only comments that authorize count: someone else's identical but powerless comment
        (a PR author asking for reuse) must not pass for ours.
        """
        known = plan.authorization.comment_id if plan.authorization else 0
        body = (plan.authorize_body or "").strip()
        allowed = {a.upper() for a in self.config.reuse_allowed_associations}
        mine = [
            c
            for c in self.github.list_issue_comments(plan.pr)
            if c.id > known and c.body.strip() == body and c.author_association.upper() in allowed
        ]
        return max(mine, key=lambda c: c.id) if mine else None

    # -- step 3: push ---------------------------------------------------------------------------

    def push(self, plan: Plan) -> None:
        if not plan.push_needed:
            self.say("push", f"{plan.head_branch} is already at {plan.candidate[:12]}")
            return
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

    # -- step 4: wait ---------------------------------------------------------------------------

    def wait(self, plan: Plan, request: MergeRequest) -> None:
        """Wait for the changelog check, then every check, on the candidate; fail fast."""
        cfg = self.config
        timeout = float(cfg.check_timeout if request.timeout is None else request.timeout)
        interval = float(
            cfg.check_poll_interval if request.poll_interval is None else request.poll_interval
        )
        deadline = self.clock() + timeout
        sha = plan.candidate
        required = (cfg.changelog_check_name, *cfg.required_checks)
        last: tuple[str, ...] | None = None
        while True:
            pending = self._pending_checks(sha, required, admin=request.admin)
            if not pending:
                self.say("wait", f"all checks passed on {sha[:12]}")
                return
            if pending != last:
                self.say("wait", f"waiting for {', '.join(pending)} on {sha[:12]}")
                last = pending
            if self.clock() >= deadline:
                raise AbortedError(
                    f"timed out after {timeout:g}s waiting for {', '.join(pending)} on "
                    f"{sha[:12]}; nothing was merged",
                    hint=f"re-run `changelog-tools merge {plan.pr}` to keep waiting",
                )
            self.sleep(interval)

    def _pending_checks(self, sha: str, required: Sequence[str], *, admin: bool) -> tuple[str, ...]:
        runs: dict[str, CheckRun] = {}
        for run in self.github.list_check_runs(sha):
            # Re-runs add check runs under the same name; the newest one counts.
            prev = runs.get(run.name)
            if prev is None or _newer(run, prev):
                runs[run.name] = run
        pending: list[str] = []
        for name, run in sorted(runs.items()):
            if run.status != "completed":
                pending.append(name)
            elif (run.conclusion or "") in FAILING_CONCLUSIONS:
                raise DataError(
                    f"check {name} concluded {run.conclusion} on {sha[:12]}"
                    + (
                        f" - {run.details_url or run.html_url}"
                        if (run.details_url or run.html_url)
                        else ""
                    ),
                    hint="fix the failure and re-run the merge",
                )
        status = self.github.get_combined_status(sha)
        contexts = {s.context: s for s in status.statuses}
        for context, s in sorted(contexts.items()):
            if s.state in ("failure", "error"):
                if admin and context not in required:
                    continue
                raise DataError(
                    f"status {context} is {s.state} on {sha[:12]}"
                    + (f" - {s.target_url}" if s.target_url else ""),
                    hint="fix it and re-run the merge",
                )
            if s.state == "pending":
                pending.append(context)
        for name in required:
            if name not in runs and name not in contexts:
                pending.append(name)
        return tuple(dict.fromkeys(pending))

    # -- step 5: merge --------------------------------------------------------------------------

    def merge(self, plan: Plan, request: MergeRequest) -> str:
        n = plan.pr
        pull = self.github.get_pull(n)
        if pull.merged:
            self.say("merge", f"PR #{n} was merged meanwhile as {pull.merge_commit_sha}")
            return pull.merge_commit_sha or ""
        if pull.head_sha != plan.candidate:
            raise AbortedError(
                f"PR #{n}'s head changed to {pull.head_sha[:12]}; expected {plan.candidate[:12]}. "
                "Nothing was merged",
                hint="someone pushed while the checks ran; re-run the merge",
            )
        if pull.mergeable_state == "blocked" and not request.admin:
            raise AbortedError(
                f"GitHub reports PR #{n} as blocked by branch protection; nothing was merged",
                hint="get the missing approvals or statuses, or re-run with --admin if you may "
                "bypass them",
            )
        self.say("merge", f"squash-merging PR #{n} at {plan.candidate[:12]}")
        try:
            result = self.github.merge_pull(
                n,
                sha=plan.candidate,
                method="squash",
                title=plan.squash_title,
                message=plan.squash_message,
            )
        except MergeRejectedError as exc:
            raise AbortedError(
                f"GitHub refused to merge PR #{n}: {exc.message}. Nothing was merged",
                hint="re-run the merge" if exc.status == 409 else exc.hint,
            ) from None
        if not result.merged:
            raise GitHubError(f"GitHub did not merge PR #{n}: {result.message}")
        self.say(
            "merge",
            f"merged PR #{n} as {result.sha}; main reuses sweep run {plan.source.id}"
            + (f" ({plan.source.url})" if plan.source.url else ""),
        )
        return result.sha


# ----------------------------------------------------------------------------------------------
# collaborators from the other modules


def resolve_changelog(
    *, base: bytes | None, pr_side: bytes, main_side: bytes, pr: int, config: Config
) -> Resolution:
    """Three-way resolution of the changelog (PR side = ours, main side = theirs)."""
    from changelog_tools.ledger import resolve

    result = resolve.resolve(base, pr_side, main_side, pr=pr, config=config)
    return Resolution(
        data=result.data,
        kept=len(result.appended),
        dropped=len(result.dropped),
        detail=result.as_json(),
        substitutions=result.substitutions,
    )


@dataclass
class GateReuse:
    """The `reuse-gate` rules, asked before the merge instead of after it."""

    config: Config
    github: Any  # changelog_tools.github.adapter.GitHub (reuse.GateAPI)
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
        from changelog_tools.github import reuse

        policy = reuse.Policy.from_config(self.config)
        # The PR's commits as they will be once the candidate is pushed: read from git, which
        # costs no request and already includes the commit the flow adds.
        out = self.repo.git("rev-list", f"{main_sha}..{candidate}")
        shas = frozenset(out.split())
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
        return SourceRun(
            id=run.id,
            attempt=run.run_attempt,
            url=run.html_url,
            head_sha=run.head_sha,
            conclusion=run.conclusion,
            latest=run_id is None,
        )

    def _drift(self, run: Any, *, candidate: str, main_sha: str) -> tuple[str, ...]:
        from changelog_tools.github.drift import check_drift

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


def run_merge(
    request: MergeRequest,
    *,
    config: Config,
    progress: Callable[[str], None],
    env: Mapping[str, str] | None = None,
) -> Outcome:
    """Build the collaborators from configuration and the environment, then run the flow."""
    from changelog_tools import gitrepo
    from changelog_tools.github.adapter import make_github

    repo = gitrepo.open_repo(config.root)
    github = make_github(config, env=env, log=progress)
    flow = Flow(
        config=config,
        repo=repo,
        github=github,
        reuse=GateReuse(config=config, github=github, repo=repo, progress=progress),
        progress=progress,
    )
    return flow.run(request)


def render_outcome(outcome: Outcome) -> str:
    """The plan and the result as text (stdout)."""
    if outcome.plan is None:
        return f"already merged as {outcome.merge_commit}\n"
    p = outcome.plan
    dry = outcome.dry_run
    lines = [f"PR #{p.pr}: {p.title}"]
    if p.merged_main:
        how = "merged"
        if p.resolution is not None:
            how += (
                f"; {', '.join(p.conflicted)} conflict resolved (kept {p.resolution.kept} PR "
                f"entr{'y' if p.resolution.kept == 1 else 'ies'}, dropped {p.resolution.dropped})"
            )
        lines.append(f"  main ({p.main_sha[:12]}):  {how}")
    else:
        lines.append(f"  main ({p.main_sha[:12]}):  already merged into the PR")
    if p.substitutions:
        for s in p.substitutions:
            lines.append(f"  pr-link:  line {s.line}: {s.old} -> {s.new}")
    else:
        lines.append("  pr-links:  already canonical")
    verb = ("would push" if dry else "pushed") if p.push_needed else "kept"
    lines.append(f"  head:  {verb} {p.candidate[:12]} ({p.commit_kind}) to {p.head_branch}")
    run = f"{p.source.id}" + (f" ({p.source.url})" if p.source.url else "")
    lines.append(f"  source run:  {run}")
    if p.authorize_body is None:
        who = p.authorization.author if p.authorization else None
        lines.append("  authorization:  already in place" + (f" (by {who})" if who else ""))
    else:
        lines.append(f"  authorization:  {'would post' if dry else 'posted'} `{p.authorize_body}`")
    lines.append(f"  squash title:  {p.squash_title}")
    lines.append("  squash message:")
    lines.extend(f"    {line}".rstrip() for line in p.squash_message.splitlines())
    if dry:
        lines.append("dry run: nothing was posted, pushed or merged")
    elif outcome.merged:
        lines.append(f"merged as {outcome.merge_commit}; main reuses sweep run {p.source.id}")
    return "\n".join(lines) + "\n"
