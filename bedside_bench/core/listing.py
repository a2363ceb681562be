"""The suite's listing in inspect_evals' form (`bedside_bench/eval.yaml`) and the task version
it holds, which every task carries (`Task.version`, recorded in each log as `task_version`).

The version follows inspect_evals' `N-X` scheme: `N`, the comparability version, goes up when
what a score means changes (rubrics or cases, the grading rule, the judge's message or model,
the answer settings), so runs of different `N` are never like for like; `X`, the interface
version, goes up when an existing invocation could stop working (an option renamed, removed or
added). Inspect's `Task.version` is `N`, as inspect_evals sets it. CHANGELOG.md says what each
version means; its latest entry is this version (`tests/test_listing.py`).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from importlib.resources import files
from typing import Any

import yaml

LISTING_FILE = "eval.yaml"
VERSION_PATTERN = re.compile(r"^(?P<comparability>[1-9]\d*)-(?P<interface>[A-Z])$")


class ListingError(ValueError):
    """The shipped listing is unreadable or its version is not `N-X`."""


@dataclass(frozen=True)
class TaskVersion:
    full: str  # "1-A"
    comparability: int  # 1: Inspect's Task.version
    interface: str  # "A"


def read_listing() -> dict[str, Any]:
    """The listing as shipped inside the package (`importlib.resources`, never a source path)."""
    where = f"bedside_bench/{LISTING_FILE}"
    try:
        data = yaml.safe_load(files("bedside_bench").joinpath(LISTING_FILE).read_text("utf-8"))
    except (OSError, yaml.YAMLError) as ex:
        raise ListingError(f"{where}: cannot be read ({type(ex).__name__}: {ex})") from None
    if not isinstance(data, dict):
        raise ListingError(f"{where}: must be a mapping, got {type(data).__name__}")
    return data


def parse_version(value: object, where: str = f"bedside_bench/{LISTING_FILE}") -> TaskVersion:
    if not isinstance(value, str) or (match := VERSION_PATTERN.fullmatch(value)) is None:
        raise ListingError(f'{where}: version must be N-X, like "1-A", got {value!r}')
    return TaskVersion(value, int(match["comparability"]), match["interface"])


@functools.cache
def task_version() -> TaskVersion:
    """The version every task of the suite carries, read once."""
    return parse_version(read_listing().get("version"))
