"""What Inspect tells its hooks about each task it starts, kept by eval id for the calls made
inside that task's samples.

A running sample knows its eval id only (`inspect_private.active_eval_id`). Two things a paid
call needs are in the task's start, Inspect's public `on_task_start` hook: the task id, the
identity every retry of a run keeps (eval_set's task retries, `eval-retry`, the same sweep
again; docs/cache.md), and the generate config the eval runs with, whose `cache` is what
`--cache` asked for. Both are kept here from the task's start to its end.
"""

from __future__ import annotations

from dataclasses import dataclass

from inspect_ai.hooks import Hooks, TaskEnd, TaskStart
from inspect_ai.model import CachePolicy

from bedside_bench.core.inspect_private import active_eval_id, degraded


@dataclass(frozen=True)
class RunningTask:
    task_id: str
    cache: bool | CachePolicy | None  # the eval's `--cache` (None: not given)


_running: dict[str, RunningTask] = {}  # by eval id


HOOK_NAME = "bedside_bench_running_tasks"
HOOK_DESCRIPTION = (
    "Keeps each running task's id and --cache for the answer and judge calls its cases make."
)


class RunningTasks(Hooks):
    """Registered with the release hook (`kept_calls.release_kept_calls`), when a solver or
    scorer that keeps paid calls is built, never on import: Inspect lists and calls every hook
    registered when it loads the package's entry point, for every eval on the machine."""

    async def on_task_start(self, data: TaskStart) -> None:
        _running[data.eval_id] = RunningTask(data.spec.task_id, data.plan.config.cache)

    async def on_task_end(self, data: TaskEnd) -> None:
        _running.pop(data.eval_id, None)


def running_task() -> RunningTask | None:
    """The task of the running sample; None outside a sample.

    A sample whose task start Inspect did not report is taken as its own run, keyed by its
    eval id and without `--cache`: kept calls are then read back only by `--retry-on-error`
    (one warning says so)."""
    eval_id = active_eval_id()
    if eval_id is None:
        return None
    task = _running.get(eval_id)
    if task is None:
        degraded(
            "the task id of a running sample",
            "Inspect did not report the start of the task being run to its hooks: answers and "
            "judge replies are kept for --retry-on-error only (another retry buys them again) "
            "and --cache does not apply to them",
        )
        return RunningTask(eval_id, None)
    return task
