"""One diagnostic type, the registry of stable codes, and a report of findings.

Every rule the tool enforces has a code here. Codes never change meaning once released, so CI
logs, docs and suppressions can refer to them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Code:
    """A registered diagnostic code: the code, its name and a one-line summary."""

    code: str
    name: str
    summary: str


# Registry of every diagnostic code. Grouped by hundreds:
#   CL0xx bytes and YAML of one file, CL05x entry schema, CL1xx base vs head (check),
#   CL2xx pr-links, CL3xx config keys and master configs, CL4xx append-only scope,
#   CL5xx canonicalize / resolve, CL6xx authoring (`new`), CL7xx lint, CL8xx signoff.
# Codes of the ledger live below; a capability with a range of its own registers its codes in
# its own package with :func:`register` (the doc generator imports every module).
CODES: dict[str, Code] = {}


def counted(number: int, one: str, many: str) -> str:
    """``number`` with the noun that agrees with it: "1 entry", "2 entries", "0 entries"."""
    return f"{number:,} {one if number == 1 else many}"


def register(code: str, name: str, summary: str) -> str:
    """Add a stable code to the registry and return it (a module-level constant's value)."""
    if code in CODES:  # pragma: no cover - guards against copy-paste when adding codes
        raise AssertionError(f"duplicate diagnostic code {code}")
    CODES[code] = Code(code, name, summary)
    return code


_register = register


# -- file-level byte rules --------------------------------------------------------------------
NOT_UTF8 = _register("CL001", "not-utf8", "The file is not valid UTF-8.")
NO_FINAL_NEWLINE = _register("CL002", "no-final-newline", "The file does not end with a newline.")
CARRIAGE_RETURN = _register("CL003", "carriage-return", "The file contains a CR character.")
TAB = _register("CL004", "tab", "The file contains a tab character.")
NUL = _register("CL005", "nul", "The file contains a NUL byte.")
TOO_LARGE = _register("CL006", "too-large", "The file is larger than `max-file-size`.")
EMPTY_FILE = _register("CL007", "empty-file", "The file is empty.")
BYTE_ORDER_MARK = _register(
    "CL008", "byte-order-mark", "The file starts with a UTF-8 byte-order mark (BOM)."
)
CONTROL_CHARACTER = _register(
    "CL009",
    "control-character",
    "The file contains a control character or a Unicode line separator (U+0085, U+2028, "
    "U+2029), which YAML rejects or reads as a line break.",
)
# -- YAML structure ------------------------------------------------------------------------------
YAML_SYNTAX = _register("CL010", "yaml-syntax", "The file is not valid YAML.")
DUPLICATE_KEY = _register("CL011", "duplicate-key", "A mapping has the same key twice.")
ANCHOR_ALIAS = _register("CL012", "anchor-alias", "YAML anchors and aliases are not allowed.")
YAML_TAG = _register("CL013", "yaml-tag", "Explicit YAML tags are not allowed.")
TOO_DEEP = _register("CL014", "too-deep", "Nesting is deeper than a changelog can need.")
ROOT_NOT_LIST = _register("CL015", "root-not-list", "The root of the file is not a list.")
ENTRY_START = _register(
    "CL016",
    "entry-start",
    "Every entry starts at column 0 with `- config-keys:` and nothing else does.",
)
ENTRY_NOT_MAPPING = _register("CL017", "entry-not-mapping", "A list item is not a mapping.")
MULTI_DOCUMENT = _register("CL018", "multi-document", "The file holds more than one document.")
YAML11_AMBIGUOUS = _register(
    "CL030",
    "yaml11-ambiguous",
    "A plain (unquoted) scalar that YAML 1.2 and YAML 1.1 (PyYAML, the changelog's other "
    "reader) read differently: yes/no/on/off/y/n, `=`, `<<`, dates, 0-prefixed octals, `0o`, "
    "underscores or base-60 in numbers. Quote it.",
)
NUMBER_TOO_LONG = _register(
    "CL031", "number-too-long", "A plain number has more digits than any changelog needs."
)
# -- entry schema ---------------------------------------------------------------------------------
UNKNOWN_FIELD = _register(
    "CL050", "unknown-field", "An entry has a field the schema does not know."
)
MISSING_FIELD = _register("CL051", "missing-field", "An entry lacks a required field.")
WRONG_TYPE = _register("CL052", "wrong-type", "A field has the wrong type.")
EMPTY_VALUE = _register("CL053", "empty-value", "A list or string that must not be empty is.")
BAD_VALUE = _register("CL054", "bad-value", "A field has a value outside its allowed set.")
SCHEMA_NOT_ITEMIZED = _register(
    "CL059",
    "schema-not-itemized",
    "More entries of a file fail the entry schema than are itemized (the first 200 are).",
)
APPEND_ONLY_COMBINATION = _register(
    "CL055",
    "append-only-combination",
    "`append-only: true` cannot be combined with eval selection fields.",
)

# -- base vs head (append-only ledger rules) -----------------------------------------------------
BASE_INVALID = _register("CL100", "base-invalid", "The base version of the changelog is invalid.")
ENTRY_DELETED = _register("CL101", "entry-deleted", "An existing entry was deleted.")
ENTRY_CHANGED = _register(
    "CL102", "entry-changed", "An existing entry changed (only pr-link corrections are allowed)."
)
ENTRY_INSERTED = _register(
    "CL103", "entry-inserted", "A new entry was inserted before existing ones, not appended."
)
REFORMATTED = _register(
    "CL104",
    "reformatted",
    "Existing bytes changed without changing meaning (history is immutable).",
)
HISTORY_BYTES_CHANGED = _register(
    "CL105", "history-bytes-changed", "Appending changed bytes of the existing history."
)
MIXED_CORRECTION_APPEND = _register(
    "CL106", "mixed-correction-append", "pr-link corrections and new entries in one change."
)
CORRECTION_OUTSIDE_LINK = _register(
    "CL107", "correction-outside-link", "A correction changed bytes outside pr-link lines."
)
APPEND_SEPARATOR = _register(
    "CL108", "append-separator", "New entries are not separated by exactly one empty line."
)
FINAL_NEWLINES = _register(
    "CL109",
    "final-newlines",
    "The file does not end with exactly one newline after the last entry.",
)
TRAILING_WHITESPACE = _register(
    "CL110",
    "trailing-whitespace",
    "An appended line ends with spaces (warning; error with --strict).",
)
WHITESPACE_ONLY_LINE = _register(
    "CL111", "whitespace-only-line", "An appended entry has a whitespace-only line (warning)."
)
CONTINUES_HISTORY = _register(
    "CL112", "continues-history", "Appended bytes continue the last existing entry."
)
BASE_NO_FINAL_NEWLINE = _register(
    "CL113", "base-no-final-newline", "The base file does not end with a newline."
)
NOTHING_TO_SWEEP = _register(
    "CL114",
    "nothing-to-sweep",
    "A pull request leaves the changelog and the master configs unchanged: nothing for CI to "
    "sweep.",
)
UNCOMMITTED_CHANGELOG = _register(
    "CL115",
    "uncommitted-changelog",
    "The changelog has uncommitted changes that `check` (which reads commits) does not see.",
)
CONFIG_NOT_TRUSTED = _register(
    "CL116",
    "config-not-trusted",
    "The configuration in the working tree differs from the base's; `check` applies the base's.",
)
# -- pr-links ---------------------------------------------------------------------------------------
WRONG_PR = _register("CL201", "wrong-pr", "An appended entry links to another pull request.")
PLACEHOLDER_ON_MAIN = _register(
    "CL202", "placeholder-on-main", "A placeholder pr-link reached the main branch."
)
NEAR_MISS_LINK = _register(
    "CL203", "near-miss-link", "A pr-link is almost a placeholder or almost canonical."
)
INVALID_LINK = _register("CL204", "invalid-link", "A pr-link is not a pull-request link.")
BAD_CORRECTION = _register(
    "CL205", "bad-correction", "A pr-link correction does not produce a canonical link."
)
# -- config keys and master configs (check) -----------------------------------------------------
UNKNOWN_CONFIG_KEY = _register(
    "CL301", "unknown-config-key", "A config key of an appended entry is not a master-config key."
)
WILDCARD_NO_MATCH = _register(
    "CL302", "wildcard-no-match", "A `*` config key of an appended entry matches no master key."
)
MASTER_DUPLICATE_KEY = _register(
    "CL303", "master-duplicate-key", "A master-config key is defined more than once."
)
MASTER_KEY_WILDCARD = _register(
    "CL304", "master-key-wildcard", "A master-config key contains `*` (reserved for wildcards)."
)
MASTER_INVALID = _register(
    "CL305", "master-invalid", "A master config is not valid YAML or not a mapping."
)
MASTER_MISSING = _register("CL306", "master-missing", "A configured master config does not exist.")
UNCOVERED_CONFIG_CHANGE = _register(
    "CL307",
    "uncovered-config-change",
    "A master key the change adds or modifies is selected by no appended entry (warning).",
)
# -- append-only scope (check) -------------------------------------------------------------------
APPEND_ONLY_MIXED = _register(
    "CL401", "append-only-mixed", "Append-only and regular entries appended in one change."
)
APPEND_ONLY_NEW_CONFIG = _register(
    "CL402", "append-only-new-config", "An append-only entry selects a config absent at the base."
)
APPEND_ONLY_UNSELECTED_CHANGED = _register(
    "CL403",
    "append-only-unselected-changed",
    "An append-only change modifies a config its entries do not select.",
)
APPEND_ONLY_SCENARIO_SET = _register(
    "CL404", "append-only-scenario-set", "An append-only change adds or removes a scenario."
)
APPEND_ONLY_OUT_OF_SCOPE = _register(
    "CL405",
    "append-only-out-of-scope",
    "An append-only change modifies a scenario outside the entry's scenario-type.",
)
APPEND_ONLY_CONFIG_WIDE = _register(
    "CL406",
    "append-only-config-wide",
    "An append-only change modifies config-wide fields of a config with unselected scenarios.",
)
APPEND_ONLY_ROW_REMOVED = _register(
    "CL407",
    "append-only-row-removed",
    "An append-only change removes or modifies an existing search-space row.",
)
APPEND_ONLY_NOTHING_ADDED = _register(
    "CL408", "append-only-nothing-added", "An append-only entry's selected configs are unchanged."
)
# -- canonicalize / resolve / merge driver -------------------------------------------------------
UNEXPECTED_LINK = _register(
    "CL501",
    "unexpected-link",
    "An appended pr-link is neither a placeholder nor this pull request's link.",
)
NEAR_MISS_PLACEHOLDER = _register(
    "CL502",
    "near-miss-placeholder",
    "An appended pr-link is almost a placeholder; canonicalized only with --fix-near-misses.",
)
NEAR_MISS_FIXED = _register(
    "CL503", "near-miss-fixed", "A near-miss pr-link was canonicalized (--fix-near-misses)."
)
LINK_LINE = _register(
    "CL504", "link-line", "An entry's pr-link is not written on exactly one `  pr-link:` line."
)
RESULT_INVALID = _register(
    "CL505", "result-invalid", "The rewritten or resolved file would not pass `check`."
)
NOT_AN_APPEND = _register(
    "CL506", "not-an-append", "The change is not a valid append, so it cannot be canonicalized."
)
PR_REWROTE_HISTORY = _register(
    "CL510", "pr-rewrote-history", "The PR side changed existing entries or history bytes."
)
NOTHING_REMAINS = _register(
    "CL511", "nothing-remains", "Nothing of the PR's change remains after merging main."
)
MISSING_STAGE = _register(
    "CL512", "missing-stage", "A side of the conflict (index stage or file) is missing."
)
CORRECTION_CONFLICT = _register(
    "CL513", "correction-conflict", "Main changed an entry the PR's pr-link correction touches."
)
MAIN_SIDE_INVALID = _register(
    "CL514", "main-side-invalid", "Main's side (or the merge-base) cannot be used as it is."
)
PR_SIDE_INVALID = _register(
    "CL515", "pr-side-invalid", "The entries the PR appended are not valid."
)
SIDE_UNKNOWN = _register(
    "CL516", "side-unknown", "Which side of the conflict is main could not be determined."
)


@dataclass(frozen=True)
class Diagnostic:
    """One finding, pointing at a place in a file."""

    code: str
    message: str
    path: str
    line: int | None = None
    column: int | None = None
    severity: Severity = Severity.ERROR
    hint: str | None = None
    rule: str | None = None  # the rule id of a rule family with ids of its own (lint: "images")
    # The outcome of other findings reported with it ("nothing was written" after the problems
    # that caused it): shown, but not counted as a problem of its own.
    consequence: bool = False

    @property
    def name(self) -> str:
        known = CODES.get(self.code)
        return known.name if known else self.code

    def as_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "name": self.name,
            "severity": self.severity.value,
            "message": self.message,
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "hint": self.hint,
            **({"rule": self.rule} if self.rule is not None else {}),
            **({"consequence": True} if self.consequence else {}),
        }


def error(
    code: str,
    message: str,
    path: str,
    line: int | None = None,
    column: int | None = None,
    *,
    hint: str | None = None,
) -> Diagnostic:
    return Diagnostic(code, message, path, line, column, Severity.ERROR, hint)


def warning(
    code: str,
    message: str,
    path: str,
    line: int | None = None,
    column: int | None = None,
    *,
    hint: str | None = None,
) -> Diagnostic:
    return Diagnostic(code, message, path, line, column, Severity.WARNING, hint)


# Findings kept per code in one report; the rest are counted. One broken pattern repeated
# three million times is one fix, not 359 MB of output.
FINDINGS_PER_CODE = 100


@dataclass
class Report:
    """What a validating command found, plus structured data for `--format json`.

    :meth:`extend` keeps the first ``per_code`` findings of each code and counts the rest in
    ``hidden`` (code -> (errors, warnings)); the summary counts both.
    """

    command: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
    subject: str | None = None  # what was checked, for the summary line ("perf-changelog.yaml")
    per_code: int = FINDINGS_PER_CODE
    hidden: dict[str, tuple[int, int]] = field(default_factory=dict)

    def extend(self, items: Iterable[Diagnostic]) -> None:
        kept: dict[str, int] = {}
        for d in self.diagnostics:
            kept[d.code] = kept.get(d.code, 0) + 1
        for d in items:
            count = kept.get(d.code, 0)
            if count < self.per_code or d.consequence:
                # a consequence is never cut: `hidden` counts problems, and it is none
                kept[d.code] = count + 1
                self.diagnostics.append(d)
                continue
            errors, warnings = self.hidden.get(d.code, (0, 0))
            if d.severity is Severity.ERROR:
                errors += 1
            else:
                warnings += 1
            self.hidden[d.code] = (errors, warnings)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity is Severity.WARNING]

    def error_count(self) -> int:
        """Errors found, hidden ones included; a consequence is shown but not counted."""
        counted = [d for d in self.errors if not d.consequence]
        return len(counted) + sum(e for e, _ in self.hidden.values())

    def warning_count(self) -> int:
        return len(self.warnings) + sum(w for _, w in self.hidden.values())

    def hidden_lines(self) -> list[str]:
        """One line per code whose findings were cut: how many more, and how many are shown."""
        return [
            f"{code}: {errors + warnings:,} more {CODES[code].name if code in CODES else code} "
            f"finding{'s' * (errors + warnings != 1)} not shown (the first {self.per_code} are)"
            for code, (errors, warnings) in sorted(self.hidden.items())
        ]

    @property
    def ok(self) -> bool:
        return self.error_count() == 0

    def sorted(self) -> list[Diagnostic]:
        return sorted(
            self.diagnostics,
            key=lambda d: (d.path, d.line or 0, d.column or 0, d.code),
        )

    def summary(self) -> str:
        head = f"{self.command}: {self.subject}" if self.subject else self.command
        e, w = self.error_count(), self.warning_count()
        if not e and not w:
            return f"{head}: OK"
        noun = "problem" if e + w == 1 else "problems"
        counts = f"{e} error{'s' * (e != 1)}, {w} warning{'s' * (w != 1)}"
        return f"{head}: {e + w} {noun} ({counts})"


def record_json(
    record: Any, renames: Mapping[str, str] | None = None, *, empty_as_null: tuple[str, ...] = ()
) -> dict[str, Any]:
    """A frozen dataclass as a JSON object with kebab-case keys.

    ``renames`` maps a field to another key; fields named in ``empty_as_null`` whose value is
    empty text are written as null (optional explanations).
    """
    import dataclasses

    out: dict[str, Any] = {}
    for f in dataclasses.fields(record):
        value = getattr(record, f.name)
        key = (renames or {}).get(f.name, f.name.replace("_", "-"))
        out[key] = None if f.name in empty_as_null and value == "" else value
    return out


# A line that starts with `::`, after blanks: the runner splits its log at CR as well as LF
# (.NET ReadLine), so a CR starts a line too.
_COMMAND_LINE = re.compile(r"(^|[\r\n])([^\S\r\n]*)::")


def no_commands(text: str) -> str:
    """``text`` with every line that starts with ``::`` given a zero-width space in front.

    Text output carries strings from elsewhere (a GitHub error body, a file name or title from
    a pull request). The Actions runner reads any log line that starts with ``::``, after
    trimming blanks, as a workflow command (``::add-mask::``, ``::stop-commands::``); with a
    zero-width space in front it is an ordinary line that reads the same.
    """
    return _COMMAND_LINE.sub("\\1\\2\u200b::", text)


# Every control character but the newline: C0 (ESC starts CSI colours, OSC 8 hyperlinks and
# title changes; CR rewrites the line shown), DEL, and C1 (U+009B is a one-character CSI on
# some terminals). A message quotes what a pull request wrote (a YAML key, a link, a path), so
# none of them may reach a terminal or a CI log as itself.
_CONTROL_CHARS = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")


def _shown_control(match: re.Match[str]) -> str:
    return f"\\x{ord(match.group()):02x}"


def visible(text: str) -> str:
    """``text`` with every control character but the newline written as a ``\\xNN`` escape.

    The one place output is made safe to show: every text and GitHub rendering, every error
    line and every progress line goes through it. JSON output needs no more: every control
    character there is a ``\\u`` escape already.
    """
    if _CONTROL_CHARS.search(text) is None:
        return text
    return _CONTROL_CHARS.sub(_shown_control, text)
