"""Three-way resolution of the changelog: merge-base, the pull request's side, main's side.

The result is main's bytes, exactly, followed by the entries the pull request appended since the
merge-base, each as its own byte block: the file the pull request would have produced had it
been written on top of main. A PR entry is dropped only when it is the same entry, its
canonicalized pr-link included, as one main appended since the merge-base (a commit
cherry-picked from main); equal fields under another link are another PR's entry (a re-sweep,
a follow-up, a recovery) and are kept, as is anything matching older history. Main's bytes come
first exactly, then the one empty line the PR's entries bring (also after a whitespace-only
line main ends with: that line is main's, not a separator). A pr-link-correction PR is replayed onto main's bytes
when main left those entries alone. Anything else is refused with the reason and the entry.

Which side is main is the caller's decision (see :mod:`changelog_tools.ledger.mergedriver` for how it
is detected in git); this module only sees bytes.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from changelog_tools import diagnostics as dx
from changelog_tools.config import Config
from changelog_tools.ledger import links
from changelog_tools.ledger.appendonly import (
    Change,
    ChangeKind,
    Correction,
    compare,
    entries_in_base,
    separator_after,
)
from changelog_tools.ledger.document import (
    Block,
    Ledger,
    Splice,
    apply_splices,
    parse_ledger,
    pr_link_lines,
)
from changelog_tools.ledger.guard import Refusal, require_valid
from changelog_tools.ledger.mainside import MainSide as MainSide
from changelog_tools.ledger.mainside import main_side_entries as main_side_entries
from changelog_tools.ledger.mainside import shared_entries_end as shared_entries_end
from changelog_tools.ledger.mainside import signature, structure
from changelog_tools.ledger.resolution import AppendedEntry as AppendedEntry
from changelog_tools.ledger.resolution import AppliedCorrection as AppliedCorrection
from changelog_tools.ledger.resolution import DroppedEntry as DroppedEntry
from changelog_tools.ledger.resolution import Labels as Labels
from changelog_tools.ledger.resolution import Resolution as Resolution

if TYPE_CHECKING:
    from changelog_tools.ledger.canonicalize import Substitution

# Codes that mean "this side changed what was already there", as opposed to "its new entries
# are malformed".
_REWRITE_CODES = frozenset(
    {
        dx.ENTRY_DELETED,
        dx.ENTRY_CHANGED,
        dx.ENTRY_INSERTED,
        dx.REFORMATTED,
        dx.HISTORY_BYTES_CHANGED,
        dx.MIXED_CORRECTION_APPEND,
        dx.CORRECTION_OUTSIDE_LINK,
        dx.CONTINUES_HISTORY,
        dx.BASE_NO_FINAL_NEWLINE,
    }
)
# Separators between the PR's entries are rebuilt here, so its own separator slips don't matter.
_REBUILT_CODES = frozenset({dx.APPEND_SEPARATOR, dx.FINAL_NEWLINES})


def canonical_identity(data: Any, *, config: Config, pr: int | None) -> str | None:
    """The entry with its canonicalized link, as a string; None when it has no link that could
    equal another entry's (a placeholder of an unknown PR, a link that names no PR).

    Two entries are "the same entry" only when these are equal: equal fields with different
    links are two PRs' entries (a re-sweep, a follow-up, a recovery), never one.
    """
    if not isinstance(data, dict):
        return None
    link = data.get("pr-link")
    if not isinstance(link, str):
        return None
    found = links.classify(link, repository=config.repository, placeholders=config.placeholders)
    if found.kind is links.LinkKind.PLACEHOLDER:
        number = pr
    elif found.kind in (links.LinkKind.CANONICAL, links.LinkKind.NEAR_MISS):
        number = found.pr
    else:
        number = None
    if number is None:
        return None
    canonical = {**data, "pr-link": links.canonical_link(config.repository, number)}
    return json.dumps(canonical, sort_keys=True, default=str, ensure_ascii=False)


def carried(raw: bytes, block: Block) -> bytes:
    """The whitespace-only lines after ``block``'s content that belong to it (not empty lines).

    ``"  \\n\\n"`` after an entry is a whitespace-only line it carried plus the empty separator
    line; only the former is the entry's.
    """
    sep = raw[block.content_end : block.end]
    if not sep.strip(b"\n"):
        return b""
    return sep.rstrip(b"\n") + b"\n"


def join_after(history: bytes, blocks: Sequence[bytes]) -> bytes:
    """``history`` plus ``blocks``, each preceded by exactly one empty line.

    A preceding blank or whitespace-only line already counts as that empty line.
    """
    out = [history]
    last = history
    for block in blocks:
        out.append(separator_after(last))
        out.append(block)
        last = block
    return b"".join(out)


def _line_numbers(data: bytes, offsets: Sequence[int]) -> list[int]:
    """1-based line numbers of sorted ``offsets`` in ``data``, counting each gap once."""
    out: list[int] = []
    line, pos = 1, 0
    for off in offsets:
        line += data.count(b"\n", pos, off)
        pos = off
        out.append(line)
    return out


def _side_change(
    base: bytes, side: bytes, *, label: str, base_label: str, config: Config
) -> Change:
    return compare(base, side, path=label, base_label=base_label, max_size=config.max_file_size)


def _refuse_pr_change(change: Change, labels: Labels) -> None:
    errors = [d for d in change.diagnostics if d.severity is dx.Severity.ERROR]
    codes = {d.code for d in errors}
    if change.kind is ChangeKind.NONE:
        raise Refusal(
            dx.NOTHING_REMAINS,
            "the PR side does not change the changelog since the merge-base; there is nothing "
            "of the PR to keep",
            path=labels.pr,
            hint="if the PR should not touch the changelog, take main's version "
            "(git checkout --theirs / --ours, whichever is main)",
        )
    if dx.BASE_INVALID in codes:
        raise Refusal(
            dx.MAIN_SIDE_INVALID,
            "the merge-base version of the changelog is invalid, so the PR's change cannot be "
            "determined",
            path=labels.base,
            details=errors,
        )
    rewrites = [d for d in errors if d.code in _REWRITE_CODES]
    if rewrites:
        first = rewrites[0]
        raise Refusal(
            dx.PR_REWROTE_HISTORY,
            "the PR side changed the history it started from (not only appended entries or "
            f"corrected pr-links): {first.message}",
            path=labels.pr,
            line=first.line,
            hint="restore the merge-base bytes on the PR branch and append the new entries "
            "after them, then merge again",
            details=errors,
        )
    blocking = [d for d in errors if d.code not in _REBUILT_CODES]
    if change.kind is ChangeKind.INVALID or (change.kind is ChangeKind.APPENDED and blocking):
        shown = blocking or errors
        raise Refusal(
            dx.PR_SIDE_INVALID,
            "the entries the PR appended are not valid"
            + (f": {shown[0].message}" if shown else ""),
            path=labels.pr,
            line=shown[0].line if shown else None,
            hint="fix the PR's entries (`changelog-tools check` on the PR branch lists every "
            "problem), then merge again",
            details=blocking or errors,
        )


def resolve(
    base: bytes | None,
    pr_side: bytes,
    main_side: bytes,
    *,
    config: Config,
    pr: int | None = None,
    path: str | None = None,
    verify_mode: str | None = None,
    fix_near_misses: bool = False,
) -> Resolution:
    """Resolve the changelog from its merge-base, PR and main versions (bytes in, bytes out).

    ``base`` None means the file did not exist at the merge-base. With ``pr``, placeholder links
    of the PR's entries become ``pr``'s canonical link (near-misses too with
    ``fix_near_misses``). The result is checked against
    ``main_side`` in ``verify_mode`` (default: main with ``pr``, local without, since the
    placeholders then stay). Raises :class:`~changelog_tools.ledger.canonicalize.Refusal`.
    """
    labels = Labels.for_path(path or config.changelog)
    mode = verify_mode or ("main" if pr is not None else "local")
    history = base or b""
    pr_change = _side_change(
        history, pr_side, label=labels.pr, base_label=labels.base, config=config
    )
    _refuse_pr_change(pr_change, labels)
    main_info = main_side_entries(
        history, main_side, labels=labels, base_entries=pr_change.history_entries
    )
    sides = _Sides(history, pr_side, main_side, pr_change, main_info, labels, config, mode)
    if pr_change.kind is ChangeKind.CORRECTED:
        return _resolve_corrections(sides)
    return _resolve_appends(sides, pr=pr, fix_near_misses=fix_near_misses)


@dataclass(frozen=True, slots=True)
class _Sides:
    """The three versions, what is known of the PR's and main's changes, and how to name and
    verify them: what both ways of resolving start from."""

    base: bytes
    pr_side: bytes
    main: bytes
    pr_change: Change
    main_info: MainSide
    labels: Labels
    config: Config
    mode: str

    def resolution(
        self,
        data: bytes,
        *,
        kind: str,
        main_entries: int,
        appended: tuple[AppendedEntry, ...] = (),
        dropped: tuple[DroppedEntry, ...] = (),
        substitutions: tuple[Substitution, ...] = (),
        corrections: tuple[AppliedCorrection, ...] = (),
        warnings: tuple[dx.Diagnostic, ...] = (),
    ) -> Resolution:
        """``data`` with its account, once it passes `check` against main's side in ``mode``
        (a :class:`Refusal` when it does not); check's warnings follow ``warnings``."""
        more = require_valid(
            self.main,
            data,
            config=self.config,
            mode=self.mode,
            path=self.labels.result,
            base_label=self.labels.main,
            what="the resolved file",
        )
        return Resolution(
            data=data,
            kind=kind,
            main_bytes=len(self.main),
            main_entries=main_entries,
            main_appended=len(self.main_info.new),
            appended=appended,
            dropped=dropped,
            substitutions=substitutions,
            corrections=corrections,
            warnings=warnings + more,
            verified_mode=self.mode,
        )


def _resolve_appends(sides: _Sides, *, pr: int | None, fix_near_misses: bool) -> Resolution:
    """Main's bytes, then the PR's appended entries main does not already hold, their links
    canonicalized with ``pr``; checked against main in ``mode``."""
    pr_side, main, config, labels = sides.pr_side, sides.main, sides.config, sides.labels
    main_info = sides.main_info
    kept, dropped = _not_on_main(sides.pr_change, main_info, config=config, pr=pr, labels=labels)
    splices: list[Splice] = []
    subs: tuple[Substitution, ...] = ()
    warnings: tuple[dx.Diagnostic, ...] = ()
    if pr is not None:
        # Imported here: the merge driver never names the PR, so it never plans links.
        from changelog_tools.ledger.canonicalize import plan_links

        # Problems point at the PR side (its entry numbers and lines).
        plan = plan_links(
            pr_side,
            [b for _, b in kept],
            pr=pr,
            repository=config.repository,
            placeholders=config.placeholders,
            fix_near_misses=fix_near_misses,
            path=labels.pr,
            numbers=[number for number, _ in kept],
        )
        splices = list(plan.splices)
        warnings = plan.warnings
        subs = plan.substitutions
    chunks = [_own_bytes(pr_side, block, splices) for _, block in kept]
    data = join_after(main, chunks)
    appended, subs = _account(main, data, chunks, kept, subs, main_entries=main_info.entries)
    return sides.resolution(
        data,
        kind="appended",
        main_entries=main_info.entries,
        appended=appended,
        dropped=tuple(dropped),
        substitutions=subs,
        warnings=warnings,
    )


def _not_on_main(
    pr_change: Change, main_info: MainSide, *, config: Config, pr: int | None, labels: Labels
) -> tuple[list[tuple[int, Block]], list[DroppedEntry]]:
    """The PR's appended entries (numbered on the PR side) to keep, and those dropped.

    Entries main added since the merge-base, link included; each can absorb one PR entry that
    is the same entry (cherry-picked from main), never one that only reads the same. Refuses
    when nothing of the PR remains.
    """
    pr_first = entries_in_base(pr_change) + 1
    on_main: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for number, line, data in main_info.new:
        identity = canonical_identity(data, config=config, pr=None)
        if identity is not None:
            on_main[identity].append((number, line))
    kept: list[tuple[int, Block]] = []
    dropped: list[DroppedEntry] = []
    for i, block in enumerate(pr_change.appended):
        identity = canonical_identity(block.data, config=config, pr=pr)
        matches = on_main.get(identity) if identity is not None else None
        if matches:
            main_entry, main_line = matches.pop(0)
            dropped.append(DroppedEntry(pr_first + i, block.line, main_entry, main_line))
        else:
            kept.append((pr_first + i, block))
    if not kept:
        listed = ", ".join(f"{d.pr_entry} (as main's {d.main_entry})" for d in dropped)
        raise Refusal(
            dx.NOTHING_REMAINS,
            f"every entry the PR appended is already on main: PR entries {listed}; nothing of "
            "the PR remains",
            path=labels.pr,
            line=dropped[0].pr_line if dropped else None,
            hint="main already has this change; take main's version of the file",
        )
    return kept, dropped


def _own_bytes(pr_side: bytes, block: Block, splices: Sequence[Splice]) -> bytes:
    """``block``'s bytes on the PR side (whitespace-only lines it carried included), with the
    ``splices`` that fall inside it applied."""
    end = block.content_end + len(carried(pr_side, block))
    inside = [
        Splice(s.start - block.start, s.end - block.start, s.data)
        for s in splices
        if block.start <= s.start < end
    ]
    return apply_splices(pr_side[block.start : end], inside)


def _account(
    main: bytes,
    data: bytes,
    chunks: Sequence[bytes],
    kept: Sequence[tuple[int, Block]],
    subs: tuple[Substitution, ...],
    *,
    main_entries: int,
) -> tuple[tuple[AppendedEntry, ...], tuple[Substitution, ...]]:
    """Where each kept entry landed in ``data`` (number, line, link), and the substitutions
    renumbered and moved to where they are in the result."""
    starts: list[int] = []
    pos = len(main)
    last = main
    for chunk in chunks:
        pos += len(separator_after(last))
        starts.append(pos)
        pos += len(chunk)
        last = chunk
    main_lines = main.count(b"\n")
    lines = [
        main_lines + n for n in _line_numbers(data[len(main) :], [s - len(main) for s in starts])
    ]
    new_links = {s.entry: s.new for s in subs}
    appended = tuple(
        AppendedEntry(
            main_entries + k + 1,
            lines[k],
            block.line,
            new_links.get(
                number, block.data.get("pr-link") if isinstance(block.data, dict) else None
            ),
        )
        for k, (number, block) in enumerate(kept)
    )
    position = {number: k for k, (number, _) in enumerate(kept)}
    moved = tuple(
        replace(s, entry=appended[k].entry, line=appended[k].line + s.line - kept[k][1].line)
        for s in subs
        for k in [position[s.entry]]
    )
    return appended, moved


def _main_block_for(main_ledger: Ledger, index: int, sig: str) -> Block | None:
    """Main's version of base entry ``index``: the same position when it still means the same,
    else the one main entry with that meaning (main inserted entries before it)."""
    blocks = main_ledger.blocks
    if index < len(blocks) and signature(blocks[index].data) == sig:
        return blocks[index]
    same = [b for b in blocks if signature(b.data) == sig]
    return same[0] if len(same) == 1 else None


def _resolve_corrections(sides: _Sides) -> Resolution:
    """The PR's pr-link corrections replayed onto main's bytes, where main left those entries
    alone; checked against main in ``mode``."""
    pr_side, main, labels = sides.pr_side, sides.main, sides.labels
    # A correction rewrites history, so whole files are parsed here (structure only: the
    # comparison of the PR side already applied the schema).
    base_ledger = parse_ledger(sides.base, path=labels.base, validate_entries=False)
    pr_ledger = parse_ledger(pr_side, path=labels.pr, validate_entries=False)
    # The slow path of reading main's side parsed it whole (and refused it when invalid).
    main_ledger = sides.main_info.ledger or structure(main, path=labels.main, what="main's side")
    splices: list[Splice] = []
    applied: list[AppliedCorrection] = []
    for corr in sides.pr_change.corrections:
        sig = signature(base_ledger.blocks[corr.index].data)
        splice, done = _replay_correction(
            corr, main, main_ledger, sig, pr_side, pr_ledger, labels=labels
        )
        applied.append(done)
        if splice is not None:
            splices.append(splice)
    if not splices:
        raise Refusal(
            dx.NOTHING_REMAINS,
            "the PR's pr-link corrections are already on main; nothing of the PR remains",
            path=labels.pr,
            hint="take main's version of the file",
        )
    return sides.resolution(
        apply_splices(main, splices),
        kind="corrected",
        main_entries=len(main_ledger.blocks),
        corrections=tuple(applied),
    )


def _replay_correction(
    corr: Correction,
    main: bytes,
    main_ledger: Ledger,
    sig: str,
    pr_side: bytes,
    pr_ledger: Ledger,
    *,
    labels: Labels,
) -> tuple[Splice | None, AppliedCorrection]:
    """The splice that puts the PR's pr-link line into main's version of the entry (None when
    main already has it); refuses when main changed, moved or relinked that entry."""
    number = corr.index + 1
    main_block = _main_block_for(main_ledger, corr.index, sig)
    if main_block is None:
        raise Refusal(
            dx.CORRECTION_CONFLICT,
            f"entry {number}: the PR corrects its pr-link, but main changed, removed or "
            "duplicated that entry since the merge-base",
            path=labels.main,
            line=main_ledger.blocks[corr.index].line
            if corr.index < len(main_ledger.blocks)
            else None,
            hint="resolve this conflict by hand",
        )
    main_number = main_block.index + 1
    main_link = main_block.data.get("pr-link") if isinstance(main_block.data, dict) else None
    main_lines = pr_link_lines(main, main_block)
    line = main_block.line
    if main_lines:
        line += main.count(b"\n", main_block.start, main_lines[0].line_start)
    if main_link == corr.new:
        return None, AppliedCorrection(main_number, line, corr.old, corr.new, True)
    if main_link != corr.old:
        raise Refusal(
            dx.CORRECTION_CONFLICT,
            f"entry {main_number}: main changed its pr-link to {main_link!r} since the "
            f"merge-base; the PR changes it from {corr.old!r} to {corr.new!r}",
            path=labels.main,
            line=line,
            hint="decide which link is right and resolve this conflict by hand",
        )
    pr_lines = pr_link_lines(pr_side, pr_ledger.blocks[corr.index])
    if len(main_lines) != 1 or len(pr_lines) != 1:
        raise Refusal(
            dx.LINK_LINE,
            f"entry {main_number}: could not find exactly one `  pr-link:` line to correct",
            path=labels.main,
            line=line,
            hint="resolve this conflict by hand",
        )
    new_line = pr_side[pr_lines[0].line_start : pr_lines[0].line_end]
    splice = Splice(main_lines[0].line_start, main_lines[0].line_end, new_line)
    return splice, AppliedCorrection(main_number, line, corr.old, corr.new, False)


def _full_identity(data: Any) -> str:
    return json.dumps(data, sort_keys=True, default=str, ensure_ascii=False)


def without_own_entries(
    base: bytes, main: bytes, *, onto: bytes | None
) -> tuple[bytes, bytes] | None:
    """During a rebase: ``base`` and ``main`` without the PR's own entries both already hold.

    When a rebase replays a later commit of the PR, the merge-base is the PR's previous commit
    and "main" is main plus the PR's commits replayed so far: both hold the PR's own entries
    (those not in ``onto``, the version of the branch being rebased onto). They are not history,
    so an edit of them by the later commit is the PR's to make. Returns (base, main) with that
    tail of entries cut off (the separator before it too), so the later commit's version is an
    append again; None when there is no such tail or main does not end with it byte for byte.
    """
    base_ledger = parse_ledger(base, path="base", validate_entries=False)
    if not base_ledger.ok or not base_ledger.structured or not base_ledger.blocks:
        return None
    on_onto: Counter[str] = Counter()
    if onto:
        onto_ledger = parse_ledger(onto, path="onto", validate_entries=False)
        if not onto_ledger.structured:
            return None
        on_onto.update(_full_identity(b.data) for b in onto_ledger.blocks)
    blocks = base_ledger.blocks
    first = len(blocks)
    while first > 0 and on_onto[_full_identity(blocks[first - 1].data)] == 0:
        first -= 1
    if first == len(blocks):
        return None
    tail = base[blocks[first].start :]
    if not main.endswith(tail):
        return None
    history, rest = base[: blocks[first].start], main[: len(main) - len(tail)]
    # The empty line before the tail separated it from history: the resolution brings its own.
    if history.endswith(b"\n\n"):
        history = history[:-1]
    if rest.endswith(b"\n\n"):
        rest = rest[:-1]
    return history, rest
