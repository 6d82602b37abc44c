"""jsontext.py: strict JSON output."""

from __future__ import annotations

import json
from pathlib import Path

from tests.checkdata import (
    BASE,
    KEY,
    appended,
    check_files,
    entry,
)

# -- hostile and odd inputs to the ledger commands ---------------------------------------------


def test_a_nan_pr_link_still_gives_strict_json(tmp_path: Path) -> None:
    proc = check_files(tmp_path, BASE, appended(entry(KEY, link=".nan")))
    assert proc.returncode == 1

    def reject(constant: str) -> None:
        raise AssertionError(f"{constant} is not JSON")

    doc = json.loads(proc.stdout, parse_constant=reject)
    assert doc["entries"][0]["pr-link"] == "nan"
