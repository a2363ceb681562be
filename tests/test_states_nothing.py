"""The score of an answer without text (`scorer.states_nothing`): the protocol's score of an
answer that states nothing (every rubric item not matched), on both grading methods and both
grading variants, computed on an independent path (`tests/independent.py`), and what the
report reads back from it."""

from __future__ import annotations

from typing import Any

import pytest

from bedside_bench.core.answer_condition import AnswerState
from bedside_bench.core.contracts import RubricItem, SampleMetadata
from bedside_bench.core.options import ScorerOptions
from bedside_bench.core.score_metadata import ScoreMetadata
from bedside_bench.judging.grading import grading_strategy
from bedside_bench.logs.values import required_score_fields, score_values
from bedside_bench.scoring.scorer import states_nothing
from tests.independent import exact_case_score, f1_parts

POINTS = [2, 1, -1, 0]
F1_POINTS = [3, 1, 0, -2, -3]
SPENT = AnswerState("max_tokens", "truncated", empty=True)


def sample(grading_method: str, points: list[int]) -> SampleMetadata:
    items = [RubricItem(f"c_{i}", f"Criterion {i}.", p) for i, p in enumerate(points)]
    return SampleMetadata(
        case_id="c",
        benchmark="drug_safety" if grading_method == "points_rubric" else "safety_diagnostic",
        grading_method=grading_method,  # type: ignore[arg-type]
        split="train",
        rubric_items=items,
        answer_temperature=1.0,
    )


def case_dict(meta: SampleMetadata) -> dict[str, Any]:
    return {
        "grading_method": meta.grading_method,
        "rubric_items": [
            {"item_id": i.item_id, "points": i.points, "text": i.text} for i in meta.rubric_items
        ],
    }


@pytest.mark.parametrize("grading", ["binary", "three_level"])
@pytest.mark.parametrize("severe_gate", [False, True])
@pytest.mark.parametrize(
    ("method", "points"), [("points_rubric", POINTS), ("f1_weighted_rubric", F1_POINTS)]
)
def test_an_answer_without_text_scores_as_stating_nothing(
    grading: str, severe_gate: bool, method: str, points: list[int]
) -> None:
    meta = sample(method, points)
    opts = ScorerOptions(grading=grading, severe_gate=severe_gate)  # type: ignore[arg-type]
    score = states_nothing(SPENT, grading_strategy(opts.grading), meta, opts, "openai/gpt-4.1")
    nothing = {item.item_id: False for item in meta.rubric_items}
    assert score.value == float(exact_case_score(case_dict(meta), nothing, severe_gate)) == 0.0
    assert score.answer == ""
    assert score.explanation is not None
    assert score.explanation.startswith("**The answer has no text** (stop reason max_tokens")
    m = score.metadata or {}
    unmatched = False if grading == "binary" else "NOT_MET"
    assert m["decisions"] == {item.item_id: unmatched for item in meta.rubric_items}
    assert (m["answer_empty"], m["answer_condition"], m["answer_stop_reason"]) == (
        True,
        "truncated",
        "max_tokens",
    )
    assert (m["judge_attempts"], m["judge_usage"], m["judge_temperature"]) == ([], {}, None)
    assert m["judge_model"] == "openai/gpt-4.1"
    if grading == "three_level":
        assert m["match_values"] == {item.item_id: 0.0 for item in meta.rubric_items}
    if method == "f1_weighted_rubric":
        recall, precision, _, severe = f1_parts(case_dict(meta)["rubric_items"], nothing)
        assert (m["recall"], m["precision"], m["severe_rate"]) == (recall, precision, severe)
        assert (m["recall"], m["precision"], m["severe_rate"]) == (0, None, 1)
    else:
        assert (m["matched_signed_points"], m["available_positive_points"]) == (0, 3)
    # what the report reads back: a whole case, every required key present
    read = score_values(m, required_score_fields(method == "f1_weighted_rubric"))
    assert isinstance(read, ScoreMetadata) and read.answer_empty is True


def test_with_several_passes_each_pass_scores_the_same_and_none_was_asked() -> None:
    meta = sample("points_rubric", POINTS)
    opts = ScorerOptions(judge_passes=3)
    score = states_nothing(SPENT, grading_strategy("binary"), meta, opts, "openai/gpt-4.1")
    m = score.metadata or {}
    assert m["pass_scores"] == [0.0, 0.0, 0.0]
    # no pass was asked: no per-pass decisions or agreement to pool into the judge's kappa
    assert "pass_decisions" not in m and "judge_agreement" not in m and "judge_passes" not in m
    assert isinstance(score_values(m, required_score_fields(False)), ScoreMetadata)
