"""A piped sweep's (or demo's) progress: one plain line at least every 15 s (cases done, to go,
failed) instead of Inspect's panels.

Inspect's live display redraws in a terminal; piped into a file or a CI log, its rich
rendering printed some 400 lines of panels for a two-model sweep, and nothing for a minute.
So `bedside-bench sweep` with its output not a terminal (and no `--display` or
`$INSPECT_DISPLAY` chosen) runs Inspect with `--display none` and prints these lines itself.

The counts come from Inspect's public hooks: a task's start gives its cases (dataset samples x
epochs), a sample's end whether it failed, a task's end its log's final counts. A case kept
from an earlier run of the same command is reused by Inspect without a sample end, so it counts
as done when its benchmark run ends; until then it is among those to go. A retry of a run
(eval_set's task retries) runs its failed cases again: they are to go again, not failed.

Hooks are registered when a piped sweep first needs them, never on import (Inspect calls every
registered hook for every eval in the process), and act only while a sweep's progress is on.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TextIO

from inspect_ai.hooks import EvalSetEnd, Hooks, SampleEnd, TaskEnd, TaskStart, hooks

PROGRESS_EVERY = 15.0  # seconds between two lines at most


def piped(display: str | None) -> bool:
    """Inspect's display is to be replaced by these lines: the output is not a terminal, and
    no display was chosen (`--display`, `$INSPECT_DISPLAY`)."""
    return display is None and not os.environ.get("INSPECT_DISPLAY") and not sys.stdout.isatty()


HOOK_NAME = "bedside_bench_sweep_progress"


@dataclass
class TaskCounts:
    cases: int  # dataset samples x epochs
    done: int = 0
    failed: int = 0


@dataclass
class Progress:
    """The counts of one sweep, by Inspect task id (a retry of a run keeps its task id)."""

    # the command the lines are of (`sweep`, `demo`)
    command: str = "sweep"
    started: float = field(default_factory=time.monotonic)
    tasks: dict[str, TaskCounts] = field(default_factory=dict)
    eval_tasks: dict[str, str] = field(default_factory=dict)  # eval id -> task id
    lock: threading.Lock = field(default_factory=threading.Lock)
    # set when the eval set ends (the last line then comes before the report's) or the
    # block does
    stopped: threading.Event = field(default_factory=threading.Event)

    def task_started(self, eval_id: str, task_id: str, cases: int) -> None:
        with self.lock:
            self.eval_tasks[eval_id] = task_id
            counts = self.tasks.setdefault(task_id, TaskCounts(cases))
            counts.failed = 0  # a retry runs them again

    def sample_ended(self, eval_id: str, failed: bool) -> None:
        with self.lock:
            counts = self.tasks.get(self.eval_tasks.get(eval_id, ""))
            if counts is None:
                return
            if failed:
                counts.failed += 1
            else:
                counts.done += 1

    def task_ended(self, eval_id: str, completed: int | None, total: int | None) -> None:
        """The log's own counts, reused cases included."""
        with self.lock:
            counts = self.tasks.get(self.eval_tasks.get(eval_id, ""))
            if counts is None or completed is None or not total:
                return
            counts.cases = total
            counts.done = completed
            counts.failed = total - completed

    def line(self) -> str:
        with self.lock:
            cases = sum(c.cases for c in self.tasks.values())
            done = sum(c.done for c in self.tasks.values())
            failed = sum(c.failed for c in self.tasks.values())
        to_go = max(0, cases - done - failed)
        elapsed = int(time.monotonic() - self.started)
        return (
            f"{self.command}: {done:,} cases done, {to_go:,} to go, {failed:,} failed "
            f"({len(self.tasks)} benchmark runs started, {elapsed // 60}:{elapsed % 60:02d} "
            "elapsed)"
        )


_active: Progress | None = None  # the sweep whose progress is on, if any
_registered = False


class SweepProgress(Hooks):
    """Feeds the active sweep's `Progress`; does nothing when no sweep's progress is on."""

    def enabled(self) -> bool:
        return _active is not None

    async def on_task_start(self, data: TaskStart) -> None:
        if (progress := _active) is not None:
            epochs = data.spec.config.epochs or 1
            progress.task_started(
                data.eval_id, data.spec.task_id, (data.spec.dataset.samples or 0) * epochs
            )

    async def on_sample_end(self, data: SampleEnd) -> None:
        if (progress := _active) is not None:
            progress.sample_ended(data.eval_id, failed=data.sample.error is not None)

    async def on_task_end(self, data: TaskEnd) -> None:
        if (progress := _active) is not None:
            results = data.log.results
            completed = None if results is None else results.completed_samples
            total = None if results is None else results.total_samples
            progress.task_ended(data.eval_id, completed, total)

    async def on_eval_set_end(self, data: EvalSetEnd) -> None:
        if (progress := _active) is not None:
            progress.stopped.set()


def _register() -> None:
    global _registered
    if not _registered:
        hooks(
            name=HOOK_NAME,
            description="Counts a piped bedside-bench sweep's cases for its progress lines.",
        )(SweepProgress)
        _registered = True


@contextlib.contextmanager
def progress_lines(
    stream: TextIO | None = None, every: float = PROGRESS_EVERY, command: str = "sweep"
) -> Iterator[Progress]:
    """While the block runs, a line on `stream` (stdout) every `every` seconds, and one last
    line when the eval set ends (before the report) or the block does (however it ends)."""
    global _active
    _register()
    out = stream or sys.stdout
    progress = Progress(command=command)

    def tick() -> None:
        while not progress.stopped.wait(every):
            say()
        say()

    def say() -> None:
        if not progress.tasks:  # nothing started yet, or nothing to do (all done before)
            return
        with contextlib.suppress(Exception):  # a closed pipe: the command's own guard ends it
            print(progress.line(), file=out, flush=True)

    ticker = threading.Thread(target=tick, name="sweep-progress", daemon=True)
    _active = progress
    ticker.start()
    try:
        yield progress
    finally:
        progress.stopped.set()
        ticker.join()
        _active = None
