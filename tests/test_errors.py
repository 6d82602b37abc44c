"""errors.py: the table of declared dependencies behind the missing-dependency error."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re
import tomllib
from pathlib import Path

from changelog_tools import __version__
from changelog_tools.errors import DEPENDENCY_MODULES, MissingDependencyError, missing_dependency

ROOT = Path(__file__).resolve().parent.parent


def _declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = {re.match(r"[A-Za-z0-9._-]+", req).group(0) for req in project["dependencies"]}  # type: ignore[union-attr]
    return names


def test_the_table_names_exactly_the_declared_dependencies() -> None:
    assert set(DEPENDENCY_MODULES) == _declared()


def test_each_installed_dependency_provides_the_modules_the_table_names() -> None:
    owners = importlib.metadata.packages_distributions()
    checked = 0
    for distribution, modules in DEPENDENCY_MODULES.items():
        try:
            importlib.metadata.distribution(distribution)
        except importlib.metadata.PackageNotFoundError:
            continue  # an environment marker left it out (ruamel.yaml.clib off CPython)
        for module in modules:
            top = module.split(".")[0]
            normal = {re.sub(r"[-_.]+", "-", d).lower() for d in owners.get(top, [])}
            assert re.sub(r"[-_.]+", "-", distribution).lower() in normal, (distribution, module)
            assert importlib.util.find_spec(module) is not None, module
            checked += 1
    assert checked >= len(DEPENDENCY_MODULES) - 1


def test_only_a_declared_dependency_is_a_missing_dependency() -> None:
    found = missing_dependency(ModuleNotFoundError("No module named 'github'", name="github"))
    assert isinstance(found, MissingDependencyError)
    assert "PyGithub" in str(found) and "pip install perf-changelog-tools==" + __version__ in str(
        found
    )
    sub = ModuleNotFoundError("x", name="github.Auth")
    assert isinstance(missing_dependency(sub), MissingDependencyError)
    parent = missing_dependency(ModuleNotFoundError("x", name="ruamel"))
    assert parent is not None and "ruamel.yaml" in str(parent)
    for own_or_other in ("changelog_tools.signoff", "requests", "githubx", "gitdb"):
        assert missing_dependency(ModuleNotFoundError("x", name=own_or_other)) is None
    assert missing_dependency(ImportError("cannot import name 'x' from 'github'")) is None
