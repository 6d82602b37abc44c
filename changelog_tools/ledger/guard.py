"""What every rewrite of the ledger shares: the refusal it raises, and the check it must pass.

`canonicalize`, `resolve`, the merge driver, `new` and the merge flow each build new bytes;
none of them may write bytes that `check` would reject against the version they started from,
nor a file that `validate` would reject as a whole (the appended part can be fine while the
bytes around it make the file invalid YAML: a TAB line between history and the new entry).
Each refuses the same way, so the refusal and the checks live here rather than in any one of
them. The API for writers is described in docs/merging.md ("Every write is re-validated").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from changelog_tools import diagnostics as dx
from changelog_tools.config import Config
from changelog_tools.errors import DataError


class Refusal(DataError):
    """A rewrite that cannot be done safely; nothing was written.

    ``diagnostics`` holds the refusal itself first, then the findings that caused it.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        path: str,
        line: int | None = None,
        hint: str | None = None,
        details: Sequence[dx.Diagnostic] = (),
    ) -> None:
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {message}", hint=hint)
        self.code = code
        own = dx.error(code, message, path, line, 1 if line else None, hint=hint)
        if any(d.severity is dx.Severity.ERROR for d in details):
            # the refusal is what the listed errors caused, not one more problem to count
            own = dataclasses.replace(own, consequence=True)
        self.diagnostics: tuple[dx.Diagnostic, ...] = (own, *details)


def verify(
    base: bytes | None,
    head: bytes,
    *,
    config: Config,
    mode: str,
    path: str,
    base_label: str,
    pr: int | None = None,
) -> tuple[dx.Diagnostic, ...]:
    """Every finding of `check` on ``base`` -> ``head`` (config keys not cross-checked);
    ``pr`` is the pull request's number in pull-request mode (and main mode may name one)."""
    # The rules themselves, not the `check` command's module (its git and event modes): the
    # merge driver verifies every result and loads no more than it needs.
    from changelog_tools.ledger.checkrules import check_change

    result = check_change(
        base=base, head=head, config=config, mode=mode, pr=pr, path=path, base_label=base_label
    )
    return tuple(result.report.diagnostics)


def require_whole_valid(
    data: bytes, *, path: str, what: str, max_size: int | None = None
) -> tuple[dx.Diagnostic, ...]:
    """Raise :class:`Refusal` (CL505) unless ``data`` passes `validate` as a whole file.

    Every file-level and schema rule on every entry, history included: what a reader of the
    whole file (InferenceX's own consumer, `validate` on main) will see. Returns the warnings.
    """
    from changelog_tools.ledger import knownvalid
    from changelog_tools.ledger.document import parse_ledger

    known = knownvalid.active()
    if known is not None:
        prefix = known.valid_prefix(data, max_size)
        if prefix and _valid_after(data, prefix, path=path, max_size=max_size):
            known.accept_whole(data, max_size)
            return ()
    ledger = parse_ledger(data, path=path, max_size=max_size)
    errors = [d for d in ledger.diagnostics if d.severity is dx.Severity.ERROR]
    if known is not None and not errors and ledger.structured:
        known.accept_whole(data, max_size)
    if errors or not ledger.structured:
        raise Refusal(
            dx.RESULT_INVALID,
            f"{what} would not pass `validate` as a whole file ({len(errors)} "
            f"error{'s' * (len(errors) != 1)}); nothing was written",
            path=path,
            line=errors[0].line if errors else None,
            hint="`changelog-tools validate` on the file lists every problem",
            details=errors,
        )
    return tuple(d for d in ledger.diagnostics if d.severity is not dx.Severity.ERROR)


def _valid_after(data: bytes, prefix: int, *, path: str, max_size: int | None) -> bool:
    """Whether ``data``, whose first ``prefix`` bytes passed `validate` whole (under the same
    rules), passes it too; False also when that cannot be told this way (then the whole file
    is validated, which also words every problem).

    The top-level list continues where the known part's last entry starts: YAML reads every
    entry before that line as it did (anchors, aliases, tags and directives are refused, so an
    entry's value depends only on its own lines), while the last one may take in the lines that
    follow it. So that entry and everything after it is parsed and validated again, and the byte
    rules, cheap and partly about the whole file (its size, its end), run on all of it.
    """
    from changelog_tools.ledger.document import ENTRY_START, byte_rules, parse_ledger

    if not data[:prefix].endswith(b"\n"):
        return False
    last = data.rfind(b"\n" + ENTRY_START, 0, prefix)
    start = last + 1 if last >= 0 else (0 if data.startswith(ENTRY_START) else -1)
    if start < 0:
        return False
    if any(d.severity is dx.Severity.ERROR for d in byte_rules(data, path, max_size=max_size)):
        return False
    tail = parse_ledger(
        data[start:],
        path=path,
        line_offset=data.count(b"\n", 0, start),
        entry_offset=data.count(b"\n" + ENTRY_START, 0, start) + data.startswith(ENTRY_START),
    )
    return tail.ok and tail.structured and bool(tail.blocks)


def require_valid(
    base: bytes | None,
    head: bytes,
    *,
    config: Config,
    mode: str,
    path: str,
    base_label: str,
    what: str,
) -> tuple[dx.Diagnostic, ...]:
    """Raise :class:`Refusal` (CL505) unless ``head`` passes `check` against ``base`` in
    ``mode`` *and* `validate` as a whole file (:func:`require_whole_valid`).

    Call it on the exact bytes about to be written, before writing. Returns the warnings of
    `check` when both pass.
    """
    findings = verify(base, head, config=config, mode=mode, path=path, base_label=base_label)
    errors = [d for d in findings if d.severity is dx.Severity.ERROR]
    if errors:
        raise Refusal(
            dx.RESULT_INVALID,
            f"{what} would not pass `check` in {mode} mode ({len(errors)} "
            f"error{'s' * (len(errors) != 1)}); nothing was written",
            path=path,
            line=errors[0].line,
            details=errors,
        )
    require_whole_valid(head, path=path, what=what, max_size=config.max_file_size)
    return tuple(d for d in findings if d.severity is not dx.Severity.ERROR)
