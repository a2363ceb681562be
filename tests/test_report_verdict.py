"""The ranking and its verdict (`report/standing.py`, `report/comparison.py`,
`report/document.py`), which answer counts when runs overlap (`report/answers.py`), and the
forest plot on the exact interval that used to crash it; on hand-built records, against a plain
numpy recomputation (`tests.report_helpers`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pytest

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.documents.summary import OverallScore
from bedside_bench.logs.records import LogRecord
from bedside_bench.report.answers import answered_again
from bedside_bench.report.comparison import verdict_positions
from bedside_bench.report.document import verdict_lines
from bedside_bench.report.groups import group_records
from bedside_bench.report.plot import forest_png, matplotlib_available
from bedside_bench.report.render import terminal_table, to_markdown
from bedside_bench.report.run import Analysis, analyse
from bedside_bench.report.sections import report_blocks
from bedside_bench.report.summary import BootstrapOptions
from tests.report_helpers import (
    cases_needed_text,
    context_of,
    expected_cases_needed,
    expected_stratified,
    log_record,
    run_summary,
    scores_for,
)

SMALL = BootstrapOptions(resamples=400, seed=7)


def model_records(
    model: str, scores: Mapping[str, Mapping[str, float | None]], **fields: Any
) -> list[LogRecord]:
    """One log per benchmark of `scores` ({benchmark: {case: score}})."""
    return [
        log_record(cases, benchmark=name, answer_model=model, task_id=f"{model}-{name}", **fields)
        for name, cases in scores.items()
    ]


def shifted(n: int, offset: float) -> dict[str, dict[str, float | None]]:
    return {b: dict(scores_for(b, n, offset)) for b in BENCHMARK_NAMES}


def smoke(model: str, score: float) -> list[LogRecord]:
    """A smoke run: one case per benchmark (the first case of `shifted`), all scoring `score`."""
    return model_records(
        model,
        {b: {next(iter(scores_for(b, 12))): score} for b in BENCHMARK_NAMES},
        smoke=True,
        dataset_samples=1,
    )


def written(analysis: Analysis) -> dict[str, Any]:
    """comparison.json as the report writes it."""
    assert analysis.comparison is not None
    return analysis.comparison.model_dump(mode="json")


def pair_strata(
    higher: Mapping[str, Mapping[str, float | None]],
    lower: Mapping[str, Mapping[str, float | None]],
) -> list[list[float]]:
    """Per benchmark, higher minus lower on the cases both completed."""
    strata = []
    for name in BENCHMARK_NAMES:
        h, lo = higher[name], lower[name]
        strata.append(
            [
                h[i] - lo[i]  # type: ignore[operator]
                for i in h
                if h[i] is not None and lo.get(i) is not None
            ]
        )
    return strata


def expected_pair(
    higher: Mapping[str, Mapping[str, float | None]],
    lower: Mapping[str, Mapping[str, float | None]],
    options: BootstrapOptions = SMALL,
) -> tuple[float, list[float], int]:
    """Macro-averaged difference, stratified interval and n on the cases both completed."""
    strata = pair_strata(higher, lower)
    difference = float(np.mean([np.mean(s) for s in strata]))
    return (
        difference,
        expected_stratified(strata, options.resamples, options.seed),
        sum(len(s) for s in strata),
    )


def word(ci: Sequence[float]) -> str:
    return "ahead" if ci[0] > 0 else "behind" if ci[1] < 0 else "not distinguishable"


# --------------------------------------------------------------------------------------------
# like with like


def test_a_smoke_run_beside_two_full_runs_is_listed_unranked() -> None:
    a, b = shifted(12, 0.0), shifted(12, -0.15)
    records = [
        *model_records("test/a", a),
        *model_records("test/b", b),
        *smoke("test/smoke", 1.0),  # the best overall score, on ten cases
    ]
    analysis = analyse(records, SMALL)
    labels = analysis.labels
    assert analysis.refused is None
    assert [labels[i] for i in analysis.standing.ranked] == ["test/a", "test/b"]
    ((i, why),) = analysis.standing.unranked
    assert labels[i] == "test/smoke"
    assert why == "smoke run: a set-up check, never ranked with full runs"
    # the smoke run is not compared with the full runs either (no refusal for "smoke differs")
    comparison = written(analysis)
    assert [m["label"] for m in comparison["models"]] == ["test/a", "test/b"]

    difference, ci, n = expected_pair(a, b)
    assert comparison["verdicts"] == [
        {
            "higher": "test/a",
            "lower": "test/b",
            "n": n,
            "difference": difference,
            "ci95": ci,
            "ci95_cases_and_judge": None,
            "ci95_cases_and_epochs": None,
            "cases_needed_for_80_power": expected_cases_needed(pair_strata(a, b)),
            "excludes_zero": ci[0] > 0 or ci[1] < 0,
            "verdict": word(ci),
            "verdict_withheld": None,
        }
    ]
    assert n == 120 and word(ci) == "ahead"

    context = context_of(analysis)
    line = (
        f"test/a minus test/b: {difference:+.3f} [{ci[0]:+.3f}, {ci[1]:+.3f}] on 120 paired "
        "cases: test/a is ahead"
    )
    assert verdict_lines(context) == [line]
    table = terminal_table(analysis.summaries, labels, (), context).splitlines()
    rank_rows = [row for row in table if row[:2] in ("1 ", "2 ", "3 ")]
    assert [row.split()[1] for row in rank_rows] == ["test/a", "test/b"]
    assert table.index(f"  {line}") > table.index(rank_rows[-1])
    smoke_row = next(row for row in table if row.startswith("test/smoke "))
    assert "1.000 [1.000, 1.000]" in smoke_row and "smoke, 10 of an unrecorded number" in smoke_row
    assert (
        table.index(f"  {line}")
        < table.index(smoke_row)
        < table.index(next(row for row in table if row.startswith("benchmark ")))
    )
    markdown = to_markdown(report_blocks(context))
    assert markdown.index("| 2 | test/b |") < markdown.index("## Verdict")
    assert markdown.index("## Verdict") < markdown.index("| test/smoke |")
    assert markdown.index("| test/smoke |") < markdown.index("## Benchmark scores")
    assert "| 3 |" not in markdown


def test_smoke_and_partial_runs_alone_are_not_ranked_and_get_no_verdict() -> None:
    limited = {b: dict(list(scores_for(b, 12).items())[:2]) for b in BENCHMARK_NAMES}
    records = [
        *smoke("test/smoke", 0.5),
        *model_records("test/limited", limited, dataset_samples=12, limit="2"),
    ]
    analysis = analyse(records, SMALL)
    assert analysis.standing.ranked == ()
    whys = dict(analysis.standing.unranked)
    assert sorted(whys.values()) == [
        "partial run: not every case ran, never ranked with full runs",
        "smoke run: a set-up check, never ranked with full runs",
    ]
    context = context_of(analysis)
    assert verdict_lines(context) == ["no verdict: no full run (smoke and partial runs carry none)"]
    table = terminal_table(analysis.summaries, analysis.labels, (), context)
    assert "No full run to rank" in table
    assert not any(row.startswith("1 ") for row in table.splitlines())


def test_one_full_run_beside_a_smoke_run_is_ranked_alone_and_nothing_is_refused() -> None:
    analysis = analyse([*model_records("test/a", shifted(3, 0)), *smoke("test/s", 0.9)], SMALL)
    assert analysis.refused is None and analysis.comparison is None
    assert [analysis.labels[i] for i in analysis.standing.ranked] == ["test/a"]
    assert verdict_lines(context_of(analysis)) == [
        "no verdict: one full run, nothing to compare it with"
    ]


def test_full_runs_not_like_for_like_are_not_ranked() -> None:
    records = [
        *model_records("test/a", shifted(3, 0)),
        *model_records("test/b", shifted(3, 0), protocol_version="other-v9"),
    ]
    analysis = analyse(records, SMALL)
    assert analysis.refused is not None and analysis.standing.ranked == ()
    assert {why for _, why in analysis.standing.unranked} == {
        "full runs not like for like (see Pairwise differences)"
    }
    assert verdict_lines(context_of(analysis)) == [
        "no verdict: the runs are not like for like (see Pairwise differences)"
    ]


# --------------------------------------------------------------------------------------------
# the verdict


def test_which_pairs_get_a_verdict() -> None:
    assert verdict_positions(1) == []
    assert verdict_positions(2) == [(0, 1)]
    assert verdict_positions(4) == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    # beyond four: the leader against each, then each against the next
    assert verdict_positions(6) == [
        *[(0, 1), (0, 2), (0, 3), (0, 4), (0, 5)],
        *[(1, 2), (2, 3), (3, 4), (4, 5)],
    ]


def wobble(scores: Mapping[str, Mapping[str, float | None]], size: float) -> dict[str, Any]:
    """The same scores, alternately raised and lowered by `size` (a model tied with them)."""
    return {
        b: {
            case: min(1.0, max(0.0, v + (size if k % 2 else -size)))  # type: ignore[operator]
            for k, (case, v) in enumerate(cases.items())
        }
        for b, cases in scores.items()
    }


def test_three_models_say_which_are_tied_with_the_leader() -> None:
    a = shifted(12, 0.0)
    scores = {"test/a": a, "test/b": wobble(a, 0.02), "test/c": shifted(12, -0.3)}
    records = [r for model, s in scores.items() for r in model_records(model, s)]
    analysis = analyse(records, SMALL)
    order = [analysis.labels[i] for i in analysis.standing.ranked]
    means = {
        m: np.mean([np.mean(list(s[b].values())) for b in BENCHMARK_NAMES])
        for m, s in scores.items()
    }
    assert order == sorted(scores, key=lambda m: -means[m])
    verdicts = written(analysis)["verdicts"]
    assert [(v["higher"], v["lower"]) for v in verdicts] == [
        (order[0], order[1]),
        (order[0], order[2]),
        (order[1], order[2]),
    ]
    for v in verdicts:
        difference, ci, n = expected_pair(scores[v["higher"]], scores[v["lower"]])
        assert (v["difference"], v["ci95"], v["n"]) == (difference, ci, n)
        assert v["verdict"] == word(ci)
    words = {(v["higher"], v["lower"]): v["verdict"] for v in verdicts}
    leader = order[0]
    tied = [m for m in order[1:] if words[(leader, m)] == "not distinguishable"]
    assert tied == [order[1]] and words[(leader, order[2])] == "ahead"  # the scenario holds
    lines = verdict_lines(context_of(analysis))
    assert len(lines) == 4
    assert lines[-1] == f"statistically tied with the leader {leader}: {order[1]}"
    difference, ci, _ = expected_pair(scores[order[0]], scores[order[1]])
    needed = expected_cases_needed(pair_strata(scores[order[0]], scores[order[1]]))
    assert needed is not None and needed > 2 * 120  # a tie always needs over twice its cases
    assert verdicts[0]["cases_needed_for_80_power"] == needed
    assert lines[0] == (
        f"{order[0]} minus {order[1]}: {difference:+.3f} [{ci[0]:+.3f}, {ci[1]:+.3f}]: "
        f"not distinguishable on these 120 cases{cases_needed_text(needed, 120)}"
    )


def test_the_higher_ranked_model_can_be_behind_on_the_cases_both_completed() -> None:
    """A skips (fails) the cases B scores 0 on: A's mean is higher, yet on the cases both
    completed A scores less: the verdict says so rather than hiding it."""
    a = {b: {f"{b}-{i}": (0.9 if i < 10 else None) for i in range(20)} for b in BENCHMARK_NAMES}
    b_ = {b: {f"{b}-{i}": (0.95 if i < 10 else 0.0) for i in range(20)} for b in BENCHMARK_NAMES}
    analysis = analyse([*model_records("test/a", a), *model_records("test/b", b_)], SMALL)
    assert [analysis.labels[i] for i in analysis.standing.ranked] == ["test/a", "test/b"]
    (v,) = written(analysis)["verdicts"]
    difference, ci, n = expected_pair(a, b_)
    assert (v["difference"], v["ci95"], v["n"], v["verdict"]) == (difference, ci, 100, "behind")
    (line,) = verdict_lines(context_of(analysis))
    assert line == (
        f"test/a minus test/b: {difference:+.3f} [{ci[0]:+.3f}, {ci[1]:+.3f}] on 100 paired "
        "cases: test/a is behind on the cases both completed"
    )


def test_two_models_scoring_the_same_say_no_number_of_cases_tells_them_apart() -> None:
    same = shifted(12, 0.0)
    analysis = analyse([*model_records("test/a", same), *model_records("test/b", same)], SMALL)
    (v,) = written(analysis)["verdicts"]
    assert (v["difference"], v["ci95"], v["cases_needed_for_80_power"]) == (0.0, [0.0, 0.0], None)
    (line,) = verdict_lines(context_of(analysis))
    assert line == (
        f"{v['higher']} minus {v['lower']}: +0.000 [+0.000, +0.000]: not distinguishable on "
        f"these 120 cases{cases_needed_text(None, 120, 0.0)}"
    )
    assert line.endswith("; they score the same on them, a difference no number of cases detects")


def test_no_case_both_completed_gives_no_verdict() -> None:
    a = {b: {f"{b}-0": 0.5, f"{b}-1": None, f"{b}-2": 0.7} for b in BENCHMARK_NAMES}
    b_ = {b: {f"{b}-0": None, f"{b}-1": 0.5, f"{b}-2": 0.1} for b in BENCHMARK_NAMES}
    a["drug_safety"]["drug_safety-2"] = None  # drug_safety: A completed 0, B 1 and 2
    analysis = analyse([*model_records("test/a", a), *model_records("test/b", b_)], SMALL)
    (v,) = written(analysis)["verdicts"]
    assert (v["verdict"], v["ci95"]) == (None, None)
    assert v["verdict_withheld"] == "no drug_safety case both completed"
    (line,) = verdict_lines(context_of(analysis))
    assert line == (
        f"{v['higher']} minus {v['lower']}: no verdict (no drug_safety case both completed)"
    )


# --------------------------------------------------------------------------------------------
# which answer counts


def test_a_case_answered_in_two_runs_counts_once_and_the_notes_say_which() -> None:
    sweep = log_record(
        {"c1": 0.2, "c2": 0.4, "c3": None},
        location="logs/sweep-drug_safety.eval",
        task_id="sweep",
        started_at="2026-01-01T00:00:00+00:00",
    )
    retry = log_record(  # eval-retry: the same task id, the earlier answers carried along
        {"c1": 0.2, "c2": 0.4, "c3": 0.6},
        location="logs/retry-drug_safety.eval",
        task_id="sweep",
        started_at="2026-01-01T01:00:00+00:00",
    )
    separate = log_record(  # a separate `inspect eval bedside_bench/drug_safety`
        {"c1": 1.0, "c2": None, "c3": 0.0},
        location="logs/separate-drug_safety.eval",
        task_id="separate",
        started_at="2026-01-02T00:00:00+00:00",
    )
    (group,) = group_records([sweep, retry, separate])
    counted = {c.case_id: c.score for c in group.benchmarks["drug_safety"].completed}
    assert counted == {"c1": 1.0, "c2": 0.4, "c3": 0.0}
    assert answered_again(group) == [
        "drug_safety: 2 case(s) were answered in more than one run of this group (separate "
        "runs with the same model, judge and settings); each counts once, with its newest "
        "successful answer, from the run that started last (logs/separate-drug_safety.eval); "
        "the older answers in logs/retry-drug_safety.eval, logs/sweep-drug_safety.eval are "
        "not used. Write a separate run to another log directory to keep it out of this group."
    ]
    # a retry alone is one run: no note
    (group,) = group_records([sweep, retry])
    assert answered_again(group) == []
    analysis = analyse([sweep, retry, separate], SMALL)
    assert answered_again(group_records([sweep, retry, separate])[0])[0] in (
        analysis.summaries[0].notes
    )
    # and a warning at the top (terminal, report.md, report.html), not only in the notes
    from bedside_bench.report.document import group_warnings

    assert (
        "answers of more than one run pooled (drug_safety): each case counts once, with its "
        "newest answer (the notes say which runs)."
    ) in group_warnings(analysis.summaries[0])
    assert not any(
        "pooled" in w for w in group_warnings(analyse([sweep, retry], SMALL).summaries[0])
    )


# --------------------------------------------------------------------------------------------
# the plot


@pytest.mark.skipif(not matplotlib_available(), reason="matplotlib (the report extra) absent")
@pytest.mark.parametrize(
    ("mean", "ci"),
    [
        (0.6168650793650793, [0.6168650793650794, 0.6168650793650794]),  # lo above the mean
        (0.6168650793650794, [0.6168650793650793, 0.6168650793650793]),  # hi below the mean
        (0.5, [0.6, 0.7]),  # an interval that leaves out its mean is drawn as it is
    ],
)
def test_the_plot_draws_a_bound_a_bit_off_its_mean(mean: float, ci: list[float]) -> None:
    base = run_summary()
    bounds = (ci[0], ci[1])
    summary = run_summary(
        benchmarks={
            name: e.model_copy(update={"mean": mean, "ci95": bounds})
            for name, e in base.benchmarks.items()
        },
        overall=OverallScore(mean=mean, ci95=bounds, n=1),
    )
    png = forest_png([summary], ["test/smoke"])
    assert png is not None and png.startswith(b"\x89PNG")


def test_a_benchmark_with_one_paired_case_gives_no_verdict() -> None:
    """b completed one case per benchmark, 0.001 below a's: ten paired cases, but each stratum
    has one, so the interval is a point and must not read as "ahead"."""
    a = shifted(3, 0.0)
    b: dict[str, dict[str, float | None]] = {}
    for name, cases in a.items():
        first, *rest = cases
        b[name] = {first: (cases[first] or 0.0) - 0.001, **{c: None for c in rest}}
    analysis = analyse(model_records("test/a", a) + model_records("test/b", b), SMALL)
    (v,) = written(analysis)["verdicts"]
    assert v["n"] == 10 and v["verdict"] is None
    assert v["verdict_withheld"].startswith("fewer than 2 paired cases in drug_safety, ")
