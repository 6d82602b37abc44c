"""`check`'s rules on a change to the changelog (base bytes vs head bytes).

Layers the policy rules on top of :mod:`changelog_tools.ledger.appendonly` (which classifies the
change and applies the byte and immutability rules):

* pr-links of appended entries by mode (pull request, main, local) and of corrections;
* a pull request that leaves the changelog byte-identical: when it changes master configs,
  coverage warnings (errors with ``strict``) and a pass; otherwise nothing to sweep (an error);
* config keys of appended entries against the master configs at the head, coverage of changed
  master keys, and the scope of `append-only: true` entries (:mod:`.checkkeys`).

Everything here works on bytes handed in by the caller: git mode and file mode in the CLI, the
canonicalize step and the merge flow all call :func:`check_change`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from changelog_tools import diagnostics as dx
from changelog_tools.config import Config
from changelog_tools.errors import UsageError
from changelog_tools.ledger import appendonly, links
from changelog_tools.ledger.appended import AppendedEntry, appended_entries

if TYPE_CHECKING:
    from changelog_tools.ledger.checkkeys import KeyOutcome

MODES = ("pr", "main", "local")


@dataclass(frozen=True, slots=True)
class CheckResult:
    """The report of one check (``report.data`` holds the JSON extras) and the classified change."""

    report: dx.Report
    change: appendonly.Change


def _last_line(raw: bytes) -> int:
    return max(1, raw.count(b"\n"))


def _link_findings(
    entries: list[AppendedEntry], *, mode: str, pr: int | None, config: Config, path: str
) -> list[dx.Diagnostic]:
    out: list[dx.Diagnostic] = []
    for entry in entries:
        problem = links.appended_link_problem(
            entry.pr_link,
            mode=mode,
            pr=pr,
            repository=config.repository,
            placeholders=config.placeholders,
        )
        if problem is not None:
            out.append(
                dx.error(
                    problem.code,
                    f"entry {entry.index + 1}: {problem.message}",
                    path,
                    *(entry.link_mark or (entry.line, 1)),
                    hint=problem.hint,
                )
            )
    return out


def _correction_findings(
    change: appendonly.Change, *, config: Config, path: str
) -> list[dx.Diagnostic]:
    out: list[dx.Diagnostic] = []
    for corr in change.corrections:
        new = corr.new
        found = (
            links.classify(new, repository=config.repository, placeholders=config.placeholders)
            if isinstance(new, str)
            else None
        )
        if found is not None and found.kind is links.LinkKind.CANONICAL:
            continue
        reason = f": {found.reason}" if found is not None and found.reason else ""
        out.append(
            dx.error(
                dx.BAD_CORRECTION,
                f"entry {corr.index + 1}: the corrected pr-link {new!r} is not a canonical "
                f"pull-request link{reason}",
                path,
                corr.line,
                1,
                hint=f"write `{links.canonical_link(config.repository, 0).removesuffix('0')}"
                "<number>` with the number of the pull request that made the change",
            )
        )
    return out


def _masters_touched(
    base: Mapping[str, bytes | None] | None, head: Mapping[str, bytes | None] | None
) -> bool:
    """Whether any master config's bytes differ between the two sides."""
    if base is None or head is None:
        return False
    return any(head[p] != base.get(p) for p in head)


def _nothing_to_sweep(change: appendonly.Change, path: str) -> dx.Diagnostic:
    return dx.error(
        dx.NOTHING_TO_SWEEP,
        "the changelog is unchanged: this pull request appends no entry, so CI has nothing to "
        "sweep",
        path,
        _last_line(change.head),
        1,
        hint="append an entry (config-keys, description, pr-link) after one empty line at the "
        "end of the file",
    )


def check_change(
    *,
    base: bytes | None,
    head: bytes,
    config: Config,
    mode: str,
    pr: int | None = None,
    path: str | None = None,
    base_label: str | None = None,
    masters_base: Mapping[str, bytes | None] | None = None,
    masters_head: Mapping[str, bytes | None] | None = None,
    strict: bool = False,
) -> CheckResult:
    """Check the change from ``base`` to ``head`` of the changelog; every rule of `check`.

    ``masters_head`` None skips the config-key rules; ``masters_base`` None skips coverage and
    the append-only scope rules (keys still resolve against ``masters_head``).
    """
    if mode not in MODES:
        raise UsageError(f"unknown check mode {mode!r}; expected one of {', '.join(MODES)}")
    if mode == "pr" and (pr is None or pr < 1):
        raise UsageError("pull-request mode needs the pull request's number (--pr N)")
    if mode == "local" and pr is not None:
        raise UsageError("local mode takes no pull-request number")
    shown = path or config.changelog
    change = appendonly.compare_configured(
        base, head, config=config, path=shown, base_label=base_label, strict=strict
    )
    report = dx.Report(command="check")
    report.extend(phase_in(change.diagnostics, config))
    entries = appended_entries(change)
    report.extend(
        phase_in(_link_findings(entries, mode=mode, pr=pr, config=config, path=shown), config)
    )
    report.extend(_correction_findings(change, config=config, path=shown))
    keys: KeyOutcome | None = None
    if masters_head is not None:
        from changelog_tools.ledger.checkkeys import key_rules

        keys = key_rules(
            entries,
            masters_base=masters_base,
            masters_head=masters_head,
            path=shown,
            strict=strict,
        )
        report.extend(keys.diagnostics)
    if change.kind is appendonly.ChangeKind.NONE and mode == "pr" and not (keys and keys.changed):
        # A byte-identical changelog has nothing to check in it. When master configs changed
        # (a config-only PR, which the shipped workflow also runs on), the coverage findings
        # above say what goes unswept (warnings; `--strict` fails them). A change to master
        # configs that changes no key (comments, formatting) has nothing to sweep and nothing
        # wrong: it passes, with a note. Otherwise (scripts or runners changed, or keys not
        # checked) the change has nothing to sweep: an error.
        if keys is not None and _masters_touched(masters_base, masters_head):
            keys.notes.append(
                "the master configs changed, but no key's content did (comments or layout "
                "only): nothing to sweep"
            )
        else:
            report.extend([_nothing_to_sweep(change, shown)])
    report.data.update(_data(change, entries, keys, mode=mode, pr=pr, path=shown, config=config))
    return CheckResult(report, change)


# The rules a repository may phase in, and the option that sets each one's severity.
PHASED_RULES = {
    dx.ENTRY_INSERTED: "entry_inserted",
    dx.HISTORY_BYTES_CHANGED: "history_bytes_changed",
    dx.APPEND_SEPARATOR: "append_separator",
    dx.NEAR_MISS_LINK: "near_miss_link",
}


def phase_in(found: Iterable[dx.Diagnostic], config: Config) -> list[dx.Diagnostic]:
    """``found`` with the errors of a rule the configuration sets to `warning` made warnings."""
    out: list[dx.Diagnostic] = []
    for d in found:
        option = PHASED_RULES.get(d.code)
        if (
            option is not None
            and d.severity is dx.Severity.ERROR
            and getattr(config, option) == "warning"
        ):
            d = dataclasses.replace(d, severity=dx.Severity.WARNING)
        out.append(d)
    return out


def _data(
    change: appendonly.Change,
    entries: list[AppendedEntry],
    keys: KeyOutcome | None,
    *,
    mode: str,
    pr: int | None,
    path: str,
    config: Config,
) -> dict[str, Any]:
    """The JSON extras: the classification and, per appended entry, what CI needs next."""
    out: dict[str, Any] = {
        "file": path,
        "mode": mode,
        "pr": pr,
        "change": {
            "kind": change.kind.value,
            "fast-path": change.fast_path,
            "appended": len(change.appended),
            "corrections": [
                {"index": c.index, "line": c.line, "old": c.old, "new": c.new}
                for c in change.corrections
            ],
        },
        "config-keys-checked": keys is not None,
        "entries": [
            {
                "index": e.index,
                "line": e.line,
                "config-keys": e.config_keys,
                "master-keys": e.master_keys if keys is not None else None,
                "pr-link": e.pr_link,
                "pr-link-kind": _link_kind(e.pr_link, config),
                "append-only": e.append_only,
                "scenario-type": sorted(e.scenario_types) if e.scenario_types else None,
            }
            for e in entries
        ],
    }
    if keys is not None:
        out["master-keys"] = list(dict.fromkeys(k for e in entries for k in e.master_keys))
        out["changed-master-keys"] = (
            None
            if keys.changed is None
            else [{"key": c.name, "kind": c.kind, "path": c.path} for c in keys.changed]
        )
        if keys.notes:
            out["notes"] = keys.notes
    return out


def _link_kind(link: Any, config: Config) -> str | None:
    if not isinstance(link, str):
        return None
    found = links.classify(link, repository=config.repository, placeholders=config.placeholders)
    return found.kind.value
