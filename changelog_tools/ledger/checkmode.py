"""Which mode a `check` runs in: the command line's flags and the GitHub Actions event.

Explicit flags win; inside GitHub Actions the event says whether the run checks a pull request,
a push to the main branch or a merge-queue entry; elsewhere a check is local.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from changelog_tools.errors import UsageError


@dataclass(frozen=True, slots=True)
class EventContext:
    """What the GitHub Actions event says about the run: mode, PR number, refs to compare."""

    mode: str
    pr: int | None = None
    base: str | None = None
    head: str | None = None
    source: str = ""


_ZERO_SHA = "0" * 40


def github_context(env: Mapping[str, str], *, main_branch: str) -> EventContext | None:
    """The check's mode from the Actions event (``GITHUB_EVENT_NAME``/``GITHUB_EVENT_PATH``);
    None outside GitHub Actions."""
    from changelog_tools.actionsevent import read_event

    actions = read_event(env)
    name = actions.name
    if not name:
        return None
    event = actions.payload
    if name in ("pull_request", "pull_request_target"):
        pull = event.get("pull_request") if isinstance(event.get("pull_request"), dict) else {}
        assert isinstance(pull, dict)
        number = pull.get("number", event.get("number"))
        if not isinstance(number, int) or isinstance(number, bool) or number < 1:
            raise UsageError(
                f"GITHUB_EVENT_NAME is {name}, but the event file has no pull-request number",
                hint="pass --pr N, or set GITHUB_EVENT_PATH to the event JSON",
            )
        head = pull.get("head") if isinstance(pull.get("head"), dict) else {}
        assert isinstance(head, dict)
        sha = head.get("sha") if isinstance(head.get("sha"), str) else None
        return EventContext("pr", number, None, sha, f"{name} event for #{number}")
    if name == "push":
        ref = event.get("ref") or actions.ref or ""
        after = event.get("after") or actions.sha
        before = event.get("before")
        if ref == f"refs/heads/{main_branch}":
            valid = isinstance(before, str) and before != _ZERO_SHA and len(before) >= 7
            return EventContext(
                "main",
                None,
                before if valid else None,
                after if isinstance(after, str) else None,
                f"push to {main_branch}",
            )
        return EventContext("local", source=f"push to {ref or 'a branch'}")
    if name == "merge_group":
        return _merge_group_context(event)
    return EventContext("local", source=f"{name} event")


# gh-readonly-queue/<base branch>/pr-<N>-<sha>: GitHub's name for a merge-queue entry's ref.
_QUEUE_REF = re.compile(r"^(?:refs/heads/)?gh-readonly-queue/.+/pr-(?P<pr>[0-9]+)-[0-9a-f]{7,64}$")


def queue_ref_pr(ref: str) -> int | None:
    """The PR number of a merge-queue ref, or None (ASCII digits only)."""
    found = _QUEUE_REF.match(ref)
    return int(found["pr"]) if found and len(found["pr"]) <= 9 else None


def _merge_group_context(event: Mapping[str, Any]) -> EventContext:
    """A merge-queue run checks what will land on main: main mode, the PR from the queue ref."""
    group = event.get("merge_group") if isinstance(event.get("merge_group"), dict) else None
    if not isinstance(group, dict):
        raise UsageError(
            "GITHUB_EVENT_NAME is merge_group, but the event file has no merge_group object",
            hint="set GITHUB_EVENT_PATH to the event JSON, or pass --main --base-ref/--head-ref",
        )
    ref = group.get("head_ref") if isinstance(group.get("head_ref"), str) else ""
    assert isinstance(ref, str)
    number = queue_ref_pr(ref)
    if number is None:
        raise UsageError(
            f"merge_group head_ref {ref!r} is not a merge-queue ref "
            "(refs/heads/gh-readonly-queue/<branch>/pr-<N>-<sha>); cannot tell which PR lands",
            hint="pass --main --pr N to say which pull request the queued commit lands",
        )
    base = group.get("base_sha") if isinstance(group.get("base_sha"), str) else None
    head = group.get("head_sha") if isinstance(group.get("head_sha"), str) else None
    return EventContext(
        "main",
        number,
        base,
        head,
        f"merge_group event for #{number} ({ref.removeprefix('refs/heads/')})",
    )


@dataclass(frozen=True, slots=True)
class Request:
    """Everything the `check` command line can say (None: use the default)."""

    mode: str | None = None
    pr: int | None = None
    base_ref: str | None = None
    head_ref: str | None = None
    base_file: str | None = None
    head_file: str | None = None
    changelog: str | None = None
    master_configs: tuple[str, ...] = ()
    base_master_configs: tuple[str, ...] = ()
    config_keys: bool = True
    strict: bool = False


def resolve_mode(request: Request, event: EventContext | None) -> tuple[str, int | None]:
    """Explicit flags win over the GitHub event; with neither, local mode."""
    if request.pr is not None:
        if request.mode == "main":
            return "main", request.pr  # main mode, and the commit lands this PR
        if request.mode not in (None, "pr"):
            raise UsageError(f"--pr cannot be combined with --{request.mode}")
        return "pr", request.pr
    if request.mode is not None:
        if request.mode == "pr":
            if event is not None and event.pr is not None:
                return "pr", event.pr
            raise UsageError("pull-request mode needs the pull request's number (--pr N)")
        if request.mode == "main" and event is not None and event.mode == "main":
            return "main", event.pr
        return request.mode, None
    if event is not None:
        return event.mode, event.pr
    return "local", None
