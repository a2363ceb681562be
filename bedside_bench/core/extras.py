"""Dependencies only one command needs are extras of the distribution (`pyproject.toml`), so a
plain install stays small: `export` (`datasets`, for `bedside-bench data export`), `analysis`
(pandas and pyarrow, for `bedside_bench.analysis`), `s3`
(`botocore`, for the sweep's lock on an `s3://` log directory) and `report` (`matplotlib`, the
forest plot). A command that needs a missing one stops at once with one line naming the extra.
"""

from __future__ import annotations

import importlib
import itertools
from importlib import metadata


class MissingExtra(RuntimeError):
    """A module of an extra that is not installed; the message is the one line to print."""


def require(module: str, extra: str, needed_by: str, minimum: str | None = None) -> None:
    """Import `module` (the command needs it next), or raise `MissingExtra` naming `extra`:
    when it is not installed, or older than `minimum` (the extra's own lower bound). Inspect
    itself installs botocore, in whatever version, so for the `s3` extra the version is what
    can be missing.

    Only the module itself missing is the extra's absence; an installed module that fails
    on an import of its own raises that error unchanged."""
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as ex:
        if ex.name is not None and ex.name != module:
            raise
        raise MissingExtra(
            f"{needed_by} needs {module}, which is not installed: "
            f"pip install 'bedside-bench[{extra}]'"
        ) from None
    if minimum is None:
        return
    try:
        installed = metadata.version(module)
    except metadata.PackageNotFoundError:  # importable without metadata: nothing to compare
        return
    if _release(installed) < _release(minimum):
        raise MissingExtra(
            f"{needed_by} needs {module} {minimum} or later, {installed} is installed: "
            f"pip install 'bedside-bench[{extra}]'"
        )


def _release(version: str) -> tuple[int, ...]:
    """The leading numbers of a version ("1.35.2rc1" -> (1, 35, 2)), enough to compare it
    with an extra's lower bound."""
    numbers = []
    for part in version.split("."):
        digits = "".join(itertools.takewhile("0123456789".__contains__, part))
        if not digits:
            break
        numbers.append(int(digits))
        if digits != part:
            break
    return tuple(numbers)
