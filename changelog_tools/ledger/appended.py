"""The entries a change appends, with the positions `check`'s rules point at (the line of each
config key and of the pr-link), read in one load of the appended bytes where it loads whole."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from changelog_tools import yamlload
from changelog_tools.ledger import appendonly
from changelog_tools.ledger.document import count_entries


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


def appended_entries(change: appendonly.Change) -> list[AppendedEntry]:
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
