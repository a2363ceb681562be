"""`signals.stopping_on_signals`: SIGTERM stops the work as Ctrl-C does (the running event loop's
cancellation, so the work's own clean-up runs), and an inherited ignored SIGINT stops it too."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest

from bedside_bench.core.signals import stopped_by, stopping_on_signals


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
