"""Inspect metrics shown by `inspect eval` and `inspect view` beside mean and stderr, and the
reducer that turns a case's epochs into the one score the metrics see."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, get_args

import numpy as np
from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    ScoreReducer,
    mean_score,
    metric,
    score_reducer,
)

from bedside_bench.core.contracts import Decision
from bedside_bench.core.protocol import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED
from bedside_bench.core.score_metadata import ScoreMetadata
from bedside_bench.scoring.agreement import pooled_kappa
from bedside_bench.scoring.stats import percentile_bootstrap

# per-case diagnostics that the metrics average over cases (and the reducer over epochs)
MeanKey = Literal["recall", "precision", "severe_rate", "judge_agreement"]
EPOCH_MEAN_KEYS: tuple[MeanKey, ...] = get_args(MeanKey)


def _metadata(score: Score) -> Mapping[str, Any]:
    """A rubric-judge score's metadata as it is: the scores this run's scorer wrote (built as
    `ScoreMetadata`) and, in a retried run, the scores Inspect reused from the earlier log, which
    an earlier version wrote. A value that is not what the metric takes is passed over, as an
    absent one is, rather than failing every metric of the run at its end."""
    return score.metadata or {}


def _metadata_values(scores: Sequence[SampleScore], key: MeanKey) -> list[float]:
    values = []
    for s in scores:
        value = _metadata(s.score).get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            values.append(float(value))
    return values


@metric
def bootstrap_ci95(resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED) -> Metric:
    """95% percentile bootstrap interval of the mean case score (protocol section 4)."""

    def compute(scores: list[SampleScore]) -> dict[str, float | None]:
        values = np.array([s.score.as_float() for s in scores], dtype=float)
        if values.size == 0:
            return {"ci95_lo": None, "ci95_hi": None}
        interval = percentile_bootstrap(values, resamples=resamples, seed=seed)
        return {"ci95_lo": interval.lo, "ci95_hi": interval.hi}

    return compute


@metric
def f1_diagnostics() -> Metric:
    """Mean recall, precision (over cases where it is defined) and severe_rate on F1 rubrics."""

    def compute(scores: list[SampleScore]) -> dict[str, float | None]:
        result: dict[str, float | None] = {}
        keys: tuple[MeanKey, ...] = ("recall", "precision", "severe_rate")
        for key in keys:
            values = _metadata_values(scores, key)
            result[key] = float(np.mean(values)) if values else None
        return result

    return compute


@metric
def judge_agreement() -> Metric:
    """With repeated judging: mean share of unanimous items, and Fleiss' kappa over items."""

    def compute(scores: list[SampleScore]) -> dict[str, float | None]:
        agreements = _metadata_values(scores, "judge_agreement")
        per_case = [passes for s in scores if (passes := _metadata(s.score).get("pass_decisions"))]
        if not agreements or not per_case:
            return {"judge_agreement": None, "judge_kappa": None}
        return {
            "judge_agreement": float(np.mean(agreements)),
            "judge_kappa": pooled_kappa(per_case),
        }

    return compute


def _mean_defined(values: list[Any]) -> float | None:
    numbers = [float(v) for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
    return float(np.mean(numbers)) if numbers else None


def _epoch_pass_decisions(scores: Sequence[Score]) -> list[dict[str, Decision]] | None:
    """Pass k of every epoch as one pass over (epoch, item) pairs: kappa then counts every
    epoch's items once, not only the first epoch's."""
    per_epoch: list[list[dict[str, Decision]]] = []
    for score in scores:
        passes = _metadata(score).get("pass_decisions")
        if not passes:
            return None
        per_epoch.append(passes)
    n_passes = min(len(passes) for passes in per_epoch)
    return [
        {
            f"{epoch}:{item}": value
            for epoch, passes in enumerate(per_epoch, start=1)
            for item, value in passes[k].items()
        }
        for k in range(n_passes)
    ]


@score_reducer(name="case_mean")
def case_mean() -> ScoreReducer:
    """A case's score over its epochs: Inspect's mean, with the diagnostics averaged too.

    Inspect's own reducers keep the first epoch's metadata, so with `--epochs` the F1
    diagnostics and judge agreement would describe epoch 1 only while the mean covers all.
    Epoch-specific details (decisions, attempts) stay on each epoch's sample score.
    """
    mean = mean_score()

    def reduce(scores: list[Score]) -> Score:
        reduced = mean(scores)
        if len(scores) == 1:
            return reduced
        fields: dict[str, Any] = {"epochs": len(scores)}
        first = _metadata(scores[0])
        if "grading_method" in first:
            fields["grading_method"] = first["grading_method"]
        each = [_metadata(s) for s in scores]
        for key in EPOCH_MEAN_KEYS:
            if any(key in m for m in each):
                fields[key] = _mean_defined([m.get(key) for m in each])
        passes = _epoch_pass_decisions(scores)
        if passes is not None:
            fields["pass_decisions"] = passes
        logged = ScoreMetadata(**fields).logged()
        # in the order given, as logs have held it (not the model's field order)
        return reduced.model_copy(update={"metadata": {key: logged[key] for key in fields}})

    return reduce
