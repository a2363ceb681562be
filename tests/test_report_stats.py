"""Known-answer tests of the report's numbers on hand-built records (no logs, no I/O).

Expected intervals are recomputed here with plain numpy (`tests.report_helpers`), never with
`bedside_bench.stats`, and compared bit for bit.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pytest

from bedside_bench.benchmarks import BENCHMARK_NAMES, BENCHMARKS_BY_NAME
from bedside_bench.report.comparison import ComparisonRefused, compare, paired_differences
from bedside_bench.report.groups import RunGroup, group_labels, group_records
from bedside_bench.report.records import CaseRecord, LogRecord
from bedside_bench.report.summary import BootstrapOptions, judge_kappa, summarise
from tests.independent import fleiss_kappa
from tests.report_helpers import expected_interval, expected_stratified

DIGEST = "a" * 64
OPTIONS = BootstrapOptions()
SMALL = BootstrapOptions(resamples=500, seed=7)


def case(case_id: str, score: float | None, **extra: Any) -> CaseRecord:
    return CaseRecord(
        case_id=case_id, score=score, error=None if score is not None else "boom", **extra
    )


def log(
    benchmark: str,
    scores: Mapping[str, float | None],
    model: str = "test/a",
    started_at: str = "2026-01-01T00:00:00+00:00",
    **fields: Any,
) -> LogRecord:
    return LogRecord(
        location=f"mem://{model}/{benchmark}/{started_at}",
        benchmark=benchmark,
        answer_model=model,
        judge_model=fields.pop("judge_model", "test/judge"),
        dataset_sha256=fields.pop("dataset_sha256", DIGEST),
        started_at=started_at,
        completed_at=started_at,
        task_id=f"{model}-{benchmark}",
        sample_ids=tuple(scores),
        dataset_samples=fields.pop("dataset_samples", len(scores)),
        cases={k: case(k, v) for k, v in scores.items()},
        **fields,
    )


def scores_for(benchmark: str, n: int, offset: float = 0.0) -> dict[str, float]:
    """Deterministic varied scores in [0, 1]; ids in a fixed (non-sorted) order."""
    rng = np.random.default_rng(zlib.crc32(benchmark.encode()))
    values = np.clip(rng.random(n) + offset, 0, 1)
    return {f"{benchmark}-{(7 * i) % n:03d}": float(v) for i, v in enumerate(values)}


def full_group(n: int = 25, model: str = "test/a", offset: float = 0.0) -> RunGroup:
    records = [log(b, scores_for(b, n, offset), model=model) for b in BENCHMARK_NAMES]
    (group,) = group_records(records)
    return group


def values(group: RunGroup, benchmark: str) -> list[float]:
    return group.benchmarks[benchmark].scores


# --------------------------------------------------------------------------------------------
# benchmark and overall numbers


def test_benchmark_means_and_intervals_equal_numpy_recomputation() -> None:
    group = full_group()
    summary = summarise(group, OPTIONS)
    for name in BENCHMARK_NAMES:
        scores = list(scores_for(name, 25).values())
        entry = summary["benchmarks"][name]
        assert entry["n"] == 25 and entry["failed"] == 0
        assert entry["mean"] == float(np.mean(scores))
        assert entry["ci95"] == expected_interval(scores)
    strata = [list(scores_for(b, 25).values()) for b in BENCHMARK_NAMES]
    assert summary["overall"] == {
        "mean": float(np.mean([np.mean(s) for s in strata])),
        "ci95": expected_stratified(strata),
        "n": 250,
    }


def test_constant_scores_give_a_zero_width_interval() -> None:
    records = [log(b, {f"{b}-{i}": 0.5 for i in range(4)}) for b in BENCHMARK_NAMES]
    summary = summarise(group_records(records)[0], OPTIONS)
    assert summary["benchmarks"]["drug_safety"]["ci95"] == [0.5, 0.5]
    assert summary["overall"] == {"mean": 0.5, "ci95": [0.5, 0.5], "n": 40}


def test_overall_is_the_macro_average_not_the_pooled_mean() -> None:
    # one benchmark has 1 case at 1.0, the others 3 cases at 0.0: macro 0.1, pooled 1/28
    records = [log(b, {f"{b}-{i}": 0.0 for i in range(3)}) for b in BENCHMARK_NAMES[1:]]
    records.append(log(BENCHMARK_NAMES[0], {"only": 1.0}))
    summary = summarise(group_records(records)[0], OPTIONS)
    assert summary["overall"]["mean"] == pytest.approx(0.1, abs=1e-15)
    assert summary["overall"]["n"] == 28


def test_each_benchmark_uses_a_fresh_generator_and_the_overall_one_shared_generator() -> None:
    # identical scores in every benchmark: per-benchmark intervals are identical (fresh rng per
    # benchmark); the overall interval comes from one generator and is much narrower
    same = [0.0, 0.25, 0.5, 1.0, 1.0, 0.75, 0.1, 0.9]
    records = [log(b, {f"{b}-{i}": v for i, v in enumerate(same)}) for b in BENCHMARK_NAMES]
    summary = summarise(group_records(records)[0], SMALL)
    intervals = {tuple(summary["benchmarks"][b]["ci95"]) for b in BENCHMARK_NAMES}
    assert intervals == {tuple(expected_interval(same, 500, 7))}
    overall = summary["overall"]["ci95"]
    assert overall == expected_stratified([same] * 10, 500, 7)
    # not what ten fresh generators would give (those would be ten identical draws)
    assert overall != expected_interval(same, 500, 7)
    width = overall[1] - overall[0]
    bench_width = (
        summary["benchmarks"]["drug_safety"]["ci95"][1]
        - summary["benchmarks"]["drug_safety"]["ci95"][0]
    )
    assert width < bench_width / 2


def test_benchmark_order_of_logs_does_not_change_the_overall_interval() -> None:
    records = [log(b, scores_for(b, 6)) for b in BENCHMARK_NAMES]
    a = summarise(group_records(records)[0], SMALL)
    b = summarise(group_records(list(reversed(records)))[0], SMALL)
    assert a["overall"] == b["overall"]


def test_resamples_and_seed_options_are_used_and_recorded() -> None:
    group = full_group(n=5)
    summary = summarise(group, SMALL)
    assert summary["bootstrap"] == {
        "resamples": 500,
        "seed": 7,
        "method": "percentile",
        "overall": "stratified",
    }
    scores = values(group, "landmark_trials")
    assert summary["benchmarks"]["landmark_trials"]["ci95"] == expected_interval(scores, 500, 7)


def test_failed_cases_are_left_out_not_zero() -> None:
    records = [log(b, scores_for(b, 5)) for b in BENCHMARK_NAMES[1:]]
    records.append(log("drug_safety", {"x1": 0.9, "x2": None, "x3": 0.7}))
    summary = summarise(group_records(records)[0], OPTIONS)
    entry = summary["benchmarks"]["drug_safety"]
    assert (entry["n"], entry["failed"]) == (2, 1)
    assert entry["mean"] == float(np.mean([0.9, 0.7]))
    assert entry["ci95"] == expected_interval([0.9, 0.7])
    assert summary["cases_failed"] == 1 and summary["complete"] is False
    assert summary["overall"] is not None  # all ten benchmarks have completed cases
    assert any(n.startswith("incomplete: 1 case") for n in summary["notes"])


def test_missing_benchmark_gives_no_overall_and_is_listed() -> None:
    records = [log(b, scores_for(b, 5)) for b in BENCHMARK_NAMES if b != "health_equity"]
    summary = summarise(group_records(records)[0], OPTIONS)
    assert summary["overall"] is None
    assert summary["missing_benchmarks"] == ["health_equity"]
    assert "health_equity" not in summary["benchmarks"]
    assert list(summary["benchmarks"]) == [b for b in BENCHMARK_NAMES if b != "health_equity"]
    assert summary["complete"] is False


def test_benchmark_with_every_case_failed_has_null_mean() -> None:
    records = [log(b, scores_for(b, 3)) for b in BENCHMARK_NAMES[1:]]
    records.append(log("drug_safety", {"x": None}))
    summary = summarise(group_records(records)[0], OPTIONS)
    assert summary["benchmarks"]["drug_safety"] == {
        "grading_method": "points_rubric",
        "n": 0,
        "failed": 1,
        "mean": None,
        "ci95": None,
    }
    assert summary["overall"] is None


def test_public_split_note_and_key_order() -> None:
    summary = summarise(full_group(n=25), OPTIONS)
    assert summary["notes"][0] == (
        "public split: n = 25 per benchmark; not comparable with 50-case results"
    )
    assert list(summary)[:21] == [
        "protocol_version",
        "answer_model",
        "judge_model",
        "judge_passes_per_answer",
        "answer_temperature",
        "judge_temperature",
        "dataset_sha256",
        "data_source",
        "cases_completed",
        "cases_failed",
        "complete",
        "benchmarks",
        "overall",
        "missing_benchmarks",
        "bootstrap",
        "logs",
        "started_at",
        "finished_at",
        "notes",
        "usage",
        "cost",
    ]


def test_f1_diagnostics_are_means_over_cases_with_a_value() -> None:
    cases = {
        "c1": case("c1", 0.5, recall=0.5, precision=0.5, severe_rate=1.0),
        "c2": case("c2", 0.0, recall=0.0, precision=None, severe_rate=0.0),
        "c3": case("c3", 0.8, recall=1.0, precision=0.6, severe_rate=0.0),
    }
    records = [log(b, scores_for(b, 3)) for b in BENCHMARK_NAMES if b != "safety_diagnostic"]
    records.append(
        LogRecord(
            location="mem://sd",
            benchmark="safety_diagnostic",
            answer_model="test/a",
            judge_model="test/judge",
            dataset_sha256=DIGEST,
            sample_ids=tuple(cases),
            cases=cases,
            task_id="sd",
        )
    )
    summary = summarise(group_records(records)[0], OPTIONS)
    entry = summary["benchmarks"]["safety_diagnostic"]
    assert entry["mean_recall"] == float(np.mean([0.5, 0.0, 1.0]))
    assert entry["mean_precision"] == float(np.mean([0.5, 0.6]))
    assert entry["severe_rate"] == float(np.mean([1.0, 0.0, 0.0]))
    assert "mean_recall" not in summary["benchmarks"]["drug_safety"]
    assert BENCHMARKS_BY_NAME["safety_diagnostic"].grading_method == entry["grading_method"]


def test_temperatures_single_value_or_distinct_values_with_a_note() -> None:
    records = [log(b, {}) for b in BENCHMARK_NAMES]
    same = {
        f"c{i}": case(f"c{i}", 0.5, answer_temperature=1.0, judge_temperature=0.0) for i in range(3)
    }
    mixed = {
        "m1": case("m1", 0.5, answer_temperature=1.0, judge_temperature=None),
        "m2": case("m2", 0.5, answer_temperature=None, judge_temperature=None),
    }
    records[0] = LogRecord(
        location="mem://1",
        benchmark="drug_safety",
        answer_model="test/a",
        judge_model="test/judge",
        dataset_sha256=DIGEST,
        sample_ids=tuple(same),
        cases=same,
    )
    summary = summarise(group_records(records[:1])[0], OPTIONS)
    assert (summary["answer_temperature"], summary["judge_temperature"]) == (1.0, 0.0)
    records[0] = LogRecord(
        location="mem://1",
        benchmark="drug_safety",
        answer_model="test/a",
        judge_model="test/judge",
        dataset_sha256=DIGEST,
        sample_ids=tuple(mixed),
        cases=mixed,
    )
    summary = summarise(group_records(records[:1])[0], OPTIONS)
    assert summary["answer_temperature"] == [1.0, None]
    assert summary["judge_temperature"] is None
    assert any(n.startswith("answer_temperature differs") for n in summary["notes"])


# --------------------------------------------------------------------------------------------
# repeated judging


def fleiss_by_hand(items: Sequence[Sequence[bool]]) -> float:
    """Fleiss' kappa of matched/unmatched decisions, by the definition."""
    return fleiss_kappa([[sum(it), len(it) - sum(it)] for it in items])


def test_judge_agreement_and_kappa_only_with_several_passes() -> None:
    passes_1 = (
        {"i1": True, "i2": False, "i3": True},
        {"i1": True, "i2": True, "i3": True},
        {"i1": True, "i2": False, "i3": False},
    )
    passes_2 = ({"j1": False, "j2": False}, {"j1": False, "j2": True}, {"j1": False, "j2": False})
    cases = {
        "c1": case("c1", 0.6, judge_agreement=1 / 3, pass_decisions=passes_1),
        "c2": case("c2", 0.1, judge_agreement=0.5, pass_decisions=passes_2),
    }
    record = LogRecord(
        location="mem://p",
        benchmark="drug_safety",
        answer_model="test/a",
        judge_model="test/judge",
        dataset_sha256=DIGEST,
        judge_passes=3,
        sample_ids=tuple(cases),
        cases=cases,
    )
    summary = summarise(group_records([record])[0], OPTIONS)
    entry = summary["benchmarks"]["drug_safety"]
    assert summary["judge_passes_per_answer"] == 3
    assert entry["judge_agreement"] == float(np.mean([1 / 3, 0.5]))
    items = [
        [True, True, True],
        [False, True, False],
        [True, True, False],
        [False, False, False],
        [False, True, False],
    ]
    assert entry["judge_kappa"] == pytest.approx(fleiss_by_hand(items), abs=1e-12)
    single = summarise(full_group(n=3), OPTIONS)["benchmarks"]["drug_safety"]
    assert "judge_agreement" not in single and "judge_kappa" not in single


def test_kappa_is_null_without_per_pass_decisions() -> None:
    assert judge_kappa([case("c", 0.5, pass_decisions=None)]) is None
    assert judge_kappa([case("c", 0.5, pass_decisions=({"i": True}, {"j": True}))]) is None


# --------------------------------------------------------------------------------------------
# paired comparisons


def test_paired_differences_use_only_cases_both_completed_in_dataset_order() -> None:
    a = log("drug_safety", {"c3": 0.9, "c1": 0.5, "c2": 0.4, "c4": None})
    b = log("drug_safety", {"c3": 0.2, "c1": None, "c2": 0.4, "c4": 0.1}, model="test/b")
    ga, gb = group_records([a, b])
    diffs = paired_differences(ga.benchmarks["drug_safety"], gb.benchmarks["drug_safety"])
    assert diffs.tolist() == [0.9 - 0.2, 0.4 - 0.4]


def test_comparison_numbers_equal_numpy_recomputation() -> None:
    ga, gb = full_group(n=10), full_group(n=10, model="test/b", offset=-0.1)
    groups = [ga, gb]
    labels = group_labels(groups)
    summaries = [summarise(g, SMALL) for g in groups]
    result = compare(groups, labels, summaries, ["a.json", "b.json"], SMALL)
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
            "excludes_zero": lo > 0 or hi < 0,
            "verdict_withheld": None,
        }
        assert (
            result["benchmarks"][name]["models"]["test/a"]["mean"]
            == summaries[0]["benchmarks"][name]["mean"]
        )
    (overall,) = result["overall"]["pairs"]
    lo, hi = expected_stratified(strata, 500, 7)
    assert overall["ci95"] == [lo, hi]
    assert overall["difference"] == float(np.mean([np.mean(s) for s in strata]))
    assert overall["n"] == 100
    assert overall["excludes_zero"] is True  # b is uniformly lower where not clipped


def test_a_constant_shift_is_recovered_exactly() -> None:
    base = {f"c{i}": 0.2 + 0.05 * i for i in range(6)}
    shifted = {k: v - 0.125 for k, v in base.items()}
    records = [log(b, base) for b in BENCHMARK_NAMES]
    records += [log(b, shifted, model="test/b") for b in BENCHMARK_NAMES]
    groups = group_records(records)
    summaries = [summarise(g, SMALL) for g in groups]
    result = compare(groups, group_labels(groups), summaries, ["a", "b"], SMALL)
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
    ],
)
def test_refuses_to_compare_unlike_groups_and_names_the_field(field: str, value: Any) -> None:
    a = [log(b, scores_for(b, 3)) for b in BENCHMARK_NAMES]
    b = [log(b, scores_for(b, 3), model="test/b", **{field: value}) for b in BENCHMARK_NAMES]
    groups = group_records(a + b)
    labels = group_labels(groups)
    summaries = [summarise(g, SMALL) for g in groups]
    with pytest.raises(ComparisonRefused) as refused:
        compare(groups, labels, summaries, ["a", "b"], SMALL)
    assert f"{field} differs" in str(refused.value)
    assert "--force" in str(refused.value)
    forced = compare(groups, labels, summaries, ["a", "b"], SMALL, force=True)
    assert forced["like_for_like"] is False
    assert [m["field"] for m in forced["mismatches"]] == [field]
