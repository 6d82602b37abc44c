"""Generated comment bodies around real sign-offs, held against the judgement rules: a sign-off
wrapped in a quote, code, a strikethrough or hidden never counts, whatever surrounds it; one
wrapped in what GitHub shows plainly always does, with every item and its `Signed:` value.

The sign-off is a copy of the real checklist (the InferenceX snapshot's when present, else the
bundled copy); the surroundings are ordinary Markdown and raw HTML, closed
before the sign-off starts.
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from changelog_tools.signoff.checklist import HEADER, canon, find_signoff
from tests.signoff.checklists import signoff_from, versions_on_disk

Wrap = Callable[[str], str]
SIGNOFF = signoff_from(versions_on_disk()[-1][1], "nv-a")
LINES = SIGNOFF.splitlines()
ITEMS = [ln for ln in LINES if ln.lstrip().startswith("- [x]")]


def _each_line(prefix: str) -> Wrap:
    return lambda s: "\n".join(prefix + ln for ln in s.splitlines())


def _header(wrap: Wrap) -> Wrap:
    """Wrap only the header line."""
    return lambda s: s.replace(HEADER, wrap(HEADER), 1)


def _struck_lines(s: str) -> str:
    return "\n".join(
        f"~~{ln}~~" if ln.strip() and not ln.lstrip().startswith("- [") else ln
        for ln in s.splitlines()
    )


# Wrappers whose content GitHub does not show as the author's own plain text.
NEVER: dict[str, Wrap] = {
    "md quote": _each_line("> "),
    "md quote, lazy": lambda s: "> Quoting:\n" + s,
    "nested quote": _each_line("> > "),
    "quote in a list item": lambda s: "- > " + s.replace("\n", "\n  > "),
    "<blockquote>": lambda s: f"<blockquote>\n\n{s}\n\n</blockquote>",
    "<blockquote> left open": lambda s: f"Earlier: <blockquote>\n\n{s}",
    "<q>": _header(lambda h: f"<q>{h}</q>"),
    "``` fence": lambda s: f"```\n{s}\n```",
    "~~~ fence with info": lambda s: f"~~~markdown\n{s}\n~~~",
    "unclosed fence": lambda s: f"```\n{s}",
    "indented code": lambda s: "Hi\n\n" + _each_line("    ")(s),
    "code span": _header(lambda h: f"`{h}`"),
    "double code span": _header(lambda h: f"`` {h} ``"),
    "code span in a link": _header(lambda h: f"[`{h}`](/u)"),
    "<pre>": lambda s: f"<pre>\n{s}\n</pre>",
    "<code> left open": lambda s: f"<code>\n\n{s}",
    "<code>": _header(lambda h: f"<code>{h}</code>"),
    "<kbd>": _header(lambda h: f"<kbd>{h}</kbd>"),
    "<kbd> left open": lambda s: f"<kbd>\n\n{s}",
    "<samp>": _header(lambda h: f"<samp>{h}</samp>"),
    "<tt> left open": lambda s: f"see <tt>\n\n{s}",
    "~~ header": _header(lambda h: f"~~{h}~~"),
    "~ header": _header(lambda h: f"~{h}~"),
    "~~ every line": _struck_lines,
    "~~ over lines": lambda s: s.replace(HEADER, f"~~Old:\n{HEADER}\nwas~~", 1),
    "<s>": lambda s: f"<s>\n\n{s}\n\n</s>",
    "<s> left open": lambda s: f"Old one: <s>\n\n{s}",
    "<del>": lambda s: f"<del>\n\n{s}\n\n</del>",
    "<strike> header": _header(lambda h: f"<strike>{h}</strike>"),
    "<strike> left open": lambda s: f"x <strike>\n\n{s}",
    "html comment": lambda s: f"<!--\n{s}\n-->",
    "inline comment": lambda s: s.replace(HEADER, f"ok <!--\n{HEADER}\n-->", 1),
    "setext over a comment": lambda s: s.replace(HEADER, f"ok <!--\n{HEADER}\n-->\n===", 1),
    "<script>": lambda s: f"<script>\n{s}\n</script>",
    "<style>": lambda s: f"<style>\n{s}\n</style>",
    "<template>": lambda s: f"<template>\n\n{s}\n\n</template>",
    "<textarea>": lambda s: f"<textarea>\n{s}\n</textarea>",
    "attribute": _header(lambda h: f'<span title="{h}">x</span>'),
    "attribute over lines": lambda s: s.replace(HEADER, f'<span title="\n{HEADER}\n">x</span>', 1),
    "image alt": _header(lambda h: f"![{h}](/x.png)"),
    "raw img alt": _header(lambda h: f'<img alt="{h}" src="/x.png">'),
    "unreferenced footnote": _header(lambda h: f"[^note]: {h}"),
    "unreferenced footnote, indented": lambda s: s.replace(HEADER, f"[^n]:\n    {HEADER}", 1),
    "link reference title": lambda s: s.replace(HEADER, f"[r]: /u\n'\n{HEADER}\n'", 1),
    "link destination title": _header(lambda h: f'[a](/u "{h}")'),
}

# Wrappers GitHub shows plainly: the sign-off counts, items and `Signed:` as they were.
ALWAYS: dict[str, Wrap] = {
    "plain": lambda s: s,
    "*emphasis*": _header(lambda h: f"*{h}*"),
    "_emphasis_": _header(lambda h: f"_{h}_"),
    "**strong**": _header(lambda h: f"**{h}**"),
    "***both***": _header(lambda h: f"***{h}***"),
    "<b>": _header(lambda h: f"<b>{h}</b>"),
    "<em>": _header(lambda h: f"<em>{h}</em>"),
    "<ins>": _header(lambda h: f"<ins>{h}</ins>"),
    "<b> left open": lambda s: f"Note <b>\n\n{s}",
    "<i> left open before": lambda s: f"<i>\n\n{s}",
    "link": _header(lambda h: f"[{h}](https://example.invalid/x)"),
    "list item": _header(lambda h: f"- {h}"),
    "task-list item": _header(lambda h: f"- [x] {h}"),
    "ATX heading": _header(lambda h: f"### {h}"),
    "ATX heading, closing #s": _header(lambda h: f"## {h} ##"),
    "setext heading": _header(lambda h: f"{h}\n==="),
    "escape": _header(lambda h: h.replace(",", "\\,").replace(":", "\\:")),
    "decimal reference": _header(lambda h: "&#65;" + h[1:]),
    "hex reference": _header(lambda h: h[:-1] + "&#x3A;"),
    "named reference": _header(lambda h: h.replace(",", "&comma;")),
    "table cell": _header(lambda h: f"| {h} |\n| --- |\n"),
    "hard break before": lambda s: "Thanks!\\\n" + s,
    "hard break after": _header(lambda h: f"{h}\\\n(copied today)"),
    "preamble in the paragraph": lambda s: "LGTM, thanks.\n" + s,
    "multi-line code span before": lambda s: "See `a\nb` here.\n" + s,
    "<details>": lambda s: f"<details><summary>Sign-off</summary>\n\n{s}\n\n</details>",
    "zero-width space": _header(lambda h: h.replace("CODEOWNER", "CODE\u200bOWNER")),
    "soft hyphen": _header(lambda h: h.replace("reviewer", "re\u00adviewer")),
    "referenced footnote": lambda s: "See[^n].\n\n" + s.replace(HEADER, f"[^n]: {HEADER}", 1),
    "NBSP line before": lambda s: "\u00a0\n" + s,
    "form feed line before": lambda s: "\x0c\n" + s,
}

# Surroundings, each complete in itself (closed) and separated from the sign-off by a blank line.
CONTEXT = [
    "LGTM",
    "Thanks @contrib, looks good.",
    "> an earlier remark",
    "- a list\n- of things",
    "1. first\n2. second",
    "```\nsome code\n```",
    "    indented code",
    "<!-- a note -->",
    "| a | b |\n| - | - |\n| c | d |",
    "**bold** and *em* and `code`",
    "<details><summary>log</summary>\n\nlong log\n\n</details>",
    "<b>raw</b> <s>struck</s> <code>x</code>",
    "~~struck~~ text",
    "[^x]: an unreferenced note",
    "[ref]: https://example.invalid",
    "Footnote[^a].\n\n[^a]: the note",
    "---",
    "## A heading",
    "![img](/i.png)",
    "",
]

context = st.lists(st.sampled_from(CONTEXT), max_size=3).map(lambda xs: "\n\n".join(xs))
SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _signs(body: str) -> bool:
    return find_signoff(body).checklist is not None


@SETTINGS
@given(
    before=context,
    after=context,
    wrap=st.sampled_from(sorted(NEVER)),
    inner=st.sampled_from(sorted(ALWAYS)),
)
def test_a_wrapped_signoff_never_counts(before: str, after: str, wrap: str, inner: str) -> None:
    # a plainly shown form of the sign-off inside a wrapper that hides it is still hidden,
    # unless the plain form is a block the wrapper cannot hold (then only the wrapper's own)
    body = NEVER[wrap](SIGNOFF)
    nested = NEVER[wrap](ALWAYS[inner](SIGNOFF))
    for text in (body, nested) if _nests(wrap, inner) else (body,):
        full = "\n\n".join(x for x in (before, text, after) if x)
        assert not _signs(full), (wrap, inner, full)


@SETTINGS
@given(before=context, after=context, wrap=st.sampled_from(sorted(ALWAYS)))
def test_a_plainly_shown_signoff_always_counts(before: str, after: str, wrap: str) -> None:
    full = "\n\n".join(x for x in (before, ALWAYS[wrap](SIGNOFF), after) if x)
    found = find_signoff(full).checklist
    assert found is not None, (wrap, full)
    assert [i.key for i in found.items] == [canon(ln.split("] ", 1)[1]) for ln in ITEMS]
    assert all(i.checked for i in found.items)
    assert found.signed is not None and found.signed.strip("`") == "nv-a"


# Wrappers that take the whole sign-off as text can hold any plain form; those that wrap the
# header alone (or insert it into a construct) can hold only the inline ones.
_WHOLE = {
    "md quote",
    "nested quote",
    "<blockquote>",
    "<blockquote> left open",
    "``` fence",
    "~~~ fence with info",
    "unclosed fence",
    "indented code",
    "<pre>",
    "<code> left open",
    "<kbd> left open",
    "<tt> left open",
    "<s>",
    "<s> left open",
    "<del>",
    "<strike> left open",
    "html comment",
    "<script>",
    "<style>",
    "<template>",
    "<textarea>",
}


def _nests(wrap: str, inner: str) -> bool:
    return wrap in _WHOLE and inner not in ("<details>", "referenced footnote")
