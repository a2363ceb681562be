"""Reading a small input file a user names (a prices file, a cost config, a batch config)
before anything is bought: only a regular file is opened, so a FIFO or a device never blocks the
command, and only up to a bound, so a file the size of a disk is not read into memory."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from bedside_bench.core.safe_text import printable

# a prices or config file is a few kB; a thousand models would not reach this
SMALL_FILE_BYTES = 1024 * 1024


class SmallFileError(ValueError):
    """Why the file cannot be read, in words that follow its name."""


def read_small_text(path: Path, limit: int = SMALL_FILE_BYTES) -> str:
    """The file's text (UTF-8), or a `SmallFileError` saying why not: missing, not a regular
    file, larger than `limit` bytes, or not UTF-8."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise SmallFileError("does not exist") from None
    except OSError as ex:
        raise SmallFileError(f"cannot be read ({ex.strerror or type(ex).__name__})") from None
    if not stat.S_ISREG(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "a FIFO, a socket or a device"
        raise SmallFileError(f"is {kind}, not a file")
    try:
        with open(path, "rb") as stream:
            data = stream.read(limit + 1)
    except OSError as ex:
        raise SmallFileError(f"cannot be read ({ex.strerror or type(ex).__name__})") from None
    if len(data) > limit:
        raise SmallFileError(f"is larger than {limit:,} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise SmallFileError("is not UTF-8 text") from None


class RepeatedKeyError(ValueError):
    """A JSON object of a file a user gives names one key twice."""


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """`json.loads`' object_pairs_hook for a file a user gives (labels, prices): a key given
    twice would leave one value to chance (JSON's last wins); refused, naming the key."""
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise RepeatedKeyError(
                    f"the key '{printable(key, 100)}' is given twice in one JSON object"
                )
            seen.add(key)
    return value
