"""Each task through `mockllm/model` with scripted outputs, as inspect_evals tests its evals: the
task function called with the synthetic release (`data/synthetic/`, two cases per benchmark),
the answer model and the `grader` role both scripted mockllm models, and every score, metric
and call count equal to what the scripted decisions give on the independent path
(`tests/independent.py`)."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.core.listing import task_version
from bedside_bench.task import tasks as bedside_tasks
from bedside_bench.task.judge_check import judge_check
from tests.independent import exact_case_score
from tests.mockllm_scripts import SYNTHETIC, benchmark_script, judge_check_script, sample_scores

pytestmark = pytest.mark.slow  # Inspect evals

CASES_PER_BENCHMARK = 2  # in the synthetic release
PAIRS = 2  # of the judge check's gold set


def mean(values: list[Fraction]) -> float:
    return float(sum(values, Fraction(0)) / len(values))


@pytest.mark.parametrize("benchmark", BENCHMARK_NAMES)
def test_benchmark_task_scores_scripted_decisions(benchmark: str, tmp_path: Path) -> None:
    task_function: Callable[..., Task] = getattr(bedside_tasks, benchmark)
    script = benchmark_script(benchmark)
    (log,) = inspect_eval(
        task_function(data_dir=str(SYNTHETIC)),
        model=script.answers.model(),
        model_roles={"grader": script.judge.model()},
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    scores = sample_scores(log, "rubric_judge")
    case_ids = [c["case_id"] for c in script.cases]
    assert sorted(scores) == sorted(case_ids) and len(case_ids) == CASES_PER_BENCHMARK
    expected = {c: script.expected(c) for c in case_ids}
    assert scores == {c: pytest.approx(float(v), abs=1e-12) for c, v in expected.items()}
    # the scripted decisions are what the log says the judge decided
    for sample in log.samples or []:
        decisions = (sample.scores or {})["rubric_judge"].metadata or {}
        assert decisions["decisions"] == script.decisions(str(sample.id))
    # one answer and one judge call per case, nothing else
    assert script.answers.calls == script.judge.calls == {c: 1 for c in case_ids}
    assert log.results is not None
    metrics = log.results.scores[0].metrics
    assert metrics["mean"].value == pytest.approx(mean(list(expected.values())), abs=1e-12)
    assert log.eval.task == benchmark
    assert log.eval.task_version == task_version().comparability == 2


def test_judge_check_scores_a_scripted_judge(tmp_path: Path) -> None:
    """The model under evaluation is the judge: it gets the first item of the first pair wrong
    and the first two of the second, every other decision gold."""
    check = judge_check_script()
    (log,) = inspect_eval(
        judge_check(),
        model=check.judge.model(),
        limit=PAIRS,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    scores = sample_scores(log, "gold_agreement")
    pair_ids = [p["pair_id"] for p in check.pairs[:PAIRS]]
    assert scores == {p: float(check.expected(p)) for p in pair_ids}
    assert check.judge.calls == {p: 1 for p in pair_ids}
    pairs = [check.pairs[check.number(p)] for p in pair_ids]
    items = sum(len(p["rubric_items"]) for p in pairs)
    wrong = [1, 2]  # tests.mockllm_scripts.flipped(0), flipped(1)
    errors = []
    for pair, flips in zip(pairs, wrong, strict=True):
        gold = {i["item_id"]: i["gold_matched"] for i in pair["rubric_items"]}
        judged = {k: v != (n < flips) for n, (k, v) in enumerate(gold.items())}
        errors.append(abs(exact_case_score(pair, judged) - exact_case_score(pair, gold)))
    assert log.results is not None
    metrics = log.results.scores[0].metrics
    assert metrics["item_accuracy"].value == pytest.approx(float(Fraction(items - 3, items)))
    assert metrics["case_score_error"].value == pytest.approx(mean(errors), abs=1e-12)
    assert metrics["attack_none_accuracy"].value == metrics["item_accuracy"].value
    assert log.eval.task == "judge_check"
    assert log.eval.task_version == task_version().comparability == 2
