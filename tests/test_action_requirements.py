"""The action's lighter install for the commands that make no GitHub request.

action.yml installs the tool with --no-deps plus action-requirements.txt for the commands it
names in LOCAL_COMMANDS. These tests keep that list honest: every line is one of pyproject.toml's
own dependency lines, and every import any local command can reach (read from the source, lazy
imports included, so a path no test runs is covered too) is served by a listed distribution;
the other commands reach something the list leaves out, so the two sets are exactly those.
"""

from __future__ import annotations

import ast
import json
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

from changelog_tools.cli import COMMANDS
from changelog_tools.yamlload import load
from tests.test_house_rules import Module, imports, load_package

ROOT = Path(__file__).resolve().parent.parent
REQUIREMENTS = ROOT / "action-requirements.txt"
# The places that import a module named at run time, and what each may load: the CLI loads
# one command's module (the closure starts there), the lint engine any of its rule modules, and
# knownvalid the standard library's own SHA-256 module (its name depends on the version).
DYNAMIC_IMPORTERS = {
    "changelog_tools.cli": (),
    "changelog_tools.lint.engine": ("changelog_tools.lint.",),
}


def listed_requirements() -> list[str]:
    return [
        line.strip()
        for line in REQUIREMENTS.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]


def local_commands() -> list[str]:
    action = load((ROOT / "action.yml").read_text(encoding="utf-8")).value
    prepare = next(s for s in action["runs"]["steps"] if s.get("id") == "prepare")
    return str(prepare["env"]["LOCAL_COMMANDS"]).split()


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~;\s\[]", requirement, maxsplit=1)[0]


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def top_level_modules(distribution: str) -> set[str]:
    """The import names a distribution (and everything it requires, on this machine) provides."""
    seen: set[str] = set()
    todo = [distribution]
    provided: dict[str, set[str]] = {}
    for module, dists in metadata.packages_distributions().items():
        for dist in dists:
            provided.setdefault(_normal(dist), set()).add(module)
    modules: set[str] = set()
    while todo:
        name = _normal(todo.pop())
        if name in seen:
            continue
        seen.add(name)
        modules |= provided.get(name, set())
        for requirement in metadata.requires(name) or []:
            # Only what this interpreter installs: an old release's requirement for an older
            # Python (``importlib-metadata; python_version < "3.8"``) is not there to provide.
            marker = Requirement(requirement).marker
            if marker is None or marker.evaluate({"extra": ""}):
                todo.append(_name(requirement))
    return modules


def reach(start: str, modules: dict[str, Module]) -> tuple[set[str], dict[str, str]]:
    """What the package can import from ``start`` and the CLI (any depth, lazy imports and the
    dynamic importers' possible targets included): (its own modules, each third-party top-level
    module -> a package module importing it)."""
    reached: dict[str, str] = {}
    seen: set[str] = set()
    todo = [start, "changelog_tools.cli"]
    while todo:
        name = todo.pop()
        if name in seen or name not in modules:
            continue
        seen.add(name)
        targets = [i.target for i in imports(modules[name])]
        for prefix in DYNAMIC_IMPORTERS.get(name, ()):
            targets += [m for m in modules if m.startswith(prefix)]
        for target in targets:
            if target == "changelog_tools" or target.startswith("changelog_tools."):
                parts = target.split(".")
                todo += [".".join(parts[: i + 1]) for i in range(len(parts))]
                continue
            top = target.split(".")[0]
            if top and top != "__future__" and top not in sys.stdlib_module_names:
                reached.setdefault(top, name)
    return seen, reached


def third_party_reached(start: str, modules: dict[str, Module]) -> dict[str, str]:
    return reach(start, modules)[1]


def test_every_listed_requirement_is_a_line_of_pyproject() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "dependencies"
    ]
    listed = listed_requirements()
    assert listed, "action-requirements.txt lists nothing"
    # the same bounds and markers: the light install is the full one with lines left out
    assert [r for r in listed if r not in declared] == []
    assert len(set(listed)) == len(listed)
    # and it does leave something out, or the list is pointless
    assert len(listed) < len(declared)


def test_local_commands_import_nothing_the_list_leaves_out() -> None:
    modules = {m.name: m for m in load_package()}
    served: set[str] = set()
    for requirement in listed_requirements():
        served |= top_level_modules(_name(requirement))
    local = local_commands()
    assert sorted(local) == sorted(set(local)), "LOCAL_COMMANDS names a command twice"
    assert set(local) <= set(COMMANDS), set(local) - set(COMMANDS)
    missing = {}
    for command in local:
        reached = third_party_reached(COMMANDS[command][0], modules)
        unserved = {top: where for top, where in reached.items() if top not in served}
        if unserved:
            missing[command] = unserved
    assert missing == {}, (
        f"local commands import what action-requirements.txt leaves out: {missing}"
    )
    # Every other command reaches something the list leaves out (PyGithub at least): a command
    # that does not belongs in LOCAL_COMMANDS, where its CI step installs less.
    could_be_local = sorted(
        command
        for command, (module, _) in COMMANDS.items()
        if command not in local
        and all(top in served for top in third_party_reached(module, modules))
    )
    assert could_be_local == []


def test_the_closure_sees_lazy_and_dynamic_imports() -> None:
    """The probe the test above relies on: a lazy import of PyGithub and a lint rule module loaded
    by name are both reached, and only the two known places import by name."""
    modules = {m.name: m for m in load_package()}
    assert "github" in third_party_reached(COMMANDS["reuse-gate"][0], modules)
    own, _ = reach(COMMANDS["lint"][0], modules)
    assert {m for m in modules if m.startswith("changelog_tools.lint.")} <= own
    assert "changelog_tools.github" not in own
    by_name = sorted(
        m.name
        for m in modules.values()
        for node in ast.walk(m.tree)
        if isinstance(node, ast.Call)
        and (
            (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
            or (isinstance(node.func, ast.Name) and node.func.id == "__import__")
        )
    )
    assert by_name == sorted(DYNAMIC_IMPORTERS)


def test_the_schemas_use_no_format_that_needs_a_left_out_package() -> None:
    """jsonschema checks some formats only when an optional package is importable (idna, which
    the full install brings along with PyGithub's HTTP stack, for one). The shipped schemas use
    only formats it checks with the standard library, so both installs validate alike."""
    formats: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("format"), str):
                formats.add(node["format"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    schemas = sorted((ROOT / "changelog_tools" / "schemas").glob("*.json"))
    assert schemas
    for path in schemas:
        walk(json.loads(path.read_text(encoding="utf-8")))
    assert formats <= {"regex"}, formats
