"""The GitHub Actions event a step runs for: ``GITHUB_EVENT_NAME`` and the JSON payload at
``GITHUB_EVENT_PATH``, read in one place.

`check` (and `lint` through it), `reuse-gate` and `signoff verify` each judge a different part of
the event, but they read it alike: one reader, one error for a payload that cannot be read,
and plain typed accessors for the fields more than one of them needs. It lives on the shared
floor because the changelog's own rules (``ledger/check.py``) read it too, and those may not
import the GitHub adapter. Nothing here talks to the network.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from changelog_tools.errors import UsageError


@dataclass(frozen=True)
class ActionsEvent:
    """What the runner says triggered the step (all empty outside GitHub Actions)."""

    name: str | None  # GITHUB_EVENT_NAME: pull_request, push, merge_group, issue_comment, ...
    payload: Mapping[str, Any] = field(default_factory=dict)  # the event's JSON object
    sha: str | None = None  # GITHUB_SHA
    ref: str | None = None  # GITHUB_REF

    def section(self, key: str) -> Mapping[str, Any]:
        """The payload's object under ``key`` (``pull_request``, ``issue``, ``comment`` …),
        or an empty mapping when it is absent or not an object."""
        value = self.payload.get(key)
        return value if isinstance(value, dict) else {}

    def text(self, key: str) -> str | None:
        """The payload's non-empty string under ``key``, else None."""
        value = self.payload.get(key)
        return value if isinstance(value, str) and value else None

    @property
    def action(self) -> str | None:
        return self.text("action")

    @property
    def pr_number(self) -> int | None:
        """The pull request's number from ``pull_request.number`` or a top-level ``number``
        (a JSON integer only: a string or a boolean is no number)."""
        pull = self.section("pull_request")
        number = pull.get("number", self.payload.get("number"))
        return number if isinstance(number, int) and not isinstance(number, bool) else None


def read_event(env: Mapping[str, str]) -> ActionsEvent:
    """The event the environment names; a payload that cannot be read is a usage error (the
    step was set up wrong), a missing ``GITHUB_EVENT_PATH`` an empty payload."""
    path = env.get("GITHUB_EVENT_PATH")
    payload: Mapping[str, Any] = {}
    if path:
        try:
            loaded = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise UsageError(
                f"cannot read the event payload GITHUB_EVENT_PATH={path}: {exc}"
            ) from None
        payload = loaded if isinstance(loaded, dict) else {}
    return ActionsEvent(
        name=env.get("GITHUB_EVENT_NAME") or None,
        payload=payload,
        sha=env.get("GITHUB_SHA") or None,
        ref=env.get("GITHUB_REF") or None,
    )
