"""Base vs head of the ledger: what a change did (appended / corrected / nothing) and its byte rules.

The common case is a change that only appends: the head starts with the base bytes. Then only
the appended suffix is parsed (history was checked when it landed), so the cost follows the size
of the change, not of the file. Anything else falls back to a full entry-by-entry comparison
(:mod:`.historywalk`) that explains precisely what was deleted, inserted, changed or
reformatted. The byte rules of appended text are :mod:`.appendbytes`; the classified change is
:mod:`.change` (its names are re-exported here, where callers import them).

This module knows nothing of pr-link policy or master configs; `check` layers those on top.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from changelog_tools import diagnostics as dx
from changelog_tools.ledger.appendbytes import lead_findings, separator_findings
from changelog_tools.ledger.appendbytes import separator_after as separator_after
from changelog_tools.ledger.appendbytes import whitespace_findings as whitespace_findings
from changelog_tools.ledger.change import FIX_HINT as FIX_HINT
from changelog_tools.ledger.change import Change as Change
from changelog_tools.ledger.change import ChangeKind as ChangeKind
from changelog_tools.ledger.change import Correction as Correction
from changelog_tools.ledger.change import first_difference_line as first_difference_line
from changelog_tools.ledger.change import without_link as without_link
from changelog_tools.ledger.document import ENTRY_START_RE, Block, count_entries, parse_ledger

if TYPE_CHECKING:
    from changelog_tools.config import Config


def compare_configured(
    base: bytes | None,
    head: bytes,
    *,
    config: Config,
    path: str,
    base_label: str | None = None,
    strict: bool = False,
) -> Change:
    """:func:`compare` under the options of ``config`` that change its rules (the size limit,
    lines of spaces as separators), as `check` and `canonicalize` apply them."""
    return compare(
        base,
        head,
        path=path,
        base_label=base_label,
        max_size=config.max_file_size,
        strict=strict,
        whitespace_separator=config.whitespace_only_separator,
    )


def _shift(block: Block, delta: int) -> Block:
    return Block(
        index=block.index,
        start=block.start + delta,
        content_end=block.content_end + delta,
        end=block.end + delta,
        line=block.line,
        data=block.data,
    )


def compare(
    base: bytes | None,
    head: bytes,
    *,
    path: str,
    base_label: str | None = None,
    max_size: int | None = None,
    strict: bool = False,
    whitespace_separator: str = "error",
) -> Change:
    """Classify ``head`` against ``base`` and apply every append-only byte and entry rule.

    ``base`` is None when the file did not exist before (everything in ``head`` is appended).
    ``whitespace_separator`` "warning" lets a line of spaces stand in for an empty separator
    line (the `whitespace-only-separator` option); "error" is the reference gate's rule.
    """
    history = base or b""
    if max_size is not None and len(head) > max_size:
        return Change(
            ChangeKind.INVALID,
            history,
            head,
            diagnostics=(
                dx.error(
                    dx.TOO_LARGE,
                    f"file is {len(head):,} bytes; the limit is {max_size:,} (`max-file-size`)",
                    path,
                ),
            ),
        )
    if head == history:
        return Change(ChangeKind.NONE, history, head, fast_path=True)
    if head.startswith(history) and (not history or history.endswith(b"\n")):
        return _compare_append(
            history, head, path=path, strict=strict, lenient=whitespace_separator == "warning"
        )
    # Imported here: the common change (an append, every merge driver step) never walks history.
    from changelog_tools.ledger.historywalk import compare_full

    return compare_full(
        history, head, path=path, base_label=base_label or f"{path} (base)", strict=strict
    )


def entries_in_base(change: Change) -> int:
    """Entries in ``change.base``: the comparison counted them already when ``head`` only
    appends to it (the same count as :func:`~changelog_tools.ledger.document.count_entries`,
    one pass over history saved)."""
    if change.history_entries is not None:
        return change.history_entries
    return count_entries(change.base)


def _compare_append(
    history: bytes, head: bytes, *, path: str, strict: bool, lenient: bool = False
) -> Change:
    """The fast path: the head starts with the base bytes, so only the suffix is parsed."""
    suffix = head[len(history) :]
    history_lines = history.count(b"\n")
    first_new_line = history_lines + 1
    found = ENTRY_START_RE.search(suffix)
    lead = suffix[: found.start()] if found else suffix
    if found is None or lead.strip():
        diagnostic = _not_an_entry(lead, first_new_line, path)
        return Change(ChangeKind.INVALID, history, head, diagnostics=(diagnostic,), fast_path=True)
    diags = lead_findings(history, lead, first_new_line, path, lenient=lenient)
    region_start = len(history) + len(lead)
    region = head[region_start:]
    history_entries = count_entries(history)
    ledger = parse_ledger(
        region,
        path=path,
        line_offset=history_lines + lead.count(b"\n"),
        entry_offset=history_entries,
    )
    diags.extend(ledger.diagnostics)
    blocks = tuple(_shift(b, region_start) for b in ledger.blocks)
    diags.extend(separator_findings(head, blocks, path, strict=strict, lenient=lenient))
    diags.extend(whitespace_findings(head, blocks, path, strict=strict))
    kind = ChangeKind.APPENDED if blocks else ChangeKind.INVALID
    return Change(
        kind,
        history,
        head,
        appended=blocks,
        diagnostics=tuple(diags),
        fast_path=True,
        history_entries=history_entries,
    )


def _not_an_entry(lead: bytes, first_new_line: int, path: str) -> dx.Diagnostic:
    """Text after the history that is not a new entry: it extends the last existing entry
    (or is stray text), which edits history; or it is only blank lines at the end."""
    first_text = next((i for i, ln in enumerate(lead.split(b"\n")) if ln.strip()), None)
    if first_text is None:
        return dx.error(
            dx.FINAL_NEWLINES,
            "the change only adds blank lines at the end of the file",
            path,
            first_new_line,
            1,
            hint="the file must end with exactly one newline; remove the added lines",
        )
    return dx.error(
        dx.CONTINUES_HISTORY,
        "these lines extend the last existing entry instead of starting a new one; "
        "existing entries are immutable",
        path,
        first_new_line + first_text,
        1,
        hint="start every new entry with `- config-keys:` at column 0, after one empty line",
    )
