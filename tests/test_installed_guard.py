"""The guard .ci/run relies on to prove the wheel run tests the installed package: with
CHANGELOG_TOOLS_TEST_INSTALLED set, conftest refuses to run unless `changelog_tools` comes from
site-packages rather than the tree beside the tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import changelog_tools
from tests.conftest import REPO_ROOT


def test_the_guard_passes_exactly_when_the_package_is_installed() -> None:
    where = Path(changelog_tools.__file__).resolve()
    installed = not where.is_relative_to(REPO_ROOT) and "site-packages" in where.parts
    proc = subprocess.run(
        # -P: the cwd is not put first on sys.path, as with the `pytest` script
        [sys.executable, "-P", "-m", "pytest", "-p", "no:cacheprovider", "--import-mode=append",
         "--collect-only", "tests/test_schemaerrors.py"],
        cwd=REPO_ROOT,
        env={**os.environ, "CHANGELOG_TOOLS_TEST_INSTALLED": "1"},
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip
    if installed:
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert f"changelog_tools under test: {where.parent}" in proc.stdout
    else:  # an editable install or the bare checkout: the guard must refuse
        assert proc.returncode == 4, proc.stdout + proc.stderr
        assert "not an installed wheel" in proc.stdout + proc.stderr
