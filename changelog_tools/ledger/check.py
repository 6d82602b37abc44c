"""`check`: the CI gate on a change to the changelog (base bytes vs head bytes).

Layers the policy rules on top of :mod:`changelog_tools.ledger.appendonly` (which classifies the change
and applies the byte and immutability rules):

* pr-links of appended entries by mode (pull request, main, local) and of corrections;
* a pull request that leaves the changelog byte-identical: when it changes master configs,
  coverage warnings (errors with ``strict``) and a pass; otherwise nothing to sweep (an error);
* config keys of appended entries against the master configs at the head, coverage of changed
  master keys, and the scope rules of `append-only: true` entries.

Everything here works on bytes handed in by the caller: git mode and file mode in the CLI, the
canonicalize step and the merge flow all call :func:`check_change`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from changelog_tools import diagnostics as dx
from changelog_tools import yamlload
from changelog_tools.config import Config
from changelog_tools.errors import GitError, UsageError
from changelog_tools.fsutil import read_input
from changelog_tools.ledger import appendonly, links
from changelog_tools.ledger.document import count_entries

if TYPE_CHECKING:
    from changelog_tools.ledger import masterconfig as mc

MODES = ("pr", "main", "local")


@dataclass(frozen=True, slots=True)
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
    return count_entries(change.base)


def _load_appended(change: appendonly.Change) -> yamlload.Loaded | None:
    """All appended entries loaded at once (item i is appended entry i), or None."""
    blocks = change.appended
    if not blocks:
        return None
    try:
        loaded = yamlload.load(
            change.head[blocks[0].start : blocks[-1].content_end].decode("utf-8"),
            line_offset=blocks[0].line - 1,
        )
    except (yamlload.YamlProblem, UnicodeDecodeError):
        return None
    value = loaded.value
    if not isinstance(value, list) or len(value) != len(blocks):
        return None
    return loaded


def _appended_entries(change: appendonly.Change) -> list[AppendedEntry]:
    first = _history_entries(change) if change.appended else 0
    out: list[AppendedEntry] = []
    # Misplaced entries (inserted among history) are the change's entries all the same: their
    # keys and links are checked, and no key they select is reported as unselected.
    numbered = [(first + i, b) for i, b in enumerate(change.appended)] or [
        (b.index, b) for b in change.misplaced
    ]
    # The line of every config key and of the pr-link: one load of all appended bytes (a parser
    # per entry cost 200,000 parser set-ups for 200,000 entries); entry by entry when the whole
    # does not load, and for misplaced entries.
    whole = _load_appended(change)
    for i, (index, block) in enumerate(numbered):
        entry = AppendedEntry(index, block.line, block.data)
        loaded: yamlload.Loaded | None
        if whole is not None:
            loaded, prefix = whole, (i,)
        else:
            prefix = (0,)
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
                    mark = loaded.mark((*prefix, "config-keys", k)) if loaded else None
                    entry.key_marks.append(mark or (block.line, 1))
        if loaded is not None:
            entry.link_mark = loaded.key_marks.get((*prefix, "pr-link"))
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
    # Only a check that reads master configs needs them: the write guard (`guard.verify`,
    # every resolve and canonicalize) checks no config keys and so never imports them.
    from changelog_tools.ledger import masterconfig as mc

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
    regular = [e for e in entries if not e.append_only]
    if append_only and regular:
        # One finding, not one per entry: replaying a long history would otherwise drown in it.
        first_ao, first_regular = append_only[0], regular[0]
        out.diagnostics.append(
            dx.error(
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
    if mode == "local" and pr is not None:
        raise UsageError("local mode takes no pull-request number")
    shown = path or config.changelog
    change = appendonly.compare(
        base,
        head,
        path=shown,
        base_label=base_label,
        max_size=config.max_file_size,
        strict=strict,
        whitespace_separator=config.whitespace_only_separator,
    )
    report = dx.Report(command="check")
    report.extend(phase_in(change.diagnostics, config))
    entries = _appended_entries(change)
    report.extend(
        phase_in(_link_findings(entries, mode=mode, pr=pr, config=config, path=shown), config)
    )
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


BASE_NOT_ANCESTOR = dx.register(
    "CL117",
    "base-not-ancestor",
    "The --base-ref given is not an ancestor of the head; the merge-base is what to compare.",
)

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


# -- gathering the inputs: GitHub Actions context, git refs, files -----------------------------


@dataclass(frozen=True, slots=True)
class EventContext:
    """What the GitHub Actions event says about the run: mode, PR number, refs to compare."""

    mode: str
    pr: int | None = None
    base: str | None = None
    head: str | None = None
    source: str = ""


_ZERO_SHA = "0" * 40


def github_context(env: Mapping[str, str], *, main_branch: str) -> EventContext | None:
    """The check's mode from the Actions event (``GITHUB_EVENT_NAME``/``GITHUB_EVENT_PATH``);
    None outside GitHub Actions."""
    from changelog_tools.actionsevent import read_event

    actions = read_event(env)
    name = actions.name
    if not name:
        return None
    event = actions.payload
    if name in ("pull_request", "pull_request_target"):
        pull = event.get("pull_request") if isinstance(event.get("pull_request"), dict) else {}
        assert isinstance(pull, dict)
        number = pull.get("number", event.get("number"))
        if not isinstance(number, int) or isinstance(number, bool) or number < 1:
            raise UsageError(
                f"GITHUB_EVENT_NAME is {name}, but the event file has no pull-request number",
                hint="pass --pr N, or set GITHUB_EVENT_PATH to the event JSON",
            )
        head = pull.get("head") if isinstance(pull.get("head"), dict) else {}
        assert isinstance(head, dict)
        sha = head.get("sha") if isinstance(head.get("sha"), str) else None
        return EventContext("pr", number, None, sha, f"{name} event for #{number}")
    if name == "push":
        ref = event.get("ref") or actions.ref or ""
        after = event.get("after") or actions.sha
        before = event.get("before")
        if ref == f"refs/heads/{main_branch}":
            valid = isinstance(before, str) and before != _ZERO_SHA and len(before) >= 7
            return EventContext(
                "main",
                None,
                before if valid else None,
                after if isinstance(after, str) else None,
                f"push to {main_branch}",
            )
        return EventContext("local", source=f"push to {ref or 'a branch'}")
    if name == "merge_group":
        return _merge_group_context(event)
    return EventContext("local", source=f"{name} event")


# gh-readonly-queue/<base branch>/pr-<N>-<sha>: GitHub's name for a merge-queue entry's ref.
_QUEUE_REF = re.compile(r"^(?:refs/heads/)?gh-readonly-queue/.+/pr-(?P<pr>[0-9]+)-[0-9a-f]{7,64}$")


def queue_ref_pr(ref: str) -> int | None:
    """The PR number of a merge-queue ref, or None (ASCII digits only)."""
    found = _QUEUE_REF.match(ref)
    return int(found["pr"]) if found and len(found["pr"]) <= 9 else None


def _merge_group_context(event: Mapping[str, Any]) -> EventContext:
    """A merge-queue run checks what will land on main: main mode, the PR from the queue ref."""
    group = event.get("merge_group") if isinstance(event.get("merge_group"), dict) else None
    if not isinstance(group, dict):
        raise UsageError(
            "GITHUB_EVENT_NAME is merge_group, but the event file has no merge_group object",
            hint="set GITHUB_EVENT_PATH to the event JSON, or pass --main --base-ref/--head-ref",
        )
    ref = group.get("head_ref") if isinstance(group.get("head_ref"), str) else ""
    assert isinstance(ref, str)
    number = queue_ref_pr(ref)
    if number is None:
        raise UsageError(
            f"merge_group head_ref {ref!r} is not a merge-queue ref "
            "(refs/heads/gh-readonly-queue/<branch>/pr-<N>-<sha>); cannot tell which PR lands",
            hint="pass --main --pr N to say which pull request the queued commit lands",
        )
    base = group.get("base_sha") if isinstance(group.get("base_sha"), str) else None
    head = group.get("head_sha") if isinstance(group.get("head_sha"), str) else None
    return EventContext(
        "main",
        number,
        base,
        head,
        f"merge_group event for #{number} ({ref.removeprefix('refs/heads/')})",
    )


@dataclass(frozen=True, slots=True)
class Request:
    """Everything the `check` command line can say (None: use the default)."""

    mode: str | None = None
    pr: int | None = None
    base_ref: str | None = None
    head_ref: str | None = None
    base_file: str | None = None
    head_file: str | None = None
    changelog: str | None = None
    master_configs: tuple[str, ...] = ()
    base_master_configs: tuple[str, ...] = ()
    config_keys: bool = True
    strict: bool = False


def resolve_mode(request: Request, event: EventContext | None) -> tuple[str, int | None]:
    """Explicit flags win over the GitHub event; with neither, local mode."""
    if request.pr is not None:
        if request.mode == "main":
            return "main", request.pr  # main mode, and the commit lands this PR
        if request.mode not in (None, "pr"):
            raise UsageError(f"--pr cannot be combined with --{request.mode}")
        return "pr", request.pr
    if request.mode is not None:
        if request.mode == "pr":
            if event is not None and event.pr is not None:
                return "pr", event.pr
            raise UsageError("pull-request mode needs the pull request's number (--pr N)")
        if request.mode == "main" and event is not None and event.mode == "main":
            return "main", event.pr
        return request.mode, None
    if event is not None:
        return event.mode, event.pr
    return "local", None


def run_check(
    request: Request,
    config: Config,
    *,
    env: Mapping[str, str],
    progress: Any = None,
) -> CheckResult:
    """Gather the bytes the request names (files or git refs) and run :func:`check_change`."""
    say = progress or (lambda _msg: None)
    event = github_context(env, main_branch=config.main_branch)
    mode, pr = resolve_mode(request, event)
    file_mode = request.head_file is not None or request.base_file is not None
    if file_mode and (request.base_ref or request.head_ref):
        raise UsageError("use either --base-file/--head-file or --base-ref/--head-ref, not both")
    if file_mode:
        return _run_files(request, config, mode=mode, pr=pr, say=say)
    return _run_git(request, config, mode=mode, pr=pr, event=event, say=say)


def _read_optional(path: str) -> bytes | None:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UsageError(f"{path}: cannot read: {exc.strerror}") from None


def _run_files(
    request: Request, config: Config, *, mode: str, pr: int | None, say: Any
) -> CheckResult:
    if request.head_file is None or request.base_file is None:
        raise UsageError("file mode needs both --base-file and --head-file")
    head = read_input(request.head_file, max_size=config.max_file_size)
    base = read_input(request.base_file, max_size=config.max_file_size)
    shown = display_path(Path(request.head_file), config)
    masters_head: dict[str, bytes | None] | None = None
    masters_base: dict[str, bytes | None] | None = None
    if request.config_keys:
        if request.master_configs:
            paths = [Path(p) for p in request.master_configs]
        else:
            paths = [config.root / p for p in config.master_configs]
        names = [display_path(p, config) for p in paths]
        masters_head = {n: _read_optional(str(p)) for n, p in zip(names, paths, strict=True)}
        if request.base_master_configs:
            if len(request.base_master_configs) != len(paths):
                raise UsageError(
                    f"--base-master-config was given {len(request.base_master_configs)} times "
                    f"for {len(paths)} master configs; give one per master config, in order"
                )
            masters_base = {
                n: _read_optional(p)
                for n, p in zip(names, request.base_master_configs, strict=True)
            }
    say(f"check: {request.base_file} -> {request.head_file}; {_mode_text(mode, pr)}")
    return check_change(
        base=base,
        head=head,
        config=config,
        mode=mode,
        pr=pr,
        path=shown,
        base_label=request.base_file,
        masters_base=masters_base,
        masters_head=masters_head,
        strict=request.strict,
    )


def display_path(path: Path, config: Config) -> str:
    """``path`` relative to the repository root when inside it, for stable diagnostics."""
    try:
        return str(path.resolve().relative_to(config.top))
    except ValueError:
        return str(path)


def _deleted_file(base: bytes, path: str, where: str, *, mode: str, pr: int | None) -> CheckResult:
    entries = count_entries(base)
    diagnostic = dx.error(
        dx.ENTRY_DELETED,
        f"the change deletes the changelog and its {dx.counted(entries, 'entry', 'entries')} "
        f"(present at {where})",
        path,
        hint="restore the file; entries are never deleted",
    )
    change = appendonly.Change(appendonly.ChangeKind.INVALID, base, b"", diagnostics=(diagnostic,))
    report = dx.Report(command="check")
    report.extend([diagnostic])
    report.data.update({"file": path, "mode": mode, "pr": pr, "change": {"kind": "invalid"}})
    return CheckResult(report, change)


def _mode_text(mode: str, pr: int | None) -> str:
    if mode == "main" and pr is not None:
        return f"main branch, landing pull request #{pr}"
    return {"pr": f"pull request #{pr}", "main": "main branch", "local": "local"}[mode]


def _commit(repo: Any, ref: str) -> str:
    sha: str | None = repo.try_rev_parse(ref)
    if sha is None and ref == "HEAD":
        # Only an unborn branch has no HEAD commit; "fetch it" would send the user astray.
        raise GitError(
            f"HEAD does not name a commit: the repository {repo.path} has no commits yet",
            hint="commit the changelog first, or compare two files with --base-file/--head-file",
        )
    if sha is None:
        return str(repo.user_commit(ref))  # the one wording: a usage error with a hint
    return sha


_SQUASH_SUBJECT = re.compile(r"\(#(?P<pr>[0-9]{1,9})\)\s*$")


def squash_subject_pr(repo: Any, *, head_sha: str, base_sha: str) -> int | None:
    """N when ``head_sha`` is one commit on top of ``base_sha`` whose subject ends in ``(#N)``.

    That is how GitHub names a squash merge of pull request N: the entries it appends are
    that PR's, so their pr-links must be pull N. A range of several commits names no one PR.
    """
    if repo.try_rev_parse(f"{head_sha}^") != base_sha:
        return None
    found = _SQUASH_SUBJECT.search(repo.subject(head_sha))
    return int(found["pr"]) if found else None


def _run_git(
    request: Request,
    config: Config,
    *,
    mode: str,
    pr: int | None,
    event: EventContext | None,
    say: Any,
) -> CheckResult:
    from changelog_tools import gitrepo

    repo = gitrepo.open_repo(config.root)
    head_ref = request.head_ref or (event.head if event and event.head else None) or "HEAD"
    head_sha = _commit(repo, head_ref)
    how = ""
    if request.base_ref:
        base_sha: str | None = _commit(repo, request.base_ref)
        base_ref = request.base_ref
    elif mode == "main" and event is not None and event.mode == "main":
        # A push to main: the pushed range, or the first parent when `before` is unusable
        # (a new branch or a force push).
        before = event.base and repo.try_rev_parse(event.base)
        parent = before or repo.try_rev_parse(f"{head_sha}^")
        # A root commit has no parent: everything in it is new (comparing it with itself
        # would pass any content).
        base_sha = parent or None
        base_ref = event.base if before and event.base else f"{head_ref}^"
        how = (
            (
                " (the merge group's base)"
                if event.source.startswith("merge_group")
                else " (the push's previous tip)"
            )
            if before
            else " (first parent)"
            if parent
            else " (none: a root commit, every entry is new)"
        )
    else:
        merge_base = gitrepo.default_base(
            repo, head=head_sha, main_branch=config.main_branch, remote=config.remote
        )
        base_sha, base_ref = merge_base, merge_base[:12]
        how = f" (merge-base with {config.main_branch})"
    config_notes: list[dx.Diagnostic] = []
    if base_sha is not None:
        trusted, config_notes = _config_at_base(config, repo, base_sha, base_ref)
        if (trusted.main_branch, trusted.remote) != (config.main_branch, config.remote) and not (
            request.base_ref or (mode == "main" and event is not None and event.mode == "main")
        ):
            merge_base = gitrepo.default_base(
                repo, head=head_sha, main_branch=trusted.main_branch, remote=trusted.remote
            )
            base_sha, base_ref = merge_base, merge_base[:12]
            how = f" (merge-base with {trusted.main_branch})"
        config = trusted
    # Git names files from the work tree's top: options are relative to the configuration's
    # directory, command-line paths to the top (`./x` and absolute paths work too).
    changelog = (
        gitrepo.repo_relative(repo, request.changelog)
        if request.changelog
        else gitrepo.repo_relative(repo, config.changelog, start=config.root)
    )
    if mode == "main" and pr is None and base_sha:
        # Seed 004's mistake (a link to another PR), caught even when the PR check was skipped.
        pr = squash_subject_pr(repo, head_sha=head_sha, base_sha=base_sha)
    head = repo.read_blob(head_sha, changelog)
    base = repo.read_blob(base_sha, changelog) if base_sha else None
    if head is None and base is not None:
        # The change deleted the whole ledger: a failed rule (exit 1), not a wrong path.
        return _deleted_file(base, changelog, f"{base_ref}{how}", mode=mode, pr=pr)
    if head is None:
        raise UsageError(
            f"{changelog} does not exist at {head_ref} ({head_sha[:12]})",
            hint="pass --changelog-file PATH (relative to the repository root)",
        )
    masters_head: dict[str, bytes | None] | None = None
    masters_base: dict[str, bytes | None] | None = None
    if request.config_keys:
        paths = [gitrepo.repo_relative(repo, p) for p in request.master_configs] or [
            gitrepo.repo_relative(repo, p, start=config.root) for p in config.master_configs
        ]
        masters_head = {p: repo.read_blob(head_sha, p) for p in paths}
        # A master config the change did not touch is the same blob at both ends: its head
        # bytes are its base bytes (two small tree reads instead of a second copy of it).
        masters_base = (
            {
                p: masters_head[p]
                if masters_head[p] is not None and repo.same_file(base_sha, head_sha, p)
                else repo.read_blob(base_sha, p)
                for p in paths
            }
            if base_sha
            else None
        )
    say(
        f"check: {changelog} at {base_ref}{how} -> {head_ref} ({head_sha[:12]}); "
        f"{_mode_text(mode, pr)}"
    )
    result = check_change(
        base=base,
        head=head,
        config=config,
        mode=mode,
        pr=pr,
        path=changelog,
        base_label=f"{changelog}@{base_ref}",
        masters_base=masters_base,
        masters_head=masters_head,
        strict=request.strict,
    )
    result.report.extend(config_notes)
    if request.base_ref and base_sha and not repo.is_ancestor(base_sha, head_sha):
        result.report.extend([_base_not_ancestor(repo, request.base_ref, base_sha, head_sha,
                                                 changelog)])  # fmt: skip
    if head_ref == "HEAD" and _uncommitted(repo.path / changelog, head):
        # `new` writes the working tree; check reads commits. Say so, or an author who just
        # ran `new` is told the change appends nothing.
        result.report.extend(
            [
                dx.warning(
                    dx.UNCOMMITTED_CHANGELOG,
                    "the working tree has uncommitted changes to the changelog; check judges "
                    f"commits ({head_sha[:12]}), not the working tree",
                    changelog,
                    hint="commit the change (git commit), then run check again; or compare "
                    "files: check --base-file OLD --head-file " + changelog,
                )
            ]
        )
    return result


def _base_not_ancestor(
    repo: Any, base_ref: str, base_sha: str, head_sha: str, path: str
) -> dx.Diagnostic:
    """A base that is not an ancestor of the head (main's tip, for a pull request behind main)
    makes main's own later entries look like the PR's edits: say so, naming the merge-base."""
    merge_base = repo.merge_base(base_sha, head_sha)
    return dx.warning(
        BASE_NOT_ANCESTOR,
        f"the base {base_ref} ({base_sha[:12]}) is not an ancestor of the head "
        f"({head_sha[:12]}): what the main branch gained since the head branched off counts "
        "as this change; findings about entries the change never touched come from that",
        path,
        hint=f"compare with the merge-base: --base-ref {merge_base[:12]}, or leave --base-ref "
        "out (the default is the merge-base with the main branch)",
    )


def _config_at_base(
    config: Config, repo: Any, base_sha: str, base_label: str
) -> tuple[Config, list[dx.Diagnostic]]:
    """``config`` with every option as the base revision's configuration file sets it, and a
    warning naming the options the working tree's file changes.

    A pull request can edit (or add, or leave untracked) a configuration file that turns an
    error into a warning, points `changelog` at another file or `master-configs` at none:
    `check` judges a change by the rules of the branch it targets, as `lint` does. A file
    outside the repository (`--config /elsewhere`) is the caller's own and is kept.
    """
    from changelog_tools.config import OPTIONS, config_file_at_revision, options_at_revision

    found = config_file_at_revision(config, repo, base_sha)
    if found is None:
        return config, []  # a configuration outside the repository is the caller's own
    rel, raw = found
    names = [o.name for o in OPTIONS]
    trusted = options_at_revision(config, raw, name=rel, names=names)
    differ = [o.name for o in OPTIONS if getattr(trusted, o.attr) != getattr(config, o.attr)]
    if not differ:
        return trusted, []
    base = (
        f"{rel} at {base_label}"
        if raw is not None
        else f"the defaults ({base_label} has no configuration file)"
    )
    return trusted, [
        dx.warning(
            dx.CONFIG_NOT_TRUSTED,
            f"the configuration here sets {', '.join(differ)} differently from {base}; check "
            "applies the base's: a change to the configuration takes effect once it is on the "
            "main branch",
            rel,
            hint="merge the configuration change on its own first, if it is meant",
        )
    ]


def _uncommitted(path: Path, committed: bytes) -> bool:
    """Whether the working-tree file at ``path`` differs from its ``committed`` bytes."""
    try:
        return path.read_bytes() != committed
    except OSError:  # deleted, or not a file: git status tells the rest
        return False
