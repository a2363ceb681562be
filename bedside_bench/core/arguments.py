"""Argument types and subcommand registration shared by the `bedside-bench` subcommands."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import Any

from bedside_bench.core.ranges import ANY_COUNT_MOST, Range, ranged

Subcommands = Any  # argparse's _SubParsersAction is private


def add_command(
    subcommands: Subcommands,
    name: str,
    help: str,
    configure: Callable[[argparse.ArgumentParser], None],
    handler: Callable[[argparse.Namespace], int],
    description: str | None = None,
) -> None:
    """One subcommand: its parser (described by `configure`'s docstring unless a description
    is given), its options and its handler."""
    parser = subcommands.add_parser(name, help=help, description=description or configure.__doc__)
    configure(parser)
    parser.set_defaults(handler=handler)


# a flag with no range of its own in core/ranges.py: a whole number in ASCII digits up to this
positive_int = ranged(Range(1, ANY_COUNT_MOST, "no count of this package needs more"))
non_negative_int = ranged(Range(0, ANY_COUNT_MOST, "no count of this package needs more"))


# --------------------------------------------------------------------------------------------
# Inspect's environment conventions: a flag wins, then the variable, then our default

LOG_DIR_ENV = "INSPECT_LOG_DIR"
MODEL_ENV = "INSPECT_EVAL_MODEL"


def inspect_log_dir(default: str = "./logs") -> str:
    """The log directory when no flag names one: `$INSPECT_LOG_DIR`, as `inspect eval` and
    `inspect view` read it, else `default`."""
    return os.environ.get(LOG_DIR_ENV) or default


def inspect_eval_models() -> list[str]:
    """The models `$INSPECT_EVAL_MODEL` names (a comma list, as Inspect reads it), or none."""
    return [m.strip() for m in os.environ.get(MODEL_ENV, "").split(",") if m.strip()]
