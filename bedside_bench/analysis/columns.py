"""The suite's columns for Inspect's `samples_df` and `evals_df`.

Built with Inspect's public column API (`SampleColumn`, `EvalColumn`): each value is read from
the rubric judge's score or the log header by a function, so a log that lacks a key gives a
null, never an error. Every number is typed `float` and defaults to NaN: Inspect turns a column
whose values mix ints and floats into strings, and a column with no value at all into a string
column (a frame of points benchmarks alone would have no recall); typed and defaulted so,
`recall`, `precision`, `points_matched` and `points_available` are float columns with nulls in
every frame, whatever mix of grading methods and variants its logs hold.

The score read is the log's own judge's (`rubric_judge`); judges appended by `inspect score`
(`rubric_judge1`, ...) keep their own keys in Inspect's `score_*` columns.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
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
    score = own_score(sample)
    return score.value if score is not None else None


def _from_score(key: str) -> Callable[[Sample], Any]:
    def value(sample: Sample) -> Any:
        return score_metadata(sample).get(key)

    value.__name__ = f"score_metadata_{key}"
    return value


def _grading_method(sample: Sample) -> Any:
    return score_metadata(sample).get("grading_method") or (sample.metadata or {}).get(
        "grading_method"
    )


def _number(name: str, read: Callable[[Sample], Any]) -> SampleColumn:
    return SampleColumn(name, path=read, type=float, default=MISSING)


def _text(name: str, read: Callable[[Sample], Any]) -> SampleColumn:
    return SampleColumn(name, path=read, type=str)


def _task_metadata(key: str) -> Callable[[EvalLog], Any]:
    def value(log: EvalLog) -> Any:
        return (log.eval.metadata or {}).get(key)

    value.__name__ = f"task_metadata_{key}"
    return value


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
    _text("judge_model", _from_score("judge_model")),
    # how the answer ended (complete, truncated, filtered, refused, unknown) and why
    _text("answer_condition", _from_score("answer_condition")),
    _text("answer_stop_reason", _from_score("answer_stop_reason")),
    # f1_weighted_rubric cases (null for points cases; precision null when nothing matched)
    _number("recall", _from_score("recall")),
    _number("precision", _from_score("precision")),
    _number("severe_rate", _from_score("severe_rate")),
    # points_rubric cases (null for F1 cases): signed points matched over positive available
    _number("points_matched", _from_score("matched_signed_points")),
    _number("points_available", _from_score("available_positive_points")),
    # only with repeated judging (judge_passes > 1)
    _number("judge_agreement", _from_score("judge_agreement")),
    # why a case has no score (empty when it has one)
    SampleColumn("error", path="error", default=""),
]
"""Columns for `inspect_ai.analysis.samples_df`: one row per case and epoch."""

EVAL_COLUMNS: list[Column] = [
    EvalColumn("run_id", path="eval.run_id", required=True),
    EvalColumn("task_id", path="eval.task_id", required=True),
    EvalColumn("created", path="eval.created", type=datetime, required=True),
    EvalColumn("status", path="status", required=True),
    EvalColumn("model", path="eval.model", required=True),
    EvalColumn("benchmark", path=_benchmark),
    EvalColumn("grading_method", path=_task_metadata("grading_method"), type=str),
    EvalColumn("grading", path=_task_metadata("grading"), type=str),
    # the judge the run bound (the grader role, else the judge_model task argument)
    EvalColumn("judge_model", path=_judge, type=str),
    EvalColumn("judge_passes", path=_task_metadata("judge_passes"), type=int),
    EvalColumn("severe_gate", path=_task_metadata("severe_gate"), type=bool),
    EvalColumn("epochs", path="eval.config.epochs", type=int),
    EvalColumn("protocol_version", path=_task_metadata("protocol_version"), type=str),
    EvalColumn("dataset_sha256", path=_task_metadata("dataset_sha256"), type=str),
    EvalColumn("release", path=_task_metadata("release"), type=str),
    EvalColumn("smoke", path=_task_metadata("smoke"), type=bool),
    EvalColumn("total_samples", path="results.total_samples", type=int),
    EvalColumn("completed_samples", path="results.completed_samples", type=int),
]
"""Columns for `inspect_ai.analysis.evals_df`: one row per log (add Inspect's `EvalScores`
for its metrics)."""
