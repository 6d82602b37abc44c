"""The sign-off checklist: parse the template and sign-offs, and match them item by item.

A template (``docs/PR_REVIEW_CHECKLIST.md`` on the default branch) holds one block that starts
with the header line: the first fenced block containing it, or (older versions) the span from
the header to the next level-1/2 heading. In the block: checkbox items (any of ``-``/``*``/``+``
or ``1.``, ``[ ]``/``[x]``/``[X]``; two spaces of indentation per nesting level), notes (other
lines, attached to the item before them), an "Additional detail section" of free text and a
``Signed:`` line. A sign-off is a comment whose first header line in the author's own rendered
text as GitHub shows it (:mod:`.rendered`: not quoted, not code, not struck, not hidden) starts
the same grammar; text before the header is a preamble and is ignored.

Items are compared in a canonical form (:func:`canon`) so that CRLF, bullets, box case, spacing,
emphasis, links versus plain text and dash styles never matter; an item with a note or a link
appended still counts as that item.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from changelog_tools.signoff import rendered

HEADER = "As a PR reviewer and CODEOWNER, I have reviewed this and have:"
SIGNED_PLACEHOLDER = "FILL_IN_GITHUB_USERNAME"
DETAIL_PLACEHOLDER = "insert any additional info here"
# GitHub stores at most 65,536 characters of a comment body; nothing past that is read.
MAX_COMMENT_CHARS = 65_536
# Characters of an item that similarity compares (difflib is quadratic in them).
MAX_ITEM_CHARS = 1_000
# Pairing threshold for "this sign-off item is an altered copy of that template item".
SIMILARITY_THRESHOLD = 0.6

# The text runs greedily to the end of the line and its trailing blanks are stripped in code: a
# lazy text followed by `[ \t]*$` is quadratic on a long run of blanks. List numbers are ASCII.
_ITEM_RE = re.compile(
    r"^(?P<indent>[ \t]*)(?:[-*+]|[0-9]+[.)])[ \t]+\[(?P<box>[ xX])\][ \t]*(?P<text>.*)"
)
_BOX_RE = re.compile(r"\[[ xX]\][ \t]*")
_FENCE_RE = re.compile(r"^[ ]{0,3}(?P<fence>`{3,}|~{3,})")
_DETAIL_RE = re.compile(r"^\s*#{1,6}\s*Additional detail section\b", re.IGNORECASE)
_SIGNED_RE = re.compile(r"^\s*Signed:\s*(?P<who>.*)", re.IGNORECASE)  # who: stripped in code
_HEADING_RE = re.compile(r"^#{1,2}\s")
_LINK_RE = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_URL_RE = re.compile(r"https?://\S+")


@lru_cache(maxsize=8192)
def canon(text: str) -> str:
    """The canonical form two item texts are compared in (kept: matching a sign-off against
    every version of the template asks for the same texts' forms many times)."""
    # Invisible characters (zero-width spaces and joiners, soft hyphens, BOMs: format
    # characters) do not change what a reader sees: they are dropped before comparing. ASCII
    # has none.
    if not text.isascii():
        text = "".join(c for c in text if unicodedata.category(c) != "Cf")
    t = unicodedata.normalize("NFKC", text)
    t = _LINK_RE.sub(r"\1", t)
    t = t.replace("**", "").replace("__", "").replace("`", "")
    t = t.replace("\u2014", "-").replace("\u2013", "-")
    t = " ".join(t.split())
    t = t.rstrip(" .:;")
    return t.casefold()


def header_key(header: str = HEADER) -> str:
    return canon(header)


@dataclass(frozen=True)
class Item:
    """One checkbox item: its path (``"11"`` or ``"11.1"``), depth, text and box."""

    path: str
    depth: int
    text: str
    checked: bool
    line: int  # 1-based, in the text it was parsed from
    notes: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        return canon(self.text)


@dataclass(frozen=True)
class Checklist:
    items: tuple[Item, ...]
    detail: str = ""
    signed: str | None = None
    header_line: int = 0

    def item(self, path: str) -> Item | None:
        return next((i for i in self.items if i.path == path), None)


def _lines(text: str) -> list[str]:
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _is_header(line: str, header: str = HEADER) -> bool:
    text = line.lstrip("#>*-+ \t")
    box = _BOX_RE.match(text)  # a header in a task-list item is shown as a header too
    return canon(text[box.end() :] if box else text) == header_key(header)


def _parse_block(numbered: Sequence[tuple[int, str]]) -> Checklist:
    """Parse the lines after (and including) the header line."""
    items: list[Item] = []
    notes: list[str] = []
    counters: list[int] = []
    detail: list[str] = []
    in_detail = False
    signed: str | None = None
    header_line = numbered[0][0] if numbered else 0

    def flush() -> None:
        if items and notes:
            last = items[-1]
            items[-1] = Item(
                last.path, last.depth, last.text, last.checked, last.line, tuple(notes)
            )
        notes.clear()

    for number, line in numbered[1:]:
        signed_match = _SIGNED_RE.match(line)
        if signed_match:
            signed = signed_match.group("who").rstrip()
            break
        if _DETAIL_RE.match(line):
            flush()
            in_detail = True
            continue
        if in_detail:
            detail.append(line)
            continue
        match = _ITEM_RE.match(line)
        text = match.group("text").rstrip(" \t") if match else ""
        if match and text:
            flush()
            depth = len(match.group("indent").expandtabs(4)) // 2
            depth = min(depth, len(counters))  # a jump of two levels is one level
            del counters[depth + 1 :]
            if depth == len(counters):
                counters.append(0)
            counters[depth] += 1
            path = ".".join(str(c) for c in counters[: depth + 1])
            items.append(Item(path, depth, text, match.group("box") != " ", number))
        elif line.strip():
            notes.append(line.strip())
    flush()
    return Checklist(tuple(items), "\n".join(detail).strip(), signed, header_line)


def parse_template(text: str, *, header: str = HEADER) -> Checklist | None:
    """The template block of a checklist file, or None when it has no ``header`` line (the
    `signoff-checklist-header` option)."""
    lines = list(enumerate(_lines(text), start=1))
    # the first fenced block that contains the header line
    i = 0
    while i < len(lines):
        opened = _FENCE_RE.match(lines[i][1])
        if opened:
            fence = opened.group("fence")
            j = i + 1
            while j < len(lines) and not lines[j][1].strip().startswith(fence):
                j += 1
            content = lines[i + 1 : j]
            start = next((k for k, (_, ln) in enumerate(content) if _is_header(ln, header)), None)
            if start is not None:
                return _parse_block(content[start:])
            i = j + 1
            continue
        i += 1
    # older versions: from the header to the next level-1/2 heading
    start = next((k for k, (_, ln) in enumerate(lines) if _is_header(ln, header)), None)
    if start is None:
        return None
    end = next(
        (k for k in range(start + 1, len(lines)) if _HEADING_RE.match(lines[k][1])), len(lines)
    )
    return _parse_block(lines[start:end])


@dataclass(frozen=True)
class SignoffText:
    """Where the sign-off is in a comment body, and headers that do not count (and why)."""

    checklist: Checklist | None
    ignored_headers: tuple[tuple[int, str], ...] = ()  # (line, why: a rendered.REASONS value)
    ignored: tuple[rendered.Part, ...] = ()  # every piece of text not counted, by line


LOOKALIKE = "lookalike letters"


def _lookalike(line: str, header: str) -> bool:
    """``line`` reads as the header but some of its letters are from another script (a
    Cyrillic "а" for a Latin "a"): it is not the header, and the reader is told why."""
    key, text = header_key(header), canon(line.lstrip("#>*-+ \t"))
    return (
        text != key
        and len(text) == len(key)
        and all(a == b or (not a.isascii() and a.isalpha()) for a, b in zip(text, key, strict=True))
    )


def find_signoff(body: str, *, header: str = HEADER) -> SignoffText:
    """The sign-off in a comment body: the first ``header`` line of the author's own text as
    GitHub shows it (:mod:`.rendered`); headers anywhere else are reported with the reason."""
    shown = rendered.read(body[:MAX_COMMENT_CHARS])
    key = header_key(header)
    kept = list(shown.lines)
    start = next((k for k, (_, ln) in enumerate(kept) if _is_header(ln, header)), None)
    counted = kept[start][0] if start is not None else None
    ignored: dict[int, str] = {}
    by_line: dict[int, list[rendered.Part]] = {}
    for part in shown.ignored:
        by_line.setdefault(part.line, []).append(part)
    for number, parts in by_line.items():
        if key in canon("".join(p.text for p in parts)):
            ignored[number] = parts[0].why
    for number, line in kept:
        if number != counted and _lookalike(line, header):
            ignored.setdefault(number, LOOKALIKE)
    visible = {number for number, _ in kept}
    for number, line in enumerate(shown.source, start=1):
        if number not in ignored and number not in visible and key in canon(line):
            ignored[number] = rendered.NOT_VISIBLE  # a comment, an attribute, a definition
    found = _parse_block(kept[start:]) if start is not None else None
    return SignoffText(found, tuple(sorted(ignored.items())), shown.ignored)


# -- matching --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ItemResult:
    """The outcome for one template item (or one obsolete sign-off item)."""

    path: str  # template item path; for "obsolete": the sign-off item's path
    state: str  # ok | unchecked | excused | missing | altered | obsolete
    template_text: str = ""
    signoff_text: str = ""
    line: int | None = None  # the sign-off line
    similarity: float | None = None
    diff: str | None = None
    moved: bool = False  # found at another position than the template's


@dataclass(frozen=True)
class Match:
    results: tuple[ItemResult, ...]
    signed: str | None
    signed_ok: bool
    signed_problem: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def failed(self) -> tuple[ItemResult, ...]:
        return tuple(r for r in self.results if r.state not in ("ok", "excused"))


def item_budget(template: Checklist) -> int:
    """How many items of a sign-off are compared with ``template``'s (see :func:`match_signoff`)."""
    return max(50, 3 * len(template.items))


def _prefix_match(sign: str, tmpl: str) -> bool:
    """``sign`` is ``tmpl`` with a note or link appended."""
    if not sign.startswith(tmpl) or sign == tmpl:
        return sign == tmpl
    rest = sign[len(tmpl) :]
    return bool(re.match(r"[\s\W]", rest)) or rest.startswith("http")


def similarity(a: str, b: str) -> float:
    # Comparing is quadratic in the texts' lengths: an item is compared by its first
    # MAX_ITEM_CHARS characters (a template item is a sentence or two).
    a, b = a[:MAX_ITEM_CHARS], b[:MAX_ITEM_CHARS]
    ratio = difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()
    if min(len(a), len(b)) >= 25:
        blocks = difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks()
        common = sum(b.size for b in blocks)
        ratio = max(ratio, 0.85 * common / min(len(a), len(b)))
    return ratio


def word_diff(old: str, new: str) -> str:
    """A word-level diff: ``-[removed words] +[added words]``."""
    a, b = _LINK_RE.sub(r"\1", old).split(), _LINK_RE.sub(r"\1", new).split()
    out: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op in ("delete", "replace"):
            out.append(f"-[{' '.join(a[i1:i2])}]")
        if op in ("insert", "replace"):
            out.append(f"+[{' '.join(b[j1:j2])}]")
    return " ".join(out)


def _mentions(detail: str, item: Item) -> bool:
    """The detail section names ``item``: by number or by five consecutive words of it."""
    text = canon(detail)
    number = re.escape(item.path)
    if re.search(rf"(?:\bitem\s*{number}\b|#{number}\b|(?:^|\s){number}[.)](?:\s|$))", text):
        return True
    words = re.findall(r"\w+", item.key)
    body = " ".join(re.findall(r"\w+", text))
    return any(" ".join(words[i : i + 5]) in body for i in range(max(0, len(words) - 4)))


def _reasons_item(template: Checklist) -> Item | None:
    return next((i for i in template.items if "additional reasoning" in i.key), None)


def login_key(value: str) -> str:
    """A `Signed:` value or a login as compared: format characters dropped (as in item texts),
    backticks and a leading @ removed, case folded."""
    if not value.isascii():
        value = "".join(c for c in value if unicodedata.category(c) != "Cf")
    return value.strip().strip("`").strip().lstrip("@").casefold()


def match_signoff(template: Checklist, signoff: Checklist, *, author: str | None) -> Match:
    """Compare a sign-off with the template item by item (see the module docstring).

    A sign-off with far more items than the template (a comment can hold thousands) has its
    first :func:`item_budget` items compared; the rest are obsolete without a comparison, so
    matching costs at most the budget times the template's items, whatever the comment holds.
    """
    budget = item_budget(template)
    found, unmatched = _same_items(template, signoff.items[:budget])
    missing = [t for t in template.items if t.path not in found]
    altered, used = _altered_items(missing, unmatched)
    results = _item_results(template, found, altered, _excusing(template, found, signoff.detail))
    for s in unmatched:
        if s.line not in used:
            results.append(ItemResult(s.path, "obsolete", "", s.text, s.line))
    beyond = signoff.items[budget:]
    results.extend(ItemResult(s.path, "obsolete", "", s.text, s.line) for s in beyond)
    signed = signoff.signed
    problem = _signed_problem(signed, author)
    notes: list[str] = []
    if any(r.moved for r in results):
        notes.append("items are in a different order than the template (informational)")
    return Match(tuple(results), signed, problem is None, problem, tuple(notes))


def _same_items(template: Checklist, items: Sequence[Item]) -> tuple[dict[str, Item], list[Item]]:
    """The sign-off's item for each template item with the same text (or the template's text
    as a prefix), nearest in depth then first; and the items left unmatched."""
    unmatched = list(items)
    found: dict[str, Item] = {}
    for tmpl in template.items:
        candidates = [s for s in unmatched if s.key == tmpl.key] or [
            s for s in unmatched if _prefix_match(s.key, tmpl.key)
        ]
        if candidates:
            best = min(candidates, key=lambda s: (s.depth != tmpl.depth, s.line))
            found[tmpl.path] = best
            unmatched.remove(best)
    return found, unmatched


def _altered_items(
    missing: Sequence[Item], unmatched: Sequence[Item]
) -> tuple[dict[str, tuple[Item, float]], set[int]]:
    """Template items found reworded: the most similar pairs first, each item used once; and
    the lines of the sign-off items so used."""
    pairs = sorted(
        ((similarity(t.key, s.key), t.path, s.line, t, s) for t in missing for s in unmatched),
        key=lambda p: (-p[0], p[1], p[2]),
    )
    altered: dict[str, tuple[Item, float]] = {}
    used: set[int] = set()
    for score, path, line, _t, s in pairs:
        if score < SIMILARITY_THRESHOLD:
            break
        if path in altered or line in used:
            continue
        altered[path] = (s, score)
        used.add(line)
    return altered, used


def _excusing(template: Checklist, found: Mapping[str, Item], detail: str) -> str | None:
    """The detail section when it may excuse unchecked items (the reasoning item is checked
    and the section says something), else None."""
    reasons = _reasons_item(template)
    if reasons is None or reasons.path not in found or not found[reasons.path].checked:
        return None
    said = canon(detail).strip("- ")
    return detail if said and said != canon(DETAIL_PLACEHOLDER) else None


def _item_results(
    template: Checklist,
    found: Mapping[str, Item],
    altered: Mapping[str, tuple[Item, float]],
    excusing: str | None,
) -> list[ItemResult]:
    """One result per template item: ok, excused, unchecked, altered or missing."""
    order = [found[t.path].line for t in template.items if t.path in found]
    results: list[ItemResult] = []
    for tmpl in template.items:
        if tmpl.path in found:
            s = found[tmpl.path]
            moved = order.index(s.line) != sorted(order).index(s.line)
            if s.checked:
                state = "ok"
            elif excusing is not None and _mentions(excusing, tmpl):
                state = "excused"
            else:
                state = "unchecked"
            results.append(ItemResult(tmpl.path, state, tmpl.text, s.text, s.line, moved=moved))
        elif tmpl.path in altered:
            s, score = altered[tmpl.path]
            diff = word_diff(s.text, tmpl.text)
            results.append(
                ItemResult(tmpl.path, "altered", tmpl.text, s.text, s.line, round(score, 2), diff)
            )
        else:
            results.append(ItemResult(tmpl.path, "missing", tmpl.text))
    return results


def _signed_problem(signed: str | None, author: str | None) -> str | None:
    """What is wrong with the `Signed:` line, or None."""
    if signed is None:
        return "no `Signed:` line"
    if not login_key(signed) or login_key(signed) == login_key(SIGNED_PLACEHOLDER):
        return "`Signed:` still holds the placeholder"
    if author is not None and login_key(signed) != login_key(author):
        return f"`Signed: {signed}` is not the comment's author @{author}"
    return None
