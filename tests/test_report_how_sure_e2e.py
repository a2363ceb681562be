"""How sure, from every source, as a user reaches it: `bedside-bench report` (its `main`, in
this process) over real Inspect logs of the ten tasks judged in three passes by a noisy scripted
judge, and over a run of two epochs.

Every interval and every count of cases needed is recomputed from the fully read logs (each
pass's score as the scorer wrote it) by the independent implementation of `tests.report_helpers`,
never through `bedside_bench.report` or `bedside_bench.scoring`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from tests import report_helpers as helpers
from tests.e2e_helpers import Result, bedside_bench_in_process, output
from tests.release_factory import write_release
from tests.report_helpers import (
    JointCase,
    expected_cases_needed,
    expected_interval,
    expected_joint,
    expected_stratified,
)

pytestmark = pytest.mark.slow  # Inspect evals in this process

A, B = "bbscript/sure-a", "bbscript/sure-b"
PASSES, EPOCHS = 3, 2
# the epochs run: a points rubric and an F1 one are enough for the benchmark intervals
EPOCH_BENCHMARKS = ("drug_safety", "safety_therapeutic")
RESAMPLES = 1_000  # `--resamples`: the independent loops stay quick


@dataclass(frozen=True)
class Runs:
    root: Path
    passes: Path  # A and B, three judge passes each
    epochs: Path  # A, two epochs, one pass, two benchmarks
    report: Result
    epochs_report: Result


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runs]:
    root = tmp_path_factory.mktemp("how-sure")
    write_release(root / "release", per_benchmark=3)
    passes, epochs = root / "passes", root / "epochs"
    helpers.BRAIN.flip_percent = 30  # the judge flips about 30% of its decisions, pass by pass
    try:
        logs = helpers.run_tasks(root / "release", [A, B], passes, judge_passes=PASSES)
        assert [log.status for log in logs] == ["success"] * 20
        logs = helpers.run_tasks(
            root / "release", [A], epochs, benchmarks=EPOCH_BENCHMARKS, epochs=EPOCHS
        )
        assert [log.status for log in logs] == ["success"] * len(EPOCH_BENCHMARKS)
    finally:
        helpers.BRAIN.flip_percent = 0
    report = report_of(passes, root / "out")
    epochs_report = report_of(epochs, root / "out-epochs")
    yield Runs(root, passes, epochs, report, epochs_report)


def report_of(logs: Path, out: Path) -> Result:
    result = bedside_bench_in_process(
        "report", str(logs), "-o", str(out), "--resamples", str(RESAMPLES)
    )
    assert result.returncode == 0, output(result)
    return result


# --------------------------------------------------------------------------------------------
# independent reading of the logs


def cases_of(log_dir: Path, model: str) -> dict[str, dict[str, JointCase]]:
    """Per benchmark, in dataset order: each case's score per epoch and each epoch's pass
    scores, from the fully read logs."""
    found: dict[str, dict[str, JointCase]] = {}
    for info in list_eval_logs(str(log_dir)):
        log = read_eval_log(info.name)
        if log.eval.model != model:
            continue
        name = log.eval.task.split("/")[-1]
        by_case: dict[str, list[tuple[int, float, list[float] | None]]] = {}
        for sample in log.samples or []:
            score = sample.scores["rubric_judge"]  # type: ignore[index]
            meta = score.metadata or {}
            by_case.setdefault(str(sample.id), []).append(
                (sample.epoch, float(score.value), meta.get("pass_scores"))  # type: ignore[arg-type]
            )
        found[name] = {}
        for case_id in (str(i) for i in log.eval.dataset.sample_ids or []):
            epochs = sorted(by_case[case_id])
            scores = [value for _, value, _ in epochs]
            passes = [p for _, _, p in epochs]
            found[name][case_id] = (
                scores,
                None if any(p is None for p in passes) else passes,  # type: ignore[misc]
            )
    return found


def case_score(case: JointCase) -> float:
    """Inspect's mean over epochs (the report's too)."""
    import statistics

    return float(statistics.mean(case[0]))


def summary_of(report_dir: Path, model: str) -> dict[str, Any]:
    (path,) = [
        p
        for p in report_dir.glob("*.summary.json")
        if json.loads(p.read_text())["answer_model"] == model
    ]
    data: dict[str, Any] = json.loads(path.read_text())
    return data


# --------------------------------------------------------------------------------------------
# three judge passes


def test_both_intervals_per_benchmark_and_overall_with_three_passes(runs: Runs) -> None:
    summary = summary_of(runs.root / "out", A)
    cases = cases_of(runs.passes, A)
    strata, sources = [], []
    wider = 0
    for name in BENCHMARK_NAMES:
        entry = summary["benchmarks"][name]
        mine = list(cases[name].values())
        scores = [case_score(c) for c in mine]
        assert all(c[1] is not None and len(c[1][0]) == PASSES for c in mine)
        assert entry["ci95"] == expected_interval(scores, RESAMPLES, 42)
        joint = list(expected_joint([scores], [[(1.0, mine)]], "judge", RESAMPLES, 42))
        assert entry["ci95_cases_and_judge"] == joint
        assert "ci95_cases_and_epochs" not in entry
        wider += joint[1] - joint[0] > entry["ci95"][1] - entry["ci95"][0]
        strata.append(scores)
        sources.append([(1.0, mine)])
    overall = summary["overall"]
    assert overall["ci95"] == expected_stratified(strata, RESAMPLES, 42)
    joint = list(expected_joint(strata, sources, "judge", RESAMPLES, 42))
    assert overall["ci95_cases_and_judge"] == joint
    # a noisy judge: the interval that resamples its passes is the wider one
    assert joint[1] - joint[0] > overall["ci95"][1] - overall["ci95"][0]
    assert wider >= 5, wider


def test_every_pair_carries_its_intervals_and_the_cases_it_needs(runs: Runs) -> None:
    comparison = json.loads((runs.root / "out" / "comparison.json").read_text())
    a, b = cases_of(runs.passes, A), cases_of(runs.passes, B)
    (first,) = comparison["overall"]["pairs"]
    sign = 1.0 if first["a"] == A else -1.0
    strata, sources = [], []
    for name in BENCHMARK_NAMES:
        (pair,) = comparison["benchmarks"][name]["pairs"]
        ids = list(a[name])
        first_side, second_side = (a, b) if sign > 0 else (b, a)
        diffs = [case_score(first_side[name][i]) - case_score(second_side[name][i]) for i in ids]
        source = [
            (1.0, [first_side[name][i] for i in ids]),
            (-1.0, [second_side[name][i] for i in ids]),
        ]
        assert pair["ci95"] == expected_interval(diffs, RESAMPLES, 42)
        expected = list(expected_joint([diffs], [source], "judge", RESAMPLES, 42))
        assert pair["ci95_cases_and_judge"] == expected
        assert pair["ci95_cases_and_epochs"] is None
        assert pair["cases_needed_for_80_power"] == expected_cases_needed([diffs])
        strata.append(diffs)
        sources.append(source)
    assert first["ci95_cases_and_judge"] == list(
        expected_joint(strata, sources, "judge", RESAMPLES, 42)
    )
    assert first["cases_needed_for_80_power"] == expected_cases_needed(strata)
    (verdict,) = comparison["verdicts"]
    assert verdict["cases_needed_for_80_power"] is not None
    assert verdict["ci95_cases_and_judge"] is not None


def test_the_report_shows_both_and_says_what_each_is(runs: Runs) -> None:
    summary = summary_of(runs.root / "out", A)
    overall = summary["overall"]
    lo, hi = overall["ci95"]
    jlo, jhi = overall["ci95_cases_and_judge"]
    share = 1 - (hi - lo) / (jhi - jlo)
    assert round(share, 2) > 0  # a noisy judge: wider (the first test)
    cell = f"[{jlo:.3f}, {jhi:.3f}] (adds {share:.0%} of the width)"
    markdown = (runs.root / "out" / "report.md").read_text()
    assert "### Intervals over cases and judge passes or epochs" in markdown
    assert f"| overall | {A} | [{lo:.3f}, {hi:.3f}] | {cell} |" in markdown
    assert "paired cases for 80% power" in markdown
    assert "the cautious reading" in markdown
    html = (runs.root / "out" / "report.html").read_text()
    assert f"<td>{cell}</td>" in html
    terminal = runs.report.stdout
    assert "95% CI over cases and judge passes" in terminal
    assert cell in terminal
    comparison = json.loads((runs.root / "out" / "comparison.json").read_text())
    (verdict,) = comparison["verdicts"]
    vlo, vhi = verdict["ci95_cases_and_judge"]
    assert f"(over cases and judge passes [{vlo:+.3f}, {vhi:+.3f}])" in terminal


# --------------------------------------------------------------------------------------------
# two epochs


def test_two_epochs_get_the_interval_over_cases_and_epochs(runs: Runs) -> None:
    summary = summary_of(runs.root / "out-epochs", A)
    cases = cases_of(runs.epochs, A)
    for name in EPOCH_BENCHMARKS:
        entry = summary["benchmarks"][name]
        mine = [(c[0], None) for c in cases[name].values()]  # one pass: no pass scores
        assert all(len(c[0]) == EPOCHS for c in mine)
        scores = [case_score(c) for c in mine]
        assert entry["ci95_cases_and_epochs"] == list(
            expected_joint([scores], [[(1.0, mine)]], "epochs", RESAMPLES, 42)
        )
        assert "ci95_cases_and_judge" not in entry
        # the judge's noise differs between epochs: their interval is the wider one
        joint = entry["ci95_cases_and_epochs"]
        assert joint[1] - joint[0] >= entry["ci95"][1] - entry["ci95"][0]
    assert summary["overall"] is None  # two benchmarks: no overall score
    assert "95% CI over cases and epochs" in runs.epochs_report.stdout
