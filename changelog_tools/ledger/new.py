"""`changelog-tools new`: append one correctly formatted entry to the changelog.

Authors hand-write entries and get the layout wrong (no blank line before the entry, an entry in
the middle, a typo in a key). This builds the entry from its parts, resolves its config keys
against the master configs, appends it after exactly one blank line with the placeholder link,
checks the whole result as `check` would, and only then writes it, atomically.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

from changelog_tools import diagnostics as dx
from changelog_tools.config import Config
from changelog_tools.errors import UsageError
from changelog_tools.fsutil import atomic_write, locked, read_input, write_target
from changelog_tools.ledger import masterconfig as mc
from changelog_tools.ledger.document import parse_ledger
from changelog_tools.ledger.guard import Refusal, require_valid

UNKNOWN_KEY = dx.register(
    "CL601",
    "new-unknown-key",
    "`new`: a --config-key matches no key of the master configs (a did-you-mean hint follows).",
)
BAD_TEXT = dx.register(
    "CL602",
    "new-bad-text",
    "`new`: a key or description holds a line break or control character, or is empty.",
)
NO_DESCRIPTION = dx.register(
    "CL603", "new-no-description", "`new`: the entry has no description (an empty edit aborts)."
)
INVALID_MASTERS = dx.register(
    "CL604",
    "new-invalid-masters",
    "`new`: a master config cannot be read or is invalid, so keys cannot be resolved.",
)

SCENARIO_TYPES = ("fixed-seq-len", "agentic-coding")  # the entry schema's enum
_PLAIN_KEY = re.compile(r"[A-Za-z][A-Za-z0-9._/+*-]*")
_YAML_WORDS = frozenset({"true", "false", "null", "yes", "no", "on", "off", "y", "n", "~"})
# Characters a one-line YAML scalar may not hold: C0/C1 controls and Unicode line breaks.
_LINE_BREAKERS = frozenset("\u0085\u2028\u2029")


@dataclass(frozen=True)
class Entry:
    """The parts of one changelog entry, as the author gave them."""

    config_keys: tuple[str, ...]
    description: tuple[str, ...]
    scenario_types: tuple[str, ...] = ()
    evals_only: bool = False
    all_evals: bool = False


@dataclass(frozen=True)
class Appended:
    """What `new` wrote: the entry's first line, its text, and the resolved master keys."""

    path: str
    line: int
    text: str
    pr_link: str
    resolved: Mapping[str, tuple[str, ...]]
    warnings: tuple[dx.Diagnostic, ...]


def placeholder_link(config: Config) -> str:
    """The placeholder pr-link to write: the URL form when the configuration has one."""
    links = config.placeholder_links()
    return next((p for p in links if "://" in p), links[0])


def _scalar(text: str) -> str:
    # JSON strings are YAML double-quoted scalars; the characters that could differ (line
    # breaks, controls) were refused before.
    return json.dumps(text, ensure_ascii=False)


def _key(text: str) -> str:
    plain = _PLAIN_KEY.fullmatch(text) and text.lower() not in _YAML_WORDS
    return text if plain else _scalar(text)


def render(entry: Entry, *, pr_link: str) -> str:
    """The entry as the changelog writes it: two-space indents, one list item per line."""
    lines = ["- config-keys:", *(f"    - {_key(k)}" for k in entry.config_keys)]
    if entry.scenario_types:
        lines += ["  scenario-type:", *(f"    - {s}" for s in entry.scenario_types)]
    if entry.evals_only:
        lines.append("  evals-only: true")
    if entry.all_evals:
        lines.append("  all-evals: true")
    lines += ["  description:", *(f"    - {_scalar(d)}" for d in entry.description)]
    lines.append(f"  pr-link: {pr_link}")
    return "\n".join(lines) + "\n"


def separator(existing: bytes) -> bytes:
    """What goes between the existing bytes and the new entry: enough for one blank line.

    Only bytes are added, never removed: the ledger's existing bytes stay exactly as they are.
    """
    if not existing.strip():
        return b""
    if existing.endswith(b"\n\n"):
        return b""
    if existing.endswith(b"\n"):
        return b"\n"
    return b"\n\n"


def _text_problems(entry: Entry, path: str) -> list[dx.Diagnostic]:
    out: list[dx.Diagnostic] = []
    fields = [("--config-key", k) for k in entry.config_keys]
    fields += [("--description", d) for d in entry.description]
    for flag, value in fields:
        bad = [ch for ch in value if ch in _LINE_BREAKERS or unicodedata.category(ch) == "Cc"]
        if bad:
            out.append(
                dx.error(
                    BAD_TEXT,
                    f"{flag} {value!r} holds {unicodedata.name(bad[0], repr(bad[0]))}",
                    path,
                    hint="one line per value: repeat --description for another point",
                )
            )
        elif not value.strip():
            out.append(dx.error(BAD_TEXT, f"{flag} is empty", path))
    if not entry.description:
        out.append(
            dx.error(
                NO_DESCRIPTION,
                "the entry has no description",
                path,
                hint="pass --description TEXT (repeatable), or run without it to edit one",
            )
        )
    return out


def _masters(config: Config) -> mc.Masters:
    from changelog_tools.ledger.check import display_path

    sources: dict[str, bytes | None] = {}
    for p in config.master_configs:
        target = config.root / p
        try:
            sources[display_path(target, config)] = target.read_bytes()
        except FileNotFoundError:
            sources[display_path(target, config)] = None
        except OSError as exc:
            raise UsageError(f"{target}: cannot read: {exc.strerror}") from None
    return mc.load_masters(sources)


def resolve(
    entry: Entry, masters: mc.Masters, path: str
) -> tuple[dict[str, tuple[str, ...]], list[dx.Diagnostic]]:
    """Each --config-key's master keys; a CL601 with a did-you-mean for each that has none."""
    names = masters.names
    resolved: dict[str, tuple[str, ...]] = {}
    problems: list[dx.Diagnostic] = []
    for pattern in entry.config_keys:
        matches = tuple(mc.resolve_key(pattern, names))
        if matches:
            resolved[pattern] = matches
            continue
        what = "wildcard" if "*" in pattern else "key"
        problems.append(
            dx.error(
                UNKNOWN_KEY,
                f"config {what} {pattern!r} matches no master-config key",
                path,
                hint=mc.did_you_mean(mc.suggestions(pattern, names))
                or "list the keys with `changelog-tools keys`",
            )
        )
    return resolved, problems


def prepare(entry: Entry, *, config: Config) -> tuple[bytes | None, bytes, Appended]:
    """Everything `new` would write, checked; raises :class:`Refusal` and writes nothing."""
    from changelog_tools.ledger.check import display_path

    target = config.changelog_path
    shown = display_path(target, config)
    problems = _text_problems(entry, shown)
    masters = _masters(config)
    master_errors = [d for d in masters.all_diagnostics() if d.severity is dx.Severity.ERROR]
    if master_errors:
        problems.append(
            dx.error(
                INVALID_MASTERS,
                "the master configs are invalid, so the config keys cannot be resolved",
                master_errors[0].path,
                master_errors[0].line,
                hint="`changelog-tools keys` shows the problems",
            )
        )
        problems.extend(master_errors)
        resolved: dict[str, tuple[str, ...]] = {}
    else:
        resolved, unknown = resolve(entry, masters, shown)
        problems.extend(unknown)
    if problems:
        first = problems[0]
        raise Refusal(
            first.code,
            f"{first.message}; nothing was written",
            path=first.path,
            line=first.line,
            hint=first.hint,
            details=problems[1:],
        )
    write_target(target)  # a FIFO would block the read below forever: refused first
    base = read_input(target, shown, max_size=config.max_file_size) if target.exists() else None
    old = base or b""
    link = placeholder_link(config)
    text = render(entry, pr_link=link)
    gap = separator(old)
    head = old + gap + text.encode("utf-8")
    warnings = require_valid(
        base,
        head,
        config=config,
        mode="local",
        path=shown,
        base_label="the changelog before `new`",
        what="the changelog with the new entry",
    )
    # `check` judges the change; the whole result must also be a valid file on its own.
    whole = [d for d in parse_ledger(head, path=shown, max_size=config.max_file_size).diagnostics
             if d.severity is dx.Severity.ERROR]  # fmt: skip
    if whole:
        raise Refusal(
            dx.RESULT_INVALID,
            f"the changelog with the new entry would not validate ({len(whole)} "
            f"error{'s' * (len(whole) != 1)}); nothing was written",
            path=shown,
            line=whole[0].line,
            hint="`changelog-tools validate` shows the problems; fix them first",
            details=whole,
        )
    line = (old + gap).count(b"\n") + 1
    return base, head, Appended(shown, line, text, link, resolved, warnings)


def append_entry(entry: Entry, *, config: Config) -> Appended:
    """Append ``entry`` to the configured changelog (atomically) and return what was written."""
    with locked(config.changelog_path) as target:  # read and write as one, against other writers
        _, head, appended = prepare(entry, config=config)
        atomic_write(target, head)
    return appended


def template(entry: Entry, *, config: Config) -> str:
    """The text an author edits when `new` is run without --description (like `git commit`)."""
    keys = ", ".join(entry.config_keys) or "(none)"
    return (
        "\n"
        "# Describe the change for the changelog entry: one point per line.\n"
        "# Lines starting with '#' are ignored; an empty description aborts and writes nothing.\n"
        "#\n"
        f"# changelog:   {config.changelog}\n"
        f"# config-keys: {keys}\n"
        f"# pr-link:     {placeholder_link(config)} (canonicalize fills in the number)\n"
    )


def description_from_edit(text: str) -> tuple[str, ...]:
    """The description points of an edited template: non-comment, non-blank lines."""
    lines = (line.rstrip() for line in text.splitlines())
    return tuple(line.strip() for line in lines if line.strip() and not line.startswith("#"))


def entry_json(appended: Appended) -> dict[str, object]:
    return {
        "file": appended.path,
        "line": appended.line,
        "pr-link": appended.pr_link,
        "entry": appended.text,
        "resolved-keys": {k: list(v) for k, v in appended.resolved.items()},
    }
