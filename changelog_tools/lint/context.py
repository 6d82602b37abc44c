"""What the rules share: the two trees, what changed, the master configs and their entries.

Everything is computed on first use, so a change that touches one script reads that script
(and the master configs only when a rule about entries needs them), not the whole tree.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, Protocol

from changelog_tools import diagnostics as dx
from changelog_tools.config import Config
from changelog_tools.errors import ConfigError
from changelog_tools.ledger import masterconfig as mc
from changelog_tools.lint import codes, shell
from changelog_tools.lint.paths import matches
from changelog_tools.lint.tree import TreeView, reached_through_links, same_file

# Old InferenceX commits keep the master configs here; used when none of the configured exist.
LEGACY_MASTER_DIR = ".github/configs"


class Request(Protocol):
    """What :class:`Context` reads of :class:`~changelog_tools.lint.engine.LintRequest`."""

    @property
    def head(self) -> TreeView: ...
    @property
    def base(self) -> TreeView | None: ...
    @property
    def changed(self) -> tuple[str, ...] | None: ...
    @property
    def pr(self) -> int | None: ...
    @property
    def now(self) -> datetime.date: ...


@dataclass(frozen=True)
class Entry:
    """A master-config entry (top-level key) at the head."""

    name: str
    path: str
    line: int
    value: Any  # the parsed mapping (or whatever the YAML holds)
    file: mc.MasterFile

    @property
    def data(self) -> Mapping[str, Any]:
        return self.value if isinstance(self.value, dict) else {}

    def field(self, name: str) -> str | int | float | bool | None:
        """The scalar value of field ``name``; None when it is absent or not a scalar.

        A pull request writes the master config, so a list or mapping may stand where a
        scalar belongs (`framework: [vllm]`). The master-schema rule reports that shape; the
        rules that compare, hash or print a field pass over it instead of failing on it.
        """
        value = self.data.get(name)
        return value if isinstance(value, str | int | float | bool) else None

    def structure(self, name: str) -> Any:
        """The value of field ``name`` whatever its shape (for fields that hold collections)."""
        return self.data.get(name)

    def line_of(self, *sub: str | int) -> int:
        return self.file.line_of(self.name, *sub)

    @property
    def multinode(self) -> bool:
        return self.data.get("multinode") is True

    def rows(self) -> list[tuple[str, int, int, Mapping[str, Any]]]:
        """(scenario type, group index, row index, row) of every search-space row."""
        out: list[tuple[str, int, int, Mapping[str, Any]]] = []
        scenarios = self.data.get(mc.SCENARIOS_FIELD)
        if not isinstance(scenarios, dict):
            return out
        for scenario, groups in scenarios.items():
            for g, group in enumerate(groups if isinstance(groups, list) else []):
                rows = group.get(mc.SEARCH_SPACE_FIELD) if isinstance(group, dict) else None
                for r, row in enumerate(rows if isinstance(rows, list) else []):
                    if isinstance(row, dict):
                        out.append((str(scenario), g, r, row))
        return out


def compile_option(config: Config, name: str, pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise ConfigError(f"option {name}: not a valid regular expression: {exc}") from None


class Context:
    def __init__(self, request: Request, config: Config) -> None:
        self.request = request
        self.config = config
        self.head = request.head
        self.base = request.base
        self.audit = request.changed is None
        # What git lists: a file edited through a symlink is listed under its target's name.
        self.listed = frozenset(request.changed or ())
        self._texts: dict[tuple[bool, str], str | None] = {}
        self._lines: dict[str, list[shell.LogicalLine]] = {}
        self._stripped: dict[str, list[str]] = {}
        self._added: dict[str, frozenset[int]] = {}

    @cached_property
    def changed(self) -> frozenset[str]:
        """Head paths the change added, modified or deleted: what git lists, and the paths
        that read a listed file through a symlink (a linked script, a file under a linked
        directory), so a rule that picks files by name judges an edit made through a link."""
        if self.audit:
            return self.listed
        return self.listed | reached_through_links(self.head, self.listed)

    # -- files ----------------------------------------------------------------------------
    def text(self, path: str, *, base: bool = False) -> str | None:
        """``path`` decoded (undecodable bytes replaced) at the head, or at the base."""
        key = (base, path)
        if key not in self._texts:
            tree = self.base if base else self.head
            raw = tree.read(path) if tree is not None else None
            self._texts[key] = None if raw is None else raw.decode("utf-8", errors="replace")
        return self._texts[key]

    def lines(self, path: str) -> list[shell.LogicalLine]:
        """The logical lines of ``path`` at the head (parsed once per run)."""
        if path not in self._lines:
            self._lines[path] = shell.logical_lines(self.text(path) or "", self.stripped(path))
        return self._lines[path]

    def stripped(self, path: str) -> list[str]:
        """The physical lines of ``path`` at the head with comments dropped (once per run)."""
        if path not in self._stripped:
            self._stripped[path] = shell.strip_comments(self.text(path) or "")
        return self._stripped[path]

    def trusted_text(self, path: str) -> str | None:
        """A trusted input: from the base when there is one, else (an audit) from the head."""
        return self.text(path, base=self.base is not None)

    @cached_property
    def head_files(self) -> tuple[str, ...]:
        return self.head.paths()

    def files(self, patterns: Iterable[str]) -> list[str]:
        """Head files matching ``patterns`` that this run judges: all of them in an audit, else
        the ones the change added or modified."""
        patterns = tuple(patterns)
        if self.audit:
            return [p for p in self.head_files if matches(p, patterns)]
        return sorted(
            p for p in self.changed if matches(p, patterns) and self.head.read(p) is not None
        )

    @cached_property
    def _head_set(self) -> frozenset[str]:
        return frozenset(self.head_files)

    def exists(self, path: str) -> bool:
        """Whether ``path`` is a file at the head (from the listing in an audit, else one read)."""
        return path in self._head_set if self.audit else self.head.read(path) is not None

    def added(self, path: str) -> frozenset[int]:
        """Line numbers of ``path`` the change added (every line in an audit or a new file)."""
        if path not in self._added:
            head = self.text(path) or ""
            base = None if self.audit else self.text(path, base=True)
            if base is None and not self.audit:
                base = self._renamed_from(head)
            self._added[path] = shell.added_lines(base, head)
        return self._added[path]

    def touched(self, path: str) -> list[shell.LogicalLine]:
        """The logical lines of ``path`` at the head with a physical line the change added:
        a continuation added to an old command makes the whole command new."""
        added = self.added(path)
        return [
            line
            for line in self.lines(path)
            if any(n in added for n in range(line.line, line.last + 1))
        ]

    def _renamed_from(self, head: str) -> str | None:
        """The base text of the file the change deleted that a new file was renamed from (half
        its lines or more in common, git's default similarity), so a rename adds no lines."""
        lines = set(head.split("\n"))
        best, score = None, 0.5
        for path in sorted(self.changed):
            if self.head.read(path) is not None:
                continue  # not deleted
            old = self.text(path, base=True)
            if old is None:
                continue
            old_lines = old.split("\n")
            common = len(lines.intersection(old_lines)) / max(len(lines), len(set(old_lines)))
            if common >= score:
                best, score = old, common
        return best

    # -- master configs -------------------------------------------------------------------
    @cached_property
    def master_paths(self) -> tuple[str, ...]:
        configured = tuple(self.config.master_configs)
        if any(self.head.read(p) is not None for p in configured):
            return configured
        legacy = tuple(f"{LEGACY_MASTER_DIR}/{p.rsplit('/', 1)[-1]}" for p in configured)
        if any(self.head.read(p) is not None for p in legacy):
            return legacy
        return configured

    def _masters(self, tree: Any) -> mc.Masters:
        sources = {p: tree.read(p) if tree is not None else None for p in self.master_paths}
        return mc.load_masters(sources, report_missing=False)

    @cached_property
    def head_masters(self) -> mc.Masters:
        return self._masters(self.head)

    @cached_property
    def base_masters(self) -> mc.Masters:
        return self._masters(self.base)

    @property
    def masters_changed(self) -> bool:
        """Whether a master config reads differently at the head: its bytes at both
        revisions, symlinks followed, as `check` compares them (git lists an edit made
        through a linked file or directory under the target's name, not the configured one)."""
        if self.audit:
            return True
        if any(p in self.listed for p in self.master_paths):
            return True
        base = self.base
        return base is not None and not all(
            same_file(base, self.head, p) for p in self.master_paths
        )

    def entry(self, name: str) -> Entry:
        master = self.head_masters.file_of(name)
        key = master.keys[name]
        return Entry(name, key.path, key.line, master.value(name), master)

    @cached_property
    def judged_entries(self) -> list[Entry]:
        """Entries this run judges: all in an audit, else those the change adds or modifies."""
        if not self.masters_changed:
            return []
        if self.audit or self.base is None:
            names = self.head_masters.names
        else:
            names = [
                c.name
                for c in mc.changed_keys(self.base_masters, self.head_masters)
                if c.kind in ("added", "modified")
            ]
        return [e for e in (self.entry(n) for n in names) if not mc.is_missing(e.value)]

    @cached_property
    def all_entries(self) -> list[Entry]:
        """Every parseable entry at the head (parses every block: only rules that need it)."""
        return [
            e
            for e in (self.entry(n) for n in self.head_masters.names)
            if not mc.is_missing(e.value)
        ]

    def master_problems(self) -> list[dx.Diagnostic]:
        """YAML problems found while parsing the master configs (once per run)."""
        out: list[dx.Diagnostic] = []
        for f in self.head_masters.files:
            for d in f.diagnostics:
                if d.code == dx.MASTER_INVALID:
                    out.append(replace(d, code=codes.INPUT_UNREADABLE))
        return out

    # -- shared vocabulary ----------------------------------------------------------------
    @cached_property
    def sku_regex(self) -> re.Pattern[str]:
        return compile_option(self.config, "lint-sku-pattern", self.config.lint_sku_pattern)

    def sku(self, runner: Any) -> str | None:
        if not isinstance(runner, str):
            return None
        found = self.sku_regex.search(runner)
        return found.group(1) if found and found.groups() else found.group(0) if found else None

    def allowed(
        self, rule: str, *, path: str, key: str | None = None, text: str = ""
    ) -> str | None:
        """The reason of the first `lint-allow` entry that accepts this finding, or None."""
        for allow in self.config.lint_allow:
            if allow.get("rule") != rule:
                continue
            if "path" in allow and not matches(path, [allow["path"]]):
                continue
            if "config-key" in allow and (
                key is None or not mc.wildcard_match(allow["config-key"], key)
            ):
                continue
            if "match" in allow and allow["match"] not in text:
                continue
            return str(allow.get("reason", ""))
        return None
