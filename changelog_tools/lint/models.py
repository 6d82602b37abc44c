"""`models`: no entry for a model MODELS.md retired or a scenario it deprecated.

MODELS.md (read at the base: a pull request cannot un-retire its own model) is parsed only in
its structured parts:

* "Model support matrix": a row whose active-scenarios cell reads `None (retired YYYY-MM-DD ...)`
  retires its backticked prefixes from that date;
* "Scenarios": a row marked `**Deprecated for all models** since YYYY-MM-DD` deprecates its
  ISL/OSL for everyone;
* dated notices (`### Monday, August 3, 2026` ... "is the last day"): their tables deprecate a
  scenario, a precision or a non-speculative arm per model from the next day. A table followed by
  `**Status: not yet enacted.**` is skipped, and so is any cell outside the fixed vocabulary
  (prose stays with the human reviewer).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterator
from dataclasses import dataclass

from changelog_tools import diagnostics as dx
from changelog_tools.lint import codes
from changelog_tools.lint.context import Context, Entry
from changelog_tools.numbers import parse_number

FIXED = "fixed-seq-len"
AGENTIC = "agentic-coding"
_DATE = r"(\d{4}-\d{2}-\d{2})"
_RETIRED = re.compile(r"None \((?:fully )?retired " + _DATE)
_ALL_MODELS = re.compile(r"\*\*Deprecated for all models\*\* since " + _DATE)
_NOTICE = re.compile(r"^###\s+\w+,\s+(\w+ \d{1,2}, \d{4})\s*$")
_SEQ = re.compile(r"Single-turn (\d+)k(\d+)k", re.IGNORECASE)
_ISL_OSL = re.compile(r"(\d+)\s*/\s*(\d+)")
_PRECISION = re.compile(r"All \*\*(\w+)\*\* recipes", re.IGNORECASE)
_ARM = re.compile(r"Agentic coding, non-(MTP|EAGLE3|DSpark)", re.IGNORECASE)
_PREFIX = re.compile(r"`([^`]+)`")


@dataclass(frozen=True)
class Rule:
    """One deprecation: ``prefix`` None means every model."""

    prefix: str | None
    since: datetime.date  # effective on this day
    what: str  # "model", "scenario", "precision" or "arm"
    scenario: str | None = None
    seq: tuple[int, int] | None = None
    precision: str | None = None
    source: str = ""  # MODELS.md line, for the message
    line: int = 0


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _tables(lines: list[str], start: int, end: int) -> Iterator[tuple[int, list[str], list[tuple[int, list[str]]], bool]]:  # fmt: skip
    """(line, header, rows, enacted) of each table in lines[start:end]."""
    i = start
    while i < end:
        if (
            lines[i].lstrip().startswith("|")
            and i + 1 < end
            and re.match(r"^\s*\|[\s:|-]+\|\s*$", lines[i + 1])
        ):
            header = _cells(lines[i])
            rows: list[tuple[int, list[str]]] = []
            j = i + 2
            while j < end and lines[j].lstrip().startswith("|"):
                rows.append((j + 1, _cells(lines[j])))
                j += 1
            k = j
            while k < end and not lines[k].lstrip().startswith(("|", "#")):
                if "not yet enacted" in lines[k].lower() and lines[k].lstrip().startswith(
                    "**Status"
                ):
                    break
                k += 1
            enacted = not (k < end and lines[k].lstrip().startswith("**Status"))
            yield i + 1, header, rows, enacted
            i = j
        else:
            i += 1


def _section(lines: list[str], title: str) -> tuple[int, int] | None:
    for i, line in enumerate(lines):
        if line.strip().lower() == f"## {title}".lower():
            end = next(
                (j for j in range(i + 1, len(lines)) if lines[j].startswith("## ")), len(lines)
            )
            return i + 1, end
    return None


def _col(header: list[str], *names: str) -> int | None:
    for k, h in enumerate(header):
        if any(n.lower() in h.lower() for n in names):
            return k
    return None


def _iso_date(text: str, line: int, problems: list[tuple[int, str]]) -> datetime.date | None:
    """``text`` (YYYY-MM-DD) as a date; a date that does not exist is a problem at ``line``."""
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        problems.append((line, f"{text} is not a date"))
        return None


def parse_models(text: str, problems: list[tuple[int, str]] | None = None) -> list[Rule]:
    """The rules MODELS.md states. A row the rules cannot use (a date that does not exist, a
    sequence length past any real one) is skipped, and (line, reason) added to ``problems``."""
    problems = [] if problems is None else problems
    lines = text.split("\n")
    return [
        *_retired_models(lines, problems),
        *_retired_scenarios(lines, problems),
        *_deprecation_notices(lines),
    ]


def _rows_with(
    lines: list[str], span: tuple[int, int] | None, first: str, second: str, *, enacted: bool
) -> Iterator[tuple[int, list[str], str, str]]:
    """(line, row, first cell, second cell) of every row, in the tables of ``span`` (a range of
    ``lines``), whose header names both columns and which has both cells; with ``enacted``
    only the tables not marked as not yet enacted."""
    if span is None:
        return
    for _line, header, rows, is_enacted in _tables(lines, *span):
        a, b = _col(header, first), _col(header, second)
        if a is None or b is None or (enacted and not is_enacted):
            continue
        for number, row in rows:
            if len(row) > max(a, b):
                yield number, row, row[a], row[b]


def _retired_models(lines: list[str], problems: list[tuple[int, str]]) -> Iterator[Rule]:
    """The support matrix's retired models (the prefixes of a row whose "active" cell says so)."""
    matrix = _section(lines, "Model support matrix")
    for number, _row, prefixes, active in _rows_with(
        lines, matrix, "prefix", "active", enacted=False
    ):
        retired = _RETIRED.search(active)
        since = _iso_date(retired.group(1), number, problems) if retired else None
        if since is not None:
            for prefix in _PREFIX.findall(prefixes):
                yield Rule(prefix, since, "model", source=active, line=number)


def _retired_scenarios(lines: list[str], problems: list[tuple[int, str]]) -> Iterator[Rule]:
    """The scenarios section's sequence lengths retired for all models."""
    scenarios = _section(lines, "Scenarios")
    for number, row, seq_cell, status in _rows_with(
        lines, scenarios, "isl", "status", enacted=False
    ):
        found = _ALL_MODELS.search(status)
        seq = _ISL_OSL.search(seq_cell)
        if not (found and seq):
            continue
        since = _iso_date(found.group(1), number, problems)
        isl, osl = parse_number(seq.group(1)), parse_number(seq.group(2))
        if isl is None or osl is None:
            problems.append((number, f"{seq.group(0)} is not a sequence length"))
        elif since is not None:
            yield Rule(None, since, "scenario", scenario=FIXED, seq=(isl, osl),
                       source=row[0], line=number)  # fmt: skip


def _deprecation_notices(lines: list[str]) -> Iterator[Rule]:
    """The enacted tables of each deprecation notice ("... is the last day"): from the day
    after, the models and scenarios they list."""
    for i, line in enumerate(lines):
        notice = _NOTICE.match(line)
        if not notice:
            continue
        end = next(
            (j for j in range(i + 1, len(lines)) if lines[j].startswith(("## ", "### "))),
            len(lines),
        )
        if not any("is the last day" in lines[j] for j in range(i, end)):
            continue
        try:
            last = datetime.datetime.strptime(notice.group(1), "%B %d, %Y").date()
        except ValueError:
            continue
        since = last + datetime.timedelta(days=1)
        for number, _row, models, what in _rows_with(
            lines, (i + 1, end), "model", "deprecated", enacted=True
        ):
            yield from _notice_rules(_PREFIX.findall(models), what, since, number)


def _kib_pair(isl: str, osl: str) -> tuple[int, int] | None:
    """(isl, osl) in tokens from a "NkMk" spelling; None for digits past any real length."""
    a, b = parse_number(isl), parse_number(osl)
    return None if a is None or b is None else (a * 1024, b * 1024)


def _notice_rules(prefixes: list[str], cell: str, since: datetime.date, line: int) -> list[Rule]:
    rules: list[Rule] = []
    for prefix in prefixes:
        if arm := _ARM.search(cell):
            rules.append(
                Rule(prefix, since, "arm", scenario=AGENTIC, source=arm.group(0), line=line)
            )
        elif (seq := _SEQ.search(cell)) and (pair := _kib_pair(seq.group(1), seq.group(2))):
            isl, osl = pair
            rules.append(Rule(prefix, since, "scenario", scenario=FIXED, seq=(isl, osl),
                              source=seq.group(0), line=line))  # fmt: skip
        elif re.fullmatch(r"Agentic coding", cell.strip(), re.IGNORECASE):
            rules.append(Rule(prefix, since, "scenario", scenario=AGENTIC, source=cell, line=line))
        elif precision := _PRECISION.search(cell):
            rules.append(Rule(prefix, since, "precision", precision=precision.group(1).lower(),
                              source=precision.group(0), line=line))  # fmt: skip
    return rules


def _violations(entry: Entry, rule: Rule) -> Iterator[tuple[int, str]]:
    """(line, what) where ``entry`` breaks ``rule``."""
    prefix = entry.field("model-prefix")
    if rule.prefix is not None and rule.prefix != prefix:
        return
    if rule.what == "model":
        yield entry.line_of("model-prefix"), f"model {prefix} was retired on {rule.since}"
        return
    if rule.what == "precision":
        if str(entry.field("precision")).lower() == rule.precision:
            yield (
                entry.line_of("precision"),
                f"{rule.precision} recipes of {prefix} are deprecated since {rule.since}",
            )
        return
    scenarios = entry.structure("scenarios")
    if not isinstance(scenarios, dict) or not isinstance(scenarios.get(rule.scenario), list):
        return
    for g, group in enumerate(scenarios[str(rule.scenario)]):
        if not isinstance(group, dict):
            continue
        if rule.what == "scenario" and rule.seq is not None:
            if (group.get("isl"), group.get("osl")) == rule.seq:
                who = "all models" if rule.prefix is None else prefix
                yield (
                    entry.line_of("scenarios", str(rule.scenario), g),
                    (
                        f"{rule.source or 'scenario'} ({rule.seq[0]}/{rule.seq[1]}) is deprecated "
                        f"for {who} since {rule.since}"
                    ),
                )
        elif rule.what == "scenario":
            yield (
                entry.line_of("scenarios", str(rule.scenario), g),
                f"agentic coding of {prefix} is deprecated since {rule.since}",
            )
            return
        elif rule.what == "arm":
            for r, row in enumerate(group.get("search-space") or []):
                if isinstance(row, dict) and row.get("spec-decoding", "none") == "none":
                    yield (
                        entry.line_of("scenarios", str(rule.scenario), g, "search-space", r),
                        (f"the {rule.source} arm of {prefix} is deprecated since {rule.since}"),
                    )


def check(ctx: Context) -> tuple[bool, list[dx.Diagnostic], list[str]]:
    rule_id = "models"
    entries = ctx.judged_entries
    if not entries:
        return False, [], []
    models_file = ctx.config.lint_models_file
    text = ctx.trusted_text(models_file)
    if text is None:
        return False, [], []
    now = ctx.request.now
    problems: list[tuple[int, str]] = []
    rules = [r for r in parse_models(text, problems) if r.since <= now]
    # The trusted file is the base's: the pull request cannot fix it, so its faults warn.
    out: list[dx.Diagnostic] = [
        dx.warning(
            codes.INPUT_UNREADABLE,
            f"{models_file}: {reason}: the row states no rule",
            models_file,
            line,
            hint=f"correct {models_file} on the main branch",
        )
        for line, reason in problems
    ]
    for entry in entries:
        for rule in rules:
            for line, what in _violations(entry, rule):
                if ctx.allowed(rule_id, path=entry.path, key=entry.name, text=what):
                    continue
                code = codes.RETIRED_MODEL if rule.what == "model" else codes.DEPRECATED_SCENARIO
                out.append(
                    dx.error(
                        code,
                        f"{entry.name}: {what} ({models_file}:{rule.line})",
                        entry.path,
                        line,
                        hint="remove the entry or the scenario (archive it under "
                        "configs/deprecated/), or update MODELS.md first in its own change",
                    )
                )
    return True, out, [e.name for e in entries]


CHECKS = {"models": check}
