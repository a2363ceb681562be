"""The Inspect metrics and the epoch reducer (`scoring/metrics.py`) on hand-built scores: numbers by
hand, intervals against the plain numpy recomputation, kappa against its definition."""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import pytest
from inspect_ai.scorer import Metric, SampleScore, Score

from bedside_bench.scoring.metrics import bootstrap_ci95, case_mean, f1_diagnostics, judge_agreement
from tests.independent import fleiss_kappa
from tests.report_helpers import expected_interval


def compute(metric: Metric, scores: list[SampleScore]) -> dict[str, Any]:
    """What the metric gives for these scores (Inspect calls it the same way)."""
    return cast(dict[str, Any], cast(Any, metric)(scores))


def sample(value: float, sample_id: str = "x", **metadata: Any) -> SampleScore:
    return SampleScore(score=Score(value=value, metadata=metadata), sample_id=sample_id)


# --------------------------------------------------------------------------------------------
# bootstrap_ci95


def test_interval_is_the_percentile_bootstrap_of_the_case_scores() -> None:
    values = [0.0, 0.25, 0.5, 0.5, 1.0, 0.75, 0.125]
    scores = [sample(v, f"c{n}") for n, v in enumerate(values)]
    lo, hi = expected_interval(values, 500, 7)
    assert compute(bootstrap_ci95(resamples=500, seed=7), scores) == {"ci95_lo": lo, "ci95_hi": hi}
    lo, hi = expected_interval(values)  # the protocol's 10,000 resamples and seed 42
    assert compute(bootstrap_ci95(), scores) == {"ci95_lo": lo, "ci95_hi": hi}


def test_no_scores_no_interval() -> None:
    assert compute(bootstrap_ci95(), []) == {"ci95_lo": None, "ci95_hi": None}


# --------------------------------------------------------------------------------------------
# f1_diagnostics


def test_f1_diagnostics_average_the_cases_that_have_a_value() -> None:
    scores = [
        sample(0.5, "a", recall=0.5, precision=0.25, severe_rate=1),
        sample(0.0, "b", recall=0.0, precision=None, severe_rate=0),
        sample(0.9, "c", recall=1.0, precision=0.75, severe_rate=0),
        sample(0.3, "d", matched_signed_points=3),  # a points-rubric case has none of them
    ]
    assert compute(f1_diagnostics(), scores) == {
        "recall": 0.5,  # (0.5 + 0 + 1) / 3
        "precision": 0.5,  # (0.25 + 0.75) / 2: undefined precision is left out, not 0
        "severe_rate": 1 / 3,
    }


def test_points_rubrics_have_no_f1_diagnostics() -> None:
    scores = [sample(0.5, "a", matched_signed_points=1), sample(1.0, "b")]
    assert compute(f1_diagnostics(), scores) == {
        "recall": None,
        "precision": None,
        "severe_rate": None,
    }


# --------------------------------------------------------------------------------------------
# judge_agreement


def test_agreement_and_kappa_over_three_level_passes() -> None:
    # two cases, two passes each; categories NOT_MET, PARTIALLY_MET, MET
    one = [{"a": "MET", "b": "NOT_MET"}, {"a": "MET", "b": "PARTIALLY_MET"}]
    two = [{"c": "PARTIALLY_MET"}, {"c": "PARTIALLY_MET"}]
    scores = [
        sample(0.5, "1", judge_agreement=0.5, pass_decisions=one),
        sample(0.5, "2", judge_agreement=1.0, pass_decisions=two),
    ]
    # items a, b, c as rows of [NOT_MET, PARTIALLY_MET, MET] counts
    rows = [[0, 0, 2], [1, 1, 0], [0, 2, 0]]
    # by hand: P_i = 1, 0, 1 -> P-bar 2/3; p_j = 1/6, 1/2, 1/3 -> P_e = 14/36 = 7/18;
    # kappa = (12/18 - 7/18) / (11/18) = 5/11
    assert fleiss_kappa(rows) == pytest.approx(5 / 11, abs=1e-15)
    result = compute(judge_agreement(), scores)
    assert result["judge_agreement"] == 0.75
    assert result["judge_kappa"] == pytest.approx(5 / 11, abs=1e-12)


def test_no_agreement_without_repeated_passes() -> None:
    assert compute(judge_agreement(), [sample(0.5, judge_agreement=1.0)]) == {
        "judge_agreement": None,
        "judge_kappa": None,
    }
    passes = [{"a": True}, {"a": True}]
    assert compute(judge_agreement(), [sample(0.5, pass_decisions=passes)]) == {
        "judge_agreement": None,
        "judge_kappa": None,
    }


# --------------------------------------------------------------------------------------------
# case_mean: a case over its epochs


def test_one_epoch_is_inspects_mean_unchanged() -> None:
    score = Score(value=0.25, metadata={"recall": 0.5, "decisions": {"a": True}})
    reduced = case_mean()([score])
    assert reduced.value == 0.25
    assert reduced.metadata == {"recall": 0.5, "decisions": {"a": True}}


def test_epochs_are_averaged_with_their_diagnostics() -> None:
    first = Score(
        value=0.25,
        metadata={
            "grading_method": "f1_weighted_rubric",
            "recall": 0.5,
            "precision": None,
            "severe_rate": 1,
            "judge_agreement": 0.5,
            "decisions": {"a": True, "b": False},
            "pass_decisions": [{"a": True, "b": False}, {"a": True, "b": True}],
        },
    )
    second = Score(
        value=0.75,
        metadata={
            "grading_method": "f1_weighted_rubric",
            "recall": 1.0,
            "precision": 0.5,
            "severe_rate": 0,
            "judge_agreement": 1.0,
            "decisions": {"a": False, "b": False},
            "pass_decisions": [{"a": False, "b": False}, {"a": False, "b": False}],
        },
    )
    reduced = case_mean()([first, second])
    assert reduced.value == 0.5
    assert reduced.metadata == {
        "epochs": 2,
        "grading_method": "f1_weighted_rubric",
        "recall": 0.75,
        "precision": 0.5,  # epoch 1 has none: the mean of the epochs that have one
        "severe_rate": 0.5,
        "judge_agreement": 0.75,
        # pass k of every epoch as one pass over (epoch, item)
        "pass_decisions": [
            {"1:a": True, "1:b": False, "2:a": False, "2:b": False},
            {"1:a": True, "1:b": True, "2:a": False, "2:b": False},
        ],
    }


def test_epochs_without_repeated_passes_or_f1_keep_only_what_they_have() -> None:
    scores = [
        Score(value=1.0, metadata={"grading_method": "points_rubric"}),
        Score(value=0.0, metadata={"grading_method": "points_rubric"}),
        Score(value=0.5, metadata={"grading_method": "points_rubric"}),
    ]
    reduced = case_mean()(scores)
    assert reduced.value == 0.5
    assert reduced.metadata == {"epochs": 3, "grading_method": "points_rubric"}
    # one epoch without its passes: the case's passes cannot be lined up, so none are kept
    with_passes = Score(value=0.5, metadata={"pass_decisions": [{"a": True}, {"a": True}]})
    without = Score(value=0.5, metadata={})
    assert "pass_decisions" not in (case_mean()([with_passes, without]).metadata or {})


def test_epoch_passes_are_cut_to_the_fewest_passes() -> None:
    three = Score(value=0.0, metadata={"pass_decisions": [{"a": True}, {"a": False}, {"a": True}]})
    two = Score(value=1.0, metadata={"pass_decisions": [{"a": False}, {"a": True}]})
    reduced = case_mean()([three, two])
    assert (reduced.metadata or {})["pass_decisions"] == [
        {"1:a": True, "2:a": False},
        {"1:a": False, "2:a": True},
    ]
    assert float(np.mean([0.0, 1.0])) == reduced.value
