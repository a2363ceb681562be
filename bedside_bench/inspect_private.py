"""Every private `inspect_ai._...` name the package uses, in one place.

Checked against inspect-ai 0.3.285. Inspect has no public API for these; each is used for one
reason, and each has a fallback so that an Inspect release that moves it degrades a feature
rather than breaking a run:

- `init_dotenv`: the sweep checks credentials before Inspect would load `.env`, so it loads it
  first (Inspect loads it again later; loading twice is harmless).
- `PrerequisiteError`: eval_set's refusal of a log directory, turned into one plain line.
- `sample_buffer_dbs`, `cleanup_sample_buffer_db`: a killed run's sample buffer names its
  writer's pid; the sweep reads it to prove the writer dead before removing a crash log.
- `filesystem`: Inspect's fsspec wrapper, so removals work on any store Inspect writes to.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

INSPECT_VERSION_CHECKED = "0.3.285"

__all__ = [
    "INSPECT_VERSION_CHECKED",
    "PrerequisiteError",
    "cleanup_sample_buffer_dbs",
    "filesystem",
    "init_dotenv",
    "sample_buffer_dbs",
]

try:
    from inspect_ai._util.error import PrerequisiteError
except ImportError:  # pragma: no cover - Inspect moved it

    class PrerequisiteError(RuntimeError):  # type: ignore[no-redef]
        """Never raised: stands in so `except PrerequisiteError` still compiles."""


def init_dotenv() -> None:
    """Load `.env` into the environment as Inspect does (no-op if Inspect moved it)."""
    try:
        from inspect_ai._util.dotenv import init_dotenv as inspect_init_dotenv
    except ImportError:  # pragma: no cover
        return
    inspect_init_dotenv()


def sample_buffer_dbs(location: str) -> list[Path]:
    """The local sample-buffer databases of one log (empty if Inspect moved the API)."""
    try:
        from inspect_ai.log._recorders.buffer.database import sample_buffer_dbs as dbs
    except ImportError:  # pragma: no cover
        return []
    return list(dbs(location))


def cleanup_sample_buffer_dbs(dbs: Iterable[Path]) -> None:
    from inspect_ai.log._recorders.buffer.database import cleanup_sample_buffer_db

    for db in dbs:
        cleanup_sample_buffer_db(db)


def filesystem(location: str) -> Any:
    """Inspect's filesystem for a path or URL (local, s3://, ...)."""
    from inspect_ai._util.file import filesystem as inspect_filesystem

    return inspect_filesystem(location)
