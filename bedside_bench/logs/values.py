"""What the report accepts from a log: every value it reads, checked at the edge by a model.

A log is a file anyone can write: an earlier version, another tool, a hand edit. Each value
the report reads from one (a sample's score metadata, the task's metadata, the task
arguments) is validated here, strictly (no coercion: "3" is not a count, 1 is not True), so
that a malformed value fails what it belongs to with one line naming the field, instead of
being pooled as if honest or silently dropped:

- a score's metadata: that case (that epoch) fails, counted as failed, never 0. It is read
  through the model the scorer writes it with (`core/score_metadata.py` `ScoreMetadata`),
  over the keys the reader reads (`REPORT_KEYS`; `data export` adds the grading method);
- the task's metadata or arguments (`TaskValues`, `TaskArgValues`): the log is skipped.

Absent is not malformed where a log may honestly lack a value (a key an earlier version did
not write: the report says "not recorded"); a value a figure is computed from is required
where that figure applies (`required_score_fields`). Unknown keys are left alone. The task
models' types are the ones the writers use (`contracts`, `options`), so a writer and this
reader cannot drift apart unnoticed (`tests/test_report_log_values.py`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Annotated

from pydantic import BaseModel, TypeAdapter, ValidationError

from bedside_bench.core.contracts import Grading, RejudgeSource
from bedside_bench.core.options import ScorerOptions
from bedside_bench.core.score_metadata import STRICT, Count, ScoreMetadata, Text, TokenCounts

# what Inspect puts in a sample summary in place of a metadata value over 1 kB
# (`inspect_ai.log._util.thin_metadata`): the sample is then read in full
THINNED_VALUE = "Key removed from summary (> 1k)"

# the score metadata keys the report reads (the `CaseRecord` fields it fills, and the passes
# that make the per-pass keys required); a malformed value of any other key leaves the case as
# it is
REPORT_KEYS: tuple[str, ...] = (
    "decisions",
    "recall",
    "precision",
    "severe_rate",
    "judge_model",
    "judge_temperature",
    "answer_temperature",
    "answer_stop_reason",
    "answer_condition",
    "answer_empty",
    "judge_usage",
    "judge_passes",
    "pass_decisions",
    "pass_scores",
    "judge_agreement",
)
# those of them whose values can exceed 1 kB, so that a sample summary may hold
# `THINNED_VALUE` in their place: read as absent there (the sample is then read in full)
LARGE_KEYS: tuple[str, ...] = ("decisions", "pass_decisions", "pass_scores", "judge_usage")

# the keys a score must hold for its case to count: the judge always; an F1 case's recall,
# precision (null when nothing was matched) and severe flag; a score judged in several passes
# (its own `judge_passes`: a log re-scored by `inspect score -S judge_passes=...` may differ
# from its header) the per-pass decisions and their agreement. Without them a figure would be
# computed over fewer cases than it says.
ALWAYS_REQUIRED: tuple[str, ...] = ("judge_model",)
F1_REQUIRED: tuple[str, ...] = ("recall", "precision", "severe_rate")
PASSES_REQUIRED: tuple[str, ...] = ("judge_agreement", "pass_decisions")


def required_score_fields(f1: bool) -> tuple[str, ...]:
    """The score metadata keys every case of a log must have (`ALWAYS_REQUIRED`, ...); a score
    judged in several passes must also have `PASSES_REQUIRED` (`score_values`)."""
    return ALWAYS_REQUIRED + (F1_REQUIRED if f1 else ())


class TaskValues(BaseModel):
    """The keys of a benchmark log's `eval.metadata` (`contracts.TaskMetadata`) the report
    reads. The two that mark a log as this suite's are required (`skip_reason` names them)."""

    model_config = STRICT

    benchmark: Text | None = None
    protocol_version: Text
    dataset_sha256: Text
    data_source: str | None = None
    release: str | None = None
    release_case_counts: dict[str, Count] | None = None
    # case id -> digest of each case the task asked (`logs/checks.py`); None: not recorded
    case_sha256: dict[str, Text] | None = None
    smoke: bool = False
    # the judge's options, with the types and ranges `-T` accepted (`options.ScorerOptions`)
    severe_gate: Annotated[bool, ScorerOptions.model_fields["severe_gate"]]
    judge_passes: Annotated[int, ScorerOptions.model_fields["judge_passes"]]
    grading: Annotated[Grading, ScorerOptions.model_fields["grading"]]
    # the judge the run resolved when its tasks were built (absent: earlier logs, or tasks
    # built outside the run)
    judge_model: Text | None = None
    # a log written by `bedside-bench rejudge`: where its answers came from
    rejudge: RejudgeSource | None = None


class TaskArgValues(BaseModel):
    """The task arguments the report reads: the judge named by `-T judge_model`."""

    model_config = STRICT

    judge_model: Text | None = None


def _shown(value: object, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _path(value: object, parts: tuple[int | str, ...]) -> list[str]:
    """The parts of a pydantic error location that lead into `value`, and a key it lacks;
    not the union members pydantic tried on the way (`dict[str,...]`, `literal[...]`)."""
    path = []
    for part in parts:
        into_dict = isinstance(value, dict) and part in value
        into_list = isinstance(value, list) and isinstance(part, int) and 0 <= part < len(value)
        if into_dict or into_list:
            value = value[part]  # type: ignore[index]
        elif not (isinstance(value, dict) and isinstance(part, str) and part.isidentifier()):
            continue
        path.append(str(part))
    return path


def problem(
    error: ValidationError,
    what: str,
    values: Mapping[str, object],
    prefix: tuple[int | str, ...] = (),
) -> str:
    """The first problem of `error` in one line: "<what> <key>: <why>, got <the key's value>"
    (the key's whole value; a problem inside it names where). `prefix`: the location of what
    was validated, when it is one key's value."""
    first = error.errors()[0]
    loc = (*prefix, *first["loc"])
    key = str(loc[0])
    if key not in values:
        return f"{what} {key}: missing"
    inner = _path(values[key], tuple(loc[1:]))
    # a validator's own message, without the "Value error, " pydantic puts before it
    msg = first["msg"].removeprefix("Value error, ")
    why = msg[:1].lower() + msg[1:]
    if first["type"] == "missing":
        why = "missing"
    at = f" (at {'.'.join(inner)})" if inner else ""
    return f"{what} {key}: {why}{at}, got {_shown(values[key])}".replace("\n", " ")


def score_values(
    metadata: Mapping[str, object],
    required: tuple[str, ...] = (),
    keys: tuple[str, ...] = REPORT_KEYS,
) -> ScoreMetadata | str:
    """A score's metadata as the report reads it (its `keys` validated), or why that case fails
    (one line)."""
    read = {
        key: metadata[key]
        for key in keys
        if key in metadata and not (key in LARGE_KEYS and metadata[key] == THINNED_VALUE)
    }
    try:
        values = ScoreMetadata.model_validate(read)
    except ValidationError as ex:
        return problem(ex, "score metadata", metadata)
    passes = PASSES_REQUIRED if (values.judge_passes or 1) > 1 else ()
    missing = [name for name in required + passes if name not in metadata]
    if missing:
        return f"score metadata {missing[0]}: missing"
    return values


def task_values(metadata: Mapping[str, object]) -> TaskValues | str:
    """A log's task metadata as the report reads it, or why the log is skipped (one line)."""
    try:
        return TaskValues.model_validate(dict(metadata))
    except ValidationError as ex:
        return problem(ex, "task metadata", metadata)


def task_arg_values(task_args: Mapping[str, object]) -> TaskArgValues | str:
    """A log's task arguments as the report reads them, or why the log is skipped."""
    try:
        return TaskArgValues.model_validate(dict(task_args))
    except ValidationError as ex:
        return problem(ex, "task argument", task_args)


# the token counts of Inspect's `ModelUsage` the report adds up (Inspect types them, but a
# negative count would pass its check and lower a cost)
USAGE_COUNTS: tuple[str, ...] = tuple(TokenCounts.model_fields)


def negative_usage(usage: Mapping[str, object], where: str) -> str | None:
    """Why token usage by model (`{model: ModelUsage}`) cannot be added up, or None."""
    for model, counts in usage.items():
        for name in USAGE_COUNTS:
            value = getattr(counts, name, None)
            if isinstance(value, int) and value < 0:
                return f"{where} usage of {model}: {name} must be >= 0, got {value}"
        cost = getattr(counts, "total_cost", None)
        if isinstance(cost, float | int) and not (math.isfinite(cost) and cost >= 0):
            return f"{where} usage of {model}: total_cost must be a finite USD >= 0, got {cost}"
    return None


class StoredRubricItem(BaseModel):
    """One of a sample's rubric items (`contracts.RubricItem`, as `SampleMetadata` stores
    them), read back strictly: `data export` takes its rows from them."""

    model_config = STRICT

    item_id: Text
    text: str
    points: int


_RUBRIC_ITEMS: TypeAdapter[list[StoredRubricItem]] = TypeAdapter(list[StoredRubricItem])


def rubric_items(listed: object) -> list[StoredRubricItem] | str:
    """A sample's stored rubric items, or why they cannot be used (one line)."""
    try:
        return _RUBRIC_ITEMS.validate_python(listed)
    except ValidationError as ex:
        return problem(ex, "sample metadata", {"rubric_items": listed}, prefix=("rubric_items",))
