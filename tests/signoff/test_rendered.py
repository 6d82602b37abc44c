"""Sign-offs read as GitHub shows them: hand cases of each class where reading Markdown with
another parser and guessing line by line disagreed with GitHub's renderer (cmark-gfm, raw HTML
read as a browser reads it)."""

from __future__ import annotations

import html5lib
import pytest

from changelog_tools.signoff import rendered
from changelog_tools.signoff.checklist import HEADER, LOOKALIKE, find_signoff

ITEMS = "\n- [x] one\n- [x] two\n\nSigned: bob\n"
SIGNOFF = HEADER + ITEMS


def counts(body: str) -> bool:
    found = find_signoff(body).checklist
    if found is None:
        return False
    assert [(i.text, i.checked) for i in found.items] == [("one", True), ("two", True)], found
    assert found.signed == "bob"
    return True


# GitHub shows none of these headers as the author's own plain text.
NOT_SHOWN = {
    "setext heading over an inline HTML comment": (
        f"ok <!--\n{HEADER}\n-->\n===\n{ITEMS}",
        "hidden",
    ),
    "setext heading over a tag's attribute": (
        f'<span title="\n{HEADER}\n">x</span>\n===\n{ITEMS}',
        "not visible",
    ),
    "setext heading over a code span": (f"`\n{HEADER}\n`\n===\n{ITEMS}", "code"),
    "an unreferenced footnote": (f"[^note]: {HEADER}\n{ITEMS}", "not visible"),
    "an unreferenced footnote, indented": (f"Hi\n\n[^n]:\n    {HEADER}\n{ITEMS}", "not visible"),
    "raw blockquote around it": (f"<blockquote>\n\n{SIGNOFF}\n</blockquote>", "quoted"),
    "raw blockquote left open before it": (f"As asked: <blockquote>\n\n{SIGNOFF}", "quoted"),
    "raw <s> around it": (f"<s>\n\n{SIGNOFF}\n</s>", "struck"),
    "raw <del> around it": (f"<del>\n\n{SIGNOFF}\n</del>", "struck"),
    "raw <s> left open in an earlier paragraph": (f"Old: <s>\n\n{SIGNOFF}", "struck"),
    "raw <strike> on the header": (f"<strike>{HEADER}</strike>{ITEMS}", "struck"),
    "raw <code> left open": (f"<code>\n\n{SIGNOFF}", "code"),
    "raw <kbd> around the header": (f"<kbd>{HEADER}</kbd>{ITEMS}", "code"),
    "raw <kbd> left open": (f"<kbd>\n\n{SIGNOFF}", "code"),
    "raw <pre> around it": (f"<pre>\n\n{SIGNOFF}\n</pre>", "code"),
    "raw <tt> left open": (f"x <tt>\n\n{SIGNOFF}", "code"),
    "raw <samp> around the header": (f"<samp>{HEADER}</samp>{ITEMS}", "code"),
    "the header is a code span": (f"`{HEADER}`{ITEMS}", "code"),
    "the header is a code span in a list item": (f"- `{HEADER}`{ITEMS}", "code"),
    "the header is a code span in a link": (f"[`{HEADER}`](/u){ITEMS}", "code"),
    "the header is a code span in a link, with raw HTML": (
        f"<b>x</b>\n\n[`{HEADER}`](/u){ITEMS}",
        "code",
    ),
    "the header is an image's alt text": (f"![{HEADER}](/x.png){ITEMS}", "not visible"),
    "a ~~ strikethrough over lines": (f"~~Old:\n{HEADER}~~{ITEMS}", "struck"),
    "a ~~ strikethrough over three lines": (f"~~Old:\n{HEADER}\nthat was~~{ITEMS}", "struck"),
    "<script> with its content": (f"<script>\n{SIGNOFF}</script>", "hidden"),
    "<style> with its content": (f"<style>\n{SIGNOFF}</style>", "hidden"),
    "<template>": (f"<template>\n\n{SIGNOFF}\n</template>", "hidden"),
    "<textarea>": (f"<textarea>\n{SIGNOFF}</textarea>", "hidden"),
}


@pytest.mark.parametrize(("body", "why"), NOT_SHOWN.values(), ids=NOT_SHOWN.keys())
def test_a_header_github_does_not_show_as_the_authors_text_starts_no_signoff(
    body: str, why: str
) -> None:
    found = find_signoff(body)
    assert found.checklist is None
    assert found.ignored_headers, found.ignored
    assert found.ignored_headers[0][1] == why


# GitHub shows each of these headers plainly as the author's text.
SHOWN = {
    "a character reference": f"&#65;s a PR reviewer and CODEOWNER, I have reviewed this and have:{ITEMS}",
    "a hex character reference": f"As a PR reviewer and CODEOWNER, I have reviewed this and have&#x3a;{ITEMS}",
    "a named character reference": f"As a PR reviewer and CODEOWNER&comma; I have reviewed this and have:{ITEMS}",
    "a backslash escape": f"As a PR reviewer and CODEOWNER, I have reviewed this and have\\:{ITEMS}",
    "single-star emphasis": f"*{HEADER}*{ITEMS}",
    "underscore emphasis": f"_{HEADER}_{ITEMS}",
    "strong emphasis of part": f"As a PR reviewer and ***CODEOWNER***, I have reviewed this and have:{ITEMS}",
    "a list item": f"- {HEADER}{ITEMS}",
    "a task-list item": f"- [x] {HEADER}{ITEMS}",
    "a table cell": f"| {HEADER} |\n| --- |\n{ITEMS}",
    "after a trailing-backslash hard break": f"Thanks!\\\n{HEADER}{ITEMS}",
    "before a trailing-space hard break": f"{HEADER}  \n(copied from the template){ITEMS}",
    "an ATX heading with closing #s": f"## {HEADER} ##{ITEMS}",
    "a setext heading": f"{HEADER}\n---{ITEMS}",
    "a raw <b> before the header": f"<b>{HEADER}</b>{ITEMS}",
    "a raw <b> left open": f"Note <b>\n\n{SIGNOFF}",
    # <del> and <samp> are no formatting elements: a paragraph's end closes them (HTML5)
    "a raw <del> left open in an earlier paragraph": f"Old: <del>\n\n{SIGNOFF}",
    "a raw <samp> left open in an earlier paragraph": f"x <samp>\n\n{SIGNOFF}",
    "an unclosed comment is text": f"ok <!--\n{HEADER}{ITEMS}",
    "a multi-line code span earlier in the paragraph": f"See `a\nb` here.\n{HEADER}{ITEMS}",
    "a line of only NBSP before it": f"\u00a0\n{HEADER}{ITEMS}",
    "a line of only a form feed before it": f"\x0c\n{HEADER}{ITEMS}",
    "a line of only a vertical tab before it": f" \x0b\n{HEADER}{ITEMS}",
    "a line of only NBSP inside the paragraph": f"Thanks\n\u00a0\n{HEADER}{ITEMS}",
    "a trailing-backslash hard break after the header": f"{HEADER}\\\n(copied today){ITEMS}",
    "a referenced footnote": f"See[^n].\n\n[^n]: {HEADER}{ITEMS}",
    "inside <details> (a click away)": f"<details><summary>Sign-off</summary>\n\n{SIGNOFF}\n</details>",
    "a zero-width space inside": f"As a PR reviewer and CODE\u200bOWNER, I have reviewed this and have:{ITEMS}",
    "a soft hyphen inside": f"As a PR re\u00adviewer and CODEOWNER, I have reviewed this and have:{ITEMS}",
    "a quote closed before it": f"> earlier words\n\n{SIGNOFF}",
    "an <svg> closed before it": f"<svg><text>x</text></svg>\n\n{SIGNOFF}",
}


@pytest.mark.parametrize("body", SHOWN.values(), ids=SHOWN.keys())
def test_a_header_github_shows_plainly_counts(body: str) -> None:
    assert counts(body)


def test_items_read_as_shown_escapes_references_and_emphasis() -> None:
    body = (
        f"{HEADER}\n- [x] *one*\n- [X] t&#119;o\n  - [x] `three` \\*\n"
        "- [x] ~~four~~\n\n### Additional detail section\n\nfine\n\nSigned: **bob**"
    )
    found = find_signoff(body).checklist
    assert found is not None
    assert [(i.path, i.text) for i in found.items] == [
        ("1", "one"),
        ("2", "two"),
        ("2.1", "`three` *"),
    ]
    assert found.detail == "fine" and found.signed == "bob"
    assert found.item("2.1").line == 4  # type: ignore[union-attr]


def test_lookalike_letters_are_not_the_header_and_are_reported() -> None:
    cyrillic = HEADER.replace("a", "\u0430", 1)  # a Cyrillic "а" for the first Latin "a"
    found = find_signoff(cyrillic + ITEMS)
    assert found.checklist is None
    assert found.ignored_headers == ((1, LOOKALIKE),)


def test_lines_are_named_after_hard_breaks_and_multi_line_spans() -> None:
    # cmark-gfm's own inline positions are off after a hard break; lines are counted instead
    body = f"a\\\nb `c\nd` e\n[l](/u\n'\nt\n') f\n\n{HEADER}\n- [x] one"
    shown = dict(rendered.read(body).lines)
    assert shown[1] == "a" and shown[2] == "b `c d`" and shown[3] == "e"
    assert shown[9] == HEADER and shown[10] == "- [x] one"


def test_a_quote_in_raw_html_names_its_line() -> None:
    body = f"Hi\n\n<blockquote>\n\n{SIGNOFF}</blockquote>\n\nmine: no"
    shown = rendered.read(body)
    quoted = [p for p in shown.ignored if p.why == "quoted"]
    assert [p.line for p in quoted][:3] == [5, 6, 7]
    assert dict(shown.lines) == {1: "Hi", 12: "mine: no"}


def test_text_in_an_attribute_or_comment_is_never_shown() -> None:
    shown = rendered.read(
        f'<img alt="{HEADER}" src="x">\n<!-- {HEADER} -->\n\n<span title="x\n{HEADER}">y</span>'
    )
    assert [text for _, text in shown.lines] == ["y"]
    assert {(p.line, p.why) for p in shown.ignored} == {
        (1, "not visible"),
        (2, "hidden"),
        (4, "not visible"),
        (5, "not visible"),
    }


def test_both_parsers_agree_on_markdown_without_raw_html() -> None:
    # A page with no raw HTML is read with the standard library's parser, one with raw HTML
    # with the HTML5 parser: the two read a page of cmark-gfm's own HTML the same.
    body = (
        f"Hi *there*\n\n> {HEADER}\n> - [x] q\n\n```\ncode\n```\n\n    indented\n\n"
        f"- [x] a ~~b~~ `c`\n  1. d\n\n| x | `y` |\n|---|:-:|\n| ~~z~~ | w |\n\n![alt](u) [^1]\n\n"
        f"[^1]: note\n\n## h ##\n\nsetext\n---\n\nx\\\ny `p\nq` r"
    )
    lines = rendered.source_lines(body)
    html = rendered.render(body)
    assert "<!--" not in html and 'align="center"' in html  # no raw HTML: the fast parsers
    builder = rendered._TreeBuilder()  # the fallback for what XML cannot hold
    builder.feed(html)
    builder.close()
    trees = (
        rendered.page(body),
        builder.root,
        html5lib.parseFragment(html, treebuilder="etree", namespaceHTMLElements=False),
    )
    collects = [rendered._Collect() for _ in trees]
    walks = [rendered._Walk(lines, c) for c in collects]
    for walk, tree in zip(walks, trees, strict=True):
        walk.element(tree, None, rendered.TEXT)
    direct, fallback, through = collects

    def own(c: rendered._Collect) -> dict[int, str]:
        return {n: "".join(t for _, t in parts).strip() for n, parts in c.own.items()}

    def hidden(c: rendered._Collect) -> set[tuple[int, str, str]]:
        return {(p.line, p.why, p.text.strip()) for p in c.ignored if p.text.strip()}

    for other in (fallback, through):
        assert {n: t for n, t in own(direct).items() if t} == {
            n: t for n, t in own(other).items() if t
        }
        assert hidden(direct) == hidden(other)
    assert walks[0].structure == walks[1].structure == walks[2].structure
    assert {p.why for p in direct.ignored} == {"quoted", "code", "struck", "not visible"}


def test_private_use_characters_in_a_body_cannot_forge_line_markers() -> None:
    body = f"x <b>\U000f0003</b>\n\n{HEADER}{ITEMS}"
    found = find_signoff(body).checklist
    assert found is not None and found.header_line == 3


def test_links_keep_their_destination_for_the_evidence_checks() -> None:
    # the recipe check reads upstream links from the detail section and item notes
    body = (
        f"{HEADER}\n- [x] one\n  see [the run](https://example.invalid/runs/1)\n- [x] two\n\n"
        "### Additional detail section\n\n[recipe PR](https://github.com/o/r/pull/42)\n\nSigned: bob"
    )
    found = find_signoff(body).checklist
    assert found is not None
    assert found.detail == "[recipe PR](https://github.com/o/r/pull/42)"
    assert found.items[0].notes == ("see [the run](https://example.invalid/runs/1)",)


def test_raw_html_blocks_after_other_blocks_name_their_lines() -> None:
    # raw HTML blocks carry no source position of their own: their lines are counted on from
    # the block before and found again in the source
    body = (
        "| a | b |\n| - | - |\n| c | d |\n\n<!-- a note -->\n\n<details><summary>log</summary>\n\n"
        f'long log\n\n</details>\n\n<img alt="{HEADER}" src="/x.png">\n- [x] one'
    )
    shown = rendered.read(body)
    assert dict(shown.lines) == {1: "a b", 3: "c d", 7: "log", 9: "long log", 14: "- [x] one"}
    assert [(p.line, p.why, p.detail) for p in shown.ignored] == [
        (5, "hidden", "in an HTML comment"),
        (13, "not visible", "an image's alt text"),
    ]
