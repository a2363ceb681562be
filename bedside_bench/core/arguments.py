"""Argument types and subcommand registration shared by the `bedside-bench` subcommands."""

from __future__ import annotations

import argparse
import difflib
import os
from collections.abc import Callable, Sequence
from typing import Any

from bedside_bench.core.ranges import ANY_COUNT_MOST, Range, ranged

Subcommands = Any  # argparse's _SubParsersAction is private


class SuggestingParser(argparse.ArgumentParser):
    """A parser that refuses a flag it does not know itself, with its own usage line and the
    closest flag it has (`bedside-bench sweep --modle` names `--model`). A plain subcommand
    parser hands an unknown flag up to `bedside-bench`, whose error shows the top-level usage
    and no suggestion. Its subcommands' parsers are of this class too (argparse makes them of
    the class of the parser that holds them)."""

    def parse_known_args(  # type: ignore[override]  # argparse's overloads, one form used
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        if self._is_subcommand and extras:
            self.error(self.unrecognized(extras))
        return parsed, extras

    @property
    def _is_subcommand(self) -> bool:
        return " " in self.prog  # `bedside-bench sweep`, `bedside-bench data path`

    def unrecognized(self, extras: Sequence[str]) -> str:
        """argparse's own words, with the closest flag of this parser for each unknown one."""
        flags = [f for f in self._option_string_actions if f.startswith("--")]
        hints = []
        for extra in extras:
            flag = extra.split("=", 1)[0]
            if flag.startswith("-") and (near := difflib.get_close_matches(flag, flags, n=1)):
                hints.append(f"{flag}: did you mean {near[0]}?")
        said = f"unrecognized arguments: {' '.join(extras)}"
        return f"{said} ({'; '.join(hints)})" if hints else said


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
