"""Which paid calls are on the wire, for a first Ctrl-C or SIGTERM that lets them come back
(`core/signals.py`) instead of cancelling replies the provider bills anyway.

A call is *sent* once Inspect is about to dispatch it (its `on_before_model_generate` hook,
which fires inside the model's connection slot, so a call still queued for a connection is
not counted: waiting for it would buy a new call), and ends when our call returns, after its
reply is kept for the rerun (`kept_calls`). Once stopping, neither a new call nor a provider
retry of one is sent: it waits until the run is cancelled. Only the calls made through
`paid_call` are counted and held; any other model call of the process is left alone.

The hook is registered with the kept-calls hooks (`kept_calls.release_kept_calls`), when a
solver or scorer that keeps paid calls is built, never on import. Its run start and end arm
and disarm the signal handling around each event loop of an eval (in `inspect eval`, only for a
run of this package's tasks: the hook is called for every run of the process); a call made
outside an eval (`rejudge`) arms it itself.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import anyio
from inspect_ai.hooks import BeforeModelGenerate, Hooks, RunEnd, RunStart, TaskStart

from bedside_bench.core import signals
from bedside_bench.core.benchmarks import BENCHMARK_NAMES


@dataclass
class _Call:
    sent: bool = False


_call: ContextVar[_Call | None] = ContextVar("bedside_bench_paid_call", default=None)


@asynccontextmanager
async def paid_call() -> AsyncIterator[None]:
    """Around one paid call and the keeping of its reply: held before it starts when stopping,
    counted in flight once sent (`InFlightCalls.on_before_model_generate`)."""
    signals.arm()
    await signals.wait_if_stopping()
    record = _Call()
    token = _call.set(record)
    try:
        yield
    finally:
        _call.reset(token)
        if record.sent:
            signals.call_ended()


# the names Inspect gives this package's tasks in a run (each task is named after its benchmark)
OUR_TASKS = frozenset(BENCHMARK_NAMES) | {"judge_check"}
HOOK_NAME = "bedside_bench_calls_in_flight"
HOOK_DESCRIPTION = (
    "On a first Ctrl-C or SIGTERM, starts no new answer or judge call and lets the calls "
    "already sent come back, so their replies are kept for the rerun."
)


class InFlightCalls(Hooks):
    """Counts and holds this suite's paid calls (see the module's docstring)."""

    async def on_run_start(self, data: RunStart) -> None:
        # before Inspect's control server takes the signals (it hands them on to what it found);
        # a run of no task of ours (the hook is process-wide once registered) keeps Inspect's
        # own Ctrl-C
        ours = any(name.rpartition("/")[2] in OUR_TASKS for name in data.task_names)
        signals.arm(standalone=ours)

    async def on_task_start(self, data: TaskStart) -> None:
        timeout = data.plan.config.attempt_timeout
        signals.arm(float(timeout) if timeout is not None else None)

    async def on_run_end(self, data: RunEnd) -> None:
        stopped = signals.disarm()
        if stopped is not None and not isinstance(data.exception, KeyboardInterrupt | SystemExit):
            # the run ended during the drain, or its cancellation was absorbed: it ends as
            # interrupted all the same (not as a success `eval_set` would print)
            signals.end_loop_with(stopped)

    async def on_before_model_generate(self, data: BeforeModelGenerate) -> None:
        record = _call.get()
        if record is None:
            return
        if signals.stopping():
            if record.sent:  # a provider retry of a call that came back failed: not sent
                record.sent = False
                signals.call_ended()
            await anyio.sleep_forever()
        if not record.sent:
            record.sent = True
            signals.call_sent()
