"""Every number a user can give, with its range: the one place that states them (docs/inputs.md
lists them), read by the task options (`-T`, `-S`, `rejudge`), every command's flags and the
sweep's estimate.

Why ceilings at all: a number is a purchase. `-T judge_passes=1_000` is 1,001 paid calls per
case, `judge_passes=1000000000` runs out of memory after the answer was bought, and a retry
count or an attempt timeout without a bound re-buys a call until someone notices. Each ceiling
is well above what a benchmark run needs, and says why it is where it is.

Whole numbers are written in the ASCII digits 0-9 everywhere. Python's `int()` also reads
full-width digits (`１０`) and underscores (`1_000`), while Inspect's `-T` (YAML) reads `１０` as
text: the same characters would be a number for one flag and a string for another, so a flag
takes ASCII digits only, as a `-T` option does. No Inspect import: the command lines use this
before they import anything heavy.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from dataclasses import dataclass

from bedside_bench.core.safe_text import printable


@dataclass(frozen=True)
class Range:
    """The least and the most a whole number may be, and why the most is where it is."""

    least: int
    most: int
    why: str = ""

    def problem(self, value: int) -> str | None:
        """Why `value` is out of range ("must be at most 15 (...)"), or None."""
        if value < self.least:
            return f"must be at least {self.least}, got {value}"
        if value > self.most:
            why = f" ({self.why})" if self.why else ""
            return f"must be at most {self.most:,}{why}, got {value:,}"
        return None


# the judge's options (-T, -S, rejudge): the pydantic fields of `core/options.py` carry these
JUDGE_PASSES = Range(
    1, 15, "the report's interval over judge passes is computed for up to 15; each is a paid call"
)
JUDGE_RETRIES = Range(0, 10, "each is a paid call; a judge invalid 11 times in a row is broken")

# the sweep's flags
MAX_CONNECTIONS = Range(1, 10_000, "no provider serves one key more at once")
RETRY_ATTEMPTS = Range(0, 10, "each re-runs every failed case of a task at full price")
RETRY_ON_ERROR = Range(0, 10, "each re-runs a failed case at full price")
MAX_RETRIES = Range(0, 100, "each retry of a call may be paid")
TIMEOUT = Range(1, 7 * 24 * 3600, "one week")
ATTEMPT_TIMEOUT = Range(1, 24 * 3600, "one day")
# with --attempt-timeout and neither --max-retries nor --timeout, a call is retried at most
# this many times (so at most 6 attempts are abandoned): an attempt abandoned at the timeout
# may still be paid for, and without a bound a timeout below the provider's latency re-buys
# the same call until someone notices. With --timeout, the attempts are bounded by
# timeout / attempt timeout; with --max-retries, by that.
ABANDONED_ATTEMPTS_RETRIES = 5
BATCH_SIZE = Range(1, 50_000, "the largest batch a provider accepts")

# the statistics (report, review score)
RESAMPLES = Range(1, 100_000, "the protocol uses 10000")
SEED = Range(0, 2**32 - 1, "numpy's seeds")
# any other whole number a flag takes (core/arguments.py's positive_int, non_negative_int)
ANY_COUNT_MOST = 1_000_000_000
# counts of things to show or pick (review export, demo cases, rejudge checkpoints)
COUNT = Range(1, 1_000_000, "more than any release holds")

# the estimate refuses a plan past either ceiling (exit 1, nothing kept): no benchmark sweep
# needs more, and such a figure comes from a mistake (a price per token given per million, a
# stray zero in -T epochs or judge_passes) that the sweep would otherwise go on to pay for
MAX_PLANNED_CALLS = 10_000_000
MAX_ESTIMATED_USD = 100_000.0

_WHOLE = re.compile(r"[+-]?[0-9]+")
# longer than any number in range: refused before int() reads it (int() of 5,000 digits raises)
_MAX_DIGITS = 30


class NotAWholeNumber(ValueError):
    """Text that is not a whole number in ASCII digits; the message shows it safely."""


def whole_number(text: str) -> int:
    """`text` as a whole number written with the ASCII digits 0-9 (an optional sign and
    surrounding spaces allowed): no full-width digits, no underscores, no exponent."""
    stripped = text.strip()
    if len(stripped) > _MAX_DIGITS or not _WHOLE.fullmatch(stripped):
        raise NotAWholeNumber(
            f"{printable(text, 40)!r} is not a whole number written with the digits 0-9"
        )
    return int(stripped)


def ranged(bounds: Range) -> Callable[[str], int]:
    """An argparse type: a whole number within `bounds`, else one usage line naming why."""

    def parse(text: str) -> int:
        try:
            value = whole_number(text)
        except NotAWholeNumber as ex:
            raise argparse.ArgumentTypeError(str(ex)) from None
        problem = bounds.problem(value)
        if problem is not None:
            raise argparse.ArgumentTypeError(problem)
        return value

    parse.__name__ = "whole number"  # argparse names the type in some of its messages
    return parse
