"""Commit messages of the merge flow: the squash message and the flow's own commits.

A squash message carrying a CI-skip marker would skip main's sweep (the reference script once
leaked `[skip-sweep]` into main this way), so every marker is removed and its absence asserted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from changelog_tools.flows.landing.plan import SourceRun
from changelog_tools.flows.merge.git import FLOW_TRAILER

# Commit-message markers that make CI skip work.
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
        if f"{FLOW_TRAILER}:" in message:
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
    return f"{summary} {marker}\n\n{FLOW_TRAILER}: #{pr}\n"
