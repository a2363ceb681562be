"""Dependencies only one command needs are extras of the distribution (`pyproject.toml`), so a
plain install stays small: `export` (`datasets`, for `bedside-bench data export`), `s3`
(`botocore`, for the sweep's lock on an `s3://` log directory) and `report` (`matplotlib`, the
forest plot). A command that needs a missing one stops at once with one line naming the extra.
"""

from __future__ import annotations

import importlib


class MissingExtra(RuntimeError):
    """A module of an extra that is not installed; the message is the one line to print."""


def require(module: str, extra: str, needed_by: str) -> None:
    """Import `module` (the command needs it next), or raise `MissingExtra` naming `extra`.

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
