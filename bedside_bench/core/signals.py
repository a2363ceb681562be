"""SIGINT and SIGTERM stop a long command (`sweep`, `rejudge`) the way Ctrl-C does: the work is
cancelled, what finished is written, and the command exits `128 + signal` with one line.

Why this is needed beyond Python's defaults:

- SIGTERM (`kill`, `timeout`, a CI job cancelled, `docker stop`) would end the process at once,
  losing what finished since the last write and leaving temporary files behind. Here it goes
  through the running event loop's SIGINT handling instead (asyncio's runner cancels the main
  task; Inspect then writes its logs as cancelled).
- A command started as a background job of a shell script (`cmd &` without job control)
  inherits SIGINT *ignored*, and Python keeps it so: asyncio's runner then installs no SIGINT
  handler. Inspect's control server (uvicorn) still captures SIGINT while it serves, shuts
  itself down on it, then restores "ignored" and raises the signal again into that: the
  signal is swallowed and the command goes on waiting for requests that may never come (the
  sweep that did not stop within 120 s of SIGINT). An ignored SIGINT is therefore replaced
  by Python's default handler for the duration of the command.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType


@contextlib.contextmanager
def stopping_on_signals() -> Iterator[list[int]]:
    """SIGINT and SIGTERM raise `KeyboardInterrupt` out of the block after a graceful
    cancellation. Yields the signals received as SIGTERM (SIGINT goes to the event loop's own
    handler, unseen here), newest last; empty means SIGINT."""
    received: list[int] = []

    def on_term(signum: int, frame: FrameType | None) -> None:
        received.append(signum)
        handler = signal.getsignal(signal.SIGINT)  # the running loop's, while one runs
        if not callable(handler):
            raise KeyboardInterrupt
        handler(signal.SIGINT, frame)

    if threading.current_thread() is not threading.main_thread():
        yield received
        return
    previous_int = signal.getsignal(signal.SIGINT)
    if previous_int is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    previous_term = signal.signal(signal.SIGTERM, on_term)
    try:
        yield received
    finally:
        signal.signal(signal.SIGTERM, previous_term)
        if previous_int is signal.SIG_IGN:
            signal.signal(signal.SIGINT, signal.SIG_IGN)


def stopped_by(received: list[int]) -> signal.Signals:
    """The signal that stopped the command (see `stopping_on_signals`)."""
    return signal.Signals(received[-1]) if received else signal.SIGINT


def stop_note(received: list[int]) -> str:
    """ "" for Ctrl-C, " (SIGTERM)" otherwise: what the one line says after "interrupted"."""
    signum = stopped_by(received)
    return "" if signum == signal.SIGINT else f" ({signum.name})"


def stop_exit_code(received: list[int]) -> int:
    """128 + the signal, as a shell reports a process the signal ended (130 for Ctrl-C)."""
    return 128 + stopped_by(received)
