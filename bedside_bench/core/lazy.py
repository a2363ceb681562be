"""A package's public names imported on first use (PEP 562).

A command parses its command line, prints its help and refuses a mistyped flag without
importing Inspect (seconds): its module imports its package's names at the top, as any module
does, and the package imports the module that holds a name only when the name is first used.
Each package lists its names once, beside their types for type checkers (`TYPE_CHECKING`), so
this is the one place the laziness lives; `tests/test_cli.py` checks the light commands.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], object]:
    """The package's `__getattr__`: `exports` maps a name to the module that holds it, given
    relative to the package (`"run"`) or in full (`"bedside_bench.release.case"`)."""

    def attribute(name: str) -> object:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        path = module if module.startswith("bedside_bench.") else f"{package}.{module}"
        return getattr(importlib.import_module(path), name)

    return attribute
