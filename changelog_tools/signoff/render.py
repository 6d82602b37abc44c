"""The verdict as text, Markdown (the verdict comment) and a commit-status description."""

from __future__ import annotations

import json
import re
from typing import Any

from changelog_tools.signoff.markers import marker
from changelog_tools.signoff.verdict import Verdict

_ICON = {"pass": "✅", "fail": "❌", "n/a": "➖", "attested": "✅", "error": "⚠️"}
_HEADER = {
    "pass": "## ✅✅✅ **Verdict: PASS** ✅✅✅",
    "rejected": "## ❌❌❌ **REJECTED** ❌❌❌",
    "pending": "## ⏳ **Awaiting sign-off**",
    "error": "## ⚠️ **Could not verify**",
}
STATUS_LIMIT = 140  # GitHub's limit on a status description


def status_description(verdict: Verdict) -> str:
    """At most 140 characters: what the status says next to the context name."""
    text = verdict.summary or verdict.verdict
    return text if len(text) <= STATUS_LIMIT else text[: STATUS_LIMIT - 1] + "…"


# Markdown's punctuation that can start or end markup inline; escaped with a backslash.
_MD_SPECIAL = str.maketrans({ch: "\\" + ch for ch in "\\`*_{}[]()#+-.!|~>"})


def _one_line(text: str) -> str:
    # Any line break (CR, LF, U+2028, ...) in text from a pull request would let it start a
    # heading, a list or an HTML block of its own in the comment: it becomes a space.
    return " ".join(text.splitlines())


def _md(text: str) -> str:
    """Text from a pull request (a reason, a title, a path) as inert Markdown: one line, no
    markup, no HTML, no mention of anyone."""
    text = _one_line(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.translate(_MD_SPECIAL).replace("@", "@\u200b")


def _code(text: str) -> str:
    """``text`` as one inline code span that nothing inside it can close (CommonMark: a fence
    of more backticks than any run inside), safe in a table cell too."""
    text = _one_line(text).replace("|", "\\|")
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip(" ") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


COMMENT_LIMIT = 65536  # characters GitHub accepts in a comment body (422 beyond)


def render_markdown(verdict: Verdict) -> str:
    """The verdict comment: marker, header, one row per check, details, machine-readable JSON.

    A PR with hundreds of files would exceed GitHub's comment limit (and publish nothing), so
    the details shrink until the comment fits: first the JSON, then the long lists."""
    for rows, with_json in ((None, True), (None, False), (100, False), (10, False)):
        body = _render_markdown(verdict, rows=rows, with_json=with_json)
        if len(body) <= COMMENT_LIMIT:
            return body
    return body[: COMMENT_LIMIT - 200] + "\n\n(cut at GitHub's comment limit)\n"


def _render_markdown(verdict: Verdict, *, rows: int | None, with_json: bool) -> str:
    d = verdict.details
    out = [
        marker(verdict.pr),
        _HEADER[verdict.verdict],
        "",
        f"Head: `{verdict.head_sha}` · Evaluated: {d.get('evaluated-at', '?')} · "
        f"Default branch: `{str(d.get('trusted-sha', '?'))[:9]}`",
        "",
        _md(verdict.summary),
        "",
    ]
    invalid = sorted({s.author for s in verdict.signoffs if not s.valid and s.author})
    if verdict.verdict == "rejected" and invalid:
        out += ["Sign-offs that do not count: " + ", ".join(f"@{a}" for a in invalid), ""]
    for c in verdict.checks:
        out.append(f"{_ICON[c.status]} **{c.id}**: {c.status.upper()} — {_md(c.reason)}")
    out += ["", "<details><summary>Details</summary>", ""]
    if verdict.signoffs:
        out.append("**Sign-offs**")
        out.append("")
        for s in verdict.signoffs:
            why = "; ".join(s.why_not) if s.why_not else "counts"
            out.append(f"- {s.kind} {s.id} by {_code(s.author or '?')}: {_md(why)}")
        out.append("")
    coverage = d.get("coverage") or []
    shortened = (rows is not None and len(coverage) > rows) or not with_json
    if shortened:
        out += [
            f"(Shortened to fit a comment: `changelog-tools signoff verify --pr {verdict.pr} "
            "--dry-run --format json` prints everything.)",
            "",
        ]
    if rows is not None:
        coverage = coverage[:rows]
    if coverage:
        out += [
            "**Coverage**",
            "",
            "| path | CODEOWNERS line | covered by |",
            "| --- | --- | --- |",
        ]
        for row in coverage:
            line = f"{row['line']}: {_code(row['pattern'])}" if row.get("line") else "(no line)"
            by = ", ".join(_code(b) for b in row["covered-by"]) or "**nobody**"
            out.append(f"| {_code(row['path'])} | {line} | {by} |")
        out.append("")
    skipped = (d.get("codeowners-skipped") or [])[:rows]
    if skipped:
        out += ["**CODEOWNERS lines ignored** (as GitHub ignores them):", ""]
        out += [
            f"- ⚠️ line {sk['line']}: {_code(sk['text'])}: {_md(sk['reason'])}" for sk in skipped
        ]
        out.append("")
    for item in (d.get("checklist-report") or [])[:rows]:
        out.append(f"- {_md(item)}")
    spoofs = (d.get("spoofs") or [])[:rows]
    if spoofs:
        out += ["", "**Ignored spoof attempts** (verdict markers in comments not by the bot):", ""]
        out += [f"- comment {s['id']} by {_code(str(s['author']))}" for s in spoofs]
    out += ["", "</details>", ""]
    if with_json:
        compact = json.dumps(verdict.to_json(), separators=(",", ":"), sort_keys=True)
        # Inside an HTML comment: no `--` may end it, and no `<`/`>` (JSON escapes keep the
        # strings' values) may look like a tag to a reader of the source.
        compact = compact.replace("<", "\\u003c").replace(">", "\\u003e").replace("--", "- -")
        out.append(f"<!-- verdict-json: {compact} -->")
    return "\n".join(out) + "\n"


def _coverage_words(row: dict[str, Any]) -> str:
    """Which CODEOWNERS line decides a path and whose sign-off covers it, in words: a bare
    "-> NOBODY" read as "the path has no owner" when it means "no valid sign-off covers it"."""
    owners = " ".join(row.get("owners") or [])
    if row.get("line"):
        rule = f"CODEOWNERS line {row['line']} (`{row['pattern']}`"
        rule += f" {owners})" if owners and not row.get("any-codeowner") else ")"
    else:
        rule = "no CODEOWNERS line"
    who = "any code owner" if row.get("any-codeowner") or not owners else f"one of {owners}"
    covered = row.get("covered-by") or []
    if covered:
        return f"{rule}; covered by the sign-off of {', '.join(covered)}"
    return f"{rule}; NOT COVERED: no valid sign-off by {who}"


def render_text(verdict: Verdict) -> str:
    # a rejection's summary already starts with REJECTED: say it once
    said = verdict.summary.upper().startswith(verdict.verdict.upper())
    lines = [
        f"signoff verify: PR #{verdict.pr} at {verdict.head_sha[:12]}: "
        + (verdict.summary if said else f"{verdict.verdict.upper()} — {verdict.summary}")
    ]
    for c in verdict.checks:
        lines.append(f"  {c.status:<8} {c.id:<20} {c.reason}")
    for s in verdict.signoffs:
        state = "valid" if s.valid else "not counted: " + "; ".join(s.why_not)
        lines.append(f"  sign-off {s.kind} {s.id} by {s.author}: {state}")
    for row in verdict.details.get("coverage") or []:
        lines.append(f"  path {row['path']}: {_coverage_words(row)}")
    for sk in verdict.details.get("codeowners-skipped") or []:
        lines.append(f"  warning: CODEOWNERS line {sk['line']} ignored: {sk['reason']}")
    for item in verdict.details.get("checklist-report") or []:
        lines.append(f"  {item}")
    for s in verdict.details.get("spoofs") or []:
        lines.append(f"  ignored spoof: comment {s['id']} by {s['author']}")
    return "\n".join(lines) + "\n"


def render_json(verdict: Verdict) -> str:
    data: dict[str, Any] = verdict.to_json()
    return json.dumps(data, indent=2, sort_keys=False) + "\n"
