"""Which judge scored a log's cases and whose tokens count (`logs/scorers.py`), by hand."""

from __future__ import annotations

from inspect_ai.scorer import Score

from bedside_bench.logs.read import case_record as read_case
from bedside_bench.logs.records import TokenUsage
from bedside_bench.logs.scorers import case_judge, rescored_judge_usage
from tests.report_helpers import case_record, log_record


def scored(judge_usage: object) -> dict[str, Score]:
    metadata = {"judge_model": "B", "judge_usage": judge_usage}
    return {"rubric_judge": Score(value=1.0, metadata=metadata)}


def test_judge_tokens_come_from_the_scores_once_another_judge_scored() -> None:
    usage = {"openai/x": {"input_tokens": 10, "output_tokens": 4, "total_tokens": 14}}
    tokens = read_case("c", None, scored(usage)).judge_usage
    assert tokens == TokenUsage(input_tokens=10, output_tokens=4, total_tokens=14)
    thinned = read_case("c", None, scored("Key removed from summary (> 1k)"))
    assert thinned.judge_usage is None and thinned.thinned == ("judge_usage",)
    header = TokenUsage(input_tokens=999, output_tokens=1, total_tokens=1000)
    cases = [case_record("c", 1.0, judge_model="B", judge_usage=tokens)]
    base = log_record(
        {}, location="l", answer_model="m", judge_model="A", dataset_sha256="d", judge_usage=header
    )
    assert rescored_judge_usage(base, "A", cases) == header  # the run's own judge
    assert rescored_judge_usage(base, "B", cases) == tokens  # overwritten by judge B
    assert case_judge([*cases, case_record("d", 0.0, judge_model="A")]) == "mixed: A, B"
