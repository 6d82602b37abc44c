"""The changelog as a ledger of bytes: raw bytes plus one block per top-level entry.

Every edit the tool makes is a splice of byte spans computed here, never a re-dump of YAML, so
bytes the edit does not target stay identical. :func:`parse_ledger` also enforces the file-level
rules (encoding, control characters, shape of entry starts, YAML safety) and reports every
problem it finds rather than stopping at the first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from changelog_tools import diagnostics as dx
from changelog_tools import yamlload
from changelog_tools.ledger import schema
from changelog_tools.utf8 import not_utf8

ENTRY_START_RE = re.compile(rb"^- config-keys:", re.MULTILINE)
ENTRY_START = b"- config-keys:"
# Beyond this many occurrences of one byte rule, report a count instead of every line.
MAX_REPORTS_PER_RULE = 10


@dataclass(frozen=True)
class Block:
    """One top-level entry: its byte span and parsed value.

    ``start`` is the offset of its ``- config-keys:`` line; ``content_end`` the end of its last
    non-blank line (newline included); ``end`` the start of the next entry or the end of the
    file, so ``raw[content_end:end]`` is the separator that follows it.
    """

    index: int
    start: int
    content_end: int
    end: int
    line: int
    data: Any

    def content(self, raw: bytes) -> bytes:
        return raw[self.start : self.content_end]

    def separator(self, raw: bytes) -> bytes:
        return raw[self.content_end : self.end]


@dataclass(frozen=True)
class Ledger:
    """A parsed changelog. ``blocks`` is empty when the structure could not be trusted."""

    raw: bytes
    path: str
    blocks: tuple[Block, ...] = ()
    diagnostics: tuple[dx.Diagnostic, ...] = ()
    loaded: yamlload.Loaded | None = None
    line_offset: int = 0

    @property
    def ok(self) -> bool:
        return not any(d.severity is dx.Severity.ERROR for d in self.diagnostics)

    @property
    def entries(self) -> list[Any]:
        return [b.data for b in self.blocks]

    @property
    def structured(self) -> bool:
        """True when every entry was located and parsed (blocks are trustworthy)."""
        return self.loaded is not None and isinstance(self.loaded.value, list)

    def line_of(self, offset: int) -> int:
        return self.raw.count(b"\n", 0, offset) + 1 + self.line_offset


def _line_of(raw: bytes, offset: int, line_offset: int) -> int:
    return raw.count(b"\n", 0, offset) + 1 + line_offset


def _byte_rule(
    raw: bytes,
    needle: bytes,
    code: str,
    what: str,
    path: str,
    line_offset: int,
    hint: str,
) -> list[dx.Diagnostic]:
    out: list[dx.Diagnostic] = []
    pos = raw.find(needle)
    count = 0
    last_line = -1
    first_untold: int | None = None
    line, counted = 1 + line_offset, 0
    while pos != -1:
        line_start = raw.rfind(b"\n", 0, pos) + 1
        # Count lines incrementally: from the start each time is quadratic on a CRLF file.
        line += raw.count(b"\n", counted, pos)
        counted = pos
        if line != last_line:
            count += 1
            last_line = line
            if count == MAX_REPORTS_PER_RULE + 1:
                first_untold = line
            if count <= MAX_REPORTS_PER_RULE:
                column = len(raw[line_start:pos].decode("utf-8", "replace")) + 1
                out.append(
                    dx.error(code, f"{what} at column {column}", path, line, column, hint=hint)
                )
        pos = raw.find(needle, pos + 1)
    if count > MAX_REPORTS_PER_RULE:
        out.append(
            # At the first line it counts: reports sort by line, and a summary without one
            # would come before the lines it follows.
            dx.error(
                code,
                f"{what} on {count - MAX_REPORTS_PER_RULE} more lines (from line {first_untold})",
                path,
                first_untold,
                None,
            )
        )
    return out


# Characters YAML refuses (C0 and C1 controls other than tab/LF/CR/NUL, which have their own
# rules; DEL; U+FFFE/U+FFFF) or reads as line breaks (NEL, LINE and PARAGRAPH SEPARATOR, easy
# to paste from a web page), which would shift every line number after them. In valid UTF-8
# these byte sequences cannot start inside another character.
_CONTROL_RE = re.compile(
    rb"[\x01-\x08\x0b\x0c\x0e-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xa8\xa9]|\xef\xbf[\xbe\xbf]"
)
# The same characters as code points, for a first look at the decoded text: on valid UTF-8 each
# branch above is exactly the encoding of one of these (C0 controls but TAB/LF/CR/NUL, DEL, the
# C1 controls U+0080-U+009F, U+2028/U+2029, U+FFFE/U+FFFF), so this finds a match exactly when
# that does. One character class is searched about twice as fast as the byte alternation, and
# nearly every file has no such character, so the itemizing byte scan rarely runs at all.
_CONTROL_TEXT_RE = re.compile("[\x01-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ufffe\uffff]")


def _control_rule(
    raw: bytes, path: str, line_offset: int, text: str | None = None
) -> list[dx.Diagnostic]:
    """``text``, when given, is ``raw`` decoded (``raw`` is then valid UTF-8)."""
    out: list[dx.Diagnostic] = []
    if text is not None and _CONTROL_TEXT_RE.search(text) is None:
        return out
    line, counted, last_line, count = 1 + line_offset, 0, -1, 0
    first_untold = 0
    for match in _CONTROL_RE.finditer(raw):
        pos = match.start()
        line += raw.count(b"\n", counted, pos)
        counted = pos
        if line == last_line:
            continue
        last_line = line
        count += 1
        if count == MAX_REPORTS_PER_RULE + 1:
            first_untold = line
        if count > MAX_REPORTS_PER_RULE:
            continue
        char = ord(match.group().decode("utf-8"))
        breaks = char in (0x85, 0x2028, 0x2029)
        what = "line separator" if breaks else "control character"
        line_start = raw.rfind(b"\n", 0, pos) + 1
        column = len(raw[line_start:pos].decode("utf-8", "replace")) + 1
        out.append(
            dx.error(
                dx.CONTROL_CHARACTER,
                f"invisible {what} U+{char:04X} at column {column}"
                + (" (YAML reads it as a line break)" if breaks else ""),
                path,
                line,
                column,
                hint="replace it with a space" if breaks else "delete it",
            )
        )
    if count > MAX_REPORTS_PER_RULE:
        out.append(
            dx.error(
                dx.CONTROL_CHARACTER,
                f"control characters or line separators on {count - MAX_REPORTS_PER_RULE} more "
                f"lines (from line {first_untold})",
                path,
                first_untold,
            )
        )
    return out


def byte_rules(
    raw: bytes, path: str, *, max_size: int | None = None, line_offset: int = 0
) -> list[dx.Diagnostic]:
    """File-level byte rules: size, UTF-8, BOM, final newline, no CR/tab/NUL/other controls."""
    out: list[dx.Diagnostic] = []
    if max_size is not None and len(raw) > max_size:
        out.append(
            dx.error(
                dx.TOO_LARGE,
                f"file is {len(raw):,} bytes; the limit is {max_size:,} (`max-file-size`)",
                path,
            )
        )
        return out
    if not raw:
        out.append(dx.error(dx.EMPTY_FILE, "file is empty", path, 1, 1))
        return out
    text: str | None = None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        out.append(not_utf8(raw, exc, path, line_offset=line_offset))
    if raw.startswith(b"\xef\xbb\xbf"):
        # Some Windows editors add it; without this the only finding would be a puzzling
        # "entry 1 does not begin with `- config-keys:`".
        out.append(
            dx.error(
                dx.BYTE_ORDER_MARK,
                "file starts with a UTF-8 byte-order mark (bytes EF BB BF)",
                path,
                1 + line_offset,
                1,
                hint="save the file as UTF-8 without a BOM",
            )
        )
    if not raw.endswith(b"\n"):
        last_line = _line_of(raw, len(raw), line_offset)
        out.append(
            dx.error(
                dx.NO_FINAL_NEWLINE,
                "file does not end with a newline",
                path,
                last_line,
                None,
                hint="without it the next append shows the last line as changed",
            )
        )
    out += _byte_rule(
        raw, b"\r", dx.CARRIAGE_RETURN, "carriage return (CR)", path, line_offset,
        "use Unix line endings (LF only)",
    )  # fmt: skip
    out += _byte_rule(raw, b"\t", dx.TAB, "tab character", path, line_offset, "indent with spaces")
    out += _byte_rule(raw, b"\x00", dx.NUL, "NUL byte", path, line_offset, "remove the NUL byte")
    if not any(d.code == dx.NOT_UTF8 for d in out):
        out += _control_rule(raw, path, line_offset, text)
    return out


def _content_end(raw: bytes, start: int, end: int) -> int:
    """End of the last line in ``raw[start:end]`` holding something other than whitespace."""
    pos = end
    while pos > start:
        line_start = raw.rfind(b"\n", start, pos - 1) + 1
        if line_start <= start:
            line_start = start
        if raw[line_start:pos].strip(b" \t\r\n"):
            return pos
        pos = line_start
    return start


# An explicit document end at column 0 (never inside an entry's indented values).
_DOCUMENT_END_RE = re.compile(rb"^\.\.\.(?:[ \t]+#[^\n]*|[ \t]*)$", re.MULTILINE)


def entry_starts(raw: bytes) -> list[int]:
    """Byte offsets of every line that begins with ``- config-keys:``.

    The offsets :data:`ENTRY_START_RE` finds (``^`` in multi-line mode matches at 0 and after
    every newline), found with ``bytes.find``: a C loop, several times faster on a whole file.
    """
    out = [0] if raw.startswith(ENTRY_START) else []
    needle = b"\n" + ENTRY_START
    find = raw.find
    pos = find(needle)
    while pos != -1:
        out.append(pos + 1)
        pos = find(needle, pos + len(needle))
    return out


def _document_end(raw: bytes) -> re.Match[bytes] | None:
    # The marker starts a line with "...": without such a line (nearly always) there is nothing
    # for the pattern to find, and two C scans are much cheaper than its line-by-line search.
    if not raw.startswith(b"...") and b"\n..." not in raw:
        return None
    return _DOCUMENT_END_RE.search(raw)


def parse_ledger(
    raw: bytes,
    *,
    path: str,
    max_size: int | None = None,
    line_offset: int = 0,
    entry_offset: int = 0,
    validate_entries: bool = True,
) -> Ledger:
    """Parse ``raw`` into a :class:`Ledger`, collecting every file-level and schema problem.

    ``line_offset`` and ``entry_offset`` describe where ``raw`` sits in a larger file (the entries
    and lines before it), so messages number entries and lines as the whole file does.
    """
    diags = byte_rules(raw, path, max_size=max_size, line_offset=line_offset)
    # CL009: the YAML reader would refuse the text, or number its lines differently from us.
    fatal = (dx.TOO_LARGE, dx.NOT_UTF8, dx.EMPTY_FILE, dx.CONTROL_CHARACTER)
    if any(d.code in fatal for d in diags):
        return Ledger(raw, path, (), tuple(diags), None, line_offset)
    text = raw.decode("utf-8")
    end_marker = _document_end(raw)
    if end_marker is not None:
        # Valid YAML on its own, but an entry appended after it (checked on its own, as every
        # append is) would start a second document and break the whole file.
        diags.append(
            dx.error(
                dx.MULTI_DOCUMENT,
                "document end marker `...` is not allowed in a changelog: an entry appended "
                "after it would start a second YAML document",
                path,
                _line_of(raw, end_marker.start(), line_offset),
                1,
                hint="delete the `...` line",
            )
        )
    try:
        loaded = yamlload.load(text, line_offset=line_offset, duplicates_as_notes=True)
    except yamlload.YamlProblem as exc:
        diags.append(dx.error(exc.code, exc.message, path, exc.line, exc.column))
        return Ledger(raw, path, (), tuple(diags), None, line_offset)
    for code, message, hint, (note_line, note_column) in loaded.notes:
        diags.append(dx.error(code, message, path, note_line, note_column, hint=hint))
    root = loaded.value
    if not isinstance(root, list):
        what = "empty" if root is None else f"a {type(root).__name__}"
        diags.append(
            dx.error(
                dx.ROOT_NOT_LIST,
                f"the root of the file is {what}; a changelog is a YAML list of entries",
                path,
                *(loaded.mark(()) or (1, 1)),
            )
        )
        return Ledger(raw, path, (), tuple(diags), loaded, line_offset)
    item_offsets = _match_entry_starts(raw, root, loaded, diags, path, line_offset, entry_offset)
    blocks = _blocks(raw, root, loaded, item_offsets)
    if validate_entries:
        diags.extend(_schema_findings(root, loaded, path, entry_offset))
    return Ledger(raw, path, tuple(blocks), tuple(diags), loaded, line_offset)


def _match_entry_starts(
    raw: bytes,
    root: list[Any],
    loaded: yamlload.Loaded,
    diags: list[dx.Diagnostic],
    path: str,
    line_offset: int,
    entry_offset: int,
) -> list[int | None]:
    """The byte offset of each item's `- config-keys:` line (None: the item does not start with
    one at column 0); a finding in ``diags`` for each such item and each unmatched line."""
    starts = entry_starts(raw)
    # Map line number -> byte offset for every `- config-keys:` line, then match items to lines.
    start_lines: dict[int, int] = {}
    line = 1 + line_offset
    prev = 0
    for off in starts:
        line += raw.count(b"\n", prev, off)
        prev = off
        start_lines[line] = off
    matched: set[int] = set()
    item_offsets: list[int | None] = []
    for i, item in enumerate(root):
        item_line, item_col = loaded.marks[(i,)]
        found_off = start_lines.get(item_line)
        first_key = next(iter(item), None) if isinstance(item, dict) else None
        if found_off is not None and item_col == 3 and first_key == "config-keys":
            matched.add(item_line)
            item_offsets.append(found_off)
            continue
        item_offsets.append(None)
        if isinstance(item, dict) and first_key != "config-keys":
            msg = (
                f"entry {entry_offset + i + 1} starts with `{first_key}`; every entry must begin with "
                "`- config-keys:` at column 0"
            )
        else:
            msg = f"entry {entry_offset + i + 1} does not begin with `- config-keys:` at column 0"
        diags.append(
            dx.error(
                dx.ENTRY_START,
                msg,
                path,
                item_line,
                max(item_col - 2, 1),
                hint="write each entry as `- config-keys:` at the start of a line, "
                "then its other fields indented by two spaces",
            )
        )
    for start_line, _off in sorted(start_lines.items()):
        if start_line not in matched:
            diags.append(
                dx.error(
                    dx.ENTRY_START,
                    "this `- config-keys:` line is not the start of a top-level entry "
                    f"({len(starts)} such lines, {len(root)} entries parsed)",
                    path,
                    start_line,
                    1,
                    hint="check the indentation of this entry and of the one before it",
                )
            )
    return item_offsets


def _blocks(
    raw: bytes, root: list[Any], loaded: yamlload.Loaded, item_offsets: list[int | None]
) -> list[Block]:
    """The entries' byte blocks, when every item starts at its own line (else none)."""
    blocks: list[Block] = []
    if all(o is not None for o in item_offsets):
        offsets = [o for o in item_offsets if o is not None]
        for i, off in enumerate(offsets):
            end = offsets[i + 1] if i + 1 < len(offsets) else len(raw)
            blocks.append(
                Block(
                    index=i,
                    start=off,
                    content_end=_content_end(raw, off, end),
                    end=end,
                    line=loaded.marks[(i,)][0],
                    data=root[i],
                )
            )
    return blocks


# Invalid entries itemized per file; past this the rest are only counted, so a file of 200,000
# broken entries costs the cheap validity test per entry, not jsonschema's error walk.
SCHEMA_ITEMIZED_ENTRIES = 200


def _schema_findings(
    root: list[Any], loaded: yamlload.Loaded, path: str, entry_offset: int
) -> list[dx.Diagnostic]:
    out: list[dx.Diagnostic] = []
    itemized = 0
    rest: list[int] = []
    for i, item in enumerate(root):
        if itemized < SCHEMA_ITEMIZED_ENTRIES:
            found = schema.validate_entry(
                item, index=entry_offset + i, entry_path=(i,), loaded=loaded, file=path
            )
            itemized += bool(found)
            out.extend(found)
        elif not schema.entry_valid(item):
            rest.append(i)
    if rest:
        line, column = loaded.mark((rest[0],)) or (None, None)
        out.append(
            dx.error(
                dx.SCHEMA_NOT_ITEMIZED,
                f"{len(rest):,} more entries (the first is entry {entry_offset + rest[0] + 1}) do "
                f"not match the entry schema; only the first {SCHEMA_ITEMIZED_ENTRIES} invalid "
                "entries are itemized",
                path,
                line,
                column,
                hint="fix the itemized entries and run again",
            )
        )
    return out


@dataclass(frozen=True)
class Splice:
    """Replace ``raw[start:end]`` with ``data``."""

    start: int
    end: int
    data: bytes


def apply_splices(raw: bytes, splices: Iterable[Splice]) -> bytes:
    """Apply non-overlapping splices; bytes outside every span are copied unchanged."""
    out: list[bytes] = []
    pos = 0
    for s in sorted(splices, key=lambda s: s.start):
        if s.start < pos:
            raise ValueError("overlapping splices")
        out.append(raw[pos : s.start])
        out.append(s.data)
        pos = s.end
    out.append(raw[pos:])
    return b"".join(out)


# Greedy to the end of the line; the spaces around the value are stripped in code. A lazy value
# followed by optional trailing spaces is quadratic on a long run of spaces.
PR_LINK_LINE_RE = re.compile(rb"^  pr-link:(?P<value>[^\n]*)", re.MULTILINE)


@dataclass(frozen=True)
class LinkLine:
    """The ``  pr-link:`` line of an entry: span of the whole line and of its value."""

    line_start: int
    line_end: int
    value_start: int
    value_end: int


def pr_link_lines(raw: bytes, block: Block) -> list[LinkLine]:
    """Every top-level ``pr-link`` line inside ``block``'s content."""
    out = []
    for m in PR_LINK_LINE_RE.finditer(raw, block.start, block.content_end):
        start, end = m.start("value"), m.end("value")
        value = m["value"]
        lead = len(value) - len(value.lstrip(b" "))
        trail = len(value) - len(value.rstrip(b" ")) if lead < len(value) else 0
        out.append(LinkLine(m.start(), m.end(), start + lead, end - trail))
    return out


def count_entries(raw: bytes) -> int:
    """How many entries ``raw`` holds (it passed the entry-start rule), by a C-speed byte scan
    of entry starts: no parse needed."""
    return raw.count(b"\n" + ENTRY_START) + raw.startswith(ENTRY_START)


_COMMENT_RE = re.compile(r"\s#")


def _value_core(text: str) -> str | None:
    """The scalar at the start of a one-line pr-link value (quotes included), without the
    comment that may follow it; None when it is not a simple quoted or plain scalar.

    In a plain scalar `#` starts a comment only after whitespace (`.../pull/XXX#x` is one
    value). Written as a scan rather than a lazy regex, which is quadratic on long lines.
    """
    if text[:1] in ('"', "'"):
        close = text.find(text[0], 1)
        if close < 0 or (text[0] == '"' and "\\" in text[1:close]):
            return None  # unterminated, or escapes this splice does not interpret
        core, rest = text[: close + 1], text[close + 1 :]
    elif text.startswith("#"):
        return None  # only a comment: a splice would glue the link to it
    else:
        comment = _COMMENT_RE.search(text)
        core = (text[: comment.start()] if comment else text).rstrip()
        rest = text[len(core) :]
    # What follows the scalar: nothing, spaces, or a comment after a space.
    if rest.strip() and not (rest[0].isspace() and rest.lstrip().startswith("#")):
        return None
    return core


def link_value_span(raw: bytes, block: Block, link: Any) -> tuple[int, int, bytes] | None:
    """Span of the link's own characters on the entry's single pr-link line, and a prefix:
    the splice that replaces a pr-link and nothing else (canonicalize, fix and recover use it).

    The prefix is a space to insert when the line is a bare ``  pr-link:``. None when the link
    is not written as a one-line scalar that reads back as ``link`` (then splicing the line
    could change more than the link).
    """
    lines = pr_link_lines(raw, block)
    if len(lines) != 1:
        return None
    found = lines[0]
    text = raw[found.value_start : found.value_end].decode("utf-8", "replace")
    core = _value_core(text)
    if core is None:
        return None
    unquoted = core[1:-1] if core[:1] in ("'", '"') else core
    if unquoted != ("" if link is None else link):
        return None
    start = found.value_start
    prefix = b" " if not core and raw[start - 1 : start] == b":" else b""
    end = start + len(core.encode())
    if core[:1] in ("'", '"'):
        # Keep the value's quoting style: replace what is between the quotes (a canonical link
        # holds no quote, backslash or `#`, so it reads back the same in either style).
        return start + 1, end - 1, prefix
    return start, end, prefix
