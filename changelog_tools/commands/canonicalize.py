"""`changelog-tools canonicalize`: fill in the PR's placeholder pr-links."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import click

from changelog_tools import diagnostics as dx
from changelog_tools.commands._common import (
    base_options,
    config_option,
    format_option,
    path_argument,
    pr_option,
    repo_option,
)
from changelog_tools.commands._emit import EditOutcome, emit_edit, refused
from changelog_tools.config import Config

if TYPE_CHECKING:
    from changelog_tools.ledger.canonicalize import Substitution

T = TypeVar("T")


@click.command()
@path_argument
@pr_option("The pull request whose link replaces the placeholders "
           "(required, except with --fix-placement).")  # fmt: skip
@base_options
@repo_option
@click.option("--changelog-file", "changelog", metavar="PATH",
              help="Same as PATH (the reference tool's spelling).")  # fmt: skip
@click.option("--fix-near-misses", is_flag=True,
              help="Also replace near-miss placeholders (TBD, xxxx, .../pull/ without a "
              "number, ...), reporting each one.")  # fmt: skip
@click.option("--fix-placement", is_flag=True,
              help="Move entries the change inserted among existing ones (CL103) to the end, "
              "byte for byte; with --pr, then fill in their links.")  # fmt: skip
@click.option("--check", "check_only", is_flag=True,
              help="Write nothing; exit 1 and print a unified diff when a change would be made.")  # fmt: skip
@format_option
@config_option
def canonicalize(
    path: Path | None,
    pr: int | None,
    base_ref: str | None,
    base_file: Path | None,
    repository: str | None,
    changelog: str | None,
    fix_near_misses: bool,
    fix_placement: bool,
    check_only: bool,
    output_format: str,
    config: Config,
) -> int:
    """Replace placeholder pr-links in the entries this change appended with PR N's link.

    PATH (default: the configured changelog) is the file in the working tree, rewritten in
    place; the base is read from git (or --base-file). Only entries appended since the base
    are touched, and in each only the value of its pr-link line:
    every other byte of the file stays identical. Placeholders are the
    configured spellings (default `XXX` and `https://github.com/{repo}/pull/XXX`); the link
    written is `https://github.com/OWNER/NAME/pull/N`, OWNER/NAME from --repo or the
    `repository` option (the same repository the result is then validated against).

    \b
    Refuses, naming the entry and its line, and writes nothing, when:
      - an appended link is neither a placeholder nor PR N's own link;
      - an appended link is a near-miss placeholder (TBD, xxxx, a bare
        .../pull/) and --fix-near-misses is not given;
      - the change is not a valid append, or the result would not pass `check`
        in main mode.

    Running it again changes nothing and says so. The write is atomic.

    \b
    --fix-placement: entries the change inserted in the middle of history (CL103)
    are taken out, the rest must be the base byte for byte, and they are appended
    at the end in their order, one empty line apart; the result must pass `check`
    and `validate` (then, with --pr, their links are filled in). Nothing else
    moves.

    \b
    Exit status: 0 done or nothing to do, 1 refused (or --check found work),
    2 usage error, 3 git failed.

    \b
    Examples:
      changelog-tools canonicalize --pr 12
      changelog-tools canonicalize --pr 12 --check
      changelog-tools canonicalize --pr 12 --base-ref origin/main \\
          --fix-near-misses
      changelog-tools canonicalize --pr 7 --base-file base.yaml \\
          --repo acme/bench changelog.yaml
      changelog-tools canonicalize --fix-placement
    """
    from changelog_tools.commands._common import check_repository, display_path
    from changelog_tools.errors import UsageError
    from changelog_tools.ledger.canonicalize import effective_config

    check_repository(repository)
    if base_ref is not None and base_file is not None:
        raise UsageError("--base-ref and --base-file are mutually exclusive")
    if path is not None and changelog is not None:
        raise UsageError("give the changelog either as PATH or as --changelog-file, not both")
    target = path or (Path(changelog) if changelog else config.changelog_path)
    if not fix_placement and pr is None:
        raise UsageError("--pr N is required (the pull request whose link replaces the "
                         "placeholders), except with --fix-placement")  # fmt: skip
    if base_ref is not None and not fix_placement:
        _require_revision(target, base_ref)
    request = _Request(target=target, shown=display_path(target, config), pr=pr,
                       base_ref=base_ref, base_file=base_file, fix_near_misses=fix_near_misses,
                       check_only=check_only, config=effective_config(config, repository))  # fmt: skip
    return emit_edit(_place(request) if fix_placement else _canonicalize(request), output_format)


def _require_revision(target: Path, base_ref: str) -> None:
    """Refuse a ``--base-ref`` that names no commit, as `check`, `fix` and `lint` refuse it: a
    usage error naming the repository, with the hint to fetch it (not a failure of git)."""
    from changelog_tools.gitrepo import open_repo

    open_repo(target.resolve().parent).user_commit(base_ref)


@dataclass(frozen=True)
class _Request:
    """What to canonicalize (or re-place) and how, the flags checked."""

    target: Path
    shown: str
    pr: int | None
    base_ref: str | None
    base_file: Path | None
    fix_near_misses: bool
    check_only: bool
    config: Config


def _canonicalize(request: _Request) -> EditOutcome:
    """Fill in the placeholder pr-links of the entries the change appended."""
    from changelog_tools.ledger.canonicalize import canonicalize_file
    from changelog_tools.ledger.guard import Refusal

    report = dx.Report(command="canonicalize")
    pr = request.pr
    assert pr is not None  # required without --fix-placement
    try:
        outcome = _on_file(canonicalize_file, request)
    except Refusal as refusal:
        return refused(report, refusal.diagnostics)
    result, shown = outcome.result, outcome.display
    report.extend(result.warnings)
    report.data.update({"file": shown, "base": outcome.base_label, "pr": pr, **result.as_json()})
    report.data["written"] = outcome.written
    links = "y links" if result.appended == 1 else "ies link"
    what = (
        f"all {result.appended} appended entr{links} to #{pr} already"
        if result.appended
        else f"no entries appended since {outcome.base_label}"
    )
    n = len(result.substitutions)
    return _edited(
        report,
        shown,
        outcome.before,
        result.data,
        changed=result.changed,
        check_only=request.check_only,
        unchanged=f"nothing to canonicalize ({what})",
        would=f"{n} pr-link{'s' * (n != 1)} would change",
        done=f"replaced {n} pr-link{'s' * (n != 1)}",
        account=_substitutions(shown, result.substitutions),
    )


def _place(request: _Request) -> EditOutcome:
    """Move the entries the change inserted among history to the end (then, with a PR number,
    fill in their links)."""
    from changelog_tools.ledger.guard import Refusal
    from changelog_tools.ledger.placement import fix_placement_file

    report = dx.Report(command="canonicalize")
    pr = request.pr
    try:
        outcome, canon = _on_file(fix_placement_file, request)
    except Refusal as refusal:
        return refused(report, refusal.diagnostics)
    shown, result = outcome.display, outcome.result
    substitutions = canon.substitutions if canon else ()
    report.extend(result.warnings + (canon.warnings if canon else ()))
    report.data.update(
        {
            "file": shown,
            "base": outcome.base_label,
            "pr": pr,
            "moved": [m.as_json() for m in result.moves],
            "substitutions": [s.as_json() for s in substitutions],
            "written": outcome.written,
        }
    )
    moved = f"{len(result.moves)} entr{'y' if len(result.moves) == 1 else 'ies'}"
    account = "".join(
        f"{shown}:{m.new_line}: moved entry {m.entry} (was line {m.line}) to the end "
        f"as entry {m.new_entry}\n"
        for m in result.moves
    )
    return _edited(
        report,
        shown,
        outcome.before,
        result.data,
        changed=result.data != outcome.before,
        check_only=request.check_only,
        unchanged="nothing to move (no entry inserted among history)",
        would=f"would move {moved}",
        done=f"moved {moved} to the end",
        account=account + _substitutions(shown, substitutions),
    )


def _on_file(edit: Callable[..., T], request: _Request) -> T:
    """Run ``edit`` (either mode's file function: they take the same arguments) on the file."""
    return edit(request.target, pr=request.pr, config=request.config, base_ref=request.base_ref,
                base_file=request.base_file, fix_near_misses=request.fix_near_misses,
                write=not request.check_only, display=request.shown)  # fmt: skip


def _substitutions(shown: str, substitutions: Iterable[Substitution]) -> str:
    return "".join(
        f"{shown}:{sub.line}: entry {sub.entry}: pr-link {sub.old!r} -> {sub.new}\n"
        for sub in substitutions
    )


def _edited(
    report: dx.Report,
    shown: str,
    before: bytes,
    after: bytes,
    *,
    changed: bool,
    check_only: bool,
    unchanged: str,
    would: str,
    done: str,
    account: str,
) -> EditOutcome:
    """The three endings of both modes: nothing to do, --check found work, written."""
    from changelog_tools.ledger.canonicalize import unified_diff

    if not changed:
        return EditOutcome(report, notes=(f"{shown}: {unchanged}",))
    if check_only:
        diff = unified_diff(before, after, shown)
        report.data["diff"] = diff
        note = f"{shown}: {would} (--check: nothing written)"
        return EditOutcome(report, notes=(note,), preview=dx.visible(diff), exit_code=1)
    note = f"{shown}: {done} (written atomically)"
    return EditOutcome(report, account=account, notes=(note,))
