"""Why a sweep is incomplete: the distinct errors its failed cases ended with, counted.

"Run the same command again" only helps when the cause has passed (a rate limit, an outage,
an invalid judge reply); printing the errors lets the user see whether it has (a model that
cannot be reached, a download the machine cannot make, a judge that never replies validly).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from inspect_ai.log import read_eval_log_sample_summaries

from bedside_bench.calls.credentials import redact
from bedside_bench.core.safe_text import printable

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog

MAX_SHOWN = 3
MAX_CHARS = 240


def _first_line(error: str) -> str:
    """An error's first line as the terminal may show it: a model's or a provider's text can
    hold terminal escapes, invisible characters and lone surrogates (`safe_text.printable`)."""
    line = " ".join(error.strip().splitlines()[0].split()) if error.strip() else "unknown error"
    line = printable(line, MAX_CHARS)
    return redact(line if len(line) <= MAX_CHARS else line[: MAX_CHARS - 3] + "...")


def failed_case_errors(logs: Sequence[EvalLog]) -> Counter[str]:
    """The first line of each failed case's error in `logs` (their sample summaries), counted;
    a log that ended in an error of its own counts under that error."""

    errors: Counter[str] = Counter()
    for log in logs:
        if log.status == "success":
            continue
        try:
            summaries = read_eval_log_sample_summaries(log.location)
        except Exception:  # unreadable: the log's own error still says something
            summaries = []
        found = [_first_line(s.error) for s in summaries if s.error]
        if not found and log.error is not None:
            found = [_first_line(log.error.message)]
        errors.update(found)
    return errors


def describe(errors: Counter[str]) -> list[str]:
    """One line per distinct error (most frequent first), at most `MAX_SHOWN` of them."""
    lines = [f"{n} case(s): {error}" for error, n in errors.most_common(MAX_SHOWN)]
    if len(errors) > MAX_SHOWN:
        lines.append(f"and {len(errors) - MAX_SHOWN} other error(s): see `inspect view`")
    return lines
