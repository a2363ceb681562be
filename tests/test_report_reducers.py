"""One headline (`report/reducers.py`): Inspect's number is kept beside the protocol's mean
only when another epoch reducer makes it differ, from the newest log of the benchmark."""

from __future__ import annotations

from bedside_bench.documents.summary import InspectScore
from bedside_bench.report.groups import group_records
from bedside_bench.report.reducers import inspect_scores
from bedside_bench.report.summary import BootstrapOptions, summarise
from tests.report_helpers import log_record

CASES = {"c1": 0.25, "c2": 0.75}  # mean 0.5
T1, T2 = "2026-01-01T00:00:00+00:00", "2026-01-02T00:00:00+00:00"


def scores(*means: tuple[str, str, float]) -> list[InspectScore]:
    (group,) = group_records([log_record(CASES, inspect_means=means)])
    return inspect_scores(group, "drug_safety", 0.5)


def test_a_mean_reducer_is_the_protocol_s_number() -> None:
    assert scores(("rubric_judge", "case_mean", 0.5)) == []
    assert scores(("rubric_judge", "mean", 0.5)) == []
    assert scores(("rubric_judge", "", 0.5)) == []
    # one epoch: max over it is the score itself, the same number
    assert scores(("rubric_judge", "max", 0.5 + 1e-12)) == []


def test_another_reducer_with_another_number_is_kept() -> None:
    kept = scores(("rubric_judge", "mean", 0.5), ("rubric_judge", "max", 0.75))
    assert kept == [InspectScore(reducer="max", mean=0.75)]
    # an appended judge's scores (`rubric_judge1`) are not this record's
    assert scores(("rubric_judge1", "max", 0.75)) == []


def test_the_newest_log_of_the_benchmark_says_it() -> None:
    """A retry's log holds every case: its number is the one Inspect shows last."""
    old = log_record(CASES, inspect_means=(("rubric_judge", "max", 0.9),), started_at=T1)
    new = log_record(CASES, inspect_means=(("rubric_judge", "max", 0.75),), started_at=T2)
    (group,) = group_records([new, old])
    assert inspect_scores(group, "drug_safety", 0.5) == [InspectScore(reducer="max", mean=0.75)]


def test_the_summary_writes_it_only_when_it_differs() -> None:
    options = BootstrapOptions(resamples=100)
    plain = summarise(group_records([log_record(CASES)])[0], options).as_json()
    assert "inspect_scores" not in plain["benchmarks"]["drug_safety"]
    record = log_record(CASES, inspect_means=(("rubric_judge", "median", 0.6),))
    summary = summarise(group_records([record])[0], options).as_json()
    assert summary["benchmarks"]["drug_safety"]["inspect_scores"] == [
        {"reducer": "median", "mean": 0.6}
    ]
