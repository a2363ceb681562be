"""One headline (`report/reducers.py`): Inspect's number is kept beside the protocol's mean
only when another epoch reducer makes it differ, from the newest log of the benchmark; which of
Inspect's numbers its headline shows is read with Inspect's own `headline_metric`
(`logs/read.py` `inspect_means`), and the report's top says so."""

from __future__ import annotations

from inspect_ai.log import EvalMetric, EvalResults, EvalScore, HeadlineMetric

from bedside_bench.documents.summary import InspectScore
from bedside_bench.logs.read import inspect_means
from bedside_bench.logs.records import InspectMean
from bedside_bench.report.groups import group_records
from bedside_bench.report.reducers import inspect_scores, reducer_warnings
from bedside_bench.report.summary import BootstrapOptions, summarise
from tests.log_factory import eval_log
from tests.report_helpers import log_record

CASES = {"c1": 0.25, "c2": 0.75}  # mean 0.5
T1, T2 = "2026-01-01T00:00:00+00:00", "2026-01-02T00:00:00+00:00"
OPTIONS = BootstrapOptions(resamples=100)


def mean_of(reducer: str, value: float, headline: bool = False) -> InspectMean:
    return InspectMean("rubric_judge", reducer, value, headline)


def scores(*means: InspectMean) -> list[InspectScore]:
    (group,) = group_records([log_record(CASES, inspect_means=means)])
    return inspect_scores(group, "drug_safety", 0.5)


def test_a_mean_reducer_is_the_protocol_s_number() -> None:
    assert scores(mean_of("case_mean", 0.5, True)) == []
    assert scores(mean_of("mean", 0.5, True)) == []
    assert scores(mean_of("", 0.5, True)) == []
    # one epoch: max over it is the score itself, the same number
    assert scores(mean_of("max", 0.5 + 1e-12, True)) == []


def test_another_reducer_with_another_number_is_kept() -> None:
    kept = scores(mean_of("mean", 0.5, True), mean_of("max", 0.75))
    assert kept == [InspectScore(reducer="max", mean=0.75, headline=False)]
    # an appended judge's scores (`rubric_judge1`) are not this record's
    assert scores(InspectMean("rubric_judge1", "max", 0.75, True)) == []


def test_the_headline_mark_is_kept_with_each_score() -> None:
    kept = scores(mean_of("max", 0.75, True), mean_of("median", 0.625))
    assert kept == [
        InspectScore(reducer="max", mean=0.75, headline=True),
        InspectScore(reducer="median", mean=0.625, headline=False),
    ]


def test_the_newest_log_of_the_benchmark_says_it() -> None:
    """A retry's log holds every case: its number is the one Inspect shows last."""
    old = log_record(CASES, inspect_means=(mean_of("max", 0.9, True),), started_at=T1)
    new = log_record(CASES, inspect_means=(mean_of("max", 0.75, True),), started_at=T2)
    (group,) = group_records([new, old])
    assert inspect_scores(group, "drug_safety", 0.5) == [
        InspectScore(reducer="max", mean=0.75, headline=True)
    ]


def test_the_summary_writes_it_only_when_it_differs() -> None:
    plain = summarise(group_records([log_record(CASES)])[0], OPTIONS).as_json()
    assert "inspect_scores" not in plain["benchmarks"]["drug_safety"]
    record = log_record(CASES, inspect_means=(mean_of("median", 0.6, True),))
    summary = summarise(group_records([record])[0], OPTIONS).as_json()
    assert summary["benchmarks"]["drug_safety"]["inspect_scores"] == [
        {"reducer": "median", "mean": 0.6, "headline": True}
    ]


def test_the_top_names_the_headline_and_the_logs_other_scores_apart() -> None:
    means = (mean_of("max", 0.75, True), mean_of("median", 0.625), mean_of("mean", 0.5))
    summary = summarise(group_records([log_record(CASES, inspect_means=means)])[0], OPTIONS)
    assert reducer_warnings(summary) == [
        "drug_safety: two numbers: Inspect's log, `inspect view` and `evals_df` say 0.750 "
        "(epoch reducer `max`); this report says 0.500, the protocol's mean over epochs and "
        "cases, which the ranking and every interval use.",
        "drug_safety: two numbers: Inspect's log also holds 0.625 (epoch reducer `median`, not "
        "the headline `inspect view` and `evals_df` show); this report says 0.500, the "
        "protocol's mean over epochs and cases, which the ranking and every interval use.",
    ]


# --------------------------------------------------------------------------------------------
# which of a log's scores Inspect's headline shows


def score(reducer: str, value: float, scorer: str = "rubric_judge") -> EvalScore:
    return EvalScore(
        name=scorer,
        scorer=scorer,
        reducer=reducer,
        metrics={
            "mean": EvalMetric(name="mean", value=value),
            "stderr": EvalMetric(name="stderr", value=0.01),
        },
    )


def means_of(
    *results: EvalScore,
    resolved: HeadlineMetric | None = None,
    declared: HeadlineMetric | None = None,
) -> tuple[InspectMean, ...]:
    log = eval_log([])
    log.results = EvalResults(scores=list(results), headline=resolved)
    log.eval.headline_metric = declared
    return inspect_means(log)


def test_with_nothing_declared_the_headline_is_the_first_scores_mean() -> None:
    """Inspect's convention (a log written before headlines were recorded, too): the first
    metric of the first score; the tasks' scorer lists `mean` first."""
    assert means_of(score("max", 0.75), score("median", 0.625)) == (
        InspectMean("rubric_judge", "max", 0.75, True),
        InspectMean("rubric_judge", "median", 0.625, False),
    )


def test_the_headline_inspect_resolved_when_scoring_is_the_one_marked() -> None:
    resolved = HeadlineMetric(scorer="rubric_judge", metric="mean", reducer="median")
    assert means_of(score("max", 0.75), score("median", 0.625), resolved=resolved) == (
        InspectMean("rubric_judge", "max", 0.75, False),
        InspectMean("rubric_judge", "median", 0.625, True),
    )


def test_a_task_declared_headline_is_read_when_none_was_resolved() -> None:
    declared = HeadlineMetric(reducer="median")
    assert means_of(score("max", 0.75), score("median", 0.625), declared=declared) == (
        InspectMean("rubric_judge", "max", 0.75, False),
        InspectMean("rubric_judge", "median", 0.625, True),
    )


def test_a_headline_on_another_metric_marks_no_mean() -> None:
    """The headline is a score's stderr (or another scorer's metric): no mean is the number
    Inspect shows, so none is marked."""
    stderr = HeadlineMetric(scorer="rubric_judge", metric="stderr", reducer="max")
    assert [m.headline for m in means_of(score("max", 0.75), resolved=stderr)] == [False]
    other = HeadlineMetric(scorer="match", metric="mean")
    found = means_of(score("", 0.9, "match"), score("max", 0.75), resolved=other)
    assert found == (
        InspectMean("match", "", 0.9, True),
        InspectMean("rubric_judge", "max", 0.75, False),
    )


def test_a_log_without_results_has_no_means() -> None:
    log = eval_log([])
    log.results = None
    assert inspect_means(log) == ()
