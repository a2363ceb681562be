"""Every private Inspect name the package uses resolves in the installed Inspect, and only
`bedside_bench/inspect_private.py` imports one (an Inspect upgrade that moves a name fails
here, by name, rather than somewhere in a run)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import inspect_ai
import pytest

import bedside_bench
from bedside_bench import inspect_private

PACKAGE = Path(bedside_bench.__file__).parent
PRIVATE_MODULE = PACKAGE / "inspect_private.py"


def private_imports(source: str) -> set[str]:
    """Every `module:name` (or `module` for `import module`) imported from a private part of
    inspect_ai in `source`."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            parts = node.module.split(".")
            if parts[0] == "inspect_ai" and any(p.startswith("_") for p in parts[1:]):
                found.update(f"{node.module}:{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "inspect_ai" and any(p.startswith("_") for p in parts[1:]):
                    found.add(alias.name)
    return found


@pytest.mark.parametrize("name", inspect_private.__all__)
def test_every_exported_name_resolves(name: str) -> None:
    assert getattr(inspect_private, name) is not None


@pytest.mark.parametrize("origin", inspect_private.PRIVATE_ORIGINS)
def test_every_private_origin_is_in_the_installed_inspect(origin: str) -> None:
    module, name = origin.split(":")
    try:
        getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as ex:
        pytest.fail(
            f"inspect-ai {inspect_ai.__version__} has no {origin} "
            f"(checked against {inspect_private.INSPECT_VERSION_CHECKED}): {ex}"
        )


def test_the_origins_are_exactly_what_the_module_imports() -> None:
    imported = private_imports(PRIVATE_MODULE.read_text(encoding="utf-8"))
    # `from m import a as b` is recorded under a's name; nothing listed is unused
    assert imported == set(inspect_private.PRIVATE_ORIGINS)


def test_re_exports_are_inspects_own_objects_not_the_stand_ins() -> None:
    from inspect_ai._util.error import PrerequisiteError
    from inspect_ai.model._cache import CacheEntry, cache_fetch, cache_store
    from inspect_ai.model._generate_config import active_generate_config

    assert inspect_private.PrerequisiteError is PrerequisiteError
    assert inspect_private.CacheEntry is CacheEntry
    assert inspect_private.cache_fetch is cache_fetch
    assert inspect_private.cache_store is cache_store
    assert inspect_private.active_generate_config is active_generate_config


def test_no_other_module_imports_a_private_inspect_name() -> None:
    offenders = {
        str(path.relative_to(PACKAGE)): sorted(found)
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != PRIVATE_MODULE
        if (found := private_imports(path.read_text(encoding="utf-8")))
    }
    assert offenders == {}


def test_the_scan_sees_every_form_of_private_import() -> None:
    source = (
        "import inspect_ai._util.file\n"
        "from inspect_ai.model._cache import CacheEntry as E\n"
        "def f():\n"
        "    from inspect_ai.util._display import init_display_type\n"
        "from inspect_ai.model import get_model\n"
        "from inspect_ai import score_async\n"
        "from ._private import x\n"
    )
    assert private_imports(source) == {
        "inspect_ai._util.file",
        "inspect_ai.model._cache:CacheEntry",
        "inspect_ai.util._display:init_display_type",
    }
