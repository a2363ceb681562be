"""The options every task takes, defined once (`TaskOptions`) and forwarded whole.

They live apart from `tasks.py` because Inspect re-executes a task file as a module of its own
(`inspect eval-retry` of a task registered by file name): a dataclass defined there, with
postponed annotations, cannot be built outside `sys.modules`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from inspect_ai import Task

from bedside_bench.contracts import Grading
from bedside_bench.protocol import DEFAULT_JUDGE_MODEL
from bedside_bench.scorer import (
    SCORER_PARAMETERS,
    TaskOptionError,
    check_option_names,
    stop_run,
)

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


OPTION_NAMES: tuple[str, ...] = tuple(inspect.signature(TaskOptions).parameters)

# what Inspect reads for `-T` names, defaults recorded in the log and `inspect view`; the
# trailing `**options` makes Inspect hand over every `-T` argument, so that a misspelt one is
# refused by name (`task_options`) instead of only warned about while the run goes on
TASK_SIGNATURE = inspect.Signature(
    [
        *inspect.signature(TaskOptions).parameters.values(),
        inspect.Parameter("options", inspect.Parameter.VAR_KEYWORD),
    ],
    return_annotation=Task,
)

# arguments Inspect itself may pass to a task that takes **options; never an option of ours
INSPECT_TASK_ARGS: tuple[str, ...] = ("model",)

# the options that go to the scorer, each under its own name; the others choose the cases
SCORER_OPTIONS: tuple[str, ...] = SCORER_PARAMETERS
CASE_OPTIONS: tuple[str, ...] = ("data_dir", "revision", "smoke")


def known_options(given: dict[str, Any], known: tuple[str, ...]) -> dict[str, Any]:
    """`given` without what Inspect passes on its own; stops the run, naming the closest
    option, if any name left is not in `known` (before any answer is bought)."""
    ours = {k: v for k, v in given.items() if k not in INSPECT_TASK_ARGS}
    check_option_names(list(ours), known, "-T")
    return ours


# the type each option's value must have (Inspect hands `-T` values over as YAML reads them)
OPTION_TYPES: dict[str, tuple[type, ...]] = {
    "data_dir": (str, type(None)),
    "data_file": (str, type(None)),
    "revision": (str, type(None)),
    "smoke": (bool,),
    "judge_model": (str,),
    "judge_retries": (int,),
    "severe_gate": (bool,),
    "judge_passes": (int,),
    "grading": (str,),
}
TYPE_WORDS = {bool: "true or false", int: "a whole number", str: "text"}


def check_option_types(values: dict[str, Any]) -> None:
    """Stop the run, in one line, on a `-T` value of the wrong type (`judge_passes=2.5`,
    `smoke=maybe`), before any answer is bought; a bool is never taken for a number."""
    for name, value in values.items():
        types = OPTION_TYPES.get(name)
        if types is None:
            continue
        wrong_bool = isinstance(value, bool) and bool not in types
        if wrong_bool or not isinstance(value, types):
            wanted = " or ".join(TYPE_WORDS[t] for t in types if t in TYPE_WORDS)
            raise stop_run(
                TaskOptionError(
                    f"bedside-bench: -T {name} must be {wanted}, got {value!r}; no case was run"
                )
            )


def task_options(given: dict[str, Any]) -> TaskOptions:
    """The options of one run from the `-T` arguments Inspect handed over."""
    values = known_options(given, OPTION_NAMES)
    check_option_types(values)
    return TaskOptions(**values)


def takes_task_options(fn: F) -> F:
    """Give a task function the parameters of `TaskOptions` (it takes them as **options)."""
    fn.__signature__ = TASK_SIGNATURE  # type: ignore[attr-defined]
    return fn
