"""`check`'s config-key rules: keys of appended entries against the master configs at the head,
coverage of the master keys the change adds or changes, and the scope of `append-only: true`
entries.

Only a check that reads master configs needs this module: the write guard (`guard.verify`, every
resolve and canonicalize) checks no config keys, so `checkrules` imports it lazily and the
master-config code stays unloaded there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from changelog_tools import diagnostics as dx
from changelog_tools.ledger import masterconfig as mc
from changelog_tools.ledger.appended import AppendedEntry


@dataclass
class KeyOutcome:
    """What the key rules found, and what the JSON report says about the master keys."""

    diagnostics: list[dx.Diagnostic] = field(default_factory=list)
    changed: list[mc.KeyChange] | None = None
    masters_parsed: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def key_rules(
    entries: list[AppendedEntry],
    *,
    masters_base: Mapping[str, bytes | None] | None,
    masters_head: Mapping[str, bytes | None],
    path: str,
    strict: bool,
) -> KeyOutcome:
    """Every config-key rule over the appended ``entries`` (their ``master_keys`` are filled in).

    ``masters_base`` None skips coverage and the append-only scope rules.
    """
    out = KeyOutcome()
    head = mc.load_masters(masters_head)
    out.diagnostics.extend(_unknown_keys(entries, head.names, masters_head, path=path))
    append_only = [e for e in entries if e.append_only]
    regular = [e for e in entries if not e.append_only]
    if append_only and regular:
        out.diagnostics.append(_mixed_append_only(append_only[0], regular, path=path))

    base: mc.Masters | None = None
    if masters_base is None:
        out.notes.append("coverage and append-only scope skipped: no base master configs")
    elif mc.same_files(masters_base, masters_head):
        out.changed = []
    else:
        base = mc.load_masters(masters_base, report_missing=False)
        out.changed = mc.changed_keys(base, head)

    if out.changed is not None:
        out.diagnostics.extend(_uncovered(entries, out.changed, strict=strict))
    if append_only and out.changed is not None:
        if base is None:
            base = head  # unchanged master configs: the head is the base
        out.diagnostics.extend(_append_only_findings(append_only, base, head, out.changed, path))

    out.diagnostics.extend(head.all_diagnostics())
    if base is not None and base is not head:
        # Problems of the base master configs matter only where they block a comparison.
        out.diagnostics.extend(d for d in base.all_diagnostics() if d.code == dx.MASTER_INVALID)
    out.masters_parsed = [f.path for f in head.files if not f.scanned]
    return out


def _unknown_keys(
    entries: list[AppendedEntry],
    names: Sequence[str],
    masters_head: Mapping[str, bytes | None],
    *,
    path: str,
) -> list[dx.Diagnostic]:
    """A finding per config key that selects no master key; each entry's master keys set."""
    out: list[dx.Diagnostic] = []
    for entry in entries:
        for key, (line, column) in zip(entry.config_keys, entry.key_marks, strict=True):
            resolved = mc.resolve_key(key, names)
            if resolved:
                continue
            wildcard = "*" in key
            out.append(
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
    return out


def _mixed_append_only(
    first_ao: AppendedEntry, regular: list[AppendedEntry], *, path: str
) -> dx.Diagnostic:
    """One finding, not one per entry: replaying a long history would otherwise drown in it."""
    first_regular = regular[0]
    return dx.error(
        dx.APPEND_ONLY_MIXED,
        f"entry {first_ao.index + 1} is `append-only: true`, but {len(regular)} other "
        f"appended entr{'y is' if len(regular) == 1 else 'ies are'} regular (first: "
        f"entry {first_regular.index + 1}, line {first_regular.line}); append-only "
        "entries cannot share a sweep with regular entries",
        path,
        first_ao.line,
        1,
        hint="append them in separate pull requests",
    )


def _uncovered(
    entries: list[AppendedEntry], changed: list[mc.KeyChange], *, strict: bool
) -> list[dx.Diagnostic]:
    """A finding per added or changed master key that no appended entry selects."""
    selected = {k for e in entries for k in e.master_keys}
    make = dx.error if strict else dx.warning
    return [
        make(
            dx.UNCOVERED_CONFIG_CHANGE,
            f"master config key {kc.name!r} is {kc.kind} by this change, but no appended "
            "entry selects it, so CI will not sweep it",
            kc.path,
            kc.line,
            1,
            hint=f"add `{kc.name}` to the `config-keys` of an appended entry",
        )
        for kc in changed
        if not (kc.kind == "removed" or kc.name in selected)
    ]


def _append_only_findings(
    append_only: list[AppendedEntry],
    base: mc.Masters,
    head: mc.Masters,
    changed: list[mc.KeyChange],
    path: str,
) -> list[dx.Diagnostic]:
    """An append-only entry must select a changed config and may only add points in its scope."""
    out: list[dx.Diagnostic] = []
    changed_names = {c.name for c in changed}
    for entry in append_only:
        if entry.master_keys and not changed_names & set(entry.master_keys):
            out.append(
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
    scope: dict[str, frozenset[str] | None] = {}
    for entry in append_only:
        types = entry.scenario_types
        for name in entry.master_keys:
            if types is None or (name in scope and scope[name] is None):
                scope[name] = None  # no scenario-type: every scenario is selected
            else:
                scope[name] = (scope.get(name) or frozenset()) | types
    out.extend(mc.append_only_scope(base, head, scope, changed))
    return out
