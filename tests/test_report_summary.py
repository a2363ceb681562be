"""Known-answer tests of one run group's summary (`report/summary.py`) on hand-built records
(no logs, no I/O).

Expected intervals are recomputed here with plain numpy (`tests.report_helpers`), never with
`bedside_bench.scoring.stats`, and compared bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from bedside_bench.core.benchmarks import BENCHMARK_NAMES, BENCHMARKS_BY_NAME
from bedside_bench.judging.failures import judge_failed_message
from bedside_bench.report.groups import RunGroup, group_records
from bedside_bench.report.summary import BootstrapOptions, judge_kappa, summarise
from tests.independent import fleiss_kappa
from tests.report_helpers import (
    case_record,
    expected_interval,
    expected_stratified,
    full_group,
    log_record,
    scores_for,
)

OPTIONS = BootstrapOptions()
SMALL = BootstrapOptions(resamples=500, seed=7)


def values(group: RunGroup, benchmark: str) -> list[float]:
    return group.benchmarks[benchmark].scores


# --------------------------------------------------------------------------------------------
# benchmark and overall numbers


def test_benchmark_means_and_intervals_equal_numpy_recomputation() -> None:
    group = full_group()
    summary = summarise(group, OPTIONS).as_json()
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
    records = [
        log_record({f"{b}-{i}": 0.5 for i in range(4)}, benchmark=b) for b in BENCHMARK_NAMES
    ]
    summary = summarise(group_records(records)[0], OPTIONS).as_json()
    assert summary["benchmarks"]["drug_safety"]["ci95"] == [0.5, 0.5]
    assert summary["overall"] == {"mean": 0.5, "ci95": [0.5, 0.5], "n": 40}


def test_overall_is_the_macro_average_not_the_pooled_mean() -> None:
    # one benchmark has 1 case at 1.0, the others 3 cases at 0.0: macro 0.1, pooled 1/28
    records = [
        log_record({f"{b}-{i}": 0.0 for i in range(3)}, benchmark=b) for b in BENCHMARK_NAMES[1:]
    ]
    records.append(log_record({"only": 1.0}, benchmark=BENCHMARK_NAMES[0]))
    summary = summarise(group_records(records)[0], OPTIONS).as_json()
    assert summary["overall"]["mean"] == pytest.approx(0.1, abs=1e-15)
    assert summary["overall"]["n"] == 28


def test_each_benchmark_uses_a_fresh_generator_and_the_overall_one_shared_generator() -> None:
    # identical scores in every benchmark: per-benchmark intervals are identical (fresh rng per
    # benchmark); the overall interval comes from one generator and is much narrower
    same = [0.0, 0.25, 0.5, 1.0, 1.0, 0.75, 0.1, 0.9]
    records = [
        log_record({f"{b}-{i}": v for i, v in enumerate(same)}, benchmark=b)
        for b in BENCHMARK_NAMES
    ]
    summary = summarise(group_records(records)[0], SMALL).as_json()
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
    records = [log_record(scores_for(b, 6), benchmark=b) for b in BENCHMARK_NAMES]
    a = summarise(group_records(records)[0], SMALL).as_json()
    b = summarise(group_records(list(reversed(records)))[0], SMALL).as_json()
    assert a["overall"] == b["overall"]


def test_resamples_and_seed_options_are_used_and_recorded() -> None:
    group = full_group(n=5)
    summary = summarise(group, SMALL).as_json()
    assert summary["bootstrap"] == {
        "resamples": 500,
        "seed": 7,
        "method": "percentile",
        "overall": "stratified",
    }
    scores = values(group, "landmark_trials")
    assert summary["benchmarks"]["landmark_trials"]["ci95"] == expected_interval(scores, 500, 7)


def test_failed_cases_are_left_out_not_zero() -> None:
    records = [log_record(scores_for(b, 5), benchmark=b) for b in BENCHMARK_NAMES[1:]]
    records.append(log_record({"x1": 0.9, "x2": None, "x3": 0.7}, benchmark="drug_safety"))
    summary = summarise(group_records(records)[0], OPTIONS).as_json()
    entry = summary["benchmarks"]["drug_safety"]
    assert (entry["n"], entry["failed"]) == (2, 1)
    assert entry["mean"] == float(np.mean([0.9, 0.7]))
    assert entry["ci95"] == expected_interval([0.9, 0.7])
    assert summary["cases_failed"] == 1 and summary["complete"] is False
    assert summary["overall"] is not None  # all ten benchmarks have completed cases
    assert (
        "incomplete: 1 case(s) have no successful score (drug_safety 1); they are left out of "
        "the means, not scored 0; redo them with `inspect eval-retry`"
    ) in summary["notes"]


def test_missing_benchmark_gives_no_overall_and_is_listed() -> None:
    records = [
        log_record(scores_for(b, 5), benchmark=b) for b in BENCHMARK_NAMES if b != "health_equity"
    ]
    summary = summarise(group_records(records)[0], OPTIONS).as_json()
    assert summary["overall"] is None
    assert summary["missing_benchmarks"] == ["health_equity"]
    assert "health_equity" not in summary["benchmarks"]
    assert list(summary["benchmarks"]) == [b for b in BENCHMARK_NAMES if b != "health_equity"]
    assert summary["complete"] is False


def test_benchmark_with_every_case_failed_has_null_mean() -> None:
    records = [log_record(scores_for(b, 3), benchmark=b) for b in BENCHMARK_NAMES[1:]]
    records.append(log_record({"x": None}, benchmark="drug_safety"))
    summary = summarise(group_records(records)[0], OPTIONS).as_json()
    assert summary["benchmarks"]["drug_safety"] == {
        "grading_method": "points_rubric",
        "n": 0,
        "failed": 1,
        "mean": None,
        "ci95": None,
        "answer_conditions": {
            "truncated": 0,
            "filtered": 0,
            "refused": 0,
            "unknown": 0,
            "not_recorded": 0,
        },
        "answers_without_text": {
            "total": 0,
            "complete": 0,
            "truncated": 0,
            "filtered": 0,
            "refused": 0,
            "unknown": 0,
        },
        "failed_no_answer": 0,
    }
    assert summary["overall"] is None


def test_public_split_note_and_key_order() -> None:
    summary = summarise(full_group(n=25), OPTIONS).as_json()
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
        "c1": case_record("c1", 0.5, recall=0.5, precision=0.5, severe_rate=1.0),
        "c2": case_record("c2", 0.0, recall=0.0, precision=None, severe_rate=0.0),
        "c3": case_record("c3", 0.8, recall=1.0, precision=0.6, severe_rate=0.0),
    }
    records = [
        log_record(scores_for(b, 3), benchmark=b)
        for b in BENCHMARK_NAMES
        if b != "safety_diagnostic"
    ]
    records.append(log_record(cases, benchmark="safety_diagnostic", task_id="sd"))
    summary = summarise(group_records(records)[0], OPTIONS).as_json()
    entry = summary["benchmarks"]["safety_diagnostic"]
    assert entry["mean_recall"] == float(np.mean([0.5, 0.0, 1.0]))
    assert entry["mean_precision"] == float(np.mean([0.5, 0.6]))
    assert entry["severe_rate"] == float(np.mean([1.0, 0.0, 0.0]))
    assert "mean_recall" not in summary["benchmarks"]["drug_safety"]
    assert BENCHMARKS_BY_NAME["safety_diagnostic"].grading_method == entry["grading_method"]


def test_temperatures_single_value_or_distinct_values_with_a_note() -> None:
    same = {
        f"c{i}": case_record(f"c{i}", 0.5, answer_temperature=1.0, judge_temperature=0.0)
        for i in range(3)
    }
    mixed = {
        "m1": case_record("m1", 0.5, answer_temperature=1.0, judge_temperature=None),
        "m2": case_record("m2", 0.5, answer_temperature=None, judge_temperature=None),
    }
    summary = summarise(group_records([log_record(same)])[0], OPTIONS).as_json()
    assert (summary["answer_temperature"], summary["judge_temperature"]) == (1.0, 0.0)
    summary = summarise(group_records([log_record(mixed)])[0], OPTIONS).as_json()
    assert summary["answer_temperature"] == [1.0, None]
    assert summary["judge_temperature"] is None
    assert "answer_temperature differs between cases: [1.0, None]" in summary["notes"]
    assert not any(n.startswith("judge_temperature") for n in summary["notes"])


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
        "c1": case_record("c1", 0.6, judge_agreement=1 / 3, pass_decisions=passes_1),
        "c2": case_record("c2", 0.1, judge_agreement=0.5, pass_decisions=passes_2),
    }
    record = log_record(cases, judge_passes=3)
    summary = summarise(group_records([record])[0], OPTIONS).as_json()
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
    single = summarise(full_group(n=3), OPTIONS).as_json()["benchmarks"]["drug_safety"]
    assert "judge_agreement" not in single and "judge_kappa" not in single


def test_answers_without_text_are_in_the_mean_counted_and_left_out_of_the_judge_figures() -> None:
    """An answer without text scores (0) in the mean and is counted, but no judge was asked
    about it: the judge's agreement, kappa and temperature are the judged answers' alone."""
    passes = ({"i1": True, "i2": False}, {"i1": True, "i2": True}, {"i1": False, "i2": False})
    cases = {
        "c1": case_record(
            "c1", 0.6, judge_agreement=0.0, pass_decisions=passes, judge_temperature=0.0
        ),
        "c2": case_record(
            "c2", 0.0, answer_empty=True, answer_condition="truncated", pass_scores=(0.0,) * 3
        ),
        "c3": case_record("c3", 0.0, answer_empty=True, answer_condition="refused"),
    }
    summary = summarise(group_records([log_record(cases, judge_passes=3)])[0], OPTIONS).as_json()
    entry = summary["benchmarks"]["drug_safety"]
    assert (entry["n"], entry["failed"], entry["mean"]) == (3, 0, 0.6 / 3)
    assert entry["answers_without_text"] == {
        "total": 2,
        "complete": 0,
        "truncated": 1,
        "filtered": 0,
        "refused": 1,
        "unknown": 0,
    }
    assert entry["answer_conditions"]["truncated"] == entry["answer_conditions"]["refused"] == 0
    assert entry["judge_agreement"] == 0.0
    assert entry["judge_kappa"] == pytest.approx(
        fleiss_by_hand([[True, True, False], [False, True, False]]), abs=1e-12
    )
    assert summary["judge_temperature"] == 0.0
    assert not any("judge_temperature differs" in note for note in summary["notes"])
    assert (
        "drug_safety: 2 answer(s) had no text (1 truncated, 1 refused): the model's answers "
        "under the run's settings, scored as answers that state nothing (no rubric item "
        "matched) and counted in the mean; no judge was asked"
    ) in summary["notes"]


def test_kappa_is_null_without_per_pass_decisions() -> None:
    assert judge_kappa([case_record("c", 0.5, pass_decisions=None)]) is None
    assert judge_kappa([case_record("c", 0.5, pass_decisions=({"i": True}, {"j": True}))]) is None


def test_cases_rescored_by_another_scorer_get_their_own_advice() -> None:
    """A case whose scores another scorer replaced is failed for the means, but the advice is
    to re-score it: `inspect eval-retry` does not redo a case without an error."""
    from bedside_bench.report.groups import group_records
    from bedside_bench.report.summary import completeness_notes

    foreign = "scored by `match`, not by this suite's judge"
    cases = {
        "c0": case_record("c0", 0.5),
        "c1": case_record("c1", None, error=foreign),
        "c2": case_record("c2", None, error="judge failed"),
    }
    (group,) = group_records([log_record(cases)])
    (note, *_) = completeness_notes(group)
    assert note == (
        "incomplete: 2 case(s) have no successful score (drug_safety 2); they are left out of "
        "the means, not scored 0; 1 of them were scored by another scorer, not by this suite's "
        "judge: re-score those with `inspect score LOG --scorer bedside_bench/rubric_judge` or "
        "`bedside-bench rejudge` (`inspect eval-retry` does not redo a case without an error); "
        "redo the others with `inspect eval-retry`"
    )


def test_a_judge_that_failed_is_named_with_how_often_and_the_cheap_way_on() -> None:
    judge_failed = judge_failed_message("test/judge", 3, "attempt 1: not JSON")
    records = [log_record(scores_for(b, 5), benchmark=b) for b in BENCHMARK_NAMES[1:]]
    cases = {
        "x1": 0.9,
        "x2": case_record("x2", None, error=f"JudgeFailedError({judge_failed!r})"),
        "x3": case_record("x3", None, error=judge_failed),
        "x4": case_record("x4", None, error="RateLimitError: 429"),
    }
    newest = {"location": "/runs/sweep/drug_safety.eval", "started_at": "2030-01-01T00:00:00+00:00"}
    records.append(log_record(cases, benchmark="drug_safety", **newest))
    summary = summarise(group_records(records)[0], OPTIONS).as_json()
    assert summary["cases_failed"] == 3
    assert (
        "the judge test/judge gave no valid reply for 2 cases (asked 3 times per try); the "
        "answers are stored, so judge them with another judge at no answer cost: "
        "`bedside-bench rejudge --failed-only --judge OTHER_JUDGE /runs/sweep`"
    ) in summary["notes"]
    assert sum("gave no valid reply" in note for note in summary["notes"]) == 1
