"""The options of a run, defined once: names, types, defaults and ranges (pydantic models).

`ScorerOptions` are the judge's (`-T` of every task, `-S` of `inspect score`, the options
`rejudge` scores with); `TaskOptions` adds the ones that choose the cases. Every check is
derived from these models and refuses in one line, naming the option, while the task or the
scorer is built (before any answer is bought): a misspelt name (naming the closest), a value
of the wrong type (a bool is never a number) or out of range. The checks run before a model
is built because their messages are part of the interface (`-T judge_pases is not an option
(did you mean judge_passes?)`); pydantic's own strict validation is the second net.
"""

from __future__ import annotations

import difflib
import sys
import types
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Annotated, Literal, TypeVar, Union, get_args, get_origin

from annotated_types import Ge, Le
from inspect_ai.util import display_type
from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from typing_extensions import TypedDict

from bedside_bench.core.contracts import Grading
from bedside_bench.core.inspect_private import PrerequisiteError, active_model
from bedside_bench.core.model_names import model_name_problem
from bedside_bench.core.protocol import DEFAULT_JUDGE_MODEL
from bedside_bench.core.ranges import JUDGE_PASSES, JUDGE_RETRIES
from bedside_bench.core.safe_text import printable

M = TypeVar("M", bound=BaseModel)


class TaskOptionError(PrerequisiteError):
    """A judge option out of range or misspelt, refused while the task is built (before any
    answer). Not a ValueError: `inspect score` turns a ValueError raised while it builds the
    scorer into "the scorer couldn't be loaded", hiding the reason."""


# the most lines of one error printed under --display none (a list of dataset violations)
SAID_LINES = 50
# set while a command of ours that prints its own errors (sweep, rejudge) builds tasks
_CALLER_SAYS_ERRORS: ContextVar[bool] = ContextVar("caller_says_errors", default=False)


@contextmanager
def errors_said_by_caller() -> Iterator[None]:
    """While inside, `stop_run` prints nothing: the command catches the error and says it in
    its own words (so it is said once, whatever `--display` or `$INSPECT_DISPLAY` is)."""
    token = _CALLER_SAYS_ERRORS.set(True)
    try:
        yield
    finally:
        _CALLER_SAYS_ERRORS.reset(token)


def stop_run(error: PrerequisiteError) -> PrerequisiteError:
    """`error`, to raise: Inspect prints a PrerequisiteError as one message without a
    traceback, but nothing at all under --display none (its console is quiet), so there it is
    printed here, once however often it passes through (the task and the scorer both guard).
    Only inside a run: outside one (`inspect score` building its scorer, the Python API) the
    error reaches the caller, and Inspect's command line prints it whatever the display."""
    if (
        display_type() == "none"
        and active_model() is not None
        and not _CALLER_SAYS_ERRORS.get()
        and not getattr(error, "_bedside_bench_said", False)
    ):
        lines = str(getattr(error, "message", None) or error).splitlines() or [repr(error)]
        shown = [printable(line) for line in lines[:SAID_LINES]]
        if len(lines) > SAID_LINES:
            shown.append(f"... ({len(lines) - SAID_LINES} more lines)")
        print("\n".join(shown), file=sys.stderr, flush=True)
        error._bedside_bench_said = True  # type: ignore[attr-defined]
    return error


@contextmanager
def said_when_stopped() -> Iterator[None]:
    """Around building a task: a PrerequisiteError raised inside (a data folder that is not
    there, an invalid release, a judge that cannot be used) is said under --display none too."""
    try:
        yield
    except PrerequisiteError as ex:
        stop_run(ex)
        raise


_CONFIG = ConfigDict(frozen=True, strict=True, extra="forbid")


def _judge_name(value: str) -> str:
    """A judge named by text has the form of a model name and shows as it is (its provider is
    checked where the name is resolved, `scorer.preflight_judge`)."""
    if (problem := model_name_problem(value, "judge_model", provider=False)) is not None:
        raise ValueError(problem)
    return value


JudgeName = Annotated[str, AfterValidator(_judge_name)]


class ScorerOptions(BaseModel):
    """The rubric judge's options, with the protocol's defaults."""

    model_config = _CONFIG

    # the judge when no `grader` model role is given; None: resolved when the run starts (the
    # role, else `DEFAULT_JUDGE_MODEL`), so that no task argument names a judge that did not
    # judge (`judge_of_run`)
    judge_model: JudgeName | None = None
    # how many times an invalid judge reply is asked again
    judge_retries: int = Field(default=2, ge=JUDGE_RETRIES.least, le=JUDGE_RETRIES.most)
    # zero an F1 case with a missed +3 or a matched -3 (earlier revision)
    severe_gate: bool = False
    # independent judge calls per answer; an item needs a strict majority
    judge_passes: int = Field(default=1, ge=JUDGE_PASSES.least, le=JUDGE_PASSES.most)
    # "binary" (the reference protocol) or "three_level" (a non-reference variant)
    grading: Grading = "binary"


class CaseOptions(BaseModel):
    """The options that choose the cases of a run."""

    model_config = _CONFIG

    # a local release tree; else $BEDSIDE_BENCH_DATA; else Hugging Face
    data_dir: str | None = None
    # Hugging Face revision (default: the pinned one)
    revision: str | None = None
    # keep only the first case, to check a set-up end to end
    smoke: bool = False


class TaskOptions(ScorerOptions, CaseOptions):
    """The options of every task: the case options, then the scorer's (in this order: the
    task signature, `inspect list` and the log's `task_args` list them so)."""

    def scorer_options(self) -> ScorerOptions:
        return ScorerOptions.model_validate(self.model_dump(include=set(SCORER_OPTIONS)))


class TaskArgs(TypedDict, total=False):
    """`TaskOptions` as keyword arguments, for the task functions' signatures that mypy and
    IDEs read (`**options: Unpack[TaskArgs]`); a test keeps it equal to `TaskOptions`."""

    data_dir: str | None
    revision: str | None
    smoke: bool
    judge_model: JudgeName | None
    judge_retries: int
    severe_gate: bool
    judge_passes: int
    grading: Grading


SCORER_OPTIONS: tuple[str, ...] = tuple(ScorerOptions.model_fields)
CASE_OPTIONS: tuple[str, ...] = tuple(CaseOptions.model_fields)
OPTION_NAMES: tuple[str, ...] = tuple(TaskOptions.model_fields)
SCORER_DEFAULTS = ScorerOptions()
# why each ceiling is where it is (core/ranges.py), said when a value is past it
RANGE_REASONS: dict[str, str] = {
    "judge_passes": JUDGE_PASSES.why,
    "judge_retries": JUDGE_RETRIES.why,
}


def _shown(value: object) -> str:
    """A given value as a message shows it: its repr, one printable bounded line."""
    return printable(repr(value), 100)


def default_judge(judge_model: str | None) -> str:
    """The judge named by `judge_model`, else the protocol's (when no `grader` role is bound)."""
    return judge_model or DEFAULT_JUDGE_MODEL


# --------------------------------------------------------------------------------------------
# what each option accepts, read from the models

TYPE_WORDS: dict[type, str] = {bool: "true or false", int: "a whole number", str: "text"}


@dataclass(frozen=True)
class OptionSpec:
    """What one option accepts: its types, its least and most values, its choices."""

    types: tuple[type, ...]
    minimum: int | None = None
    choices: tuple[str, ...] | None = None
    maximum: int | None = None

    def type_problem(self, value: object) -> str | None:
        """Why `value` is of the wrong type ("must be a whole number"), or None."""
        wrong_bool = isinstance(value, bool) and bool not in self.types
        if wrong_bool or not isinstance(value, self.types):
            return "must be " + " or ".join(TYPE_WORDS[t] for t in self.types if t in TYPE_WORDS)
        return None


def _spec(annotation: object, metadata: Sequence[object]) -> OptionSpec:
    minimum = next((int(m.ge) for m in metadata if isinstance(m, Ge)), None)  # type: ignore[call-overload]
    maximum = next((int(m.le) for m in metadata if isinstance(m, Le)), None)  # type: ignore[call-overload]
    origin = get_origin(annotation)
    if origin is Literal:
        choices = tuple(str(c) for c in get_args(annotation))
        return OptionSpec((str,), minimum, choices, maximum)
    if origin in (Union, types.UnionType):
        # a constrained type (`JudgeName`) is its base type here; the model checks the rest
        members = [
            get_args(a)[0] if get_origin(a) is Annotated else a for a in get_args(annotation)
        ]
        kinds = tuple(a for a in members if isinstance(a, type))
        return OptionSpec(kinds, minimum, maximum=maximum)
    if isinstance(annotation, type):
        return OptionSpec((annotation,), minimum, maximum=maximum)
    raise TypeError(f"an option's type must be a class, a union or a Literal: {annotation!r}")


def option_specs(model: type[BaseModel]) -> dict[str, OptionSpec]:
    """Every option of `model` (in field order) with what it accepts."""
    return {
        name: _spec(field.annotation, field.metadata) for name, field in model.model_fields.items()
    }


# --------------------------------------------------------------------------------------------
# the one-line refusals


def check_option_names(given: Sequence[str], known: Sequence[str], flag: str) -> None:
    """Stop the run, in one line, on an option name that is not one of `known`, naming the
    closest known one: Inspect passes every `-T` / `-S` argument to a function that takes
    `**options`, so a misspelt option is refused here rather than silently left at its default.
    """
    unknown = [name for name in given if name not in known]
    if not unknown:
        return
    hints = []
    for name in unknown:
        close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
        hint = f"did you mean {close[0]}?" if close else f"the options are {', '.join(known)}"
        hints.append(f"{flag} {name} is not an option ({hint})")
    raise stop_run(TaskOptionError(f"bedside-bench: {'; '.join(hints)}; no case was run"))


def check_option_types(
    values: Mapping[str, object], model: type[BaseModel] = TaskOptions, flag: str = "-T"
) -> None:
    """Stop the run, in one line, on a `-T` value of the wrong type (`judge_passes=2.5`,
    `smoke=maybe`), before any answer is bought; a bool is never taken for a number.
    Inspect hands `-T` values over as YAML reads them."""
    specs = option_specs(model)
    for name, value in values.items():
        spec = specs.get(name)
        problem = spec.type_problem(value) if spec is not None else None
        if problem is not None:
            raise stop_run(
                TaskOptionError(
                    f"bedside-bench: {flag} {name} {problem}, got {_shown(value)}; no case was run"
                )
            )


def _value_problem(name: str, value: object, spec: OptionSpec) -> str | None:
    if spec.choices is not None:  # the choices say the type too
        if value not in spec.choices:
            return f"{name} must be one of {', '.join(spec.choices)}, got {_shown(value)}"
        return None
    problem = spec.type_problem(value)
    if problem is not None:
        return f"{name} {problem}, got {_shown(value)}"
    if spec.minimum is not None and isinstance(value, int) and value < spec.minimum:
        return f"{name} must be >= {spec.minimum}, got {value}"
    if spec.maximum is not None and isinstance(value, int) and value > spec.maximum:
        why = RANGE_REASONS.get(name)
        return f"{name} must be <= {spec.maximum}{f' ({why})' if why else ''}, got {value}"
    return None


def check_option_values(
    values: Mapping[str, object], model: type[BaseModel] = ScorerOptions
) -> None:
    """Stop the run, in one line, on an option of `model` whose value is of the wrong type or
    out of range (None: not given). The scorer's check, so it holds for `-T` and `-S` alike."""
    specs = option_specs(model)
    for name, spec in specs.items():
        value = values.get(name)
        problem = None if value is None else _value_problem(name, value, spec)
        named = name == "judge_model" and isinstance(value, str)
        if problem is None and named and model_name_problem(str(value), name, provider=False):
            problem = (  # `JudgeName`'s check
                f"{name} must be an Inspect model name such as openai/gpt-5.4-mini, every "
                f"character of it shown as it is, got {_shown(value)}"
            )
        if problem is not None:
            raise stop_run(
                TaskOptionError(f"bedside-bench: {problem} (-T or -S option); no case was run")
            )


def checked(model: type[M], values: Mapping[str, object]) -> M:
    """`model` from `values` once they passed the checks above (pydantic's strict validation
    is the second net: it never sees a value they let through wrongly)."""
    check_option_values(values, model)
    return model.model_validate(dict(values))
