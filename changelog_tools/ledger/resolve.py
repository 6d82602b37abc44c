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
from dataclasses import dataclass
from typing import Any

from changelog_tools import diagnostics as dx
from changelog_tools.config import Config
from changelog_tools.ledger import links
from changelog_tools.ledger.appendonly import (
    Change,
    ChangeKind,
    compare,
    separator_after,
    without_link,
)
from changelog_tools.ledger.canonicalize import (
    Substitution,
    entries_in_base,
    plan_links,
)
from changelog_tools.ledger.document import (
    ENTRY_START,
    ENTRY_START_RE,
    Block,
    Ledger,
    Splice,
    apply_splices,
    count_entries,
    parse_ledger,
    pr_link_lines,
)
from changelog_tools.ledger.guard import Refusal, require_valid

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


@dataclass(frozen=True)
class AppendedEntry:
    """A PR entry in the result: its number and line there, and its line on the PR side."""

    entry: int
    line: int
    pr_line: int
    link: Any

    def as_json(self) -> dict[str, Any]:
        return dx.record_json(self, {"link": "pr-link"})


@dataclass(frozen=True)
class DroppedEntry:
    """A PR entry left out because main appended an equal one since the merge-base."""

    pr_entry: int
    pr_line: int
    main_entry: int
    main_line: int

    def as_json(self) -> dict[str, Any]:
        return dx.record_json(self)


@dataclass(frozen=True)
class AppliedCorrection:
    """A pr-link correction of the PR, replayed onto main (or found already there)."""

    entry: int
    line: int
    old: Any
    new: Any
    already_on_main: bool

    def as_json(self) -> dict[str, Any]:
        return dx.record_json(self)


@dataclass(frozen=True)
class Resolution:
    """The resolved bytes and an account of where every part of them came from."""

    data: bytes
    kind: str  # "appended" or "corrected"
    main_bytes: int  # data[:main_bytes] is main's side, byte for byte (appended kind)
    main_entries: int  # entries on main's side
    main_appended: int  # entries main appended since the merge-base
    appended: tuple[AppendedEntry, ...]
    dropped: tuple[DroppedEntry, ...]
    substitutions: tuple[Substitution, ...]
    corrections: tuple[AppliedCorrection, ...]
    warnings: tuple[dx.Diagnostic, ...]
    verified_mode: str

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "main-bytes-kept": self.main_bytes,
            "main-entries": self.main_entries,
            "main-appended-since-base": self.main_appended,
            "appended": [a.as_json() for a in self.appended],
            "dropped-already-on-main": [d.as_json() for d in self.dropped],
            "substitutions": [s.as_json() for s in self.substitutions],
            "corrections": [c.as_json() for c in self.corrections],
            "verified": f"check, {self.verified_mode} mode",
        }

    def summary(self) -> list[str]:
        """Human-readable account, one fact per line."""
        out: list[str] = []
        if self.kind == "appended":
            out.append(
                f"kept main's {dx.counted(self.main_entries, 'entry', 'entries')} byte for byte "
                f"({self.main_appended} appended on main since the merge-base)"
            )
            for a in self.appended:
                out.append(f"appended the PR's entry as entry {a.entry} (line {a.line})")
            for d in self.dropped:
                out.append(
                    f"dropped the PR's entry {d.pr_entry} (PR side line {d.pr_line}): main "
                    f"already appended it as entry {d.main_entry}"
                )
        for s in self.substitutions:
            out.append(f"entry {s.entry}: pr-link {s.old!r} -> {s.new}")
        for c in self.corrections:
            if c.already_on_main:
                out.append(f"entry {c.entry}: pr-link correction already on main ({c.new})")
            else:
                out.append(f"entry {c.entry}: pr-link corrected {c.old!r} -> {c.new!r}")
        out.append(f"the result passes `check` in {self.verified_mode} mode against main's side")
        return out


@dataclass(frozen=True)
class Labels:
    """How each version is named in messages."""

    base: str
    pr: str
    main: str
    result: str

    @classmethod
    def for_path(cls, path: str) -> Labels:
        return cls(f"{path} (merge-base)", f"{path} (PR side)", f"{path} (main side)", path)


def _signature(data: Any) -> str:
    # Canonical JSON of the entry without its link: equal meaning, equal string.
    return json.dumps(without_link(data), sort_keys=True, default=str, ensure_ascii=False)


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


@dataclass(frozen=True)
class MainSide:
    """What main did since the merge-base: the entries it added, in its own numbering."""

    entries: int  # entries on main's side
    new: tuple[tuple[int, int, Any], ...]  # (entry number, line, data) of each new entry
    ledger: Ledger | None  # the whole parse, when the slow path made one


def _invalid_main(ledger: Ledger, label: str) -> Refusal:
    errors = [d for d in ledger.diagnostics if d.severity is dx.Severity.ERROR]
    return Refusal(
        dx.MAIN_SIDE_INVALID,
        f"{label} is not a valid changelog" + (f": {errors[0].message}" if errors else ""),
        path=ledger.path,
        line=errors[0].line if errors else None,
        hint="fix it first, then merge again",
        details=errors,
    )


def main_side_entries(
    base: bytes, main: bytes, *, labels: Labels, base_entries: int | None = None
) -> MainSide:
    """The entries main added since ``base``; raises :class:`Refusal` when main is unusable.

    When main starts with the merge-base bytes (the normal case) only its suffix is parsed and
    every entry there is new. Otherwise (main corrected or reformatted history, or, during a
    rebase, "main" is main plus the PR commits already replayed) both versions are parsed and
    main's new entries are what remains after taking away, by meaning, one main entry for each
    base entry.
    """
    if main and not main.endswith(b"\n"):
        raise Refusal(
            dx.MAIN_SIDE_INVALID,
            "main's version does not end with a newline; appending would change its last line",
            path=labels.main,
            line=main.count(b"\n") + 1,
            hint="fix main first (add the final newline), then merge again",
        )
    # ``base_entries``: the count of base's entries when the caller has it (one pass saved).
    first = count_entries(base) if base_entries is None else base_entries
    if main.startswith(base) and (not base or base.endswith(b"\n")):
        found = ENTRY_START_RE.search(main, len(base))
        lead = main[len(base) : found.start() if found else len(main)]
        if not lead.strip():
            if found is None:
                return MainSide(first, (), None)
            ledger = parse_ledger(
                main[found.start() :],
                path=labels.main,
                line_offset=main.count(b"\n", 0, found.start()),
                validate_entries=False,
            )
            if not ledger.ok or not ledger.structured:
                raise _invalid_main(ledger, "main's side")
            new = tuple((first + b.index + 1, b.line, b.data) for b in ledger.blocks)
            return MainSide(first + len(new), new, None)
    # The entries both versions begin with, byte for byte, are the same on both sides and cancel
    # out below whatever they hold, so only what follows them is parsed (as on the fast path,
    # the whole result is validated later). In a rebase that is nearly all of history.
    cut = shared_entries_end(base, main)
    shared = count_entries(base[:cut]) if cut else 0
    lines = base.count(b"\n", 0, cut)
    base_ledger = parse_ledger(
        base[cut:], path=labels.base, line_offset=lines, entry_offset=shared,
        validate_entries=False,
    )  # fmt: skip
    if not base_ledger.ok or not base_ledger.structured:
        raise _invalid_main(base_ledger, "the merge-base version")
    main_ledger = parse_ledger(
        main[cut:], path=labels.main, line_offset=lines, entry_offset=shared,
        validate_entries=False,
    )  # fmt: skip
    if not main_ledger.ok or not main_ledger.structured:
        raise _invalid_main(main_ledger, "main's side")
    old = Counter(_signature(b.data) for b in base_ledger.blocks)
    added: list[tuple[int, int, Any]] = []
    for block in main_ledger.blocks:
        sig = _signature(block.data)
        if old[sig] > 0:
            old[sig] -= 1
        else:
            added.append((shared + block.index + 1, block.line, block.data))
    return MainSide(
        shared + len(main_ledger.blocks), tuple(added), main_ledger if not cut else None
    )


def shared_entries_end(a: bytes, b: bytes) -> int:
    """The largest offset where both ``a`` and ``b`` start an entry (`- config-keys:` at the
    start of a line) after identical bytes; 0 when there is none past the first entry."""
    low, high = 0, min(len(a), len(b))
    while low < high:  # the length of the common prefix, by bisection (each test a memcmp)
        mid = (low + high + 1) // 2
        if a[low:mid] == b[low:mid]:
            low = mid
        else:
            high = mid - 1
    start = a.rfind(b"\n" + ENTRY_START, 0, low)
    return start + 1 if start >= 0 else 0


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
    if pr_change.kind is ChangeKind.CORRECTED:
        return _resolve_corrections(
            history,
            pr_side,
            main_side,
            pr_change,
            main_info,
            labels=labels,
            config=config,
            mode=mode,
        )
    return _resolve_appends(
        pr_side,
        main_side,
        pr_change,
        main_info,
        labels=labels,
        config=config,
        pr=pr,
        mode=mode,
        fix_near_misses=fix_near_misses,
    )


def _resolve_appends(
    pr_side: bytes,
    main: bytes,
    pr_change: Change,
    main_info: MainSide,
    *,
    labels: Labels,
    config: Config,
    pr: int | None,
    mode: str,
    fix_near_misses: bool,
) -> Resolution:
    pr_first = entries_in_base(pr_change) + 1
    # Entries main added since the merge-base, link included; each can absorb one PR entry
    # that is the same entry (cherry-picked from main), never one that only reads the same.
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
    main_entries = main_info.entries
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
    splices: list[Splice] = []
    subs: tuple[Substitution, ...] = ()
    warnings: tuple[dx.Diagnostic, ...] = ()
    if pr is not None:
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
    chunks: list[bytes] = []
    for _, block in kept:
        end = block.content_end + len(carried(pr_side, block))
        inside = [
            Splice(s.start - block.start, s.end - block.start, s.data)
            for s in splices
            if block.start <= s.start < end
        ]
        chunks.append(apply_splices(pr_side[block.start : end], inside))
    data = join_after(main, chunks)
    # Where each kept entry starts in the result, for the account.
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
    # The account reports substitutions where they are in the result: renumber and move.
    position = {number: k for k, (number, _) in enumerate(kept)}
    subs = tuple(
        Substitution(
            appended[k].entry,
            appended[k].line + s.line - kept[k][1].line,
            s.old,
            s.new,
            s.near_miss,
        )
        for s in subs
        for k in [position[s.entry]]
    )
    more = require_valid(
        main,
        data,
        config=config,
        mode=mode,
        path=labels.result,
        base_label=labels.main,
        what="the resolved file",
    )
    return Resolution(
        data=data,
        kind="appended",
        main_bytes=len(main),
        main_entries=main_entries,
        main_appended=len(main_info.new),
        appended=appended,
        dropped=tuple(dropped),
        substitutions=subs,
        corrections=(),
        warnings=warnings + more,
        verified_mode=mode,
    )


def _main_block_for(main_ledger: Ledger, index: int, sig: str) -> Block | None:
    """Main's version of base entry ``index``: the same position when it still means the same,
    else the one main entry with that meaning (main inserted entries before it)."""
    blocks = main_ledger.blocks
    if index < len(blocks) and _signature(blocks[index].data) == sig:
        return blocks[index]
    same = [b for b in blocks if _signature(b.data) == sig]
    return same[0] if len(same) == 1 else None


def _resolve_corrections(
    base: bytes,
    pr_side: bytes,
    main: bytes,
    pr_change: Change,
    main_info: MainSide,
    *,
    labels: Labels,
    config: Config,
    mode: str,
) -> Resolution:
    # A correction rewrites history, so whole files are parsed here (structure only: the
    # comparison of the PR side already applied the schema).
    base_ledger = parse_ledger(base, path=labels.base, validate_entries=False)
    pr_ledger = parse_ledger(pr_side, path=labels.pr, validate_entries=False)
    main_ledger = main_info.ledger or parse_ledger(main, path=labels.main, validate_entries=False)
    if not main_ledger.ok or not main_ledger.structured:
        raise _invalid_main(main_ledger, "main's side")
    splices: list[Splice] = []
    applied: list[AppliedCorrection] = []
    for corr in pr_change.corrections:
        number = corr.index + 1
        main_block = _main_block_for(
            main_ledger, corr.index, _signature(base_ledger.blocks[corr.index].data)
        )
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
            applied.append(AppliedCorrection(main_number, line, corr.old, corr.new, True))
            continue
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
        splices.append(Splice(main_lines[0].line_start, main_lines[0].line_end, new_line))
        applied.append(AppliedCorrection(main_number, line, corr.old, corr.new, False))
    if not splices:
        raise Refusal(
            dx.NOTHING_REMAINS,
            "the PR's pr-link corrections are already on main; nothing of the PR remains",
            path=labels.pr,
            hint="take main's version of the file",
        )
    data = apply_splices(main, splices)
    warnings = require_valid(
        main,
        data,
        config=config,
        mode=mode,
        path=labels.result,
        base_label=labels.main,
        what="the resolved file",
    )
    return Resolution(
        data=data,
        kind="corrected",
        main_bytes=len(main),
        main_entries=len(main_ledger.blocks),
        main_appended=len(main_info.new),
        appended=(),
        dropped=(),
        substitutions=(),
        corrections=tuple(applied),
        warnings=warnings,
        verified_mode=mode,
    )


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
