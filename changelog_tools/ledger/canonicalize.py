"""Fill in placeholder pr-links of the entries a change appended, splicing only those values.

The change is ``base`` -> ``head`` (the merge-base and the pull request's file). Only entries the
change appended are looked at, and in each only the value on its ``  pr-link:`` line is
replaced, so every other byte of the file stays identical. The result must pass `check` in main
mode before anyone writes it; :class:`Refusal` carries every problem found when it does not.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from changelog_tools import diagnostics as dx
from changelog_tools.config import Config
from changelog_tools.errors import UsageError
from changelog_tools.fsutil import atomic_write, locked, read_input
from changelog_tools.ledger.appendonly import (
    ChangeKind,
    compare_configured,
    entries_in_base,
)
from changelog_tools.ledger.document import (
    Block,
    Splice,
    apply_splices,
    link_value_span,
    pr_link_lines,
)
from changelog_tools.ledger.guard import Refusal, require_valid
from changelog_tools.ledger.links import LinkKind, canonical_link, classify, placeholder_links


@dataclass(frozen=True)
class Substitution:
    """One pr-link value replaced: ``entry`` is 1-based, ``line`` the pr-link's line."""

    entry: int
    line: int
    old: Any
    new: str
    near_miss: str = ""  # why the old value was a near-miss (fixed with --fix-near-misses)

    def as_json(self) -> dict[str, Any]:
        return dx.record_json(self, empty_as_null=("near_miss",))


@dataclass(frozen=True)
class LinkPlan:
    """The splices (offsets into the scanned bytes) and what they replace."""

    splices: tuple[Splice, ...]
    substitutions: tuple[Substitution, ...]
    warnings: tuple[dx.Diagnostic, ...]


def plan_links(
    raw: bytes,
    blocks: Sequence[Block],
    *,
    pr: int,
    repository: str,
    placeholders: tuple[str, ...],
    fix_near_misses: bool,
    path: str,
    first_entry: int = 1,
    numbers: Sequence[int] | None = None,
) -> LinkPlan:
    """Plan the pr-link substitutions for ``blocks`` (entries appended to ``raw``).

    Blocks are numbered from ``first_entry`` (1-based, in their file), or by ``numbers``. Raises
    :class:`Refusal` listing every link that is neither a placeholder nor this PR's own link,
    every near-miss (unless ``fix_near_misses``), and every link not on one line.
    """
    target = canonical_link(repository, pr)
    splices: list[Splice] = []
    subs: list[Substitution] = []
    warnings: list[dx.Diagnostic] = []
    problems: list[dx.Diagnostic] = []
    spell = f"write `{target}` or a placeholder ({', '.join(placeholder_links(repository, placeholders))})"
    for i, block in enumerate(blocks):
        entry = numbers[i] if numbers is not None else first_entry + i
        data = block.data if isinstance(block.data, dict) else {}
        link = data.get("pr-link")
        line = _link_key_line(raw, block)
        verdict = _judge_link(
            link,
            pr=pr,
            repository=repository,
            placeholders=placeholders,
            fix_near_misses=fix_near_misses,
            spell=spell,
            where=(f"entry {entry}", path, line),
        )
        if verdict is None:
            continue
        if isinstance(verdict, dx.Diagnostic):
            problems.append(verdict)
            continue
        near = verdict
        span = link_value_span(raw, block, link)
        if span is None:
            problems.append(_not_one_line(f"entry {entry}", target, path, line))
            continue
        start, end, prefix = span
        splices.append(Splice(start, end, prefix + target.encode()))
        subs.append(Substitution(entry, line, link, target, near))
        if near:
            warnings.append(
                dx.warning(
                    dx.NEAR_MISS_FIXED,
                    f"entry {entry}: near-miss pr-link {link!r} replaced with `{target}` ({near})",
                    path,
                    line,
                    1,
                )
            )
    if problems:
        raise _cannot_plan(problems, path)
    return LinkPlan(tuple(splices), tuple(subs), tuple(warnings))


def _not_one_line(label: str, target: str, path: str, line: int) -> dx.Diagnostic:
    return dx.error(
        dx.LINK_LINE,
        f"{label}: could not find its pr-link as a one-line value on exactly one `  pr-link:` line",
        path,
        line,
        1,
        hint=f"write the pr-link on one line, indented by two spaces: `  pr-link: {target}`",
    )


def _cannot_plan(problems: list[dx.Diagnostic], path: str) -> Refusal:
    """The refusal listing every problem: nothing is changed while one remains."""
    first = problems[0]
    return Refusal(
        first.code,
        f"{len(problems)} appended pr-link{'s' * (len(problems) != 1)} cannot be "
        "canonicalized; nothing was changed",
        path=path,
        line=first.line,
        details=problems,
    )


def _link_key_line(raw: bytes, block: Block) -> int:
    """The line of ``block``'s pr-link; not a plain `  pr-link:` line (a quoted key, a flow
    mapping): still the key's line."""
    link_line = next((ln for ln in pr_link_lines(raw, block)), None)
    at = link_line.line_start if link_line else raw.find(b"pr-link", block.start, block.content_end)
    return block.line + raw.count(b"\n", block.start, at) if block.start <= at else block.line


def _judge_link(
    link: Any,
    *,
    pr: int,
    repository: str,
    placeholders: tuple[str, ...],
    fix_near_misses: bool,
    spell: str,
    where: tuple[str, str, int],
) -> dx.Diagnostic | str | None:
    """What to do with an appended entry's ``link``: None, keep it (it is ``pr``'s own link);
    a problem that refuses the plan; or text, replace it (why it was a near-miss, or "" for a
    placeholder). ``where``: the entry's label, the path and the pr-link's line."""
    label, path, line = where
    if link is not None and not isinstance(link, str):
        return dx.error(
            dx.UNEXPECTED_LINK, f"{label}: pr-link {link!r} is not a link", path, line, 1,
            hint=spell,
        )  # fmt: skip
    found = classify(link or "", repository=repository, placeholders=placeholders)
    if found.kind is LinkKind.CANONICAL:
        if found.pr == pr:
            return None
        return dx.error(
            dx.UNEXPECTED_LINK,
            f"{label}: pr-link points at pull request #{found.pr}, not #{pr}",
            path,
            line,
            1,
            hint=f"an entry this pull request appends links to it: {spell}",
        )
    if found.kind is LinkKind.INVALID or (
        found.kind is LinkKind.NEAR_MISS and found.pr is not None and found.pr != pr
    ):
        return dx.error(
            dx.UNEXPECTED_LINK,
            f"{label}: pr-link {link!r} is neither a placeholder nor a link to "
            f"pull request #{pr}" + (f" ({found.reason})" if found.reason else ""),
            path,
            line,
            1,
            hint=spell,
        )
    if found.kind is not LinkKind.NEAR_MISS:
        return ""
    if not fix_near_misses:
        return dx.error(
            dx.NEAR_MISS_PLACEHOLDER,
            f"{label}: pr-link {link!r} is not an accepted placeholder: {found.reason}",
            path,
            line,
            1,
            hint=f"{spell}; or pass --fix-near-misses to replace it with `{canonical_link(repository, pr)}`",
        )
    return found.reason or "near-miss"


@dataclass(frozen=True)
class Canonicalized:
    """The outcome of :func:`canonicalize`: the new bytes and what changed."""

    data: bytes
    changed: bool
    kind: ChangeKind
    appended: int  # entries the change appended (the only ones looked at)
    substitutions: tuple[Substitution, ...]
    warnings: tuple[dx.Diagnostic, ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "changed": self.changed,
            "change": self.kind.value,
            "appended": self.appended,
            "substitutions": [s.as_json() for s in self.substitutions],
        }


def effective_config(config: Config, repository: str | None) -> Config:
    """``config`` with ``repository`` overridden, so the written and validated links agree."""
    return config if not repository else replace(config, repository=repository)


def canonicalize(
    base: bytes | None,
    head: bytes,
    *,
    pr: int,
    config: Config,
    fix_near_misses: bool = False,
    path: str | None = None,
    base_label: str | None = None,
) -> Canonicalized:
    """Replace placeholder pr-links in the entries ``head`` appended to ``base`` with PR ``pr``'s.

    Raises :class:`Refusal` when the change is not a valid append, when an appended link is
    neither a placeholder nor this PR's own link (or a near-miss without ``fix_near_misses``),
    or when the result would not pass `check` in main mode.
    """
    shown = path or config.changelog
    label = base_label or f"{shown} (base)"
    change = compare_configured(base, head, config=config, path=shown, base_label=label)
    if change.kind in (ChangeKind.NONE, ChangeKind.CORRECTED) and change.ok:
        return Canonicalized(head, False, change.kind, 0, (), ())
    errors = [d for d in change.diagnostics if d.severity is dx.Severity.ERROR]
    if change.kind is not ChangeKind.APPENDED or errors:
        raise Refusal(
            dx.NOT_AN_APPEND,
            "the change since the base is not a valid append of entries, so its links cannot be "
            "canonicalized; fix these problems first (`changelog-tools check` lists them)",
            path=shown,
            line=errors[0].line if errors else None,
            details=errors,
        )
    plan = plan_links(
        head,
        change.appended,
        pr=pr,
        repository=config.repository,
        placeholders=config.placeholders,
        fix_near_misses=fix_near_misses,
        path=shown,
        first_entry=entries_in_base(change) + 1,
    )
    if not plan.splices:
        return Canonicalized(head, False, change.kind, len(change.appended), (), ())
    result = apply_splices(head, plan.splices)
    warnings = require_valid(
        base,
        result,
        config=config,
        mode="main",
        path=shown,
        base_label=label,
        what="the canonicalized file",
    )
    return Canonicalized(
        result,
        True,
        change.kind,
        len(change.appended),
        plan.substitutions,
        plan.warnings + warnings,
    )


@dataclass(frozen=True)
class FileOutcome:
    """:func:`canonicalize_file`'s result: the file, what the base was, and what happened."""

    path: Path
    display: str
    base_label: str
    before: bytes
    result: Canonicalized
    written: bool


def canonicalize_file(
    path: Path,
    *,
    pr: int,
    config: Config,
    base_ref: str | None = None,
    base_file: Path | None = None,
    fix_near_misses: bool = False,
    write: bool = True,
    display: str | None = None,
) -> FileOutcome:
    """Canonicalize the changelog at ``path`` against a base read from git or a file.

    The base is ``base_file``, else ``path`` at ``base_ref`` in the repository holding
    ``path`` (default: the merge-base of HEAD and the main branch). Writes atomically when
    ``write`` and something changed; raises :class:`Refusal` (nothing written) otherwise.
    A writing run holds the changelog's lock from its read to its write.
    """
    with locked(path) if write else contextlib.nullcontext(path):
        return _canonicalize_file(path, pr, config, base_ref, base_file, fix_near_misses,
                                  write, display)  # fmt: skip


def _canonicalize_file(
    path: Path,
    pr: int,
    config: Config,
    base_ref: str | None,
    base_file: Path | None,
    fix_near_misses: bool,
    write: bool,
    display: str | None,
) -> FileOutcome:
    shown = display or str(path)
    head = read_input(path, shown, max_size=config.max_file_size)
    if base_file is not None:
        base: bytes | None = read_input(base_file, str(base_file), max_size=config.max_file_size)
        label = str(base_file)
    else:
        from changelog_tools.gitrepo import default_base, open_repo

        repo = open_repo(path.resolve().parent)
        try:
            relative = path.resolve().relative_to(repo.path.resolve()).as_posix()
        except ValueError:
            raise UsageError(f"{shown} is not inside the repository {repo.path}") from None
        ref = base_ref or default_base(
            repo, head="HEAD", main_branch=config.main_branch, remote=config.remote
        )
        base = repo.read_blob_once(ref, relative)
        label = f"{relative}@{ref[:12] if base_ref is None else ref}"
    result = canonicalize(
        base,
        head,
        pr=pr,
        config=config,
        fix_near_misses=fix_near_misses,
        path=shown,
        base_label=label,
    )
    written = False
    if write and result.changed:
        atomic_write(path, result.data)
        written = True
    return FileOutcome(path, shown, label, head, result, written)


def _common_prefix(a: bytes, b: bytes) -> int:
    limit = min(len(a), len(b))
    i, step = 0, 1 << 16
    while i + step <= limit and a[i : i + step] == b[i : i + step]:
        i += step
    while i < limit and a[i] == b[i]:
        i += 1
    return i


def unified_diff(before: bytes, after: bytes, path: str, context: int = 3) -> str:
    """A unified diff of two versions of a file (what `canonicalize --check` prints).

    Only the window between the first and the last differing byte (plus context) is split into
    lines, so a few changed links at the end of a long history cost little.
    """
    if before == after:
        return ""
    head = _common_prefix(before, after)
    tail = _common_prefix(before[head:][::-1], after[head:][::-1])
    # Whole lines around the change, with `context` more lines on each side.
    start = before.rfind(b"\n", 0, head) + 1
    for _ in range(context):
        if start == 0:
            break
        start = before.rfind(b"\n", 0, start - 1) + 1
    end_old, end_new = len(before) - tail, len(after) - tail
    stop = before.find(b"\n", max(end_old - 1, start))
    stop = len(before) if stop == -1 else stop + 1
    for _ in range(context):
        if stop >= len(before):
            break
        nxt = before.find(b"\n", stop)
        stop = len(before) if nxt == -1 else nxt + 1
    after_stop = stop + (end_new - end_old)
    first_line = before.count(b"\n", 0, start)
    old = before[start:stop].decode("utf-8").splitlines(keepends=True)
    new = after[start:after_stop].decode("utf-8").splitlines(keepends=True)
    out = [f"--- a/{path}\n", f"+++ b/{path}\n"]
    for i1, i2, j1, j2, ops in _hunks(old, new, context):
        out.append(
            f"@@ -{_range(first_line + i1, i2 - i1)} +{_range(first_line + j1, j2 - j1)} @@\n"
        )
        out.extend(ops)
    return "".join(out)


def _hunks(
    old: list[str], new: list[str], context: int
) -> list[tuple[int, int, int, int, list[str]]]:
    """Hunks as (old start, old end, new start, new end, lines with their +/-/space marks).

    difflib aligns the lines even when both sides have as many: an entry moved to the end
    then reads as its deletion and its insertion, not as every line between paired with the
    one that took its place. A canonicalization's edited lines come out as difflib's own
    diff of them (each run of changed lines: its old lines, then its new ones).
    """
    import difflib

    out = []
    # Matched from the new side: of two equally long runs, difflib keeps the first one of its
    # first sequence in place. The new file starts with the history, so a move of an inserted
    # entry to the end shows that entry moving, not the history entry it swapped places with.
    for group in difflib.SequenceMatcher(None, new, old).get_grouped_opcodes(context):
        ops: list[str] = []
        for tag, b1, b2, a1, a2 in group:
            if tag == "equal":
                ops.extend(" " + line for line in old[a1:a2])
            else:
                ops.extend("-" + line for line in old[a1:a2])
                ops.extend("+" + line for line in new[b1:b2])
        out.append((group[0][3], group[-1][4], group[0][1], group[-1][2], ops))
    return out


def _range(start: int, length: int) -> str:
    # difflib's format: "start,length" 1-based, "start" alone for one line, start-1 for none.
    if length == 1:
        return f"{start + 1}"
    if not length:
        return f"{start},0"
    return f"{start + 1},{length}"
