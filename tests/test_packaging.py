"""What the package index and a new user see: the distribution's name, install lines, declared
lower bounds and their constraints file, README links that work off-site."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

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


# -- the release path: nothing shipped installs an unpublished release; one tag publishes --------

WORKFLOWS = REPO_ROOT / ".github/workflows"
_PINNED_USE = re.compile(r"^[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40}$")


def _workflow(path: Path) -> dict[str, Any]:
    from changelog_tools import yamlload

    doc: dict[str, Any] = yamlload.load(path.read_text(encoding="utf-8")).value
    return doc


def _steps(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [step for job in doc["jobs"].values() for step in job.get("steps", [])]


def test_no_shipped_workflow_installs_the_tool_from_the_package_index() -> None:
    """A workflow copied into a benchmark repository must work before any release is on the
    index: the tool comes from the action (its own commit) or the checkout, never `pip install
    perf-changelog-tools==X`, and no `run:` step calls the tool it did not install."""
    workflows = sorted(WORKFLOWS.glob("*.y*ml"))
    assert {p.name for p in workflows} >= {"check-changelog.yml", "signoff-verify.yml"}
    for path in workflows:
        for step in _steps(_workflow(path)):
            run = str(step.get("run", ""))
            assert "perf-changelog-tools" not in run, f"{path.name}: {run}"
            assert not re.search(r"(^|[\s;&|(])changelog-tools\s", run), f"{path.name}: {run}"


def test_every_shipped_workflow_step_is_pinned_by_a_full_commit_sha_with_its_tag() -> None:
    for path in sorted(WORKFLOWS.glob("*.y*ml")):
        lines = re.findall(r"^\s*-?\s*uses:\s*(\S+)(.*)$", path.read_text(encoding="utf-8"), re.M)
        assert lines, path.name
        for ref, rest in lines:
            if ref == "./":  # this repository's own action (pinned by SHA where it is copied)
                continue
            assert _PINNED_USE.match(ref), f"{path.name}: {ref} is not pinned by a commit SHA"
            assert re.match(r"\s+#\s+v[0-9]+(\.[0-9]+)*\b", rest), f"{path.name}: {ref}{rest}"


def test_the_release_workflow_publishes_one_tag_tested_attested_least_privileged() -> None:
    doc = _workflow(WORKFLOWS / "release.yml")
    on = doc.get("on") or doc[True]  # type: ignore[call-overload]
    assert on == {"push": {"tags": ["v*"]}}
    assert doc["permissions"] == {"contents": "read"}
    build, publish = doc["jobs"]["build"], doc["jobs"]["publish"]
    assert build["permissions"] == {"contents": "read"}  # the suite runs without a token to mint
    assert publish["needs"] == "build"
    assert publish["permissions"] == {
        "contents": "read",
        "id-token": "write",
        "attestations": "write",
    }
    assert publish["environment"]["name"] == "pypi"
    runs = "\n".join(str(s.get("run", "")) for s in build["steps"])
    assert 'scripts/release.py --tag "$TAG"' in runs
    tag_env = next(s for s in build["steps"] if "release.py" in str(s.get("run", "")))["env"]
    assert tag_env == {"TAG": "${{ github.ref_name }}"}
    # the suite runs against the wheel that is uploaded, installed outside the checkout
    assert "CHANGELOG_TOOLS_TEST_INSTALLED=1" in runs and "dist/*.whl" in runs
    uses = [str(s.get("uses", "")).split("@")[0] for s in publish["steps"]]
    assert uses == [
        "actions/download-artifact",
        "actions/attest-build-provenance",
        "pypa/gh-action-pypi-publish",
    ]
    assert publish["steps"][1]["with"] == {"subject-path": "dist/*"}
    assert "password" not in publish["steps"][2].get("with", {})  # trusted publishing, no token


def _release_script(argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(REPO_ROOT / "scripts/release.py"), *argv],
        capture_output=True,
        text=True,
        check=False,
    )


def test_release_script_refuses_a_tag_that_is_not_the_version() -> None:
    ok = _release_script(["--check", "--tag", f"v{VERSION}"])
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout == f"release: {VERSION} is consistent\n"
    wrong = _release_script(["--check", "--tag", "v99.0.0"])
    assert wrong.returncode == 1
    assert wrong.stderr == (
        f"release: the tag 'v99.0.0' is not v{VERSION} (changelog_tools.__version__)\n"
    )


def test_release_script_names_every_pin_of_another_release(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "release_script", REPO_ROOT / "scripts/release.py"
    )
    assert spec and spec.loader
    release = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(release)
    (tmp_path / "docs").mkdir()
    (tmp_path / "CHANGELOG.md").write_text("## Unreleased\n\n## 1.2.0\n")
    (tmp_path / "README.md").write_text(
        "- uses: SemiAnalysisAI/changelog-tools@0123abc # v1.1.0\n"
        "- uses: SemiAnalysisAI/changelog-tools@<release commit SHA> # vX.Y.Z\n"
    )
    (tmp_path / ".pre-commit-hooks.yaml").write_text("#     rev: v1.0.0\n")
    (tmp_path / "docs/a.md").write_text("pip install perf-changelog-tools==1.2.0\nrev: v1.2.0\n")
    (tmp_path / "pyproject.toml").write_text('[project]\nversion = "1.1.0"\n')
    monkeypatch.setattr(release, "ROOT", tmp_path)
    assert release.problems("1.2.0", "v1.2.0") == [
        "pyproject.toml has version 1.1.0, not 1.2.0",
        "README.md:1: uses the action at 1.1.0, not 1.2.0",
        ".pre-commit-hooks.yaml:1: has pre-commit rev 1.0.0, not 1.2.0",
    ]
    assert "CHANGELOG.md has no '## 1.3.0' section" in release.problems("1.3.0")
