"""A warning the user must see, whatever Inspect's display.

Inspect shows a logger's warnings on its console, and under `--display none` (which a piped
sweep or demo uses too) nowhere: its handler writes to a console that is quiet then. A warning
that changes what the user should do or believe (a release not recognised, reused answers
invalidated, a stop waiting for calls, a retry that will buy calls again) is then also said on
stderr here, unless a handler says it already: Python's last-resort handler where no handler
is set at all (a command of ours before Inspect starts), Inspect's own in its plain or JSON
format (`INSPECT_PY_LOGGER_FORMAT`), which writes to stderr whatever the display, or a stream
handler of the user's (`logging.basicConfig()` before `inspect_ai.eval(display="none")`). A
level the user set above the warning's (`--log-level error`) silences it here as on the
console.

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


def _writes_to_a_terminal_stream(handler: logging.Handler, level: int) -> bool:
    """Whether `handler` shows a record of `level` on stdout or stderr whatever the display.

    Inspect's handler (told by what it holds: this module imports no Inspect) writes there
    itself in its plain and JSON formats, and through its quiet rich console in the default
    one; any other stream handler on stdout or stderr shows it."""
    if level < handler.level:
        return False
    logger_format = getattr(handler, "logger_format", None)
    display_level = getattr(handler, "display_level", None)
    if isinstance(logger_format, str) and isinstance(display_level, int):
        return logger_format != "rich" and logging.NOTSET != display_level <= level
    stream = getattr(handler, "stream", None)
    return isinstance(handler, logging.StreamHandler) and stream in (sys.stderr, sys.stdout)


def _said_by_a_handler(logger: logging.Logger, level: int) -> bool:
    """Whether the handlers a record of `logger` reaches show it (the last resort when there
    are none), as `logging.Logger.callHandlers` finds them."""
    current: logging.Logger | None = logger
    found = False
    while current is not None:
        for handler in current.handlers:
            found = True
            if _writes_to_a_terminal_stream(handler, level):
                return True
        if not current.propagate:
            break
        current = current.parent
    return not found


def warn_visibly(logger: logging.Logger, message: str, level: int = logging.WARNING) -> None:
    """Log `message` (into the eval log and onto Inspect's console) and, when that console is
    quiet and no other handler shows it, print it to stderr."""
    logger.log(level, message, stacklevel=2)  # the record names the caller, not this module
    if not logger.isEnabledFor(level) or not _display_is_quiet():
        return
    if not _said_by_a_handler(logger, level):
        print(printable_lines(message), file=sys.stderr, flush=True)
