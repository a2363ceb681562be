"""Inspect metrics shown by `inspect eval` and `inspect view` beside mean and stderr."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from inspect_ai.scorer import Metric, SampleScore, metric

from bedside_bench.passes import category_counts
from bedside_bench.protocol import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED
from bedside_bench.stats import fleiss_kappa, percentile_bootstrap


def _metadata_values(scores: Sequence[SampleScore], key: str) -> list[float]:
    values = []
    for s in scores:
        value = (s.score.metadata or {}).get(key)
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
        for key in ("recall", "precision", "severe_rate"):
            values = _metadata_values(scores, key)
            result[key] = float(np.mean(values)) if values else None
        return result

    return compute


@metric
def judge_agreement() -> Metric:
    """With repeated judging: mean share of unanimous items, and Fleiss' kappa over items."""

    def compute(scores: list[SampleScore]) -> dict[str, float | None]:
        agreements = _metadata_values(scores, "judge_agreement")
        per_case = [
            [{k: str(v) for k, v in p.items()} for p in passes]
            for s in scores
            if (passes := (s.score.metadata or {}).get("pass_decisions"))
        ]
        if not agreements or not per_case:
            return {"judge_agreement": None, "judge_kappa": None}
        categories = sorted({v for passes in per_case for p in passes for v in p.values()})
        counts = np.concatenate([category_counts(passes, categories) for passes in per_case])
        return {
            "judge_agreement": float(np.mean(agreements)),
            "judge_kappa": fleiss_kappa(counts),
        }

    return compute
