"""The request `resolve` builds for a conflict in git's index (ledger/conflictrequest.py)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from changelog_tools.ledger.conflictrequest import ConflictRequest
from tests.checkdata import config


def test_the_request_is_frozen_and_the_merge_driver_does_not_load_it(tmp_path: Path) -> None:
    request = ConflictRequest(config(tmp_path))
    assert (request.pr, request.given, request.write, request.add) == (None, None, True, False)
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.write = False  # type: ignore[misc]
    # `resolve` builds the request; the merge driver, started by git for every conflicted
    # file, only receives one, so loading it must not pay for defining the class.
    probe = (
        "import sys, changelog_tools.ledger.mergedriver; "
        "print('changelog_tools.ledger.conflictrequest' in sys.modules)"
    )
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert (loaded.returncode, loaded.stdout) == (0, "False\n"), loaded.stderr
