"""`bedside-bench review` reads a log's judged cases as the report does (`log_values`): a
malformed score metadata value (a judge named 7 would be filed under the header's judge) or
rubric item (an item silently left out of the review) stops it in one line naming the log,
case, epoch and field. Fast: logs built with `tests/log_factory.py`."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai.scorer import Score

from bedside_bench.core.contracts import RUBRIC_ITEMS_KEY
from bedside_bench.review.logs import ReviewInputError, add_log
from bedside_bench.review.records import ReviewSource
from tests.log_factory import JUDGE_A, eval_log, sample, write

ITEMS = [
    {"item_id": "i1", "text": "Stops the NSAID.", "points": 2},
    {"item_id": "i2", "text": "Adds warfarin.", "points": -2},
]
SCORE = {"decisions": {"i1": True, "i2": False}, "judge_model": JUDGE_A}


def read(tmp_path: Path, score: dict[str, object], items: object) -> tuple[ReviewSource, str]:
    s = sample("c1")
    s.scores = {"rubric_judge": Score(value=1.0, answer="the answer", metadata=score)}
    s.metadata = {RUBRIC_ITEMS_KEY: items}
    location = write(eval_log([s]), tmp_path / "a.eval")
    source = ReviewSource()
    add_log(source, location)
    return source, location


def test_a_well_formed_log_gives_its_items_and_decisions(tmp_path: Path) -> None:
    source, _ = read(tmp_path, SCORE, ITEMS)
    (case,) = source.cases.values()
    assert [(i.item_id, i.points) for i in case.items] == [("i1", 2), ("i2", -2)]
    assert source.judges == {JUDGE_A}
    assert sorted(d[JUDGE_A] for d in source.decisions.values()) == [False, True]


def test_an_answer_without_text_is_not_reviewed(tmp_path: Path) -> None:
    """Scored as stating nothing without a judge: no judge decision to check against."""
    source, _ = read(tmp_path, {**SCORE, "answer_empty": True}, ITEMS)
    assert not source.cases and not source.decisions


@pytest.mark.parametrize(
    ("score", "items", "message"),
    [
        (
            {**SCORE, "judge_model": 7},
            ITEMS,
            "score metadata judge_model: input should be a valid string, got 7",
        ),
        (
            {**SCORE, "pass_decisions": [{"i1": 1}]},
            ITEMS,
            "score metadata pass_decisions: input should be a valid boolean (at 0.i1), got",
        ),
        (
            SCORE,
            [{**ITEMS[0], "points": 2.5}, ITEMS[1]],
            "sample metadata rubric_items: input should be a valid integer (at 0.points), got",
        ),
    ],
)
def test_a_malformed_value_stops_the_review_naming_it(
    tmp_path: Path, score: dict[str, object], items: object, message: str
) -> None:
    with pytest.raises(ReviewInputError) as refused:
        read(tmp_path, score, items)
    assert str(refused.value).startswith(f"{tmp_path / 'a.eval'}: case c1 epoch 1: {message}")
