"""Every private Inspect name the package uses resolves in the installed Inspect, and only
`bedside_bench/core/inspect_private.py` imports one (an Inspect upgrade that moves a name fails
here, by name, rather than somewhere in a run)."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import inspect_ai
import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

import bedside_bench
from bedside_bench.core import inspect_private

PACKAGE = Path(bedside_bench.__file__).parent
PRIVATE_MODULE = PACKAGE / "core" / "inspect_private.py"
PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


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


# --------------------------------------------------------------------------------------------
# the dependency bound and the version checked move together


def inspect_requirement() -> Requirement:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    found = [
        Requirement(line)
        for line in project["dependencies"]
        if canonicalize_name(Requirement(line).name) == "inspect-ai"
    ]
    assert len(found) == 1, project["dependencies"]
    return found[0]


def next_patch(version: str) -> str:
    release = Version(version).release
    return ".".join(map(str, (*release[:-1], release[-1] + 1)))


def test_the_inspect_bound_allows_exactly_the_version_checked() -> None:
    """Private names can move in any Inspect release, a patch release included, so the bound
    is `>=CHECKED,<CHECKED+1 patch`: raising it without checking the private names (and so
    without moving `INSPECT_VERSION_CHECKED`) fails here."""
    checked = inspect_private.INSPECT_VERSION_CHECKED
    requirement = inspect_requirement()
    assert sorted(str(s) for s in requirement.specifier) == sorted(
        [f">={checked}", f"<{next_patch(checked)}"]
    )


def test_the_installed_inspect_is_the_one_checked() -> None:
    requirement = inspect_requirement()
    installed = inspect_ai.__version__
    assert requirement.specifier.contains(installed, prereleases=True), (
        f"inspect-ai {installed} is installed, pyproject.toml allows {requirement.specifier}"
    )


def test_every_note_of_the_version_checked_names_the_same_one() -> None:
    """The module's docstring and the dev extras' boto3/s3fs pins (which follow Inspect's own)
    name the version checked; a bound moved without them fails here."""
    checked = inspect_private.INSPECT_VERSION_CHECKED
    docstring = re.search(r"Checked against inspect-ai (\S+?)\.?\s", inspect_private.__doc__ or "")
    assert docstring is not None and docstring.group(1) == checked
    pins = re.findall(r"inspect-ai (\S+?)'s own pins", PYPROJECT.read_text(encoding="utf-8"))
    assert pins == [checked]


def test_next_patch() -> None:
    assert next_patch("0.3.285") == "0.3.286"
    assert next_patch("1.0.9") == "1.0.10"
