"""A report in the tool's three output formats: text lines (``PATH:LINE:COL: CODE message``),
GitHub workflow-command lines (annotations on the files), and one JSON document.

Every line of text and GitHub output passes :func:`~changelog_tools.diagnostics.visible`, so
nothing a pull request wrote reaches a terminal or a CI log as a control character, and text
lines pass :func:`~changelog_tools.diagnostics.no_commands` too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from changelog_tools.diagnostics import (
    Diagnostic,
    Report,
    Severity,
    no_commands,
    visible,
)


class Renderer(Protocol):
    """A format's renderer: the whole output for ``report``."""

    def __call__(self, report: Report) -> str: ...


def _location(d: Diagnostic) -> str:
    loc = d.path
    if d.line is not None:
        loc += f":{d.line}"
        if d.column is not None:
            loc += f":{d.column}"
    return loc


# Marks a consequence in text and GitHub output, where JSON has `"consequence": true`: without
# it the summary's count would look one short of the errors listed. After the message, so a
# line still starts `CODE message` for whoever searches logs for it.
CONSEQUENCE_TAG = " (consequence, not counted)"


def _shown_message(d: Diagnostic) -> str:
    return d.message + (CONSEQUENCE_TAG if d.consequence else "")


def render_text(report: Report) -> str:
    """``PATH:LINE:COL: CODE message`` per finding (with its hint lines), then the summary."""
    lines: list[str] = []
    for d in report.sorted():
        tag = "" if d.severity is Severity.ERROR else "warning "
        lines.append(f"{_location(d)}: {d.code} {tag}{_shown_message(d)}")
        if d.hint:
            lines.extend(f"    hint: {h}" for h in d.hint.splitlines())
    lines.extend(report.hidden_lines())
    lines.append(report.summary())
    return no_commands(visible("\n".join(lines) + "\n"))


def render_json(report: Report) -> str:
    """One JSON document: the summary's counts, every finding, and the command's own data."""
    doc: dict[str, Any] = {
        "command": report.command,
        "ok": report.ok,
        "summary": {
            "errors": report.error_count(),
            "warnings": report.warning_count(),
            "text": report.summary(),
        },
        "diagnostics": [d.as_json() for d in report.sorted()],
    }
    if report.hidden:
        # Counts of the findings past the per-code cap, which `diagnostics` does not list.
        doc["hidden"] = {
            code: {"errors": e, "warnings": w} for code, (e, w) in sorted(report.hidden.items())
        }
    doc.update(report.data)
    # json is imported with jsontext, only here: text and GitHub output are the common case.
    from changelog_tools.jsontext import json_text

    return json_text(doc)


def escape_data(value: str) -> str:
    """GitHub's workflow-command escaping of a command's message part: %, CR and LF."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def _from_repository_root(path: str) -> str:
    """``path`` as GitHub places an annotation: relative to the repository's top directory.

    A report names files as the user gave them (``../configs/a.yaml`` from a subdirectory); an
    annotation with such a path is attached to no file. Paths that name no file (``<stdin>``)
    and files outside any repository are left as they are.
    """
    import os
    from pathlib import Path

    here = Path(os.getcwd())
    target = Path(path) if os.path.isabs(path) else here / path
    if not target.exists():
        return path
    target = target.resolve()
    for top in (target.parent, *target.parent.parents):
        if (top / ".git").exists():
            return target.relative_to(top).as_posix()
    return path


def render_github(report: Report) -> str:
    """One workflow command per finding (an annotation on its file and line), then the
    summary."""
    lines: list[str] = []
    for d in report.sorted():
        props = [f"file={_escape_property(_from_repository_root(d.path))}"]
        if d.line is not None:
            props.append(f"line={d.line}")
        if d.column is not None:
            props.append(f"col={d.column}")
        props.append(f"title={_escape_property(d.code)}")
        message = _shown_message(d) + (f"\n{d.hint}" if d.hint else "")
        lines.append(f"::{d.severity.value} {','.join(props)}::{escape_data(message)}")
    lines.extend(report.hidden_lines())
    lines.append(report.summary())
    # After the workflow-command escaping (which turns CR and LF into %0D/%0A): what is left
    # of a control character is shown, not obeyed, by the runner's log viewer.
    return visible("\n".join(lines) + "\n")


RENDERERS: Mapping[str, Renderer] = {
    "text": render_text,
    "json": render_json,
    "github": render_github,
}
FORMATS = tuple(RENDERERS)
