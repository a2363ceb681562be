"""`signals.stopping_on_signals`: SIGTERM stops the work as Ctrl-C does (the running event loop's
cancellation, so the work's own clean-up runs), and an inherited ignored SIGINT stops it too."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Awaitable, Callable

import pytest

from bedside_bench.core.signals import (
    arm,
    call_ended,
    call_sent,
    disarm,
    stopped_by,
    stopping,
    stopping_on_signals,
    wait_if_stopping,
)

# each test signals its own process: it runs in a process of its own (`tests/conftest.py`)
pytestmark = [pytest.mark.slow, pytest.mark.own_process]


def test_sigterm_cancels_the_running_loop_and_the_work_cleans_up() -> None:
    cleaned = []

    async def work() -> None:
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            await asyncio.sleep(30)
        finally:
            cleaned.append("written")

    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt), stopping_on_signals() as received:
        asyncio.run(work())
    assert cleaned == ["written"]
    assert stopped_by(received) == signal.SIGTERM
    assert signal.getsignal(signal.SIGTERM) is before


def test_an_inherited_ignored_sigint_still_stops_the_work() -> None:
    cleaned = []

    async def work() -> None:
        try:
            os.kill(os.getpid(), signal.SIGINT)
            await asyncio.sleep(30)
        finally:
            cleaned.append("written")

    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with pytest.raises(KeyboardInterrupt), stopping_on_signals() as received:
            assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
            asyncio.run(work())
        assert cleaned == ["written"] and stopped_by(received) == signal.SIGINT
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN  # as it was
    finally:
        signal.signal(signal.SIGINT, previous)


def test_sigterm_outside_an_event_loop_raises_keyboard_interrupt() -> None:
    with pytest.raises(KeyboardInterrupt), stopping_on_signals() as received:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(30)  # cut short: the handler raises
    assert received == [signal.SIGTERM]


def run_drain(grace: float, work: Callable[[], Awaitable[None]], how: int) -> list[int]:
    """`work` in an armed event loop of `stopping_on_signals(grace)`; the signals received."""

    async def armed() -> None:
        arm()
        await work()

    with pytest.raises(KeyboardInterrupt), stopping_on_signals(grace) as received:
        asyncio.run(armed())
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    return received


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM])
def test_a_first_signal_lets_the_call_in_flight_come_back_and_starts_no_new_one(how: int) -> None:
    events: list[str] = []

    async def work() -> None:
        reply = asyncio.Event()

        async def in_flight() -> None:
            call_sent()
            try:
                await reply.wait()  # the provider's reply, on the wire when the signal comes
                events.append("reply kept")
            finally:
                call_ended()

        async def next_call() -> None:
            await wait_if_stopping()  # a call asked for after the signal
            events.append("new call sent")

        call = asyncio.create_task(in_flight())
        await asyncio.sleep(0)
        os.kill(os.getpid(), how)
        while not stopping():
            await asyncio.sleep(0.01)
        events.append("stopping")
        later = asyncio.create_task(next_call())
        await asyncio.sleep(0)
        reply.set()  # the reply arrives during the drain: then the run is cancelled
        try:
            await asyncio.gather(call, later)
        finally:
            events.append("cancelled" if later.cancelled() else "not cancelled")

    received = run_drain(30.0, work, how)
    assert events == ["stopping", "reply kept", "cancelled"]
    assert stopped_by(received) == how


@pytest.mark.parametrize(("second", "grace"), [(True, 3600.0), (False, 0.05)])
def test_a_second_signal_stops_at_once_and_the_grace_bounds_the_drain(
    second: bool, grace: float
) -> None:
    cancelled: list[bool] = []

    async def work() -> None:
        call_sent()  # a reply that never comes
        try:
            os.kill(os.getpid(), signal.SIGINT)
            while not stopping():
                await asyncio.sleep(0.01)
            if second:
                os.kill(os.getpid(), signal.SIGINT)
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        finally:
            call_ended()

    received = run_drain(grace, work, signal.SIGINT)
    assert cancelled == [True]
    assert received == [signal.SIGINT] * (2 if second else 1)


def test_without_a_call_in_flight_the_first_signal_cancels_at_once() -> None:
    async def work() -> None:
        os.kill(os.getpid(), signal.SIGTERM)
        await asyncio.sleep(3600)

    assert run_drain(3600.0, work, signal.SIGTERM) == [signal.SIGTERM]


def test_outside_a_command_only_a_run_of_our_tasks_takes_the_signals() -> None:
    """An eval in a process that built our tasks calls the hook for every run: a run of other
    tasks keeps Inspect's own handling (nothing is taken over, nothing to give back)."""
    changed: list[object] = []

    async def work(standalone: bool) -> None:
        before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
        arm(standalone=standalone)
        changed.append(
            (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) != before
        )
        changed.append(disarm())
        changed.append(
            (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before
        )

    asyncio.run(work(False))
    asyncio.run(work(True))
    assert changed == [False, None, True, True, None, True]


def test_an_eval_of_our_tasks_drains_and_ends_with_the_status_of_its_signal() -> None:
    """Outside a command (`inspect eval`): SIGTERM drains the call in flight, then the run is
    cancelled and ends with SystemExit(143), as a shell reports a process SIGTERM ended."""
    ended: list[BaseException | None] = []

    async def work() -> None:
        arm(standalone=True)
        call_sent()
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            while not stopping():
                await asyncio.sleep(0.01)
            call_ended()  # the reply came back: now the run is cancelled
            await asyncio.sleep(3600)
        finally:
            ended.append(disarm())

    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt):
        asyncio.run(work())
    (stopped,) = ended
    assert isinstance(stopped, SystemExit) and stopped.code == 143
    assert signal.getsignal(signal.SIGTERM) is before and not stopping()
