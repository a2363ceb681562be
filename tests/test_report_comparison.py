"""Paired comparisons of run groups (`report/comparison.py`) on hand-built records, against a
plain numpy recomputation (`tests.report_helpers`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.report.comparison import ComparisonRefused, compare, paired_differences
from bedside_bench.report.groups import group_labels, group_records
from bedside_bench.report.summary import BootstrapOptions, summarise
from tests.report_helpers import (
    expected_cases_needed,
    expected_interval,
    expected_stratified,
    full_group,
    log_record,
    scores_for,
)

SMALL = BootstrapOptions(resamples=500, seed=7)


def test_paired_differences_use_only_cases_both_completed_in_dataset_order() -> None:
    a = log_record({"c3": 0.9, "c1": 0.5, "c2": 0.4, "c4": None}, benchmark="drug_safety")
    b = log_record(
        {"c3": 0.2, "c1": None, "c2": 0.4, "c4": 0.1},
        benchmark="drug_safety",
        answer_model="test/b",
    )
    ga, gb = group_records([a, b])
    diffs = paired_differences(ga.benchmarks["drug_safety"], gb.benchmarks["drug_safety"])
    assert diffs.tolist() == [0.9 - 0.2, 0.4 - 0.4]


def test_comparison_numbers_equal_numpy_recomputation() -> None:
    ga, gb = full_group(n=10), full_group(n=10, model="test/b", offset=-0.1)
    groups = [ga, gb]
    labels = group_labels(groups)
    summaries = [summarise(g, SMALL) for g in groups]
    result = compare(groups, labels, summaries, ["a.json", "b.json"], SMALL).model_dump()
    assert result["like_for_like"] is True and result["mismatches"] == []
    strata = []
    for name in BENCHMARK_NAMES:
        sa, sb = ga.benchmarks[name].by_case(), gb.benchmarks[name].by_case()
        diffs = [sa[i].score - sb[i].score for i in ga.benchmarks[name].case_ids]  # type: ignore[operator]
        strata.append(diffs)
        (pair,) = result["benchmarks"][name]["pairs"]
        lo, hi = expected_interval(diffs, 500, 7)
        assert pair == {
            "a": "test/a",
            "b": "test/b",
            "n": 10,
            "difference": float(np.mean(diffs)),
            "ci95": [lo, hi],
            # one judge pass, one epoch: nothing varies within a case
            "ci95_cases_and_judge": None,
            "ci95_cases_and_epochs": None,
            "cases_needed_for_80_power": expected_cases_needed([diffs]),
            "excludes_zero": lo > 0 or hi < 0,
            "verdict_withheld": None,
        }
        assert (
            result["benchmarks"][name]["models"]["test/a"]["mean"]
            == summaries[0].benchmarks[name].mean
        )
    (overall,) = result["overall"]["pairs"]
    lo, hi = expected_stratified(strata, 500, 7)
    assert overall["ci95"] == [lo, hi]
    assert overall["difference"] == float(np.mean([np.mean(s) for s in strata]))
    assert overall["n"] == 100
    assert overall["excludes_zero"] is True  # b is uniformly lower where not clipped
    assert overall["cases_needed_for_80_power"] == expected_cases_needed(strata)


def test_a_constant_shift_is_recovered_exactly() -> None:
    base = {f"c{i}": 0.2 + 0.05 * i for i in range(6)}
    shifted = {k: v - 0.125 for k, v in base.items()}
    records = [log_record(base, benchmark=b) for b in BENCHMARK_NAMES]
    records += [log_record(shifted, benchmark=b, answer_model="test/b") for b in BENCHMARK_NAMES]
    groups = group_records(records)
    summaries = [summarise(g, SMALL) for g in groups]
    result = compare(groups, group_labels(groups), summaries, ["a", "b"], SMALL).model_dump()
    pair = result["benchmarks"]["health_equity"]["pairs"][0]
    assert pair["difference"] == pytest.approx(0.125, abs=1e-15)
    assert pair["ci95"] == pytest.approx([0.125, 0.125], abs=1e-15)
    # six paired cases: the interval is shown, the verdict is not
    assert pair["excludes_zero"] is None
    assert pair["verdict_withheld"] == "fewer than 10 paired cases (n=6)"
    (overall,) = result["overall"]["pairs"]
    assert overall["n"] == 60 and overall["excludes_zero"] is True
    assert overall["verdict_withheld"] is None


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("dataset_sha256", "b" * 64),
        ("judge_model", "test/other-judge"),
        ("protocol_version", "bedside-bench-three-level-v0"),
        ("severe_gate", True),
        ("judge_passes", 3),
        ("grading", "three_level"),
        ("generation", {"max_tokens": 300}),
    ],
)
def test_refuses_to_compare_unlike_groups_and_names_the_field(field: str, value: Any) -> None:
    a = [log_record(scores_for(b, 3), benchmark=b) for b in BENCHMARK_NAMES]
    b = [
        log_record(scores_for(b, 3), benchmark=b, answer_model="test/b", **{field: value})
        for b in BENCHMARK_NAMES
    ]
    groups = group_records(a + b)
    labels = group_labels(groups)
    summaries = [summarise(g, SMALL) for g in groups]
    with pytest.raises(ComparisonRefused) as refused:
        compare(groups, labels, summaries, ["a", "b"], SMALL)
    assert f"{field} differs" in str(refused.value)
    assert "--force" in str(refused.value)
    forced = compare(groups, labels, summaries, ["a", "b"], SMALL, force=True)
    assert forced.like_for_like is False
    assert [m.field for m in forced.mismatches] == [field]
