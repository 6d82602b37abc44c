"""A comment body as GitHub shows it: each source line's visible own text, and what is not shown.

GitHub renders a comment with cmark-gfm (its fork of cmark, with the table, strikethrough,
autolink, tagfilter, tasklist and footnote extensions), passes the raw HTML in it through a
sanitizer and hands the result to a browser. This module does the same with the same renderer
(PyPI ``cmarkgfm``, through its public HTML renderer only) and, when the body holds raw HTML, an
HTML5 parser (``html5lib``) over the whole page, so that what counts as the author's own words
is what a reader sees:

* not shown as the author's own text: a quote (Markdown ``>`` or ``<blockquote>``/``<q>``), code
  (fenced, indented, a code span that is all of its line, ``<pre>``/``<code>``/``<kbd>``/
  ``<samp>``/``<tt>``), struck text (``~~`` or ``<s>``/``<del>``/``<strike>``), what GitHub's
  sanitizer removes with its content (comments, ``<script>``, ``<style>``, ``<template>``,
  ``<svg>``/``<math>`` and the like), and what is never text at all (attributes, an image's alt
  text, link reference definitions, a footnote nobody references);
* shown as the author's own: emphasis of any kind, links' text, list and task-list items,
  escapes and character references (read as the character they stand for), table cells,
  headings (ATX with closing ``#``s, setext), hard breaks, a referenced footnote, ``<details>``
  (a click away, and the author's words).

Raw HTML is read as a browser reads it: a ``<s>`` or ``<blockquote>`` left open strikes or quotes
what follows it, in later paragraphs too. An inline code span inside a line (a template item
naming ```append-only: true```, ``Signed: `login```) is part of that line's text.

Line numbers: cmark-gfm gives each block its source lines (``data-sourcepos``); inside a block a
line is counted from its start through soft and hard breaks, and where the rendering drops a
newline (a code span, a tag or a link title over lines) the text after it is found again in the
block's source lines. They only name lines in messages: what is visible is decided by the tree,
never by a line's position.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from functools import cache
from html.parser import HTMLParser
from typing import Any

# Why a piece of text is not the author's own visible text.
QUOTED, CODE, STRUCK, HIDDEN, NOT_VISIBLE = "quoted", "code", "struck", "hidden", "not visible"
REASONS = (QUOTED, CODE, STRUCK, HIDDEN, NOT_VISIBLE)

# GitHub's comment extensions but tagfilter: it writes <script>, <style>, <textarea> and the like
# as text; they are read as removed with their content instead (see _HTML_REASONS), so a sign-off
# inside one never counts, whichever way a page shows it.
_EXTENSIONS = ("table", "strikethrough", "autolink", "tasklist")

# HTML elements and why their text is not the author's own visible text.
_HTML_REASONS = {
    "blockquote": (QUOTED, "in a quote"),
    "q": (QUOTED, "in a <q> quotation"),
    "pre": (CODE, "in a code block"),
    "code": (CODE, "in code"),
    "kbd": (CODE, "in <kbd>"),
    "samp": (CODE, "in <samp>"),
    "tt": (CODE, "in <tt>"),
    "del": (STRUCK, "struck through"),
    "s": (STRUCK, "struck through"),
    "strike": (STRUCK, "struck through"),
    "x-alt": (NOT_VISIBLE, "an image's alt text"),
    **{
        tag: (HIDDEN, f"in <{tag}>, which GitHub removes with its content")
        for tag in (
            "script",
            "style",
            "template",
            "svg",
            "math",
            "iframe",
            "noscript",
            "noembed",
            "noframes",
            "xmp",
            "plaintext",
            "textarea",
            "title",
            "object",
            "head",
        )
    },
}
_INLINE_CODE = frozenset({"code", "kbd", "samp", "tt"})
# Kinds of own visible text (see _Collect).
TEXT, MARKUP = "text", "markup"
_FENCE_LINE = re.compile(r"^[ \t>]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)*(`{3,}|~{3,})")


@dataclass(frozen=True)
class Part:
    """A piece of a line that is not the author's own visible text."""

    line: int
    text: str
    why: str  # one of REASONS
    detail: str  # e.g. "in a quote", "in an HTML comment"


@dataclass(frozen=True)
class Shown:
    """A body as GitHub shows it.

    ``lines``: each source line that holds some of the author's own visible text, as
    ``(number, text)``; the text is what a reader sees on it (code spans in backticks, links
    as ``[text](destination)``), after a list item's ``- ``/``- [x] `` (two spaces per nesting level) or a heading's ``#``s.
    ``ignored``: the text on any line that is there but not the author's own visible text.
    """

    lines: tuple[tuple[int, str], ...]
    ignored: tuple[Part, ...]
    source: tuple[str, ...]


@dataclass
class _Collect:
    """Fragments of text by line, as a walk finds them."""

    # (kind, text); kind: "text" (the author's words), "code" (an inline code span) or
    # "markup" (a link's brackets and destination: kept for the evidence checks, no words)
    own: dict[int, list[tuple[str, str]]] = field(default_factory=dict)
    ignored: list[Part] = field(default_factory=list)

    def add(self, line: int, text: str, reason: tuple[str, str] | None, kind: str) -> None:
        if not text:
            return
        if reason is None:
            self.own.setdefault(line, []).append((kind, text))
        elif text.strip():
            self.ignored.append(Part(line, text, *reason))


def source_lines(body: str) -> list[str]:
    """The lines of ``body`` as cmark-gfm counts them (CRLF, CR and LF each end one)."""
    return body.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def read(body: str) -> Shown:
    """What GitHub shows of ``body`` (see the module docstring)."""
    lines = source_lines(body)
    root = page("\n".join(lines))
    collect = _Collect()
    walk = _Walk(lines, collect)
    walk.element(root, None, TEXT)
    structure = walk.structure
    shown: list[tuple[int, str]] = []
    for number in sorted(collect.own):
        parts = collect.own[number]
        if not any(kind == TEXT and piece.strip() for kind, piece in parts):
            for kind, piece in parts:  # a line with no words but code is code
                if kind == CODE and piece.strip():
                    collect.ignored.append(Part(number, piece, CODE, "a line that is only code"))
            continue
        own = "".join(f"`{piece}`" if kind == CODE else piece for kind, piece in parts)
        shown.append((number, structure.get(number, "") + own.strip()))
    ignored: list[Part] = []
    for part in sorted(collect.ignored, key=lambda p: p.line):  # one part per line and reason
        last = ignored[-1] if ignored else None
        if last is not None and (last.line, last.why, last.detail) == (
            part.line,
            part.why,
            part.detail,
        ):
            ignored[-1] = Part(last.line, last.text + part.text, last.why, last.detail)
        else:
            ignored.append(part)
    return Shown(tuple(shown), tuple(ignored), tuple(lines))


# -- cmark-gfm ---------------------------------------------------------------------------------


@cache
def _options() -> tuple[int, int]:
    """cmark-gfm's options as GitHub renders a comment: source positions on every block, raw
    HTML kept (GitHub's sanitizer comes after, see _HTML_REASONS), footnotes, and the same
    without raw HTML (to tell whether a body has any)."""
    from cmarkgfm.cmark import Options

    shown = Options.CMARK_OPT_SOURCEPOS | Options.CMARK_OPT_FOOTNOTES
    shown |= Options.CMARK_OPT_GITHUB_PRE_LANG
    return shown | Options.CMARK_OPT_UNSAFE, shown


def render(text: str) -> str:
    """``text`` rendered as GitHub renders a comment, before its sanitizer: HTML with each block's
    source lines (``data-sourcepos="L:C-L:C"``) and the raw HTML as written."""
    import cmarkgfm

    unsafe, _safe = _options()
    return str(
        cmarkgfm.markdown_to_html_with_extensions(
            text, options=unsafe, extensions=list(_EXTENSIONS)
        )
    )


def page(text: str) -> ET.Element:
    """The page a browser builds from the rendered ``text``: one tree, Markdown-made and raw tags
    together. A body with no raw HTML renders to well-formed HTML, read by the standard library's
    parser; raw HTML is read by an HTML5 parser, as a browser reads it."""
    import cmarkgfm

    _unsafe, safe = _options()
    html = render(text)
    # Without UNSAFE, cmark-gfm writes a placeholder for each piece of raw HTML (and drops unsafe
    # link targets): the same page both ways holds cmark-gfm's own, well-formed HTML only.
    if html == cmarkgfm.markdown_to_html_with_extensions(
        text, options=safe, extensions=list(_EXTENSIONS)
    ):
        return _well_formed(html)
    import html5lib

    fragment: ET.Element = html5lib.parseFragment(
        html, treebuilder="etree", namespaceHTMLElements=False
    )
    return fragment


_VOID = frozenset({"br", "hr", "img", "input"})
_TAG = re.compile(r"<[^<>]*>")
_BARE_ATTRIBUTE = re.compile(r" (data-[a-z-]+)(?=[ />])")


def _well_formed(html: str) -> ET.Element:
    """cmark-gfm's own HTML as a tree. It is XML but for its attributes without a value (the
    footnotes' ``data-footnote-ref``): given one, the C XML parser reads it. A character XML
    cannot hold (a form feed in the text) sends it to the standard library's HTML parser."""
    fixed = _TAG.sub(lambda m: _BARE_ATTRIBUTE.sub(r' \1=""', m.group()), html)
    try:
        return ET.fromstring(f"<div>{fixed}</div>")
    except ET.ParseError:
        builder = _TreeBuilder()
        builder.feed(html)
        builder.close()
        return builder.root


class _TreeBuilder(HTMLParser):
    """cmark-gfm's own HTML (no raw HTML in it: every tag closed, void tags self-closed) as an
    element tree shaped like the HTML5 parser's, at a fraction of its cost."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = ET.Element("div")
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = ET.SubElement(self.stack[-1], tag, {k: v or "" for k, v in attrs})
        if tag not in _VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in _VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag not in _VOID and len(self.stack) > 1:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        parent = self.stack[-1]
        if len(parent):  # after a child: its tail
            parent[-1].tail = (parent[-1].tail or "") + data
        else:
            parent.text = (parent.text or "") + data


_SOURCEPOS = re.compile(r"(\d+):\d+-(\d+):\d+")
# Attributes cmark-gfm writes itself (positions, link targets, footnote and task-list wiring):
# no words of the author's in them. Any other attribute is text a reader never sees.
_OWN_ATTRIBUTES = frozenset(
    {"data-sourcepos", "href", "src", "class", "id", "lang", "type", "checked", "disabled"}
    | {"align", "start"}
)


def _code_start(start: int, lines: list[str]) -> int:
    """The first content line of a code block: after the fence, if it has one."""
    opener = lines[start - 1] if 0 < start <= len(lines) else ""
    return start + 1 if _FENCE_LINE.match(opener) else start


def _destination(href: str) -> str:
    """A link's destination as it stands in a line's text (``[text](destination)``: recipe
    links are read from there; the comparison of items drops it)."""
    return href.replace("(", "%28").replace(")", "%29").replace(" ", "%20")


class _Walk:
    """Text of the page by source line, with why it is not shown when it is not.

    A block's line is its ``data-sourcepos``; inside it a line is counted at each newline of the
    text (soft breaks render as one, hard breaks as ``<br>`` and one). Where the rendering drops
    a newline (a code span over lines, a tag or a link title over lines), the text that follows
    is found again in the block's own source lines."""

    def __init__(self, lines: list[str], collect: _Collect) -> None:
        self.lines = lines
        self.collect = collect
        self.line = 1
        self.end = len(lines)
        self.depth = 0
        self.structure: dict[int, str] = {}
        self.item: str | None = None  # a list item's bullet, for the line of its first text

    def resync(self, piece: str) -> None:
        """Move to the line ``piece`` stands on when it is not on the counted one (a newline
        the rendering dropped); text not written as it shows (a reference) stays."""
        probe = piece.strip()
        if not probe or not 0 < self.line <= len(self.lines):
            return
        probe = probe[:40]
        if probe in self.lines[self.line - 1]:
            return
        for number in range(self.line + 1, min(self.end, len(self.lines)) + 1):
            if probe in self.lines[number - 1]:
                self.line = number
                return

    def text(self, text: str | None, reason: tuple[str, str] | None, kind: str) -> None:
        for index, piece in enumerate((text or "").split("\n")):
            if index:
                self.line += 1
            if piece:
                self.resync(piece)
                if self.item is not None and piece.strip():
                    self.structure[self.line] = self.item
                    self.item = None
                self.collect.add(self.line, piece, reason, kind)

    def attribute(self, value: str, reason: tuple[str, str]) -> None:
        for index, piece in enumerate(value.split("\n")):
            if index:
                self.line += 1
            elif piece:
                self.resync(piece)  # a tag of raw HTML has no line of its own
            self.collect.add(self.line, piece, reason, TEXT)

    def element(self, node: Any, reason: tuple[str, str] | None, kind: str) -> None:
        tag = node.tag
        if callable(tag):  # a comment (or processing instruction): GitHub removes it
            self.text(node.text, reason or (HIDDEN, "in an HTML comment"), TEXT)
            return
        name = tag.lower() if isinstance(tag, str) else ""
        attrib: dict[str, str] = {str(k): v for k, v in node.attrib.items() if isinstance(v, str)}
        if name == "sup" and attrib.get("class") == "footnote-ref":
            return  # a footnote reference: a number, not the author's words
        if name == "a" and "data-footnote-backref" in attrib:
            return
        position = _SOURCEPOS.fullmatch(attrib.get("data-sourcepos", ""))
        saved_end = self.end
        if position is not None:
            self.line, self.end = int(position.group(1)), int(position.group(2))
            if name == "pre":
                self.line = _code_start(self.line, self.lines)
            elif name in ("h1", "h2", "h3", "h4", "h5", "h6"):
                self.structure.setdefault(self.line, "#" * int(name[1]) + " ")
        if reason is None and name in _HTML_REASONS:
            if name in _INLINE_CODE:
                kind = CODE  # inline code is part of its line (see read)
            else:
                reason = _HTML_REASONS[name]
        for key, value in attrib.items():
            if name == "img" and key == "alt":
                self.attribute(value, reason or (NOT_VISIBLE, "an image's alt text"))
            elif key not in _OWN_ATTRIBUTES and not key.startswith("data-footnote"):
                self.attribute(value, reason or (NOT_VISIBLE, f"in the attribute {key!r}"))
        depth, item = self.depth, self.item
        if position is not None and name in ("ul", "ol"):
            self.depth += 1
        elif position is not None and name == "li":
            self.item = self._bullet(node)
        link = name == "a" and "href" in attrib and kind == TEXT
        if link:  # markup, not text: never moves the line
            self.collect.add(self.line, "[", reason, MARKUP)
        self.text(node.text, reason, kind)
        cells = 0
        for child in node:
            if child.tag in ("th", "td"):
                cell = _SOURCEPOS.fullmatch(child.get("data-sourcepos", ""))
                if cells and cell is not None:  # a row's cells are read apart
                    self.collect.add(int(cell.group(1)), " ", reason, TEXT)
                cells += 1
            self.element(child, reason, kind)
            self.text(child.tail, reason, kind)
        if link:
            self.collect.add(self.line, f"]({_destination(attrib['href'])})", reason, MARKUP)
        self.depth = depth
        if position is not None and name == "li":
            self.item = item
        if position is not None:  # what follows a block starts after its last line
            self.line, self.end = int(position.group(2)), saved_end

    def _bullet(self, node: Any) -> str | None:
        """A list item's bullet (and box, indented by nesting), when it starts with text."""
        box = ""
        first: Any = None
        for child in node:
            first = child
            break
        lead = (node.text or "").strip()
        if (
            not lead
            and first is not None
            and first.tag in ("p", "h1", "h2", "h3", "h4", "h5", "h6")
        ):
            inner = next(iter(first), None)
            if not (first.text or "").strip() and inner is not None and inner.tag == "input":
                first = inner
            else:
                first = None
        if not lead and first is not None and first.tag == "input":
            box = "[x] " if "checked" in first.attrib else "[ ] "
        elif (
            not lead
            and first is not None
            and first.tag in ("pre", "ul", "ol", "blockquote", "table", "hr")
        ):
            return None
        return "  " * max(self.depth - 1, 0) + "- " + box
