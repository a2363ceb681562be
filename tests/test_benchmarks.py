"""The benchmark table (`core/benchmarks.py`): the ten names in the release's registry order
(dataset_notes.md) with their grading methods (grading_protocol.md: the two safety benchmarks
are F1-weighted); an unknown name is refused by name."""

from __future__ import annotations

import pytest

from bedside_bench.core.benchmarks import BENCHMARK_NAMES, BENCHMARKS_BY_NAME, get_benchmark

REGISTRY = (
    "drug_safety",
    "guideline_adherence",
    "landmark_trials",
    "medical_hallucination",
    "health_equity",
    "clinical_calculations",
    "calculators_numerical",
    "calculators_conditional",
    "safety_diagnostic",
    "safety_therapeutic",
)


def test_ten_benchmarks_in_registry_order_with_their_grading_method() -> None:
    assert BENCHMARK_NAMES == REGISTRY
    methods = {name: BENCHMARKS_BY_NAME[name].grading_method for name in REGISTRY}
    assert methods == {
        **dict.fromkeys(REGISTRY[:8], "points_rubric"),
        "safety_diagnostic": "f1_weighted_rubric",
        "safety_therapeutic": "f1_weighted_rubric",
    }
    assert all(BENCHMARKS_BY_NAME[name].scope for name in REGISTRY)


def test_unknown_benchmark_is_refused_naming_the_known_ones() -> None:
    assert get_benchmark("health_equity") is BENCHMARKS_BY_NAME["health_equity"]
    with pytest.raises(ValueError) as refused:
        get_benchmark("drug-safety")
    assert str(refused.value) == (
        f"unknown benchmark 'drug-safety'; expected one of: {', '.join(REGISTRY)}"
    )
