"""Argument types and subcommand registration shared by the `bedside-bench` subcommands."""

from __future__ import annotations

import argparse
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
