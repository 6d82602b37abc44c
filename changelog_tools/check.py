"""`check`: the CI gate on a change to the changelog (base bytes vs head bytes).

Layers the policy rules on top of :mod:`changelog_tools.appendonly` (which classifies the change
and applies the byte and immutability rules):

* pr-links of appended entries by mode (pull request, main, local) and of corrections;
* a pull request that appends nothing has nothing to sweep;
* config keys of appended entries against the master configs at the head, coverage of changed
  master keys, and the scope rules of `append-only: true` entries.

Everything here works on bytes handed in by the caller: git mode and file mode in the CLI, the
canonicalize step and the merge flow all call :func:`check_change`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from changelog_tools import appendonly, links, yamlload
from changelog_tools import diagnostics as dx
from changelog_tools import masterconfig as mc
from changelog_tools.config import Config
from changelog_tools.errors import UsageError
from changelog_tools.ledger import ENTRY_START

MODES = ("pr", "main", "local")


@dataclass(frozen=True)
class CheckResult:
    """The report of one check (``report.data`` holds the JSON extras) and the classified change."""

    report: dx.Report
    change: appendonly.Change


@dataclass
class AppendedEntry:
    """An entry the change appends, with the positions the rules point at."""

    index: int  # 0-based position in the head's list of entries
    line: int
    data: Any
    config_keys: list[str] = field(default_factory=list)
    key_marks: list[tuple[int, int]] = field(default_factory=list)
    link_mark: tuple[int, int] | None = None
    master_keys: list[str] = field(default_factory=list)

    @property
    def append_only(self) -> bool:
        return isinstance(self.data, dict) and self.data.get("append-only") is True

    @property
    def pr_link(self) -> Any:
        return self.data.get("pr-link") if isinstance(self.data, dict) else None

    @property
    def scenario_types(self) -> frozenset[str] | None:
        value = self.data.get("scenario-type") if isinstance(self.data, dict) else None
        if isinstance(value, list) and value:
            return frozenset(str(v) for v in value)
        return None


def _history_entries(change: appendonly.Change) -> int:
    if change.history_entries is not None:
        return change.history_entries
    # The fast path does not parse history; counting entry starts is a C-speed byte scan.
    base = change.base
    return base.count(b"\n" + ENTRY_START) + base.startswith(ENTRY_START)


def _appended_entries(change: appendonly.Change) -> list[AppendedEntry]:
    first = _history_entries(change)
    out: list[AppendedEntry] = []
    for i, block in enumerate(change.appended):
        entry = AppendedEntry(first + i, block.line, block.data)
        # Re-load the (small) entry bytes for the line of every config key and of the pr-link.
        try:
            loaded = yamlload.load(
                block.content(change.head).decode("utf-8"), line_offset=block.line - 1
            )
        except (yamlload.YamlProblem, UnicodeDecodeError):
            loaded = None
        data = block.data if isinstance(block.data, dict) else {}
        keys = data.get("config-keys")
        if isinstance(keys, list):
            for k, key in enumerate(keys):
                if isinstance(key, str):
                    entry.config_keys.append(key)
                    mark = loaded.mark((0, "config-keys", k)) if loaded else None
                    entry.key_marks.append(mark or (block.line, 1))
        if loaded is not None:
            entry.link_mark = loaded.key_marks.get((0, "pr-link"))
        out.append(entry)
    return out


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


@dataclass
class _KeyOutcome:
    diagnostics: list[dx.Diagnostic] = field(default_factory=list)
    changed: list[mc.KeyChange] | None = None
    masters_parsed: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _key_rules(
    entries: list[AppendedEntry],
    *,
    masters_base: Mapping[str, bytes | None] | None,
    masters_head: Mapping[str, bytes | None],
    path: str,
    strict: bool,
) -> _KeyOutcome:
    out = _KeyOutcome()
    head = mc.load_masters(masters_head)
    names = head.names
    for entry in entries:
        for key, (line, column) in zip(entry.config_keys, entry.key_marks, strict=True):
            resolved = mc.resolve_key(key, names)
            if resolved:
                continue
            wildcard = "*" in key
            out.diagnostics.append(
                dx.error(
                    dx.WILDCARD_NO_MATCH if wildcard else dx.UNKNOWN_CONFIG_KEY,
                    f"entry {entry.index + 1}: "
                    + (
                        f"wildcard {key!r} matches no master-config key"
                        if wildcard
                        else f"config key {key!r} is not defined in the master configs"
                    ),
                    path,
                    line,
                    column,
                    hint=mc.did_you_mean(mc.suggestions(key, names))
                    or "master configs: " + ", ".join(masters_head),
                )
            )
        entry.master_keys = mc.resolve_keys(entry.config_keys, names)

    append_only = [e for e in entries if e.append_only]
    if append_only and len(append_only) != len(entries):
        first_ao = append_only[0]
        for entry in entries:
            if not entry.append_only:
                out.diagnostics.append(
                    dx.error(
                        dx.APPEND_ONLY_MIXED,
                        f"entry {entry.index + 1} is a regular entry, but entry "
                        f"{first_ao.index + 1} (line {first_ao.line}) is `append-only: true`; "
                        "append-only entries cannot share a sweep with regular entries",
                        path,
                        entry.line,
                        1,
                        hint="append them in separate pull requests",
                    )
                )

    base: mc.Masters | None = None
    if masters_base is None:
        out.notes.append("coverage and append-only scope skipped: no base master configs")
    elif mc.same_files(masters_base, masters_head):
        out.changed = []
    else:
        base = mc.load_masters(masters_base, report_missing=False)
        out.changed = mc.changed_keys(base, head)

    if out.changed is not None:
        selected = {k for e in entries for k in e.master_keys}
        make = dx.error if strict else dx.warning
        for kc in out.changed:
            if kc.kind == "removed" or kc.name in selected:
                continue
            out.diagnostics.append(
                make(
                    dx.UNCOVERED_CONFIG_CHANGE,
                    f"master config key {kc.name!r} is {kc.kind} by this change, but no appended "
                    "entry selects it, so CI will not sweep it",
                    kc.path,
                    kc.line,
                    1,
                    hint=f"add `{kc.name}` to the `config-keys` of an appended entry",
                )
            )

    if append_only and out.changed is not None:
        changed_names = {c.name for c in out.changed}
        for entry in append_only:
            if entry.master_keys and not changed_names & set(entry.master_keys):
                out.diagnostics.append(
                    dx.error(
                        dx.APPEND_ONLY_NOTHING_ADDED,
                        f"entry {entry.index + 1} is append-only, but none of the configs it "
                        "selects changed, so it adds no points",
                        path,
                        entry.line,
                        1,
                        hint="append the new search-space rows or concurrencies to the master "
                        "config in the same change",
                    )
                )
        if base is None:
            base = head  # unchanged master configs: the head is the base
        scope: dict[str, frozenset[str] | None] = {}
        for entry in append_only:
            types = entry.scenario_types
            for name in entry.master_keys:
                if types is None or (name in scope and scope[name] is None):
                    scope[name] = None  # no scenario-type: every scenario is selected
                else:
                    scope[name] = (scope.get(name) or frozenset()) | types
        out.diagnostics.extend(mc.append_only_scope(base, head, scope, out.changed))

    out.diagnostics.extend(head.all_diagnostics())
    if base is not None and base is not head:
        # Problems of the base master configs matter only where they block a comparison.
        out.diagnostics.extend(d for d in base.all_diagnostics() if d.code == dx.MASTER_INVALID)
    out.masters_parsed = [f.path for f in head.files if not f.scanned]
    return out


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
    shown = path or config.changelog
    change = appendonly.compare(
        base,
        head,
        path=shown,
        base_label=base_label,
        max_size=config.max_file_size,
        strict=strict,
    )
    report = dx.Report(command="check")
    report.extend(change.diagnostics)
    entries = _appended_entries(change)
    if change.kind is appendonly.ChangeKind.NONE and mode == "pr":
        report.extend([_nothing_to_sweep(change, shown)])
    report.extend(_link_findings(entries, mode=mode, pr=pr, config=config, path=shown))
    report.extend(_correction_findings(change, config=config, path=shown))
    keys: _KeyOutcome | None = None
    if masters_head is not None:
        keys = _key_rules(
            entries,
            masters_base=masters_base,
            masters_head=masters_head,
            path=shown,
            strict=strict,
        )
        report.extend(keys.diagnostics)
    report.data.update(_data(change, entries, keys, mode=mode, pr=pr, path=shown, config=config))
    return CheckResult(report, change)


def _data(
    change: appendonly.Change,
    entries: list[AppendedEntry],
    keys: _KeyOutcome | None,
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
