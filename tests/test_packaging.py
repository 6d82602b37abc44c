"""What the package index and a new user see: the distribution's name, install lines, declared
lower bounds and their constraints file, README links that work off-site."""

from __future__ import annotations

import re
import tomllib

import changelog_tools
from tests.conftest import REPO_ROOT

PYPROJECT = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
DIST = PYPROJECT["project"]["name"]
VERSION = changelog_tools.__version__
SITE = "https://github.com/SemiAnalysisAI/changelog-tools/blob/main/"
_REQ = re.compile(r"([A-Za-z0-9_.-]+)\s*>=\s*([0-9][0-9.]*)")


def _texts() -> dict[str, str]:
    names = ["README.md", "action.yml", *(p.relative_to(REPO_ROOT).as_posix() for p in (
        *(REPO_ROOT / "docs").glob("*.md"), *(REPO_ROOT / ".github/workflows").glob("*.y*ml")))]  # fmt: skip
    return {n: (REPO_ROOT / n).read_text(encoding="utf-8") for n in names}


def test_the_distribution_is_not_the_unrelated_changelog_tools_on_the_index() -> None:
    assert DIST == "perf-changelog-tools"
    assert PYPROJECT["project"]["scripts"] == {"changelog-tools": "changelog_tools.cli:main"}


def test_every_install_line_names_the_distribution_pinned() -> None:
    lines = [
        (name, line.strip())
        for name, text in _texts().items()
        for line in text.splitlines()
        if re.search(r"pip install\b", line) and not re.search(r"install\s+(-e\s+)?['\".]", line)
    ]
    assert lines, "no install line found: the test reads the wrong files"
    for name, line in lines:
        if "changelog-tools" in line.split("pip install", 1)[1] or DIST in line:
            assert f"{DIST}=={VERSION}" in line, f"{name}: {line}"


def test_the_minimum_constraints_pin_every_dependency_to_its_declared_bound() -> None:
    declared = {}
    for req in (
        PYPROJECT["project"]["dependencies"] + PYPROJECT["project"]["optional-dependencies"]["test"]
    ):
        match = _REQ.match(req)
        if match:
            declared[match.group(1).lower()] = match.group(2)
    pinned = {}
    for line in (REPO_ROOT / ".ci/minimum-constraints.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, version = line.split("==")
            pinned[name.strip().lower()] = version.strip()

    def padded(version: str) -> tuple[int, ...]:
        parts = tuple(int(p) for p in version.split("."))
        return parts + (0,) * (3 - len(parts))

    for name, bound in declared.items():
        if name in ("ruff", "mypy"):  # linters: not installed in the minimum-version run
            continue
        assert name in pinned, f"{name} >= {bound} is not in .ci/minimum-constraints.txt"
        assert padded(pinned[name]) == padded(bound), f"{name}: >= {bound}, pinned {pinned[name]}"


def test_readme_links_are_absolute_and_name_files_that_exist() -> None:
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)]+)\)", text)
    assert targets
    for target in targets:
        assert target.startswith(("https://", "http://", "#")), (
            f"README link {target!r} is relative: it breaks on the package index page; "
            f"write {SITE}{target}"
        )
        if target.startswith(SITE):
            path = target.removeprefix(SITE).split("#", 1)[0]
            assert (REPO_ROOT / path).exists(), f"README links to {path}, which does not exist"
