"""``signoff explain``: how the bot reads one comment body, and why it does or does not sign off.

A pure function of the body, the checklist (when one is available) and its versions: no token,
no request. It answers the reviewer before posting ("will this count?") and the maintainer after
("why did my sign-off not count?") with the same reader the bot uses (:mod:`.rendered`).
"""

from __future__ import annotations

import textwrap
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from changelog_tools.signoff import checklist as cl
from changelog_tools.signoff import history
from changelog_tools.signoff.rendered import Part


@dataclass(frozen=True)
class Explanation:
    """What the bot makes of one comment body."""

    name: str  # the file it came from ("-": standard input)
    signs_off: bool
    why_not: tuple[str, ...]
    header_line: int | None
    signed: str | None
    checklist_from: str | None  # where the checklist was read; None: no checklist
    checklist_note: str | None  # why there is no checklist
    version: history.Identified | None
    items: tuple[cl.ItemResult, ...]
    found_items: tuple[cl.Item, ...]  # the sign-off's own items (when no checklist compares)
    ignored: tuple[Part, ...]
    ignored_headers: tuple[tuple[int, str], ...]

    def to_json(self) -> dict[str, Any]:
        version = self.version
        return {
            "file": self.name,
            "signs-off": self.signs_off,
            "why-not": list(self.why_not),
            "header-line": self.header_line,
            "signed": self.signed,
            "checklist": self.checklist_from,
            "checklist-note": self.checklist_note,
            "checklist-version": (
                {
                    "commit": version.version.commit,
                    "date": version.version.date,
                    "subject": version.version.subject,
                    "exact": version.exact,
                }
                if version is not None
                else None
            ),
            "items": [
                {
                    "path": r.path,
                    "state": r.state,
                    "line": r.line,
                    "template": r.template_text or None,
                    "signoff": r.signoff_text or None,
                    "similarity": r.similarity,
                    "diff": r.diff,
                }
                for r in self.items
            ]
            if self.checklist_from is not None
            else [
                {"path": i.path, "state": "checked" if i.checked else "unchecked", "line": i.line}
                | {"signoff": i.text}
                for i in self.found_items
            ],
            "ignored-headers": [{"line": n, "why": w} for n, w in self.ignored_headers],
            "ignored": [
                {"line": p.line, "why": p.why, "detail": p.detail, "text": p.text}
                for p in self.ignored
            ],
        }


def explain(
    name: str,
    body: str,
    *,
    template: cl.Checklist | None,
    versions: Sequence[history.Version] = (),
    checklist_from: str | None = None,
    checklist_note: str | None = None,
    header: str = cl.HEADER,
    author: str | None = None,
) -> Explanation:
    """How the bot reads ``body`` (see the module docstring).

    With ``template`` None (no checklist could be read: ``checklist_note`` says why) the body
    signs off when it holds a sign-off whose ``Signed:`` is filled in; its items are listed as
    found. ``author``: the login that would post it (``Signed:`` must name it).
    """
    found = cl.find_signoff(body, header=header)
    parsed = found.checklist
    why: list[str] = []
    items: tuple[cl.ItemResult, ...] = ()
    version: history.Identified | None = None
    if parsed is None:
        why.append(
            "no sign-off: the header line is not in the author's own visible text"
            + (
                f" (found only where it does not count: line {found.ignored_headers[0][0]}, "
                f"{found.ignored_headers[0][1]})"
                if found.ignored_headers
                else ""
            )
        )
    elif template is not None:
        match = cl.match_signoff(template, parsed, author=author)
        items = match.results
        version = history.identify(parsed, versions)
        if match.failed:
            why.append("checklist: " + ", ".join(f"{r.state} {r.path}" for r in match.failed))
        if not match.signed_ok:
            why.append(match.signed_problem or "Signed: is wrong")
    else:
        key = cl.login_key(parsed.signed or "")
        if parsed.signed is None:
            why.append("no `Signed:` line")
        elif not key or key == cl.login_key(cl.SIGNED_PLACEHOLDER):
            why.append("`Signed:` still holds the placeholder")
        elif author is not None and key != cl.login_key(author):
            why.append(f"`Signed: {parsed.signed}` is not the author @{author}")
    return Explanation(
        name=name,
        signs_off=parsed is not None and not why,
        why_not=tuple(why),
        header_line=parsed.header_line if parsed is not None else None,
        signed=parsed.signed if parsed is not None else None,
        checklist_from=checklist_from if template is not None else None,
        checklist_note=checklist_note if template is None else None,
        version=version,
        items=items,
        found_items=parsed.items if parsed is not None else (),
        ignored=found.ignored,
        ignored_headers=found.ignored_headers,
    )


def render_text(result: Explanation) -> str:
    """The explanation for a person: one fact per line."""
    out = [f"{result.name}: {'signs off' if result.signs_off else 'does not sign off'}"]
    out += [f"  why not: {w}" for w in result.why_not]
    if result.header_line is not None:
        out.append(f"  header: line {result.header_line}")
    if result.checklist_from is not None:
        line = f"  checklist: {result.checklist_from}"
        if result.version is not None:
            v = result.version.version
            how = "exactly" if result.version.exact else "most closely"
            line += f"; the sign-off matches version {v.short} ({v.date[:10]}) {how}"
        out.append(line)
    elif result.checklist_note is not None:
        out.append(f"  checklist: none ({result.checklist_note}); items are listed, not compared")
    for r in result.items:
        where = f" (line {r.line})" if r.line is not None else ""
        text = r.signoff_text or r.template_text
        extra = f": {r.diff}" if r.diff else f": {_short(text)}"
        out.append(f"  item {r.path} {r.state}{where}{extra}")
    if result.checklist_from is None:
        for i in result.found_items:
            box = "checked" if i.checked else "unchecked"
            out.append(f"  item {i.path} {box} (line {i.line}): {_short(i.text)}")
    if result.header_line is not None:
        out.append(f"  Signed: {result.signed if result.signed is not None else '(none)'}")
    for number, why in result.ignored_headers:
        out.append(f"  header ignored: line {number}, {why}")
    for part in result.ignored:
        out.append(
            f"  ignored: line {part.line}, {part.why} ({part.detail}): {_short(part.text)!r}"
        )
    return _shown("\n".join(out)) + "\n"


def _shown(text: str) -> str:
    """``text`` safe to print: a comment is anyone's text, so control characters (a terminal
    escape could redraw the line) and invisible format characters (a zero-width space makes
    two names look alike) are written as escapes."""
    from changelog_tools.diagnostics import visible

    text = visible(text)
    if text.isascii():
        return text
    return "".join(f"\\u{ord(c):04x}" if unicodedata.category(c) == "Cf" else c for c in text)


def _short(text: str, width: int = 60) -> str:
    """``text`` on one line, cut at a word to at most ``width`` characters."""
    return textwrap.shorten(text, width, placeholder=" …")
