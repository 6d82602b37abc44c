"""`fix`: repair every mechanical problem `check` finds in a change, keeping every other byte.

Adopting the tool on a repository whose history was never held to the byte rules means many
pull requests fail `check` for reasons a machine can repair: a new entry pasted among the
history (CL103), history bytes reformatted by an editor (CL104/CL105), separators that are not
one empty line (CL108), a missing or doubled final newline (CL109), a pr-link one typo away
from a placeholder or this PR's link (CL203). :func:`fix_change` rebuilds the file as `check`
wants it: the base's bytes exactly, then each entry the change added, its own bytes, in the
order they had, each after one empty line; near-miss links in those entries become canonical
(when their number is known) or the placeholder.

What needs a human is refused and nothing is written: an existing entry changed in meaning or
deleted (a real edit of history: which side is right cannot be told), a file that does not
parse into entries, a link that points at another pull request.

No library repairs a ledger: the rules are this project's (`check`), and the repair must keep
bytes a YAML round trip would rewrite, so it works on byte spans from
:mod:`~changelog_tools.ledger.document`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from changelog_tools import diagnostics as dx
from changelog_tools.config import Config
from changelog_tools.ledger.appendonly import (
    ChangeKind,
    compare,
    first_difference_line,
    separator_after,
)
from changelog_tools.ledger.document import (
    Block,
    Splice,
    apply_splices,
    link_value_span,
    parse_ledger,
)
from changelog_tools.ledger.guard import Refusal
from changelog_tools.ledger.historywalk import new_entries_among
from changelog_tools.ledger.links import (
    LinkKind,
    canonical_link,
    classify,
    placeholder_links,
)
from changelog_tools.ledger.placement import parse_entries

HISTORY_EDITED = dx.register(
    "CL520",
    "history-edited",
    "`fix` refuses: an existing entry changed in meaning or was deleted (needs a human).",
)
_BLANK = b" \t\r\n"
# What a human must look at: `fix` leaves these to the author.
_HUMAN = frozenset({dx.ENTRY_DELETED, dx.ENTRY_CHANGED, dx.MIXED_CORRECTION_APPEND})


@dataclass(frozen=True)
class Repair:
    """One thing `fix` changed: the rule it satisfies now, and where (in the fixed file)."""

    code: str
    message: str
    line: int | None

    def as_json(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "line": self.line}


@dataclass(frozen=True)
class Fixed:
    data: bytes
    repairs: tuple[Repair, ...]

    @property
    def changed(self) -> bool:
        return bool(self.repairs)


def fix_change(
    base: bytes | None,
    head: bytes,
    *,
    config: Config,
    path: str,
    base_label: str,
    pr: int | None = None,
) -> Fixed:
    """The bytes of ``head`` with every mechanical problem of its change from ``base`` repaired.

    Raises :class:`Refusal` (nothing to write) for what needs a human. ``pr``, when known, is
    the number near-miss links of the appended entries are made canonical with; without it a
    near-miss link becomes the placeholder (`canonicalize` fills in the number later).
    """
    change = compare(
        base,
        head,
        path=path,
        base_label=base_label,
        max_size=config.max_file_size,
        whitespace_separator=config.whitespace_only_separator,
    )
    human = [d for d in change.diagnostics if d.code in _HUMAN]
    if change.kind is ChangeKind.CORRECTED and not human:
        return Fixed(head, ())  # a pr-link correction on its own: nothing mechanical to do
    history = base or b""
    base_ledger, head_ledger = parse_entries(
        history, head, path=path, base_label=base_label, so="nothing can be repaired mechanically"
    )
    base_blocks = base_ledger.blocks if base_ledger else ()
    new = new_entries_among(base_blocks, head_ledger.blocks)
    if new is None or human:
        raise Refusal(
            HISTORY_EDITED,
            "the change edits or deletes existing entries: a real edit of history, which `fix` "
            "leaves to a human; nothing was written",
            path=path,
            line=human[0].line if human else None,
            hint="restore the existing entries from the base (`git checkout BASE -- FILE`, "
            "then re-append your entry), or correct a pr-link in a change of its own",
            details=human,
        )
    data, repairs = _rebuild(history, head, new, base_blocks, head_ledger.blocks, path)
    data, link_repairs = _fix_links(data, len(base_blocks), config=config, path=path, pr=pr)
    if data == head:
        return Fixed(head, ())
    done = (*repairs, *link_repairs)
    if not done:
        # Every byte `fix` writes differently is a repair it names: a rewrite it cannot
        # explain would be reported as "nothing to repair" while the file on disk stays as
        # `check` rejects it.
        line = first_difference_line(head, data)
        done = (
            Repair(
                dx.HISTORY_BYTES_CHANGED,
                f"restored the base's bytes from line {line} (the change had altered them)",
                line,
            ),
        )
    return Fixed(data, done)


def _rebuild(
    history: bytes,
    head: bytes,
    new: tuple[Block, ...],
    base_blocks: tuple[Block, ...],
    head_blocks: tuple[Block, ...],
    path: str,
) -> tuple[bytes, list[Repair]]:
    """The base's bytes, then each new entry's own bytes after one empty line."""
    repairs: list[Repair] = []
    new_ids = {b.index for b in new}
    last_old = max((b.index for b in head_blocks if b.index not in new_ids), default=-1)
    kept = apply_splices(head, [Splice(b.start, b.end, b"") for b in new])
    # Blank lines after the last existing entry are the separator (CL108), not history...
    if base_blocks and kept.rstrip(_BLANK) != history.rstrip(_BLANK):
        line = first_difference_line(history, kept)
        repairs.append(
            Repair(
                dx.HISTORY_BYTES_CHANGED,
                f"restored the existing entries' bytes from the base (they differed from line "
                f"{line}; their meaning did not)",
                line,
            )
        )
    elif base_blocks and not kept.startswith(history):
        # ...unless they are the base's own: empty lines at the end of the base are history's
        # bytes, and a change that trims them fails `check` (CL105) like any other edit.
        line = history.rstrip(_BLANK).count(b"\n") + 2  # the first of them, in the result
        repairs.append(
            Repair(
                dx.HISTORY_BYTES_CHANGED,
                f"restored the base's empty lines after its last entry (from line {line}; the "
                "change had removed them)",
                line,
            )
        )
    data = history
    for number, block in enumerate(new, start=len(base_blocks) + 1):
        chunk = head[block.start : block.content_end]
        if not chunk.endswith(b"\n"):
            chunk += b"\n"
        sep = separator_after(data)
        line = data.count(b"\n") + sep.count(b"\n") + 1
        data += sep + chunk
        if block.index < last_old:
            repairs.append(
                Repair(
                    dx.ENTRY_INSERTED,
                    f"moved new entry {block.index + 1} (line {block.line}) to the end, as entry "
                    f"{number}",
                    line,
                )
            )
    if _layout_off(head, head_blocks, new_ids):
        repairs.append(
            Repair(
                dx.APPEND_SEPARATOR,
                "wrote exactly one empty line before each new entry and one newline at the end",
                None,
            )
        )
    return data, repairs


def _layout_off(head: bytes, blocks: tuple[Block, ...], new_ids: set[int]) -> bool:
    """Whether a new entry is not preceded by exactly one empty line, or the file does not end
    with exactly one newline after its last entry."""
    for i, block in enumerate(blocks):
        if (
            block.index in new_ids
            and i > 0
            and head[blocks[i - 1].content_end : block.start] != b"\n"
        ):
            return True
    if not blocks:
        return False
    last = blocks[-1]
    return head[last.content_end :] != b"" or not head.endswith(b"\n")


def _fix_links(
    data: bytes, existing: int, *, config: Config, path: str, pr: int | None
) -> tuple[bytes, list[Repair]]:
    """Near-miss pr-links of the appended entries made canonical (known number) or the
    placeholder; links to another pull request are left for `check` to report."""
    ledger = parse_ledger(data, path=path, validate_entries=False)
    placeholder = placeholder_links(config.repository, config.placeholders)[0]
    splices: list[Splice] = []
    repairs: list[Repair] = []
    for block in ledger.blocks[existing:]:
        link = block.data.get("pr-link") if isinstance(block.data, dict) else None
        if not isinstance(link, str):
            continue
        found = classify(link, repository=config.repository, placeholders=config.placeholders)
        if found.kind is not LinkKind.NEAR_MISS:
            continue
        if found.pr is not None and pr is not None and found.pr != pr:
            continue  # another PR's number: not a typo this tool may guess at
        number = found.pr if found.pr is not None else pr
        target = canonical_link(config.repository, number) if number else placeholder
        span = link_value_span(data, block, link)
        if span is None:
            continue
        start, end, prefix = span
        splices.append(Splice(start, end, prefix + target.encode()))
        line = block.line + data.count(b"\n", block.start, start)
        repairs.append(
            Repair(
                dx.NEAR_MISS_LINK,
                f"entry {block.index + 1}: pr-link {link!r} made `{target}` ({found.reason})",
                line,
            )
        )
    return (apply_splices(data, splices) if splices else data), repairs
