"""Imports inside functions are the exception: at most 15 in the package, each saying why.

A module imports what it needs at its top, so its dependencies (and any cycle) are visible to
the reader and to import-linter. A function imports only to keep a light command light or to
reach an optional extra, and says so with a `# lazy:` comment on the import or just above it.
A package's own names reach light commands through `core/lazy.py` instead."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "bedside_bench"
MOST = 15


def function_imports(path: Path) -> list[ast.Import | ast.ImportFrom]:
    found: list[ast.Import | ast.ImportFrom] = []

    def walk(node: ast.AST, inside: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom) and inside:
                found.append(child)
            walk(child, inside or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef))

    walk(ast.parse(path.read_text(encoding="utf-8")), False)
    return found


def says_why(lines: list[str], node: ast.Import | ast.ImportFrom) -> bool:
    """`# lazy:` on the import's own lines, or on the comment or import lines just above it."""
    if any("# lazy:" in lines[i - 1] for i in range(node.lineno, (node.end_lineno or 0) + 1)):
        return True
    i = node.lineno - 2
    while i >= 0 and lines[i].strip().startswith(("#", "import ", "from ")):
        if "# lazy:" in lines[i]:
            return True
        i -= 1
    return False


def test_few_function_imports_each_with_its_reason() -> None:
    every = {p: function_imports(p) for p in sorted(PACKAGE.rglob("*.py"))}
    count = sum(len(nodes) for nodes in every.values())
    assert 0 < count <= MOST, count
    unexplained = [
        f"{p.relative_to(PACKAGE)}:{n.lineno}"
        for p, nodes in every.items()
        for n in nodes
        if not says_why(p.read_text(encoding="utf-8").splitlines(), n)
    ]
    assert unexplained == []


def test_the_counter_sees_nested_and_async_functions(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "import os\n"
        "def f():\n"
        "    import json  # lazy: a reason\n"
        "async def g():\n"
        "    def h():\n"
        "        from x import y\n"
        "class C:\n"
        "    import re\n",
        encoding="utf-8",
    )
    nodes = function_imports(source)
    assert [n.lineno for n in nodes] == [3, 6]
    lines = source.read_text(encoding="utf-8").splitlines()
    assert [says_why(lines, n) for n in nodes] == [True, False]


FACADES = ("demo", "logs", "rejudge", "release", "report", "review", "sweep")


@pytest.mark.parametrize("name", FACADES)
def test_a_packages_lazy_names_are_the_names_type_checkers_see(name: str) -> None:
    """Every name a package offers lazily is imported under TYPE_CHECKING from the module its
    `_EXPORTS` names, and resolves to that module's object."""
    package = importlib.import_module(f"bedside_bench.{name}")
    checked: dict[str, str] = {}
    tree = ast.parse(Path(str(package.__file__)).read_text(encoding="utf-8"))
    (typing_only,) = [
        n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING"
    ]
    for node in typing_only.body:
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                assert alias.asname == alias.name  # an explicit re-export
                own = node.module.removeprefix(f"bedside_bench.{name}.")
                checked[alias.name] = own
    assert checked == package._EXPORTS
    assert package.__all__ == sorted(checked)
    for export, module in checked.items():
        path = module if module.startswith("bedside_bench.") else f"bedside_bench.{name}.{module}"
        assert getattr(package, export) is getattr(importlib.import_module(path), export)
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        package.nothing  # noqa: B018
