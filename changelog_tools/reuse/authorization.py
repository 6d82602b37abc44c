"""Who authorized reuse: the reuse command in a pull request's comments.

A use is a whole line holding the command outside code and HTML comments; the newest comment
from an allowed author association decides (docs/reuse-gate.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from changelog_tools.github.adapter import Comment
from changelog_tools.numbers import parse_number

_EARLIEST = datetime.min.replace(tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Authorization:
    """The comment that authorizes reuse; ``run_id`` is set when it pins a run."""

    comment_id: int
    author: str | None
    association: str
    run_id: int | None
    url: str | None

    def describe(self) -> str:
        who = f"@{self.author}" if self.author else "an unknown user"
        return f"{who} ({self.association}, comment {self.comment_id})"


# Matched against single lines, so no end anchor: the info string is the rest of the line.
_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)")
_HTML_COMMENT_RE = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)


def command_runs(body: str, command: str) -> list[int | None]:
    """Every use of ``command`` in ``body``: its run id, or None for the bare command.

    A use is a whole line holding the command (at most three spaces of indentation, as in
    Markdown), optionally followed by a numeric run id. Lines inside fenced code blocks or
    HTML comments do not count, nor do mentions inside a sentence or a quote.
    """
    # Trailing blanks are stripped before matching, so no two blank runs meet in the pattern
    # (the match stays linear in the line); the run id is ASCII digits.
    pattern = re.compile(rf" {{0,3}}{re.escape(command)}(?:[ \t]+([0-9]+))?\Z")
    found: list[int | None] = []
    fence: tuple[str, int] | None = None
    for line in _HTML_COMMENT_RE.sub("", body).splitlines():
        opener = _FENCE_RE.match(line)
        if fence is not None:
            if (
                opener is not None
                and opener.group(1)[0] == fence[0]
                and len(opener.group(1)) >= fence[1]
                and not opener.group(2).strip()
            ):
                fence = None  # a closing fence: same character, at least as long, nothing after
            continue
        # a backtick fence's info string may not contain a backtick (CommonMark)
        if opener and not (opener.group(1)[0] == "`" and "`" in opener.group(2)):
            fence = (opener.group(1)[0], len(opener.group(1)))
            continue
        hit = pattern.match(line.rstrip(" \t"))
        if hit:
            if hit.group(1) is None:
                found.append(None)
            elif (run := parse_number(hit.group(1))) is not None:
                found.append(run)  # a run id past 64 bits is no run id: not a use
    return found


def find_authorization(
    comments: Iterable[Comment], *, command: str, allowed: Iterable[str]
) -> Authorization | None:
    """The newest comment from an allowed association that uses ``command`` decides.

    Comments are ordered by creation time (editing does not move a comment). Within one
    comment the last use wins; a newer bare command therefore un-pins an older pinned one.
    """
    allowed_set = {a.upper() for a in allowed}
    newest_first = sorted(comments, key=lambda c: (c.created_at or _EARLIEST, c.id), reverse=True)
    for comment in newest_first:
        if comment.author_association.upper() not in allowed_set:
            continue
        uses = command_runs(comment.body, command)
        if uses:
            return Authorization(
                comment.id, comment.author, comment.author_association, uses[-1], comment.html_url
            )
    return None
