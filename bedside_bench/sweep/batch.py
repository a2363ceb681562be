"""`--batch`: the value Inspect's own `--batch` takes, checked before any call.

Inspect (0.3.285) reads `--batch` as a bare flag, `true`/`yes`/`1` (its default size, 100),
`false`/`no`/`0` (off), a size, or the path of a YAML or JSON file holding a `BatchConfig`
(`size`, `max_size`, `send_delay`, `tick`, `max_batches`, `max_consecutive_check_failures`).
The sweep reads it the same way and hands the result to every answer model and to the judge
role (a role model does not inherit `batch` from the eval). Stricter than Inspect where
Inspect would go on silently: an unknown key in the file, a size below 1, or a `send_delay`
or `tick` of 0 (Inspect takes 0 as "not given", i.e. 15 s) is refused in one line.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

import yaml
from pydantic import ValidationError

from bedside_bench.core.ranges import BATCH_SIZE, NotAWholeNumber, whole_number
from bedside_bench.core.safe_text import printable
from bedside_bench.core.small_files import SmallFileError, read_small_text

if TYPE_CHECKING:
    from inspect_ai.model import BatchConfig

ON = ("true", "yes", "1")
OFF = ("false", "no", "0")
# a BatchConfig is a few lines; a larger file is not one (and YAML would read all of it)
MAX_CONFIG_BYTES = 64 * 1024
COUNTS = ("size", "max_size", "max_batches", "max_consecutive_check_failures")
SECONDS = ("send_delay", "tick")


class BatchOptionError(ValueError):
    """A `--batch` value that cannot be used; the message is one line naming the problem."""


def parse_batch(text: str | None) -> bool | int | BatchConfig | None:
    """`--batch` given as `text` (None: the bare flag): True (Inspect's default size), None
    (off), a size, or the `BatchConfig` read from a file."""
    if text is None or text.strip().lower() in ON:
        return True
    value = text.strip()
    if value.lower() in OFF:
        return None
    try:
        size = whole_number(value)  # ASCII digits only, as every flag (core/ranges.py)
    except NotAWholeNumber:
        return read_batch_config(Path(value))
    if size < 1:
        raise BatchOptionError(f"batch size {size} is not a positive number")
    problem = BATCH_SIZE.problem(size)
    if problem is not None:
        raise BatchOptionError(f"batch size {problem}")
    return size


def read_batch_config(path: Path) -> BatchConfig:
    """A `BatchConfig` from a YAML or JSON file (JSON is read as YAML, as Inspect does)."""
    from inspect_ai.model import (
        BatchConfig,  # lazy: the sweep parses its command line without Inspect
    )

    shown = printable(str(path), 300)
    try:
        text = read_small_text(path, MAX_CONFIG_BYTES)
    except SmallFileError as ex:  # a FIFO would block the command
        raise BatchOptionError(f"batch config file {shown} {ex}") from None
    try:
        data = yaml.safe_load(text)
    except (yaml.YAMLError, RecursionError) as ex:
        reason = printable(" ".join(str(ex).split()) or type(ex).__name__, 300)
        raise BatchOptionError(f"batch config file {shown} cannot be read: {reason}") from None
    if not isinstance(data, dict):
        raise BatchOptionError(f"batch config file {shown} does not hold a mapping of options")
    unknown = sorted(printable(str(k), 100) for k in data if k not in BatchConfig.model_fields)
    if unknown:
        known = ", ".join(BatchConfig.model_fields)
        raise BatchOptionError(
            f"batch config file {shown}: unknown option(s) {', '.join(unknown)} (known: {known})"
        )
    for name, value in data.items():
        check_value(path, str(name), value)
    try:
        return BatchConfig.model_validate(data)
    except ValidationError as ex:  # pragma: no cover - check_value refuses what this would
        reason = printable(str(ex.errors()[0]["msg"]), 300)
        raise BatchOptionError(f"batch config file {shown}: {reason}") from None


def check_value(path: Path, name: str, value: object) -> None:
    if value is None:
        return
    shown, value_shown = printable(str(path), 300), printable(repr(value), 100)
    if name in COUNTS and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise BatchOptionError(
            f"batch config file {shown}: {name} must be a whole number of at least 1, "
            f"not {value_shown}"
        )
    sized = name in ("size", "max_size") and isinstance(value, int)
    problem = BATCH_SIZE.problem(value) if sized and isinstance(value, int) else None
    if problem is not None:
        raise BatchOptionError(f"batch config file {shown}: {name} {problem}")
    if name in SECONDS and (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value <= 0
    ):
        raise BatchOptionError(
            f"batch config file {shown}: {name} must be a number of seconds above 0, "
            f"not {value_shown}"
        )
