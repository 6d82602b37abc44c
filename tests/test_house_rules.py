"""The rules of the house, read from the imports (ast), so review does not have to.

Each rule is a function over the package's parsed modules that returns its violations; the
tests assert there are none, and `test_rules_catch_a_violation` proves every rule fires on a
module written to break it (a rule that can never fail would be a stub).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import changelog_tools

PACKAGE = Path(changelog_tools.__file__).resolve().parent

# The floors, lowest first: a module may import its own floor and any floor below, never one
# above. `testing` sits beside `flows` because only the demo (a flow) may use it; the landing
# steps `merge` and `recover` share sit below them, so a shared step never reaches into a flow.
LAYERS: tuple[tuple[str, ...], ...] = (
    (
        "changelog_tools",
        "changelog_tools.errors",
        "changelog_tools.numbers",
        "changelog_tools.actionsevent",
        "changelog_tools.jsontext",
        "changelog_tools.diagnostics",
        "changelog_tools.reportrender",
        "changelog_tools.fsutil",
        "changelog_tools.yamlload",
        "changelog_tools.schemaerrors",
        "changelog_tools.schemasubset",
        "changelog_tools.utf8",
        "changelog_tools.config",
        "changelog_tools.gitrepo",
    ),
    ("changelog_tools.ledger",),
    ("changelog_tools.lint",),
    ("changelog_tools.github",),
    ("changelog_tools.reuse",),
    ("changelog_tools.signoff",),
    ("changelog_tools.flows.landing",),
    ("changelog_tools.flows", "changelog_tools.testing"),
    ("changelog_tools.commands",),
    ("changelog_tools.cli", "changelog_tools.__main__"),
)
# Where each third-party adapter target may be imported: PyGithub only inside the GitHub package
# (the rest of the code sees its plain records), GitPython only in the git adapter module.
GITHUB_PACKAGE = "changelog_tools.github"
GIT_ADAPTERS = frozenset(
    {
        "changelog_tools.gitrepo",
        "changelog_tools.gitrepo.runner",
        "changelog_tools.gitrepo.objects",
        "changelog_tools.gitrepo.history",
    }
)
CLICK_USERS_PREFIX = "changelog_tools.commands"
TESTING_USERS = frozenset(
    {
        "changelog_tools.flows.demo",
        "changelog_tools.flows.demo_signoff",
        "changelog_tools.flows.demo_recover",
    }
)


@dataclass(frozen=True)
class Module:
    name: str
    path: str  # relative to the package's parent, for messages
    tree: ast.Module


@dataclass(frozen=True)
class Import:
    target: str  # absolute dotted name
    line: int


def module_name(path: Path, root: Path) -> str:
    rel = path.relative_to(root.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def load_package(root: Path = PACKAGE) -> list[Module]:
    modules = []
    for path in sorted(root.rglob("*.py")):
        if "examples" in path.relative_to(root).parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        modules.append(
            Module(module_name(path, root), path.relative_to(root.parent).as_posix(), tree)
        )
    return modules


def imports(module: Module) -> Iterator[Import]:
    """Every import in the module, at any depth (a lazy import is still an arrow)."""
    package = module.name if module.path.endswith("__init__.py") else module.name.rpartition(".")[0]
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                prefix = ".".join(base)
                target = f"{prefix}.{node.module}" if node.module else prefix
            else:
                target = node.module or ""
            yield Import(target, node.lineno)
            # `from changelog_tools.ledger import check` imports the submodule too.
            for alias in node.names:
                yield Import(f"{target}.{alias.name}", node.lineno)


def _under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def _third_party(target: str, top: str) -> bool:
    return target == top or target.startswith(top + ".")


def _layer(name: str) -> int | None:
    best: tuple[int, int] | None = None  # (prefix length, layer)
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            matched = name == prefix if prefix == "changelog_tools" else _under(name, prefix)
            if matched and (best is None or len(prefix) > best[0]):
                best = (len(prefix), index)
    return None if best is None else best[1]


def _where(module: Module, line: int) -> str:
    return f"{module.path}:{line}"


def rule_click(modules: list[Module]) -> list[str]:
    return [
        f"{_where(m, imp.line)}: imports click outside commands/ and cli.py"
        for m in modules
        if not _under(m.name, CLICK_USERS_PREFIX) and m.name != "changelog_tools.cli"
        for imp in imports(m)
        if _third_party(imp.target, "click")
    ]


def _exit_calls(tree: ast.AST) -> Iterator[int]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if (
                isinstance(func, ast.Attribute)
                and func.attr == "exit"
                and isinstance(func.value, ast.Name)
                and func.value.id == "sys"
            ):
                yield node.lineno
        elif isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(exc, ast.Name) and exc.id == "SystemExit":
                yield node.lineno


def _is_main_guard(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.If)
        and isinstance(node.test, ast.Compare)
        and isinstance(node.test.left, ast.Name)
        and node.test.left.id == "__name__"
    )


def rule_exit(modules: list[Module]) -> list[str]:
    """Only cli.py ends the process; a module's own `if __name__ == "__main__":` block (a dev
    entry point such as the fake GitHub's) may hand its status to the interpreter."""
    found = []
    for m in modules:
        if m.name in ("changelog_tools.cli", "changelog_tools.__main__"):
            continue
        for stmt in m.tree.body:
            if _is_main_guard(stmt):
                continue
            found += [
                f"{_where(m, line)}: ends the process outside cli.py" for line in _exit_calls(stmt)
            ]
    return found


def rule_pygithub(modules: list[Module]) -> list[str]:
    return [
        f"{_where(m, imp.line)}: imports PyGithub (only changelog_tools/github/ may)"
        for m in modules
        if not _under(m.name, GITHUB_PACKAGE)
        for imp in imports(m)
        if _third_party(imp.target, "github")
    ]


def rule_gitpython(modules: list[Module]) -> list[str]:
    return [
        f"{_where(m, imp.line)}: imports GitPython (only changelog_tools/gitrepo/ may)"
        for m in modules
        if m.name not in GIT_ADAPTERS
        for imp in imports(m)
        if _third_party(imp.target, "git")
    ]


def rule_ruamel(modules: list[Module]) -> list[str]:
    # One YAML reader: positions, duplicate keys, anchors and tags are handled once, there.
    return [
        f"{_where(m, imp.line)}: imports ruamel.yaml (only yamlload.py may)"
        for m in modules
        if m.name != "changelog_tools.yamlload"
        for imp in imports(m)
        if _third_party(imp.target, "ruamel")
    ]


def rule_testing(modules: list[Module]) -> list[str]:
    return [
        f"{_where(m, imp.line)}: imports changelog_tools.testing (only the demo may)"
        for m in modules
        if not _under(m.name, "changelog_tools.testing") and m.name not in TESTING_USERS
        for imp in imports(m)
        if _under(imp.target, "changelog_tools.testing")
    ]


def rule_layers(modules: list[Module]) -> list[str]:
    found = []
    for m in modules:
        own = _layer(m.name)
        assert own is not None, f"{m.name} is on no floor: add it to LAYERS"
        for imp in imports(m):
            if not _under(imp.target, "changelog_tools"):
                continue
            target = _layer(imp.target)
            if target is not None and target > own:
                found.append(f"{_where(m, imp.line)}: {m.name} imports {imp.target}, a floor up")
    return found


def rule_cycles(modules: list[Module]) -> list[str]:
    names = {m.name for m in modules}
    graph: dict[str, set[str]] = {}
    for m in modules:
        edges = set()
        for imp in imports(m):
            # the deepest module the import names (`a.b.c` may be a module or a name in `a.b`)
            target = imp.target
            while target and target not in names:
                target = target.rpartition(".")[0]
            # a package's __init__ is reached by every import of its submodules: not an edge
            if target and target != m.name and not m.name.startswith(target + "."):
                edges.add(target)
        graph[m.name] = edges
    found: list[str] = []
    state: dict[str, int] = {}  # 1 = on the stack, 2 = done

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                found.append(" -> ".join([*stack[stack.index(nxt) :], nxt]))
            elif nxt not in state:
                visit(nxt, [*stack, nxt])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    return found


# The sign-off checks judge facts already gathered: they reach neither GitHub nor git, and
# never publish, so each rule's test needs no server (facts.py and publish.py do those).
PURE_CHECKS = "changelog_tools.signoff.checks"
CHECKS_MAY_NOT_IMPORT = (
    "changelog_tools.github.adapter",
    "changelog_tools.gitrepo",
    "changelog_tools.signoff.publish",
)


def rule_pure_checks(modules: list[Module]) -> list[str]:
    return [
        f"{_where(m, imp.line)}: a sign-off check imports {imp.target} (checks read facts only)"
        for m in modules
        if _under(m.name, PURE_CHECKS)
        for imp in imports(m)
        if any(_under(imp.target, banned) for banned in CHECKS_MAY_NOT_IMPORT)
    ]


# Git runs only through the adapter's named methods (gitrepo.py), so one module knows git's
# command line. Exempt: the demo, which types a user's terminal session (the git commands a
# person runs are its content), and the fake GitHub, a test double that keeps its own state in
# git. STILL_RAW lists the modules not converted yet, with their count of raw calls: a new raw
# call anywhere fails, and a converted module must leave the list.
RAW_GIT_METHODS = frozenset({"git", "git_ok", "git_status"})
RAW_GIT_EXEMPT = (
    "changelog_tools.gitrepo",
    "changelog_tools.flows.demo",
    "changelog_tools.testing",
)
STILL_RAW: dict[str, int] = {}


def _raw_git_calls(tree: ast.AST) -> Iterator[int]:
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func, args = node.func, node.args
        if (isinstance(func, ast.Attribute) and func.attr in RAW_GIT_METHODS) or (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == "subprocess"
            and args
            and isinstance(args[0], ast.List | ast.Tuple)
            and args[0].elts
            and isinstance(args[0].elts[0], ast.Constant)
            and args[0].elts[0].value == "git"
        ):
            yield node.lineno


def rule_raw_git(modules: list[Module]) -> list[str]:
    found = []
    for m in modules:
        if m.name == "changelog_tools.gitrepo" or any(_under(m.name, e) for e in RAW_GIT_EXEMPT):
            continue
        lines = list(_raw_git_calls(m.tree))
        if lines and len(lines) != STILL_RAW.get(m.name):
            found += [
                f"{_where(m, line)}: runs git itself (add a GitRepo method)" for line in lines
            ]
    return found


# The GitHub adapter is only the adapter: it hands plain records up and imports nothing of the
# domain (the changelog, lint, the reuse decision, sign-offs, flows) but the shared floor.
ADAPTER_MAY_NOT_IMPORT = (
    "changelog_tools.ledger",
    "changelog_tools.lint",
    "changelog_tools.reuse",
    "changelog_tools.signoff",
    "changelog_tools.flows",
)


def rule_adapter_only(modules: list[Module]) -> list[str]:
    return [
        f"{_where(m, imp.line)}: the GitHub adapter imports {imp.target} (domain code)"
        for m in modules
        if _under(m.name, GITHUB_PACKAGE)
        for imp in imports(m)
        if any(_under(imp.target, banned) for banned in ADAPTER_MAY_NOT_IMPORT)
    ]


RULES: dict[str, Callable[[list[Module]], list[str]]] = {
    "click": rule_click,
    "exit": rule_exit,
    "pygithub": rule_pygithub,
    "gitpython": rule_gitpython,
    "ruamel": rule_ruamel,
    "testing": rule_testing,
    "layers": rule_layers,
    "cycles": rule_cycles,
    "pure-checks": rule_pure_checks,
    "raw-git": rule_raw_git,
    "adapter-only": rule_adapter_only,
}


@pytest.mark.parametrize("rule", sorted(RULES))
def test_package_keeps_the_rule(rule: str) -> None:
    assert RULES[rule](load_package()) == []


# One module per rule, written to break it; each must be reported by its rule.
VIOLATIONS = {
    "click": ("changelog_tools/ledger/bad.py", "import click\n"),
    "exit": ("changelog_tools/ledger/bad.py", "import sys\n\ndef f():\n    sys.exit(1)\n"),
    "pygithub": ("changelog_tools/ledger/bad.py", "from github import Github\n"),
    "gitpython": ("changelog_tools/ledger/bad.py", "def f():\n    import git\n"),
    "ruamel": ("changelog_tools/ledger/bad.py", "from ruamel.yaml import YAML\n"),
    "testing": (
        "changelog_tools/flows/other.py",
        "from changelog_tools.testing.fakegithub import FakeGitHub\n",
    ),
    "layers": (
        "changelog_tools/ledger/bad.py",
        "from changelog_tools.reuse import gate as reuse\n",
    ),
    "cycles": ("changelog_tools/ledger/bad.py", "from changelog_tools.ledger import bad2\n"),
    "adapter-only": (
        "changelog_tools/github/bad.py",
        "def f():\n    from changelog_tools.ledger import appendonly\n",
    ),
    "raw-git": (
        "changelog_tools/ledger/bad.py",
        "import subprocess\n\ndef f(repo):\n    repo.git_ok('status')\n"
        "    subprocess.run(['git', 'add', '.'])\n",
    ),
    "pure-checks": (
        "changelog_tools/signoff/checks/bad.py",
        "def f():\n    from changelog_tools.gitrepo import GitRepo\n",
    ),
}


@pytest.mark.parametrize("rule", sorted(VIOLATIONS))
def test_rules_catch_a_violation(rule: str, tmp_path: Path) -> None:
    root = tmp_path / "changelog_tools"
    for sub in ("ledger", "github", "flows", "testing", "signoff", "signoff/checks"):
        (root / sub).mkdir(parents=True)
        (root / sub / "__init__.py").write_text("")
    (root / "__init__.py").write_text("")
    (root / "ledger" / "bad2.py").write_text("from changelog_tools.ledger import bad\n")
    rel, source = VIOLATIONS[rule]
    (tmp_path / rel).write_text(source)
    modules = load_package(root)
    # the clean modules alone pass every rule; the planted one is named by its own
    found = RULES[rule](modules)
    assert found, f"rule {rule} missed its violation"
    if rule != "cycles":
        assert all(Path(rel).name in line or "bad" in line for line in found)


def test_a_lazy_import_is_still_an_import() -> None:
    tree = ast.parse("def f():\n    import git\n")
    found = list(imports(Module("changelog_tools.ledger.x", "x.py", tree)))
    assert [i.target for i in found] == ["git"]


# -- the floor plan names only modules that exist ----------------------------------------------


def test_every_name_in_the_floor_plan_is_a_module_of_the_package() -> None:
    # A stale name matches nothing, so the rules would pass over it in silence while the
    # module it once named has moved to a floor nobody chose for it.
    names = {m.name for m in load_package()}
    listed = [p for floor in LAYERS for p in floor]
    listed += [GITHUB_PACKAGE, CLICK_USERS_PREFIX, *GIT_ADAPTERS, *TESTING_USERS]
    assert [name for name in listed if name not in names] == []


def test_the_modules_still_running_git_themselves_exist_and_do() -> None:
    """STILL_RAW shrinks: a module converted to GitRepo methods (or gone) must leave it."""
    modules = {m.name: m for m in load_package()}
    for name, count in STILL_RAW.items():
        assert name in modules, f"{name} is gone: remove it from STILL_RAW"
        assert len(list(_raw_git_calls(modules[name].tree))) == count, name


def test_the_floor_plan_page_names_every_folder_of_the_package() -> None:
    # docs/architecture.md is the map a newcomer reads first; a folder missing from it is a room
    # nobody is told about (docs/modules.md, generated, lists every module).
    root = Path(__file__).resolve().parent.parent
    page = (root / "docs" / "architecture.md").read_text(encoding="utf-8")
    package = root / "changelog_tools"
    folders = sorted(
        p.parent.relative_to(package).as_posix()
        for p in package.rglob("__init__.py")
        if p.parent != package
    )
    missing = [f for f in folders if f"{f}/" not in page and f"{f.split('/')[-1]}/" not in page]
    assert missing == []
