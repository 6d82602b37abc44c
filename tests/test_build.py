"""How the project is built: uv_build, which the uv release the action pins builds in-process
(no backend to download, no Python to start), and what the wheel and the sdist carry."""

from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import changelog_tools
from changelog_tools import yamlload
from tests.conftest import REPO_ROOT

PYPROJECT = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
DIST = PYPROJECT["project"]["name"]
# What [tool.uv.build-backend] puts in the sdist beside the package (source-include).
SDIST_DIRS = ("tests", "docs", "scripts", "bench", ".ci", ".github")
SDIST_FILES = ("LICENSE", "README.md", "CHANGELOG.md", "CONTRIBUTING.md", "action.yml",
               "action-requirements.txt", ".pre-commit-hooks.yaml", "pyproject.toml")  # fmt: skip


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def _action_uv() -> str:
    """The uv release action.yml's setup-uv step installs."""
    action = yamlload.load((REPO_ROOT / "action.yml").read_text(encoding="utf-8")).value
    steps = [s for s in action["runs"]["steps"] if str(s.get("uses", "")).startswith("astral-sh/setup-uv@")]  # fmt: skip
    assert len(steps) == 1, "action.yml should set up uv in exactly one step"
    version = str(steps[0]["with"]["version"])
    assert re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+", version), f"setup-uv version {version!r}"
    return version


def _uv() -> str:
    """This environment's uv (the test extra pins the release the action pins)."""
    found = shutil.which("uv", path=str(Path(sys.executable).parent))
    assert found, "uv is a test dependency: pip install -e '.[test]'"
    return found


def _uv_env(tmp_path: Path) -> dict[str, str]:
    """uv with an empty cache of its own, no user or system configuration, no Python downloads."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("UV_")}
    env.update(UV_CACHE_DIR=str(tmp_path / "uv-cache"), UV_NO_CONFIG="1",
               UV_PYTHON_DOWNLOADS="never")  # fmt: skip
    return env


def _run(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, f"{' '.join(argv)}\n{done.stdout}\n{done.stderr}"
    return done


def _package_files(root: Path) -> set[str]:
    """Every file of the package directory under ``root``, bytecode left out."""
    return {
        p.relative_to(root).as_posix()
        for p in (root / "changelog_tools").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    }


def test_the_version_is_written_statically_and_is_the_one_the_package_reports() -> None:
    """pyproject.toml's version (read by the build) and ``changelog_tools.__version__`` (read at
    start-up, without the installed metadata) are written in two places: they must agree."""
    assert "version" not in PYPROJECT["project"].get("dynamic", [])
    assert PYPROJECT["project"]["version"] == changelog_tools.__version__
    assert importlib.metadata.version(DIST) == changelog_tools.__version__


def test_the_uv_the_action_pins_satisfies_the_build_requirement() -> None:
    """Otherwise uv builds this project the slow way (a backend fetched into an isolated
    environment and run) on every fresh runner, and nothing else would say so."""
    assert PYPROJECT["build-system"]["build-backend"] == "uv_build"
    (requirement,) = PYPROJECT["build-system"]["requires"]
    match = re.fullmatch(r"uv_build>=([0-9.]+),<([0-9.]+)", requirement)
    assert match, f"expected uv_build>=LOW,<HIGH, got {requirement!r}"
    low, high = match.groups()
    pinned = _action_uv()
    assert _version(low) <= _version(pinned) < _version(high), (
        f"action.yml's uv {pinned} is outside {requirement}"
    )
    # the lower bound is a release CI builds with: the pinned uv's own copy of the backend
    assert low == pinned, f"raise the lower bound to {pinned}, the uv action.yml pins"
    assert f"uv=={pinned}" in PYPROJECT["project"]["optional-dependencies"]["test"]


def test_the_pinned_uv_installs_the_checkout_offline_with_an_empty_cache(tmp_path: Path) -> None:
    """What the action's install step does with its own checkout. Offline and with an empty
    cache, a PEP 517 build cannot get its backend; uv's own in-process build needs nothing."""
    uv, env = _uv(), _uv_env(tmp_path)
    assert _run([uv, "--version"], env).stdout.split()[1] == _action_uv()
    venv = tmp_path / "venv"
    _run([uv, "venv", "--quiet", "--python", sys.executable, str(venv)], env)
    done = _run([uv, "pip", "install", "--offline", "--no-deps", "--verbose",
                 "--python", str(venv / "bin/python"), str(REPO_ROOT)], env)  # fmt: skip
    assert "Performing direct build" in done.stderr
    site = next((venv / "lib").glob("python3*/site-packages"))
    assert _package_files(site) == _package_files(REPO_ROOT)
    dist_info = site / f"{DIST.replace('-', '_')}-{changelog_tools.__version__}.dist-info"
    assert (dist_info / "entry_points.txt").read_text().split() == [
        "[console_scripts]", "changelog-tools", "=", "changelog_tools.cli:main"]  # fmt: skip


def _copy_for_build(tmp_path: Path) -> Path:
    """The files a wheel build reads, copied, with stray bytecode planted in the package."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(REPO_ROOT / name, src / name)
    shutil.copytree(REPO_ROOT / "changelog_tools", src / "changelog_tools",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))  # fmt: skip
    (src / "changelog_tools/__pycache__").mkdir()
    (src / "changelog_tools/__pycache__/cli.cpython-311.pyc").write_bytes(b"stale")
    (src / "changelog_tools/ledger/stray.pyc").write_bytes(b"stale")
    return src


def test_the_wheel_carries_the_package_whole_and_no_bytecode(tmp_path: Path) -> None:
    uv, env = _uv(), _uv_env(tmp_path)
    src = _copy_for_build(tmp_path)
    _run([uv, "build", "--offline", "--wheel", "--out-dir", str(tmp_path / "dist"), str(src)], env)
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    names = {n for n in zipfile.ZipFile(wheel).namelist() if not n.endswith("/")}
    package = {n for n in names if not n.startswith(f"{DIST.replace('-', '_')}-")}
    assert package == _package_files(REPO_ROOT)
    assert {"changelog_tools/py.typed", "changelog_tools/schemas/perf-changelog.schema.json",
            "changelog_tools/examples/inferencex-mini/.changelog-tools.yaml",
            "changelog_tools/examples/inferencex-mini/.github/CODEOWNERS"} <= package  # fmt: skip
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]


def test_the_sdist_carries_what_its_own_tests_and_docs_need(tmp_path: Path) -> None:
    """Everything under tests/, docs/, scripts/, bench/ (its output aside), .ci/ and .github/,
    the top-level documents and the package; no bytecode."""
    uv, env = _uv(), _uv_env(tmp_path)
    _run([uv, "build", "--offline", "--sdist", "--out-dir", str(tmp_path / "dist"),
          str(REPO_ROOT)], env)  # fmt: skip
    (sdist,) = (tmp_path / "dist").glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = {m.name.split("/", 1)[1] for m in archive.getmembers() if m.isfile()}
    expected = {*SDIST_FILES, "PKG-INFO", *_package_files(REPO_ROOT)}
    for top in SDIST_DIRS:
        expected |= {
            p.relative_to(REPO_ROOT).as_posix()
            for p in (REPO_ROOT / top).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
            and not p.relative_to(REPO_ROOT).as_posix().startswith("bench/out/")
        }  # fmt: skip
    assert {"tests/conftest.py", "docs/configuration.md", ".ci/run", "scripts/gendocs.py",
            ".github/workflows/check-changelog.yml"} <= expected  # fmt: skip
    # uv keeps the project's own pyproject.toml, comments and all, beside the one it writes
    assert names - expected <= {"pyproject.toml.orig"}
    assert expected - names == set()
