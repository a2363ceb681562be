"""The suite's columns for Inspect's `samples_df` and `evals_df`.

Built with Inspect's public column API (`SampleColumn`, `EvalColumn`): each value is read from
the rubric judge's score or the log header by a function, so a log that lacks a key gives a
null, never an error. Every number is typed `float` and defaults to NaN: Inspect stores a
column with no value at all as strings, so with `samples_df(..., parallel=True)`, which reads
each log apart and concatenates, a points log's recall (or an F1 log's points) turned the
whole column into objects mixing numbers and strings. Typed and defaulted so, `score`,
`recall`, `precision`, `points_matched` and `points_available` are float columns with nulls in
every frame, whatever mix of grading methods and variants its logs hold. The value functions
are instances of module-level classes, which the parallel workers can unpickle.

The score read is the log's own judge's (`rubric_judge`); judges appended by `inspect score`
(`rubric_judge1`, ...) keep their own keys in Inspect's `score_*` columns.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from inspect_ai.analysis import Column, EvalColumn, SampleColumn
from inspect_ai.log import EvalLog, EvalSample, EvalSampleSummary
from inspect_ai.scorer import Score

from bedside_bench.core.contracts import APPENDED_SCORE_KEY, SCORE_KEY, SCORER_NAME
from bedside_bench.logs.read import benchmark_of, judge_of

# a missing number: Inspect's frames store it as null (pyarrow), and the column stays numeric
MISSING = math.nan

Sample = EvalSample | EvalSampleSummary


def own_score(sample: Sample) -> Score | None:
    """The score of the log's own judge: `rubric_judge` (with or without the package
    prefix), never one appended later."""
    scores = sample.scores or {}
    if SCORER_NAME in scores:
        return scores[SCORER_NAME]
    for key, score in scores.items():
        if SCORE_KEY.match(key) and not APPENDED_SCORE_KEY.match(key):
            return score
    return None


def score_metadata(sample: Sample) -> Mapping[str, Any]:
    score = own_score(sample)
    return (score.metadata or {}) if score is not None else {}


def _case_score(sample: Sample) -> Any:
    if getattr(sample, "invalidation", None) is not None:  # failed in the report (`_error`)
        return None
    score = own_score(sample)
    return score.value if score is not None else None


def _error(sample: Sample) -> str:
    """Why the case has no score: its error, or why it was invalidated (a reused answer to a
    case whose file changed since: `task/case_check.py`)."""
    if sample.error:  # an EvalError on the full sample, its message on a summary
        return str(getattr(sample.error, "message", sample.error))
    invalidation = getattr(sample, "invalidation", None)  # on the full sample only
    if invalidation is not None:
        return f"invalidated: {invalidation.reason or 'no reason given'}"
    return ""


@dataclass(frozen=True)
class ScoreField:
    """A key of the case's score metadata. A class, not a closure: `samples_df(...,
    parallel=True)` sends the columns to worker processes, which must unpickle them."""

    key: str

    def __call__(self, sample: Sample) -> Any:
        return score_metadata(sample).get(self.key)


def _grading_method(sample: Sample) -> Any:
    return score_metadata(sample).get("grading_method") or (sample.metadata or {}).get(
        "grading_method"
    )


def _number(name: str, read: Callable[[Sample], Any]) -> SampleColumn:
    return SampleColumn(name, path=read, type=float, default=MISSING)


def _text(name: str, read: Callable[[Sample], Any]) -> SampleColumn:
    return SampleColumn(name, path=read, type=str)


@dataclass(frozen=True)
class TaskField:
    """A key of the log's task metadata (a class for the reason `ScoreField` gives)."""

    key: str

    def __call__(self, log: EvalLog) -> Any:
        return (log.eval.metadata or {}).get(self.key)


def _benchmark(log: EvalLog) -> str | None:
    return benchmark_of(log)


def _judge(log: EvalLog) -> str:
    return judge_of(log)


SAMPLE_COLUMNS: list[Column] = [
    EvalColumn("model", path="eval.model", required=True),
    EvalColumn("benchmark", path=_benchmark),
    SampleColumn("case_id", path="id", required=True, type=str),
    SampleColumn("epoch", path="epoch", required=True, type=int),
    _text("grading_method", _grading_method),
    # the case's score (protocol section 3); null for a case that failed (not in any mean)
    _number("score", _case_score),
    # the judge that judged this case, as its score records it
    _text("judge_model", ScoreField("judge_model")),
    # how the answer ended (complete, truncated, filtered, refused, unknown) and why
    _text("answer_condition", ScoreField("answer_condition")),
    _text("answer_stop_reason", ScoreField("answer_stop_reason")),
    # f1_weighted_rubric cases (null for points cases; precision null when nothing matched)
    _number("recall", ScoreField("recall")),
    _number("precision", ScoreField("precision")),
    _number("severe_rate", ScoreField("severe_rate")),
    # points_rubric cases (null for F1 cases): signed points matched over positive available
    _number("points_matched", ScoreField("matched_signed_points")),
    _number("points_available", ScoreField("available_positive_points")),
    # only with repeated judging (judge_passes > 1)
    _number("judge_agreement", ScoreField("judge_agreement")),
    # why a case has no score (empty when it has one): its error, or its invalidation
    # (read from the full sample: a summary does not carry the invalidation)
    SampleColumn("error", path=_error, type=str, default="", full=True),
]
"""Columns for `inspect_ai.analysis.samples_df`: one row per case and epoch."""

EVAL_COLUMNS: list[Column] = [
    EvalColumn("run_id", path="eval.run_id", required=True),
    EvalColumn("task_id", path="eval.task_id", required=True),
    EvalColumn("created", path="eval.created", type=datetime, required=True),
    EvalColumn("status", path="status", required=True),
    EvalColumn("model", path="eval.model", required=True),
    EvalColumn("benchmark", path=_benchmark),
    EvalColumn("grading_method", path=TaskField("grading_method"), type=str),
    EvalColumn("grading", path=TaskField("grading"), type=str),
    # the judge the run bound (the grader role, else the judge_model task argument)
    EvalColumn("judge_model", path=_judge, type=str),
    EvalColumn("judge_passes", path=TaskField("judge_passes"), type=int),
    EvalColumn("severe_gate", path=TaskField("severe_gate"), type=bool),
    EvalColumn("epochs", path="eval.config.epochs", type=int),
    EvalColumn("protocol_version", path=TaskField("protocol_version"), type=str),
    EvalColumn("dataset_sha256", path=TaskField("dataset_sha256"), type=str),
    EvalColumn("release", path=TaskField("release"), type=str),
    EvalColumn("smoke", path=TaskField("smoke"), type=bool),
    EvalColumn("total_samples", path="results.total_samples", type=int),
    EvalColumn("completed_samples", path="results.completed_samples", type=int),
]
"""Columns for `inspect_ai.analysis.evals_df`: one row per log (add Inspect's `EvalScores`
for its metrics)."""
