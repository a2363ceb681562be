"""The options every task takes, defined once (`TaskOptions`) and forwarded whole.

They live apart from `tasks.py` because Inspect re-executes a task file as a module of its own
(`inspect eval-retry` of a task registered by file name): a dataclass defined there, with
postponed annotations, cannot be built outside `sys.modules`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from inspect_ai import Task

from bedside_bench.contracts import Grading
from bedside_bench.protocol import DEFAULT_JUDGE_MODEL
from bedside_bench.scorer import rubric_judge

F = TypeVar("F", bound=Callable[..., Task])


@dataclass(frozen=True)
class TaskOptions:
    """The options of every task: the one place they are named, typed and defaulted."""

    data_dir: str | None = None
    revision: str | None = None
    smoke: bool = False
    judge_model: str = DEFAULT_JUDGE_MODEL
    judge_retries: int = 2
    severe_gate: bool = False
    judge_passes: int = 1
    grading: Grading = "binary"


# what Inspect reads for `-T` names, defaults recorded in the log and `inspect view`
TASK_SIGNATURE = inspect.signature(TaskOptions).replace(return_annotation=Task)


# the options that go to the scorer, each under its own name; the others choose the cases
SCORER_OPTIONS: tuple[str, ...] = tuple(inspect.signature(rubric_judge).parameters)
CASE_OPTIONS: tuple[str, ...] = ("data_dir", "revision", "smoke")


def takes_task_options(fn: F) -> F:
    """Give a task function the parameters of `TaskOptions` (it takes them as **options)."""
    fn.__signature__ = TASK_SIGNATURE  # type: ignore[attr-defined]
    return fn
