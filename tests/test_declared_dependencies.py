"""Every third-party module the package imports is a declared dependency of its distribution
(pyproject.toml): a module that only arrives through another package's dependencies leaves
with that package's next release."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "bedside_bench"
# imported only where its extra is installed (bedside_bench/core/extras.py): the forest plot, the
# Parquet export, the S3 lock, the analysis frames
OPTIONAL = {
    "matplotlib": "report",
    "datasets": "export",
    "botocore": "s3",
    "pandas": "analysis",
    "pyarrow": "analysis",
}


def imported_top_level_modules() -> set[str]:
    """Top-level names of every `import x` / `from x import y` in the package (any depth,
    TYPE_CHECKING blocks included), without relative imports."""
    names: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names


def requirement_name(requirement: str) -> str:
    match = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert match, requirement
    return match.group(0).lower().replace("_", "-")


def test_every_imported_distribution_is_declared() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = {requirement_name(r) for r in project["dependencies"]}
    extras = {
        extra: {requirement_name(r) for r in requirements}
        for extra, requirements in project["optional-dependencies"].items()
    }
    distributions = importlib.metadata.packages_distributions()
    third_party = sorted(
        m
        for m in imported_top_level_modules()
        if m not in sys.stdlib_module_names and m != "bedside_bench"
    )
    assert "inspect_ai" in third_party and "botocore" in third_party  # the scan sees imports
    undeclared = []
    for module in third_party:
        names = {d.lower().replace("_", "-") for d in distributions.get(module, [module])}
        wanted = extras[OPTIONAL[module]] if module in OPTIONAL else declared
        if not names & wanted:
            undeclared.append(f"{module} (distribution {', '.join(sorted(names))})")
    assert undeclared == [], f"imported but not declared in pyproject.toml: {undeclared}"


def test_one_command_dependencies_are_extras_and_dev_installs_every_extra() -> None:
    """`datasets` (the export) and `botocore` (the S3 lock) are not installed with the
    package; the dev install has every extra, so the whole suite runs."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    declared = {requirement_name(r) for r in project["dependencies"]}
    assert declared.isdisjoint({"datasets", "botocore", "matplotlib", "pandas", "pyarrow"})
    assert {name: [requirement_name(r) for r in extras[name]] for name in OPTIONAL.values()} == {
        "report": ["matplotlib"],
        "export": ["datasets"],
        "s3": ["botocore"],
        "analysis": ["pandas", "pyarrow"],
    }
    own = [r for r in extras["dev"] if requirement_name(r) == "bedside-bench"]
    assert own == ["bedside-bench[report,export,s3,analysis]"]
    assert set(extras) == {"dev", *OPTIONAL.values()}
