"""Master configs: their top-level keys, how changelog `config-keys` resolve, and what a change did.

A master config file (``configs/*-master.yaml`` in InferenceX) is a YAML mapping whose top-level
keys are the configurations a changelog entry selects. `check` needs three things from them:

* the set of keys (to resolve the `config-keys` of appended entries, `*` wildcards included);
* which keys the change added or modified (coverage: CI sweeps only what an entry selects);
* for `append-only: true` entries, how each selected config changed, scenario by scenario.

Work in proportion to the change: the files are 375 KB in InferenceX, so they are not parsed
whole when that can be avoided. A file whose column-0 lines are all plain ``key:`` lines is
split into one byte block per top-level key by a scan; a block is parsed (with the strict loader,
at its real line numbers) only when its value is needed, i.e. when its bytes changed between
base and head or an append-only entry selects it. Any file the scan does not understand (quoted
or flow keys, document markers, top-level scalars) is parsed whole, with the same results.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from changelog_tools import diagnostics as dx
from changelog_tools import yamlload
from changelog_tools.ledger.keypatterns import did_you_mean as did_you_mean
from changelog_tools.ledger.keypatterns import resolve_key as resolve_key
from changelog_tools.ledger.keypatterns import resolve_keys as resolve_keys
from changelog_tools.ledger.keypatterns import suggestions as suggestions
from changelog_tools.ledger.keypatterns import wildcard_match as wildcard_match
from changelog_tools.ledger.searchspace import SEARCH_SPACE_FIELD as SEARCH_SPACE_FIELD
from changelog_tools.ledger.searchspace import kept, search_space_rows

# A top-level line the scan understands: a plain key followed by a colon and nothing but an
# optional comment (its value is the indented block below).
_KEY_LINE = re.compile(rb"(?P<key>[A-Za-z0-9_][A-Za-z0-9_.\-]*)[ ]*:[ ]*(?:#[^\n]*)?\Z")
# Any line with content at column 0 that is not a comment.
_TOP_LINE = re.compile(rb"^[^\s#]", re.MULTILINE)

SCENARIOS_FIELD = "scenarios"

_MISSING = object()


@dataclass(frozen=True, slots=True)
class MasterKey:
    """A top-level key of a master config: its file, line and byte span (key line to next key)."""

    name: str
    path: str
    line: int
    start: int
    end: int


@dataclass
class MasterFile:
    """One master config file: its top-level keys, always; their values, parsed on demand."""

    path: str
    raw: bytes
    keys: dict[str, MasterKey] = field(default_factory=dict)
    diagnostics: list[dx.Diagnostic] = field(default_factory=list)
    scanned: bool = False  # True: keys come from the cheap scan, values are parsed per block
    _values: dict[str, Any] = field(default_factory=dict, repr=False)
    _marks: dict[str, yamlload.Loaded] = field(default_factory=dict, repr=False)
    _whole: yamlload.Loaded | None = field(default=None, repr=False)

    @property
    def ok(self) -> bool:
        return not any(d.severity is dx.Severity.ERROR for d in self.diagnostics)

    def block(self, name: str) -> bytes:
        key = self.keys[name]
        return self.raw[key.start : key.end]

    def value(self, name: str) -> Any:
        """The parsed value of top-level key ``name`` (``_MISSING`` when it cannot be parsed)."""
        if name in self._values:
            return self._values[name]
        if self._whole is not None:
            return self._whole.value.get(name, _MISSING)
        key = self.keys[name]
        text = self.raw[key.start : key.end].decode("utf-8")
        try:
            loaded = yamlload.load(text, line_offset=key.line - 1)
        except yamlload.YamlProblem as exc:
            self.diagnostics.append(_yaml_problem(exc, self.path))
            self._values[name] = _MISSING
            return _MISSING
        value = loaded.value.get(name, _MISSING) if isinstance(loaded.value, dict) else _MISSING
        self._values[name] = value
        self._marks[name] = loaded
        return value

    def line_of(self, name: str, *sub: str | int) -> int:
        """Line of the value at ``name``/``sub...`` (or of its nearest located ancestor)."""
        self.value(name)
        loaded = self._whole if self._whole is not None else self._marks.get(name)
        if loaded is None:
            return self.keys[name].line
        if sub:
            mark = loaded.key_marks.get((name, *sub))
            if mark is not None:
                return mark[0]
        found = loaded.mark((name, *sub))
        return found[0] if found else self.keys[name].line


def _yaml_problem(exc: yamlload.YamlProblem, path: str) -> dx.Diagnostic:
    return dx.error(
        dx.MASTER_INVALID,
        f"master config: {exc.message}",
        path,
        exc.line,
        exc.column,
        hint="fix the YAML of the master config",
    )


def _scan(raw: bytes) -> list[tuple[str, int, int]] | None:
    """(key, line, offset) of every top-level key, or None when a column-0 line is not plain."""
    out: list[tuple[str, int, int]] = []
    line = 1
    prev = 0
    for match in _TOP_LINE.finditer(raw):
        start = match.start()
        end = raw.find(b"\n", start)
        text = raw[start : len(raw) if end == -1 else end]
        key = _KEY_LINE.match(text)
        if key is None:
            return None
        line += raw.count(b"\n", prev, start)
        prev = start
        out.append((key["key"].decode("ascii"), line, start))
    return out


def load_master(path: str, raw: bytes, *, full: bool = False) -> MasterFile:
    """Read one master config's top-level keys (by scan when possible, else a whole parse)."""
    master = MasterFile(path, raw)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        master.diagnostics.append(
            dx.error(dx.MASTER_INVALID, "master config is not valid UTF-8", path, line)
        )
        return master
    scanned = None if full else _scan(raw)
    if scanned is not None:
        master.scanned = True
        for i, (name, line, start) in enumerate(scanned):
            end = scanned[i + 1][2] if i + 1 < len(scanned) else len(raw)
            if name in master.keys:
                master.diagnostics.append(_duplicate(name, path, line, master.keys[name]))
                continue
            master.keys[name] = MasterKey(name, path, line, start, end)
        return master
    try:
        loaded = yamlload.load(text)
    except yamlload.YamlProblem as exc:
        master.diagnostics.append(_yaml_problem(exc, path))
        return master
    if not isinstance(loaded.value, dict):
        what = "empty" if loaded.value is None else f"a {type(loaded.value).__name__}"
        master.diagnostics.append(
            dx.error(
                dx.MASTER_INVALID,
                f"the root of a master config must be a mapping of config keys; it is {what}",
                path,
                1,
                1,
            )
        )
        return master
    master._whole = loaded
    for name in loaded.value:
        line = loaded.key_marks[(name,)][0]
        key_name = str(name)
        master.keys[key_name] = MasterKey(key_name, path, line, 0, 0)
    return master


def _duplicate(name: str, path: str, line: int, first: MasterKey) -> dx.Diagnostic:
    where = f"line {first.line}" if first.path == path else f"{first.path}:{first.line}"
    return dx.error(
        dx.MASTER_DUPLICATE_KEY,
        f"master config key {name!r} is already defined at {where}",
        path,
        line,
        1,
        hint="every config key must be defined once across all master configs",
    )


@dataclass
class Masters:
    """All master configs at one revision, in configured order (first definition wins)."""

    files: tuple[MasterFile, ...]
    missing: tuple[str, ...] = ()
    index: dict[str, MasterKey] = field(default_factory=dict)
    diagnostics: list[dx.Diagnostic] = field(default_factory=list)

    @property
    def names(self) -> list[str]:
        return list(self.index)

    def file_of(self, name: str) -> MasterFile:
        key = self.index[name]
        return next(f for f in self.files if f.path == key.path)

    def value(self, name: str) -> Any:
        return self.file_of(name).value(name) if name in self.index else _MISSING

    def block(self, name: str) -> bytes | None:
        return self.file_of(name).block(name) if name in self.index else None

    def all_diagnostics(self) -> list[dx.Diagnostic]:
        out = list(self.diagnostics)
        for f in self.files:
            out.extend(f.diagnostics)
        return out


def load_masters(
    sources: Mapping[str, bytes | None], *, full: bool = False, report_missing: bool = True
) -> Masters:
    """Load every master config; check cross-file duplicates and `*` in keys."""
    files: list[MasterFile] = []
    missing: list[str] = []
    diags: list[dx.Diagnostic] = []
    index: dict[str, MasterKey] = {}
    for path, raw in sources.items():
        if raw is None:
            missing.append(path)
            if report_missing:
                diags.append(
                    dx.error(
                        dx.MASTER_MISSING,
                        "master config file does not exist",
                        path,
                        hint="fix the `master-configs` option or pass --master-config PATH",
                    )
                )
            continue
        master = load_master(path, raw, full=full)
        files.append(master)
        for name, key in master.keys.items():
            if "*" in name:
                diags.append(
                    dx.error(
                        dx.MASTER_KEY_WILDCARD,
                        f"master config key {name!r} contains `*`, which changelog entries use "
                        "as a wildcard",
                        path,
                        key.line,
                        1,
                        hint="rename the key without `*`",
                    )
                )
            if name in index:
                diags.append(_duplicate(name, path, key.line, index[name]))
                continue
            index[name] = key
    return Masters(tuple(files), tuple(missing), index, diags)


# -- what the change did to the master configs ------------------------------------------------


@dataclass(frozen=True, slots=True)
class KeyChange:
    name: str
    kind: str  # "added" | "modified" | "removed"
    path: str  # head path (base path for removed keys)
    line: int


def changed_keys(base: Masters, head: Masters) -> list[KeyChange]:
    """Master keys the change added, modified (by value) or removed, in head order.

    Bytes are compared first; only keys whose bytes differ are parsed, so comment or blank-line
    edits do not count as modifications.
    """
    out: list[KeyChange] = []
    for name, key in head.index.items():
        if name not in base.index:
            out.append(KeyChange(name, "added", key.path, key.line))
            continue
        scanned = base.file_of(name).scanned and head.file_of(name).scanned
        if scanned and base.block(name) == head.block(name):
            continue
        old, new = base.value(name), head.value(name)
        if old is _MISSING or new is _MISSING or old != new:
            line = key.line
            old_bytes, new_bytes = base.block(name), head.block(name)
            if scanned and old_bytes is not None and new_bytes is not None:
                # the first line of the key that differs: where GitHub shows the change, so an
                # annotation there lands in the pull request's diff
                line += _first_differing_line(old_bytes, new_bytes) - 1
            out.append(KeyChange(name, "modified", key.path, line))
    for name, key in base.index.items():
        if name not in head.index:
            out.append(KeyChange(name, "removed", key.path, key.line))
    return out


def _first_differing_line(old: bytes, new: bytes) -> int:
    """1-based line of ``new`` where it first differs from ``old`` (blank lines kept)."""
    for number, (a, b) in enumerate(zip(old.split(b"\n"), new.split(b"\n"), strict=False), 1):
        if a != b:
            return number
    return min(old.count(b"\n"), new.count(b"\n")) + 1


def same_files(base: Mapping[str, bytes | None], head: Mapping[str, bytes | None]) -> bool:
    return dict(base) == dict(head)


def is_missing(value: Any) -> bool:
    return value is _MISSING


# -- append-only scope ------------------------------------------------------------------------


def append_only_scope(
    base: Masters,
    head: Masters,
    scope: Mapping[str, frozenset[str] | None],
    changes: Sequence[KeyChange],
) -> list[dx.Diagnostic]:
    """Rule 8: what an append-only change may do to the master configs.

    ``scope`` maps each selected config to the scenario types its entries select (None: all).
    Changes inside selected scenarios may only add search-space rows or concurrencies.
    """
    out: list[dx.Diagnostic] = []
    by_name = {c.name: c for c in changes}
    for name in scope:
        if name not in base.index and name in head.index:
            key = head.index[name]
            out.append(
                dx.error(
                    dx.APPEND_ONLY_NEW_CONFIG,
                    f"append-only entries select {name!r}, which does not exist at the base; "
                    "append-only can only add points to an existing config",
                    key.path,
                    key.line,
                    1,
                    hint="use a regular changelog entry (without `append-only: true`) for a new "
                    "config",
                )
            )
    for change in changes:
        if change.name in scope:
            continue
        verb = {"added": "adds", "modified": "modifies", "removed": "removes"}[change.kind]
        out.append(
            dx.error(
                dx.APPEND_ONLY_UNSELECTED_CHANGED,
                f"an append-only change {verb} config {change.name!r}, which no appended entry "
                "selects",
                change.path,
                change.line if change.kind != "removed" else None,
                1 if change.kind != "removed" else None,
                hint="revert that config, or move its change to a pull request with a regular "
                "changelog entry",
            )
        )
    for name, selected in scope.items():
        found = by_name.get(name)
        if found is None or found.kind != "modified":
            continue
        out.extend(_scope_of_config(name, base, head, selected))
    return out


def _scope_of_config(
    name: str, base: Masters, head: Masters, selected: frozenset[str] | None
) -> list[dx.Diagnostic]:
    """What an append-only change did to config ``name`` beyond its entries' scenario types
    ``selected`` (None: all): the scenario set, unselected scenarios, config-wide fields, and
    the selected scenarios' existing rows."""
    old, new = base.value(name), head.value(name)
    if not isinstance(old, dict) or not isinstance(new, dict):
        return []
    at = _ConfigAt(name, head.file_of(name), _scenarios(old), _scenarios(new))
    every = set(at.old) | set(at.new)
    chosen = every if selected is None else set(selected)
    out = [
        *_scenario_set_changed(at),
        *_unselected_scenarios_changed(at, chosen),
        *_config_wide_changed(at, old, new, unselected=every - chosen),
    ]
    for scenario in sorted(chosen & set(at.old) & set(at.new)):
        out.extend(_rows_removed(at, scenario))
    return out


@dataclass(frozen=True, slots=True)
class _ConfigAt:
    """One config an append-only change modified: its name, the head file that holds it, and
    its scenarios at base and head."""

    name: str
    file: MasterFile
    old: dict[str, Any]
    new: dict[str, Any]

    def error(self, code: str, message: str, line: int | None, hint: str) -> dx.Diagnostic:
        return dx.error(code, message, self.file.path, line, 1, hint=hint)


def _scenarios(config: dict[str, Any]) -> dict[str, Any]:
    scenarios = config.get(SCENARIOS_FIELD)
    return scenarios if isinstance(scenarios, dict) else {}


def _scenario_set_changed(at: _ConfigAt) -> list[dx.Diagnostic]:
    if set(at.old) == set(at.new):
        return []
    added = sorted(set(at.new) - set(at.old))
    removed = sorted(set(at.old) - set(at.new))
    what = "; ".join(
        filter(
            None,
            [
                f"adds {', '.join(added)}" if added else "",
                f"removes {', '.join(removed)}" if removed else "",
            ],
        )
    )
    return [
        at.error(
            dx.APPEND_ONLY_SCENARIO_SET,
            f"append-only change to {at.name!r} {what}; the set of scenarios must stay the same",
            at.file.line_of(at.name, SCENARIOS_FIELD),
            "use a regular changelog entry to add or remove a scenario",
        )
    ]


def _unselected_scenarios_changed(at: _ConfigAt, chosen: set[str]) -> list[dx.Diagnostic]:
    return [
        at.error(
            dx.APPEND_ONLY_OUT_OF_SCOPE,
            f"append-only change modifies scenario {scenario!r} of {at.name!r}, outside the "
            f"entry's scenario-type ({', '.join(sorted(chosen)) or 'none'})",
            at.file.line_of(at.name, SCENARIOS_FIELD, scenario),
            f"revert {scenario!r}, or add it to the entry's `scenario-type`",
        )
        for scenario in sorted((set(at.old) | set(at.new)) - chosen)
        if at.old.get(scenario, _MISSING) != at.new.get(scenario, _MISSING)
    ]


def _config_wide_changed(
    at: _ConfigAt, old: dict[str, Any], new: dict[str, Any], *, unselected: set[str]
) -> list[dx.Diagnostic]:
    """A field outside the scenarios changed, while scenarios the entries do not select exist
    at the base: the change reaches them too."""
    if not unselected & set(at.old):
        return []
    wide_old = {k: v for k, v in old.items() if k != SCENARIOS_FIELD}
    wide_new = {k: v for k, v in new.items() if k != SCENARIOS_FIELD}
    if wide_old == wide_new:
        return []
    diff = [k for k in [*wide_new, *wide_old] if wide_old.get(k) != wide_new.get(k)]
    first = diff[0]
    line = at.file.line_of(at.name, first) if first in wide_new else at.file.keys[at.name].line
    return [
        at.error(
            dx.APPEND_ONLY_CONFIG_WIDE,
            f"append-only change modifies config-wide field `{first}` of {at.name!r}, which "
            "also affects its unselected scenarios "
            f"({', '.join(sorted(unselected & set(at.old)))})",
            line,
            "revert the field, or use a regular changelog entry",
        )
    ]


def _rows_removed(at: _ConfigAt, scenario: str) -> list[dx.Diagnostic]:
    new_rows = search_space_rows(at.new[scenario])
    return [
        at.error(
            dx.APPEND_ONLY_ROW_REMOVED,
            f"append-only change removes or modifies the existing search-space row "
            f"{row.text} of {at.name!r} / {scenario!r} (group {row.group + 1}); rows and "
            "concurrencies may only be added",
            at.file.line_of(at.name, SCENARIOS_FIELD, scenario, row.group),
            "restore the row; add new rows or concurrencies beside it",
        )
        for row in search_space_rows(at.old[scenario])
        if not kept(row, new_rows)
    ]


# -- `changelog-tools keys` -------------------------------------------------------------------


def resolve_report(patterns: Sequence[str], masters: Masters) -> dx.Report:
    """Resolve ``patterns`` (all keys when empty); unknown keys and empty wildcards are errors."""
    report = dx.Report(command="keys")
    report.extend(masters.all_diagnostics())
    names = masters.names
    rows: list[dict[str, Any]] = []
    for pattern in patterns or ["*"]:
        matches = resolve_key(pattern, names)
        if not matches:
            wildcard = "*" in pattern
            report.extend(
                [
                    dx.error(
                        dx.WILDCARD_NO_MATCH if wildcard else dx.UNKNOWN_CONFIG_KEY,
                        f"wildcard {pattern!r} matches no master-config key"
                        if wildcard
                        else f"config key {pattern!r} is not defined in the master configs",
                        "<command line>",
                        hint=did_you_mean(suggestions(pattern, names)),
                    )
                ]
            )
        rows.append(
            {
                "pattern": pattern,
                "matches": [
                    {"key": n, "path": masters.index[n].path, "line": masters.index[n].line}
                    for n in matches
                ],
            }
        )
    report.data["patterns"] = rows
    report.data["master-configs"] = [f.path for f in masters.files]
    return report
