"""SIGINT and SIGTERM stop a long command (`sweep`, `rejudge`, `demo`) the way Ctrl-C does, and
the first one lets the paid calls already sent come back first: the work is cancelled, what
finished is written, and the command exits `128 + signal` with one line.

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
- The loop's own SIGINT handling cancels every call at once, and a reply the provider is
  already writing is billed whether or not the client reads it: 60 of 500 judge calls of a
  two-model sweep were bought twice after a Ctrl-C. So while an event loop of the command runs
  (`arm`, from inside it), the first signal starts a *drain* instead: no new paid call starts
  (`stopping`, checked by the calls layer before a call is sent), the calls already sent
  (`call_sent` / `call_ended`) are given `grace` seconds to come back and be kept for the rerun
  (docs/cache.md), and only then is the loop's own handler called, which cancels the run as
  before. The grace is 30 s by default (what a scheduler usually allows between SIGTERM and
  SIGKILL) and never longer than the attempt timeout, past which a call ends by itself. A
  second signal calls the loop's handler at once (a third raises `KeyboardInterrupt`
  wherever the code is, as asyncio does).

The loop's handler is the one asyncio's runner installs when its loop starts (or trio's, under
Inspect's `run_main`); `arm` takes it over and `disarm` gives it back before the loop ends, so
the runner restores its own predecessor and the next loop of the same command installs a fresh
one. Inspect's control server saves whatever handler is installed when it starts and raises a
signal it captured again into it, so a signal that lands while it serves reaches this module
a few milliseconds later.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import signal
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import FrameType

import anyio

from bedside_bench.core.console import warn_visibly

logger = logging.getLogger(__name__)

DEFAULT_GRACE = 30.0  # seconds the calls in flight at a first signal get to come back
GRACE_ENV = "BEDSIDE_BENCH_STOP_GRACE"  # the grace where no command line sets it

Handler = Callable[[int, FrameType | None], object]


@dataclass
class _Stop:
    """What one command's signal handling knows."""

    grace: float
    received: list[int]  # every signal handled here, in order
    loop: asyncio.AbstractEventLoop | None = None  # the armed loop
    loop_handler: Handler | None = None  # its own SIGINT handler: cancels its main task
    in_flight: int = 0  # paid calls sent and not yet back
    draining: bool = False  # a first signal came: no new call starts
    cancelled: bool = False  # the loop's handler was called for this drain
    timer: asyncio.TimerHandle | None = None
    # armed by an eval of our tasks outside a command of ours (`inspect eval`, `eval()`): the
    # handlers are this run's only, given back at its end
    standalone: bool = False
    previous_term: Handler | int | None = None


_stop: _Stop | None = None


def _on_signal(signum: int, frame: FrameType | None) -> None:
    stop = _stop
    if stop is None:  # pragma: no cover - installed only while a command holds a `_Stop`
        raise KeyboardInterrupt
    stop.received.append(signum)
    armed = stop.loop is not None and stop.loop.is_running() and stop.loop_handler is not None
    if not armed:
        # outside an event loop of ours: the loop's own handling, else Python's
        handler = signal.getsignal(signal.SIGINT)
        if callable(handler) and handler is not _on_signal:
            handler(signal.SIGINT, frame)
            return
        raise KeyboardInterrupt
    first, stop.draining = not stop.draining, True
    if first and stop.grace > 0:
        assert stop.loop is not None
        stop.loop.call_soon_threadsafe(_begin_drain, stop)
        return
    _cancel(stop, frame, again=True)


def _cancel(stop: _Stop, frame: FrameType | None = None, again: bool = False) -> None:
    """Hand over to the loop's own handler (it cancels the run); `again` for a later signal,
    which the loop's handler treats as the user's second Ctrl-C."""
    if stop.cancelled and not again:
        return
    if stop.timer is not None:
        stop.timer.cancel()
        stop.timer = None
    stop.cancelled = True
    if stop.loop_handler is not None:
        stop.loop_handler(signal.SIGINT, frame)


def _begin_drain(stop: _Stop) -> None:
    if stop.cancelled or stop.loop is None:
        return
    name = signal.Signals(stop.received[0]).name if stop.received else "SIGINT"
    if stop.in_flight <= 0:
        _cancel(stop)
        return
    warn_visibly(
        logger,
        f"{name}: no new call is started; waiting up to {stop.grace:g} s for the "
        f"{stop.in_flight} call(s) already sent, so their replies are kept (signal again "
        "to stop at once)",
    )
    stop.timer = stop.loop.call_later(stop.grace, _cancel, stop)


def grace_from_environment(default: float = DEFAULT_GRACE) -> float:
    """`$BEDSIDE_BENCH_STOP_GRACE` seconds when set to a number >= 0, else `default`."""
    text = os.environ.get(GRACE_ENV, "").strip()
    try:
        value = float(text) if text else default
    except ValueError:
        warn_visibly(logger, f"${GRACE_ENV}={text!r} is not a number of seconds; using {default:g}")
        return default
    return value if math.isfinite(value) and value >= 0 else default


@contextlib.contextmanager
def stopping_on_signals(grace: float | None = None) -> Iterator[list[int]]:
    """SIGINT and SIGTERM raise `KeyboardInterrupt` out of the block after a graceful
    cancellation (a drain of up to `grace` seconds first while an event loop of ours runs;
    default `$BEDSIDE_BENCH_STOP_GRACE`, else 30). Yields the signals received, in order
    (empty: a SIGINT the loop's own handler took, outside a drain)."""
    global _stop
    received: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield received
        return
    previous_int = signal.getsignal(signal.SIGINT)
    if previous_int is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    previous_term = signal.signal(signal.SIGTERM, _on_signal)
    outer = _stop
    _stop = _Stop(grace=grace_from_environment() if grace is None else grace, received=received)
    try:
        yield received
    finally:
        _stop = outer
        signal.signal(signal.SIGTERM, previous_term)
        if signal.getsignal(signal.SIGINT) is _on_signal or previous_int is signal.SIG_IGN:
            signal.signal(signal.SIGINT, previous_int)


def arm(cap: float | None = None, standalone: bool = False) -> None:
    """From inside a running event loop of the command: take over the loop's SIGINT handler,
    so a first signal drains (see the module's docstring). `cap`: a limit on the grace (the
    attempt timeout). Outside `stopping_on_signals` only if `standalone` (an eval of our tasks:
    a drain of its own for this loop); never off the main thread, or when the loop installed
    no handler of its own."""
    global _stop
    if threading.current_thread() is not threading.main_thread():
        return
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    current = signal.getsignal(signal.SIGINT)
    stop = _stop
    if stop is None:
        if not standalone or not callable(current):
            return
        if current in (signal.default_int_handler, _on_signal):
            return
        # `inspect eval` of these tasks: the same drain, for this run's loop only; SIGTERM too
        # unless someone else handles it (Python's default would end the process at once)
        stop = _stop = _Stop(grace=grace_from_environment(), received=[], standalone=True)
        if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
            stop.previous_term = signal.signal(signal.SIGTERM, _on_signal)
    if cap is not None and cap >= 0:
        stop.grace = min(stop.grace, cap)
    if stop.loop is loop:
        return  # armed already (what is installed now may be the control server's)
    if current is _on_signal:
        return  # left by a loop that ended unseen: no handler of this loop's to hand over to
    if not callable(current) or current is signal.default_int_handler:
        return  # no handler of the loop's to hand over to: Python's own stays
    stop.loop, stop.loop_handler = loop, current
    signal.signal(signal.SIGINT, _on_signal)
    if stop.draining:  # a drain began in an earlier loop: this one runs no new call either
        loop.call_soon(_begin_drain, stop)


def disarm() -> BaseException | None:
    """Before the armed loop ends: give its SIGINT handler back (its runner restores its
    predecessor only if it finds its own). What the run must end with if a signal stopped it
    (`KeyboardInterrupt`; in `inspect eval`, `SystemExit(128 + signal)`, the status a shell
    gives a process the signal ended), else None."""
    global _stop
    stop = _stop
    if stop is None or stop.loop is None:
        return None
    if signal.getsignal(signal.SIGINT) is _on_signal and stop.loop_handler is not None:
        signal.signal(signal.SIGINT, stop.loop_handler)
    if stop.timer is not None:
        stop.timer.cancel()
        stop.timer = None
    stop.loop = stop.loop_handler = None
    if stop.standalone:
        if stop.previous_term is not None and signal.getsignal(signal.SIGTERM) is _on_signal:
            signal.signal(signal.SIGTERM, stop.previous_term)
        _stop = None
    if not stop.draining:
        return None
    if stop.standalone:  # Inspect's command line turns a KeyboardInterrupt into exit 1
        return SystemExit(128 + stopped_by(stop.received))
    return KeyboardInterrupt()


def end_loop_with(stopped: BaseException) -> None:
    """End the running event loop with `stopped` once the current step is done: raised by a
    loop callback, it leaves the loop as Ctrl-C does (the runner then cancels what is left),
    never inside a task, where a task group would wrap it in an exception group."""

    def end() -> None:
        raise stopped

    asyncio.get_running_loop().call_soon(end)


def stopping() -> bool:
    """A first signal came: no new paid call may start."""
    stop = _stop
    return stop is not None and stop.draining


def stop_began() -> bool:
    """A signal started a drain: the command ends as interrupted even if its work finished
    during the drain (nothing after the signal may say the work completed)."""
    stop = _stop
    return stop is not None and stop.draining


async def wait_if_stopping() -> None:
    """Never return once stopping: the call waits here until the run is cancelled."""
    if stopping():
        await anyio.sleep_forever()


def call_sent() -> None:
    """A paid call is on its way to the provider."""
    stop = _stop
    if stop is not None:
        stop.in_flight += 1


def call_ended() -> None:
    """A paid call sent earlier came back (or failed, or was cancelled)."""
    stop = _stop
    if stop is None:
        return
    stop.in_flight = max(0, stop.in_flight - 1)
    if stop.draining and stop.in_flight == 0 and stop.loop is not None:
        # on the next turn: the call's reply is kept (synchronously) before the run is cancelled
        stop.loop.call_soon(_cancel, stop)


def stopped_by(received: list[int]) -> signal.Signals:
    """The signal that stopped the command (see `stopping_on_signals`): the first one."""
    return signal.Signals(received[0]) if received else signal.SIGINT


def stop_note(received: list[int]) -> str:
    """ "" for Ctrl-C, " (SIGTERM)" otherwise: what the one line says after "interrupted"."""
    signum = stopped_by(received)
    return "" if signum == signal.SIGINT else f" ({signum.name})"


def stop_exit_code(received: list[int]) -> int:
    """128 + the signal, as a shell reports a process the signal ended (130 for Ctrl-C)."""
    return 128 + stopped_by(received)
