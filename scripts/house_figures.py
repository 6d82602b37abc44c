"""Print the house's size figures: package lines, modules over 600 lines, functions over 80
lines (those without a docstring saying why listed apart), and raw git calls outside the git
adapter (`.git(`, `.git_ok(`, `.git_status(` and `subprocess` running git).

    python scripts/house_figures.py [PACKAGE_DIR]

Read from the source with `ast`; nothing is imported or run.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODULE_LIMIT = 600
FUNCTION_LIMIT = 80
GIT_ADAPTER = ("gitrepo", "gitrepo.py")  # the package, or the module it once was
RAW_GIT = ("git", "git_ok", "git_status")


def _functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def _raw_git_calls(tree: ast.AST) -> list[int]:
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if (isinstance(func, ast.Attribute) and func.attr in RAW_GIT) or (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == "subprocess"
            and node.args
            and isinstance(node.args[0], ast.List | ast.Tuple)
            and node.args[0].elts
            and isinstance(node.args[0].elts[0], ast.Constant)
            and node.args[0].elts[0].value == "git"
        ):
            lines.append(node.lineno)
    return lines


def main(argv: list[str]) -> int:
    package = Path(argv[1]) if len(argv) > 1 else ROOT / "changelog_tools"
    total = 0
    big_modules: list[tuple[int, str]] = []
    long_functions: list[tuple[int, str, bool]] = []
    raw: list[str] = []
    for path in sorted(package.rglob("*.py")):
        if "examples" in path.relative_to(package).parts:
            continue
        text = path.read_text(encoding="utf-8")
        count = len(text.splitlines())
        total += count
        rel = path.relative_to(package.parent).as_posix()
        if count > MODULE_LIMIT:
            big_modules.append((count, rel))
        tree = ast.parse(text)
        for fn in _functions(tree):
            length = (fn.end_lineno or fn.lineno) - fn.lineno + 1
            if length > FUNCTION_LIMIT:
                long_functions.append(
                    (length, f"{rel}:{fn.lineno} {fn.name}", bool(ast.get_docstring(fn)))
                )
        if path.relative_to(package).parts[0] not in GIT_ADAPTER:
            raw += [f"{rel}:{line}" for line in _raw_git_calls(tree)]
    print(f"package lines: {total}")
    print(f"modules over {MODULE_LIMIT} lines: {len(big_modules)}")
    for count, rel in sorted(big_modules, reverse=True):
        print(f"  {count:5d} {rel}")
    print(
        f"functions over {FUNCTION_LIMIT} lines: {len(long_functions)}"
        f" ({sum(1 for *_, doc in long_functions if not doc)} without a docstring)"
    )
    for length, where, doc in sorted(long_functions, reverse=True):
        print(f"  {length:5d} {where}{'' if doc else '  (no docstring)'}")
    print(f"raw git calls outside {GIT_ADAPTER[0]}/: {len(raw)}")
    for where in raw:
        print(f"  {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
