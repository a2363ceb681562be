"""A warning the user must see, whatever Inspect's display.

Inspect shows a logger's warnings on its console, and under `--display none` (which a piped
sweep or demo uses too) nowhere: its handler writes to a console that is quiet then. A warning
that changes what the user should do or believe (a release not recognised, reused answers
invalidated, a stop waiting for calls, a retry that will buy calls again) is then also said on
stderr here. Where no handler is set at all (a command of ours before Inspect starts), Python's
last-resort handler prints it already, so it is not said twice.

Imports no Inspect: the signal handling of commands that parse their line without Inspect
uses it. Inspect's display is asked only once Inspect is imported (before, there is none).
"""

from __future__ import annotations

import logging
import sys

from bedside_bench.core.safe_text import printable_lines


def _display_is_quiet() -> bool:
    util = sys.modules.get("inspect_ai.util")
    return util is not None and util.display_type() == "none"


def warn_visibly(logger: logging.Logger, message: str, level: int = logging.WARNING) -> None:
    """Log `message` (into the eval log and onto Inspect's console) and, when that console is
    quiet, print it to stderr."""
    logger.log(level, message)
    if _display_is_quiet() and logger.hasHandlers():
        print(printable_lines(message), file=sys.stderr, flush=True)
