"""The options every task takes (`options.TaskOptions`) and how a task function takes them.

They live apart from `task/tasks.py` because Inspect re-executes a task file as a module of its own
(`inspect eval-retry` of a task registered by file name): a model defined there, with
postponed annotations, cannot be built outside `sys.modules`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import TypeVar

from inspect_ai import Task

from bedside_bench.core.options import (
    CASE_OPTIONS,
    OPTION_NAMES,
    SCORER_OPTIONS,
    TaskArgs,
    TaskOptions,
    check_option_names,
    check_option_types,
    checked,
)

__all__ = [
    "CASE_OPTIONS",
    "INSPECT_TASK_ARGS",
    "OPTION_NAMES",
    "SCORER_OPTIONS",
    "TASK_SIGNATURE",
    "TaskArgs",
    "TaskOptions",
    "check_option_types",
    "known_options",
    "takes_task_options",
    "task_options",
]

F = TypeVar("F", bound=Callable[..., Task])

# what Inspect reads for `-T` names, defaults recorded in the log and `inspect view`; the
# trailing `**options` makes Inspect hand over every `-T` argument, so that a misspelt one is
# refused by name (`task_options`) instead of only warned about while the run goes on
TASK_SIGNATURE = inspect.Signature(
    [
        *(
            inspect.Parameter(
                name,
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
                default=field.default,
                annotation=field.annotation,
            )
            for name, field in TaskOptions.model_fields.items()
        ),
        inspect.Parameter("options", inspect.Parameter.VAR_KEYWORD),
    ],
    return_annotation=Task,
)

# arguments Inspect itself may pass to a task that takes **options; never an option of ours
INSPECT_TASK_ARGS: tuple[str, ...] = ("model",)


def known_options(given: Mapping[str, object], known: tuple[str, ...]) -> dict[str, object]:
    """`given` without what Inspect passes on its own; stops the run, naming the closest
    option, if any name left is not in `known` (before any answer is bought)."""
    ours = {k: v for k, v in given.items() if k not in INSPECT_TASK_ARGS}
    check_option_names(list(ours), known, "-T")
    return ours


def task_options(given: Mapping[str, object]) -> TaskOptions:
    """The options of one run from the `-T` arguments Inspect handed over: names, then
    types, then ranges, each refused in one line."""
    values = known_options(given, OPTION_NAMES)
    check_option_types(values, TaskOptions)
    return checked(TaskOptions, values)


def takes_task_options(fn: F) -> F:
    """Give a task function (`**options: Unpack[TaskArgs]`) the parameters of `TaskOptions`
    at run time, for Inspect: the `-T` names it lists and the defaults it records."""
    fn.__signature__ = TASK_SIGNATURE  # type: ignore[attr-defined]
    return fn
