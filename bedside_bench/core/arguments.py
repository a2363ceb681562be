"""Argument types and subcommand registration shared by the `bedside-bench` subcommands."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import Any

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


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be non-negative, got {value}")
    return value


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
