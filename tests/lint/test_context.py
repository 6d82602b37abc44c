"""What the lint rules read of a change through their context: the lines it added."""

from __future__ import annotations

import datetime

from changelog_tools.config import defaults
from changelog_tools.lint.context import Context
from changelog_tools.lint.engine import LintRequest
from changelog_tools.lint.tree import MemoryTree

BASE = b"#!/usr/bin/env bash\nserve \\\n    --port 1\necho kept\n"
# The old two-line command gains a continuation; a new command follows the kept one.
HEAD = b"#!/usr/bin/env bash\nserve \\\n    --port 1 \\\n    --new-flag\necho kept\necho added\n"


def _context(base: bytes | None, head: bytes, *, audit: bool = False) -> Context:
    request = LintRequest(
        head=MemoryTree({"run.sh": head}),
        base=None if base is None else MemoryTree({"run.sh": base}),
        changed=None if audit else ("run.sh",),
        pr=None,
        now=datetime.date(2026, 1, 1),
    )
    return Context(request, defaults())


def test_touched_lines_are_the_logical_lines_holding_an_added_physical_line() -> None:
    touched = _context(BASE, HEAD).touched("run.sh")
    assert [(line.line, line.last) for line in touched] == [(2, 4), (6, 6)]
    assert touched[0].text.split() == ["serve", "--port", "1", "--new-flag"]


def test_an_unchanged_file_has_no_touched_lines() -> None:
    assert _context(BASE, BASE).touched("run.sh") == []


def test_an_audit_touches_every_command() -> None:
    # (the shebang is a comment: no logical line holds it)
    touched = _context(None, HEAD, audit=True).touched("run.sh")
    assert [(line.line, line.last) for line in touched] == [(2, 4), (5, 5), (6, 6)]
