"""The verdict comment's marker, and telling the bot's own comment from planted copies."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from changelog_tools.github.adapter import Remark

MARKER_PREFIX = "<!-- codeowner-signoff-verify:v2"


def marker(pr: int) -> str:
    return f"{MARKER_PREFIX} pr={pr} -->"


@dataclass(frozen=True)
class Found:
    ours: Remark | None  # the verdict comment to edit (None: post one)
    spoofs: tuple[Remark, ...]  # marker-bearing comments by anyone else


def is_bot(remark: Remark, bot_login: str) -> bool:
    return (remark.author or "").lower() == bot_login.lower()


def find_verdict_comment(remarks: Iterable[Remark], *, pr: int, bot_login: str) -> Found:
    """The bot's own verdict comment (the oldest, so it is edited in place forever) and every
    other comment that carries a verdict marker: those are spoof attempts and change nothing."""
    ours: list[Remark] = []
    spoofs: list[Remark] = []
    for r in remarks:
        if "<!-- codeowner-signoff-verify" not in r.body:  # ours, or the old LLM bot's
            continue
        if r.kind == "issue_comment" and is_bot(r, bot_login) and marker(pr) in r.body:
            ours.append(r)
        else:
            spoofs.append(r)
    ours.sort(key=lambda r: r.id)
    return Found(ours[0] if ours else None, tuple(spoofs))
