"""How sure, from every source, in the summary and the comparison (`report/within.py`,
`report/summary.py`, `report/comparison.py`), on hand-built records (no logs).

Expected intervals come from the independent one-case-at-a-time implementation and the plain
Python cases-needed formula of `tests.report_helpers`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.logs.records import CaseRecord, LogRecord
from bedside_bench.report.comparison import compare
from bedside_bench.report.groups import RunGroup, group_labels, group_records
from bedside_bench.report.summary import BootstrapOptions, summarise
from bedside_bench.report.within import NOT_RECORDED, within_case
from tests.report_helpers import (
    JointCase,
    case_record,
    expected_cases_needed,
    expected_interval,
    expected_joint,
    expected_stratified,
    log_record,
)

SMALL = BootstrapOptions(resamples=300, seed=5)
PASSES = 3


def judged(case_id: str, pass_scores: Sequence[float], score: float) -> CaseRecord:
    return case_record(case_id, score, pass_scores=tuple(pass_scores))


def noisy_cases(benchmark: str, n: int, offset: float, seed: int) -> dict[str, CaseRecord]:
    """`n` cases of three passes each, some disagreeing; the case score is the passes' median
    (a stand-in for the majority)."""
    rng = np.random.default_rng(seed)
    found = {}
    for i in range(n):
        level = float(np.clip(rng.random() + offset, 0, 1))
        passes = [float(np.clip(level + rng.choice([0.0, 0.0, 0.2, -0.3]), 0, 1)) for _ in "abc"]
        found[f"{benchmark}-{i}"] = judged(f"{benchmark}-{i}", passes, float(np.median(passes)))
    return found


def group_of(
    model: str, n: int = 6, offset: float = 0.0, seed: int = 0, **fields: Any
) -> list[LogRecord]:
    return [
        log_record(
            noisy_cases(b, n, offset, seed + k),
            benchmark=b,
            answer_model=model,
            judge_passes=PASSES,
            **fields,
        )
        for k, b in enumerate(BENCHMARK_NAMES)
    ]


def plain(cases: Sequence[CaseRecord]) -> list[JointCase]:
    return [([c.score or 0.0], [list(c.pass_scores or ())]) for c in cases]


def test_the_summary_gives_both_intervals_for_every_benchmark_and_overall() -> None:
    (group,) = group_records(group_of("test/a"))
    summary = summarise(group, SMALL)
    strata, sources = [], []
    for name in BENCHMARK_NAMES:
        completed = group.benchmarks[name].completed
        scores = [c.score or 0.0 for c in completed]
        entry = summary.benchmarks[name]
        assert entry.ci95 == expected_interval(scores, 300, 5)
        expected = expected_joint([scores], [[(1.0, plain(completed))]], "judge", 300, 5)
        assert entry.ci95_cases_and_judge == list(expected)
        strata.append(scores)
        sources.append([(1.0, plain(completed))])
    overall = summary.overall
    assert overall is not None
    assert overall.ci95 == expected_stratified(strata, 300, 5)
    assert overall.ci95_cases_and_judge == list(expected_joint(strata, sources, "judge", 300, 5))
    written = summary.as_json()
    assert "ci95_cases_and_judge" in written["overall"]  # type: ignore[operator]
    # one epoch: no interval over epochs is written
    assert "ci95_cases_and_epochs" not in written["overall"]  # type: ignore[operator]


def test_one_pass_writes_no_second_interval() -> None:
    records = [
        log_record({f"{b}-{i}": i / 5 for i in range(5)}, benchmark=b) for b in BENCHMARK_NAMES
    ]
    written = summarise(group_records(records)[0], SMALL).as_json()
    assert "ci95_cases_and_judge" not in written["overall"]  # type: ignore[operator]
    assert "ci95_cases_and_judge" not in written["benchmarks"]["drug_safety"]  # type: ignore[index]


def test_passes_without_their_scores_give_null_and_say_why() -> None:
    """Logs written before the scorer recorded each pass's score: the second interval is null,
    never the protocol's passed off as it, and the notes say how to get it."""
    records = group_of("test/a")
    old = {k: case_record(k, c.score) for k, c in records[0].cases.items()}
    records[0] = log_record(old, benchmark=BENCHMARK_NAMES[0], judge_passes=PASSES)
    summary = summarise(group_records(records)[0], SMALL)
    assert summary.benchmarks[BENCHMARK_NAMES[0]].ci95_cases_and_judge is None
    assert summary.benchmarks[BENCHMARK_NAMES[1]].ci95_cases_and_judge is not None
    assert summary.overall is not None and summary.overall.ci95_cases_and_judge is None
    assert (
        f"ci95_cases_and_judge null for {BENCHMARK_NAMES[0]} (so no overall): {NOT_RECORDED}"
        in summary.notes
    )


def test_what_a_case_holds_within_it() -> None:
    epochs = (judged("c", (0.5, 1.0, 0.5), 0.5), judged("c", (0.0, 0.0, 0.5), 0.0))
    case = CaseRecord("c", 0.25, epoch_records=epochs)
    within = within_case([case], 2, 3)
    assert not isinstance(within, str) and within is not None
    assert within.epoch_scores.tolist() == [[0.5, 0.0]]
    assert within.pass_scores is not None
    assert within.pass_scores.tolist() == [[[0.5, 1.0, 0.5], [0.0, 0.0, 0.5]]]
    assert within_case([], 1, 3) is None
    two = judged("d", (0.5, 1.0), 0.5)
    assert within_case([two], 1, 3) == "case d has 2 pass scores, the run 3 judge passes"
    assert within_case([case], 3, 3) == "case c has 2 scored epochs, the run 3"
    assert within_case([judged("e", (0.1,) * 16, 0.1)], 1, 16) == "more than 15 judge passes (16)"


def test_epochs_get_their_interval_which_resamples_their_passes_too() -> None:
    rng = np.random.default_rng(3)
    cases = {}
    for i in range(8):
        per_epoch = [
            judged(f"c{i}", rng.choice([0.0, 0.5, 1.0], 3), float(e % 2)) for e in (i, i + 1)
        ]
        cases[f"c{i}"] = CaseRecord(f"c{i}", 0.5, epoch_records=tuple(per_epoch))
    (group,) = group_records([log_record(cases, judge_passes=PASSES, epochs=2)])
    entry = summarise(group, SMALL).benchmarks["drug_safety"]
    completed = group.benchmarks["drug_safety"].completed
    source: list[JointCase] = [
        (
            [r.score or 0.0 for r in c.epoch_records],
            [list(r.pass_scores or ()) for r in c.epoch_records],
        )
        for c in completed
    ]
    scores = [c.score or 0.0 for c in completed]
    for over, got in (
        ("judge", entry.ci95_cases_and_judge),
        ("epochs", entry.ci95_cases_and_epochs),
    ):
        assert got == list(expected_joint([scores], [[(1.0, source)]], over, 300, 5))


def pair_strata(a: RunGroup, b: RunGroup) -> tuple[list[list[float]], list[Any]]:
    strata, sources = [], []
    for name in BENCHMARK_NAMES:
        ca, cb = a.benchmarks[name].by_case(), b.benchmarks[name].by_case()
        both = [i for i in a.benchmarks[name].case_ids if i in ca and i in cb]
        strata.append([(ca[i].score or 0.0) - (cb[i].score or 0.0) for i in both])
        sources.append([(1.0, plain([ca[i] for i in both])), (-1.0, plain([cb[i] for i in both]))])
    return strata, sources


def test_every_pair_carries_its_joint_interval_and_the_cases_it_needs() -> None:
    groups = group_records([*group_of("test/a"), *group_of("test/b", offset=-0.1, seed=50)])
    labels = group_labels(groups)
    summaries = [summarise(g, SMALL) for g in groups]
    comparison = compare(groups, labels, summaries, ["a", "b"], SMALL)
    strata, sources = pair_strata(groups[0], groups[1])
    for k, name in enumerate(BENCHMARK_NAMES):
        (pair,) = comparison.benchmarks[name].pairs
        assert pair.ci95 == expected_interval(strata[k], 300, 5)
        joint = expected_joint([strata[k]], [sources[k]], "judge", 300, 5)
        assert pair.ci95_cases_and_judge == list(joint)
        assert pair.ci95_cases_and_epochs is None
        assert pair.cases_needed_for_80_power == expected_cases_needed([strata[k]])
        model = comparison.benchmarks[name].models[labels[0]]
        assert model is not None
        assert model.ci95_cases_and_judge == summaries[0].benchmarks[name].ci95_cases_and_judge
    (overall,) = comparison.overall.pairs
    assert overall.ci95_cases_and_judge == list(expected_joint(strata, sources, "judge", 300, 5))
    assert overall.cases_needed_for_80_power == expected_cases_needed(strata)
