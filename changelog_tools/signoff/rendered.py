"""A comment body as GitHub shows it: each source line's visible own text, and what is not shown.

GitHub renders a comment with cmark-gfm (its fork of cmark, with the table, strikethrough,
autolink, tagfilter, tasklist and footnote extensions), passes the raw HTML in it through a
sanitizer and hands the result to a browser. This module does the same with the same parser
(PyPI ``cmarkgfm``) and, when the body holds raw HTML, an HTML5 parser (``html5lib``), so that
what counts as the author's own words is what a reader sees:

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

Line numbers: cmark-gfm gives each block its source lines; inside a paragraph a line is counted
from its start through soft and hard breaks (the inline positions cmark-gfm reports are off after
a hard break or a link title over several lines). They only name lines in messages: what is
visible is decided by the tree, never by a line's position.
"""

from __future__ import annotations

import ctypes
import html
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any

# Why a piece of text is not the author's own visible text.
QUOTED, CODE, STRUCK, HIDDEN, NOT_VISIBLE = "quoted", "code", "struck", "hidden", "not visible"
REASONS = (QUOTED, CODE, STRUCK, HIDDEN, NOT_VISIBLE)

_EXTENSIONS = ("table", "strikethrough", "autolink", "tagfilter", "tasklist")
_NS = "{http://commonmark.org/xml/1.0}"

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
# The Markdown nodes that hide their text, and why (the rest are shown or hold other nodes).
_MD_REASONS = {
    "block_quote": (QUOTED, "in a quote"),
    "code_block": (CODE, "in a code block"),
    "strikethrough": (STRUCK, "struck through"),
    "image": (NOT_VISIBLE, "an image's alt text"),
}

# Line markers carried through the HTML5 parser: one private-use character per line number,
# placed right before text so it never changes how the HTML around it is parsed. Private-use
# characters in the body itself are replaced first (see read), so every marker is ours.
_MARK_BASE = 0xF0000
_MARK_LAST = 0xFFFFD
_MARK_RE = re.compile("([\U000f0000-\U000ffffd])")
_PRIVATE_RE = re.compile("[\ue000-\uf8ff\U000f0000-\U0010ffff]")
# Characters XML 1.0 cannot carry; cmark-gfm writes them into its XML as they are.
_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
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
    text = _PRIVATE_RE.sub("\ufffd", "\n".join(lines))
    root = _parse(text)
    structure = _structure(root)
    collect = _Collect()
    if any(n.tag in (_NS + "html_block", _NS + "html_inline") for n in root.iter()):
        _read_html(root, lines, collect)
    else:
        _MarkdownWalk(lines, collect).node(root, None)
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
def _cmark() -> tuple[Any, Any, Any, int]:
    """The binding's parser and the extension module's own XML renderer.

    The binding declares only an HTML renderer; the library it is built from also has an XML
    renderer that writes every node with its source position, and the extension module exports
    it (the manylinux and macOS wheels do). It is called through ctypes on the same module.
    """
    from cmarkgfm import _cmark as binding
    from cmarkgfm.cmark import Options

    library = ctypes.CDLL(binding.__file__)
    library.cmark_render_xml.restype = ctypes.c_void_p
    library.cmark_render_xml.argtypes = [ctypes.c_void_p, ctypes.c_int]
    library.cmark_node_free.restype = None
    library.cmark_node_free.argtypes = [ctypes.c_void_p]
    library.free.restype = None
    library.free.argtypes = [ctypes.c_void_p]
    binding.lib.cmark_gfm_core_extensions_ensure_registered()
    options = (
        Options.CMARK_OPT_SOURCEPOS
        | Options.CMARK_OPT_UNSAFE
        | Options.CMARK_OPT_FOOTNOTES
        | Options.CMARK_OPT_GITHUB_PRE_LANG
    )
    return binding.lib, binding.ffi, library, options


def syntax_tree(text: str) -> ET.Element:
    """The cmark-gfm syntax tree of ``text`` (GitHub's comment extensions) as XML elements in
    the CommonMark XML namespace (:data:`NAMESPACE`), each with its ``sourcepos``."""
    return _parse(text)


NAMESPACE = _NS


def _parse(text: str) -> ET.Element:
    lib, ffi, library, options = _cmark()
    parser = lib.cmark_parser_new(options)
    try:
        for name in _EXTENSIONS:
            lib.cmark_parser_attach_syntax_extension(
                parser, lib.cmark_find_syntax_extension(name.encode())
            )
        data = text.encode("utf-8", errors="replace")  # a lone surrogate is no character
        lib.cmark_parser_feed(parser, data, len(data))
        root = lib.cmark_parser_finish(parser)
        address = int(ffi.cast("uintptr_t", root))
        rendered = library.cmark_render_xml(address, options)
        try:
            xml = ctypes.string_at(rendered).decode("utf-8", errors="replace")
        finally:
            library.free(rendered)
            library.cmark_node_free(address)
    finally:
        lib.cmark_parser_free(parser)
    # Footnote nodes have no name in cmark-gfm's XML writer ("<unknown>"); a definition is a
    # block with children, a reference an empty inline.
    xml = xml.replace("<<unknown>", "<footnote").replace("</<unknown>>", "</footnote>")
    xml = _XML_BAD.sub(lambda m: f"\ue000{ord(m.group()):04x}", xml)
    return ET.fromstring(xml)


def _literal(node: ET.Element) -> str:
    text = node.text or ""
    if "\ue000" in text:
        text = re.sub("\ue000([0-9a-f]{4})", lambda m: chr(int(m.group(1), 16)), text)
    return text


def _start(node: ET.Element) -> int:
    pos = node.get("sourcepos", "1:1-1:1")
    return int(pos.split(":", 1)[0])


def _end(node: ET.Element) -> int:
    pos = node.get("sourcepos", "1:1-1:1")
    return int(pos.split("-", 1)[1].split(":", 1)[0])


def _tag(node: ET.Element) -> str:
    return node.tag[len(_NS) :] if node.tag.startswith(_NS) else node.tag


def _structure(root: ET.Element) -> dict[int, str]:
    """What a line starts with as a reader sees it: a list item's bullet (and box, indented by
    nesting depth) or a heading's ``#``s, by the line it starts on."""
    out: dict[int, str] = {}

    def visit(node: ET.Element, depth: int) -> None:
        for child in node:
            tag = _tag(child)
            if tag == "list":
                visit(child, depth + 1)
            elif tag in ("item", "tasklist"):
                first = next(iter(child), None)
                if first is not None and _tag(first) in ("paragraph", "heading"):
                    box = ""
                    if tag == "tasklist":
                        box = "[x] " if child.get("completed") == "true" else "[ ] "
                    out[_start(first)] = "  " * max(depth - 1, 0) + "- " + box
                visit(child, depth)
            elif tag == "heading":
                out.setdefault(_start(child), "#" * int(child.get("level", "1")) + " ")
            elif tag in ("block_quote", "footnote", "document"):
                visit(child, depth)

    visit(root, 0)
    return out


def _destination(node: ET.Element) -> str:
    """A link's destination as it stands in a line's text (``[text](destination)``: recipe
    links are read from there; the comparison of items drops it)."""
    dest = node.get("destination", "")
    return dest.replace("(", "%28").replace(")", "%29").replace(" ", "%20")


def _inline_lines(node: ET.Element) -> int:
    """Source lines an inline node runs over beyond its first (a code span, raw HTML)."""
    if _tag(node) == "html_inline":
        return _literal(node).count("\n")
    if _tag(node) == "code":
        return max(_end(node) - _start(node), 0)
    return 0


def _code_start(node: ET.Element, lines: list[str]) -> int:
    """The first content line of a code block: after the fence, if it has one."""
    start = _start(node)
    opener = lines[start - 1] if 0 < start <= len(lines) else ""
    return start + 1 if _FENCE_LINE.match(opener) else start


class _MarkdownWalk:
    """Visible text straight from the Markdown tree (a body with no raw HTML)."""

    def __init__(self, lines: list[str], collect: _Collect) -> None:
        self.lines = lines
        self.collect = collect
        self.line = 1

    def node(self, node: ET.Element, reason: tuple[str, str] | None) -> None:
        tag = _tag(node)
        reason = reason or _MD_REASONS.get(tag)
        if tag in ("paragraph", "heading", "table_cell"):
            self.line = _start(node)
            for child in node:
                self.inline(child, reason)
        elif tag == "code_block":
            start = _code_start(node, self.lines)
            for index, text in enumerate(_literal(node).split("\n")):
                self.collect.add(start + index, text, reason, TEXT)
        elif tag in ("table_header", "table_row"):
            for child in node:
                self.node(child, reason)
                self.collect.add(_start(node), " ", reason, TEXT)
        else:
            for child in node:
                self.node(child, reason)

    def inline(self, node: ET.Element, reason: tuple[str, str] | None) -> None:
        tag = _tag(node)
        if tag in ("softbreak", "linebreak"):
            self.line += 1
            return
        reason = reason or _MD_REASONS.get(tag)
        if tag == "text":
            self.collect.add(self.line, _literal(node), reason, TEXT)
        elif tag == "code":
            self.collect.add(self.line, _literal(node), reason, CODE)
            self.line += _inline_lines(node)
        else:
            if tag == "link":
                self.collect.add(self.line, "[", reason, MARKUP)
            for child in node:
                self.inline(child, reason)
            if tag == "link":
                self.collect.add(self.line, f"]({_destination(node)})", reason, MARKUP)


# -- raw HTML ----------------------------------------------------------------------------------


def _mark(line: int) -> str:
    return chr(min(_MARK_BASE + line, _MARK_LAST))


def _marked_text(line: int, text: str) -> str:
    """Escaped text with its line's marker before its first visible character."""
    stripped = text.lstrip()
    if not stripped:
        return html.escape(text, quote=False)
    lead = text[: len(text) - len(stripped)]
    return html.escape(lead, quote=False) + _mark(line) + html.escape(stripped, quote=False)


def _marked_raw(line: int, raw: str) -> str:
    """Raw HTML with line markers where text may start: before the first character of each line
    (unless it opens a tag), and inside comments and quoted attribute values.

    A marker is harmless inside a comment or an attribute (never shown), and before a character
    of text it changes nothing about how the HTML around it is parsed; it never goes between a
    ``<`` and a tag's name, nor where it would turn ``<!-->`` into an open comment.
    """
    out: list[str] = []
    in_tag = False
    line_start = True
    marked = False
    for index, char in enumerate(raw):
        if char == "\n":
            line += 1
            line_start, marked = True, False
        elif not char.isspace():
            if not marked and char != "<" and (line_start or not in_tag):
                out.append(_mark(line))
                marked = True
            line_start = False
            if char == "<":
                in_tag = True
            elif char == ">":
                in_tag = False
        out.append(char)
        ahead = raw[index + 1 : index + 2]
        opened = raw[max(index - 3, 0) : index + 1] == "<!--" and ahead not in ("", ">", "-")
        if opened or (in_tag and char in "\"'" and raw[index - 1 : index] == "="):
            out.append(_mark(line))
    return "".join(out)


# How GitHub renders the Markdown inlines that hold others.
_HTML_INLINES = {"emph": "em", "strong": "strong", "link": "a", "strikethrough": "del"}


class _HtmlWriter:
    """The body as HTML, the way GitHub renders it, with line markers before its text."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.out: list[str] = []
        self.line = 1
        self.tight = False

    def block(self, node: ET.Element) -> None:
        tag = _tag(node)
        out = self.out
        if tag == "document":
            for child in node:
                self.block(child)
        elif tag in ("paragraph", "heading"):
            name = f"h{node.get('level', '1')}" if tag == "heading" else "p"
            bare = tag == "paragraph" and self.tight
            self.line = _start(node)
            out.append("" if bare else f"<{name}>")
            for child in node:
                self.inline(child)
            out.append("\n" if bare else f"</{name}>\n")
        elif tag in ("block_quote", "footnote"):
            name = "blockquote" if tag == "block_quote" else "div"
            out.append(f"<{name}>\n")
            for child in node:
                self.block(child)
            out.append(f"</{name}>\n")
        elif tag == "list":
            name = "ol" if node.get("type") == "ordered" else "ul"
            was, self.tight = self.tight, node.get("tight") == "true"
            out.append(f"<{name}>\n")
            for child in node:
                self.block(child)
            out.append(f"</{name}>\n")
            self.tight = was
        elif tag in ("item", "tasklist"):
            out.append("<li>")
            for child in node:
                self.block(child)
            out.append("</li>\n")
        elif tag == "code_block":
            start = _code_start(node, self.lines)
            text = "\n".join(
                _marked_text(start + i, t) for i, t in enumerate(_literal(node).split("\n"))
            )
            out.append(f"<pre><code>{text}</code></pre>\n")
        elif tag == "html_block":
            out.append(_marked_raw(_start(node), _literal(node)))
        elif tag == "thematic_break":
            out.append("<hr />\n")
        elif tag == "table":
            out.append("<table>\n")
            for child in node:
                self.block(child)
            out.append("</tbody></table>\n")
        elif tag in ("table_header", "table_row"):
            cell = "th" if tag == "table_header" else "td"
            out.append("<thead><tr>" if tag == "table_header" else "<tr>")
            for index, child in enumerate(node):
                self.line = _start(node)
                out.append(f"{' ' if index else ''}<{cell}>")
                for inline in child:
                    self.inline(inline)
                out.append(f"</{cell}>")
            out.append("</tr></thead><tbody>\n" if tag == "table_header" else "</tr>\n")
        else:  # a custom block: its children
            for child in node:
                self.block(child)

    def inline(self, node: ET.Element) -> None:
        tag = _tag(node)
        out = self.out
        if tag == "text":
            out.append(_marked_text(self.line, _literal(node)))
        elif tag == "softbreak":
            self.line += 1
            out.append("\n")
        elif tag == "linebreak":
            self.line += 1
            out.append("<br />\n")
        elif tag == "code":
            out.append(f"<code>{_marked_text(self.line, _literal(node))}</code>")
            self.line += _inline_lines(node)
        elif tag == "html_inline":
            out.append(_marked_raw(self.line, _literal(node)))
            self.line += _inline_lines(node)
        elif tag == "image":
            # Only an image's alt text is in the page, as an attribute: none of it is shown.
            out.append("<x-alt>")
            for child in node.iter():
                if _tag(child) in ("text", "code"):
                    out.append(_marked_text(self.line, _literal(child)))
                elif _tag(child) in ("softbreak", "linebreak"):
                    self.line += 1
            out.append("</x-alt>")
        elif tag == "footnote":
            out.append("<sup></sup>")  # a reference: a number, not the author's words
        else:
            name = _HTML_INLINES.get(tag, "span")
            out.append(f"<{name}>")
            if tag == "link":
                out.append(f"<x-link>{_marked_text(self.line, '[')}</x-link>")
            for child in node:
                self.inline(child)
            if tag == "link":
                out.append(
                    f"<x-link>{_marked_text(self.line, '](' + _destination(node) + ')')}</x-link>"
                )
            out.append(f"</{name}>")


def _read_html(root: ET.Element, lines: list[str], collect: _Collect) -> None:
    """Visible text of a body with raw HTML: render it as GitHub does, parse it as a browser."""
    import html5lib

    writer = _HtmlWriter(lines)
    writer.block(root)
    fragment = html5lib.parseFragment(
        "".join(writer.out), treebuilder="etree", namespaceHTMLElements=False
    )
    _HtmlWalk(collect).element(fragment, None, TEXT)


class _HtmlWalk:
    """Text of an HTML5 tree by line, with why it is not shown when it is not."""

    def __init__(self, collect: _Collect) -> None:
        self.collect = collect
        self.line = 1

    def text(self, text: str | None, reason: tuple[str, str] | None, kind: str) -> None:
        for piece in _MARK_RE.split(text or ""):
            if len(piece) == 1 and _MARK_BASE <= ord(piece) <= _MARK_LAST:
                self.line = ord(piece) - _MARK_BASE
            elif piece:
                self.collect.add(self.line, piece, reason, kind)

    def element(self, node: Any, reason: tuple[str, str] | None, kind: str) -> None:
        tag = node.tag
        if callable(tag):  # a comment (or processing instruction): GitHub removes it
            self.text(node.text, reason or (HIDDEN, "in an HTML comment"), TEXT)
            return
        name = tag.lower() if isinstance(tag, str) else ""
        if name == "x-link" and kind == TEXT:
            kind = MARKUP
        if reason is None and name in _HTML_REASONS:
            if name in _INLINE_CODE:
                kind = CODE  # inline code is part of its line (see read)
            else:
                reason = _HTML_REASONS[name]
        for key, value in _attributes(node):
            if _MARK_RE.search(value):
                line = self.line
                self.text(value, (NOT_VISIBLE, f"in the attribute {key!r}"), TEXT)
                self.line = line
        self.text(node.text, reason, kind)
        for child in node:
            self.element(child, reason, kind)
            self.text(child.tail, reason, kind)


def _attributes(node: Any) -> Iterator[tuple[str, str]]:
    items: Iterable[tuple[Any, Any]] = node.attrib.items()
    for key, value in items:
        if isinstance(value, str):
            yield str(key), value
