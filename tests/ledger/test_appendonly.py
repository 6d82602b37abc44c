"""ledger/appendonly.py: findings inside appended entries."""

from __future__ import annotations

import json
from pathlib import Path

from tests.checkdata import (
    KEY,
    appended,
    check_json,
    entry,
    project,
)

# -- hostile input, pinned through the installed CLI -------------------------------------------


def test_a_run_of_whitespace_only_lines_is_one_finding(tmp_path: Path) -> None:
    head = appended(entry(KEY).replace(b"  description:", b"  \n" * 5000 + b"  description:"))
    project(tmp_path, head)
    proc = check_json(tmp_path)
    assert proc.returncode == 0  # a warning
    doc = json.loads(proc.stdout)
    assert [(d["code"], d["line"], d["message"]) for d in doc["diagnostics"]] == [
        ("CL111", 15, "5,000 whitespace-only lines inside a new entry (lines 15-5014)")
    ]
