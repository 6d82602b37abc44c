"""What every rewrite of the ledger shares: the refusal it raises, and the check it must pass.

`canonicalize`, `resolve` and the merge driver each build new bytes; none of them may write
bytes that `check` would reject, and each refuses the same way, so the refusal and the check
live here rather than in any one of them.
"""

from __future__ import annotations

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
        self.diagnostics: tuple[dx.Diagnostic, ...] = (
            dx.error(code, message, path, line, 1 if line else None, hint=hint),
            *details,
        )


def verify(
    base: bytes | None,
    head: bytes,
    *,
    config: Config,
    mode: str,
    path: str,
    base_label: str,
) -> tuple[dx.Diagnostic, ...]:
    """Every finding of `check` on ``base`` -> ``head`` (config keys not cross-checked)."""
    from changelog_tools.ledger.check import check_change

    result = check_change(
        base=base, head=head, config=config, mode=mode, path=path, base_label=base_label
    )
    return tuple(result.report.diagnostics)


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
    """Raise :class:`Refusal` (CL505) unless ``head`` passes `check` against ``base``.

    Returns the warnings when it passes.
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
    return tuple(d for d in findings if d.severity is not dx.Severity.ERROR)
