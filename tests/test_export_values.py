"""`data export` checks the values it takes from a log as the report does (`log_values`): a
malformed score metadata value or rubric item stops the export with one line naming the log,
case, epoch and field, instead of a row holding it (or the log skipped as "cannot be read")."""

from __future__ import annotations

import pytest
from inspect_ai.log import EvalSample
from inspect_ai.scorer import Score

from bedside_bench.core.contracts import RUBRIC_ITEMS_KEY
from bedside_bench.logs.export import ExportError, sample_rows
from tests.log_factory import JUDGE_A, eval_log, sample

ITEMS = [
    {"item_id": "i1", "text": "Stops the NSAID.", "points": 2},
    {"item_id": "i2", "text": "Adds warfarin.", "points": -2},
]
SCORE = {
    "decisions": {"i1": True, "i2": False},
    "judge_model": JUDGE_A,
    "answer_stop_reason": "stop",
    "answer_condition": "complete",
}
WHERE = "/logs/a.eval, case c1, epoch 1"


def scored(score: dict[str, object], items: object) -> EvalSample:
    s = sample("c1")
    s.scores = {"rubric_judge": Score(value=1.0, metadata=score)}
    s.metadata = {RUBRIC_ITEMS_KEY: items}
    return s


def rows(score: dict[str, object], items: object) -> list[dict[str, object]] | None:
    header = eval_log([])
    header.location = "/logs/a.eval"
    return sample_rows(header, scored(score, items))


def test_a_well_formed_sample_gives_one_row_per_item() -> None:
    got = rows(SCORE, ITEMS)
    assert got is not None
    assert [(r["item_id"], r["points"], r["decision"]) for r in got] == [
        ("i1", 2, "matched"),
        ("i2", -2, "not_matched"),
    ]
    assert {r["judge_model"] for r in got} == {JUDGE_A}


@pytest.mark.parametrize(
    ("score", "items", "message"),
    [
        (
            {**SCORE, "judge_model": 7},
            ITEMS,
            "score metadata judge_model: input should be a valid string, got 7",
        ),
        (
            {**SCORE, "answer_condition": "cut"},
            ITEMS,
            "score metadata answer_condition: input should be 'complete', 'truncated', "
            "'filtered', 'refused' or 'unknown', got 'cut'",
        ),
        (
            SCORE,
            [{**ITEMS[0], "points": "2"}, ITEMS[1]],
            "sample metadata rubric_items: input should be a valid integer (at 0.points), got",
        ),
        (
            SCORE,
            [ITEMS[0], "i2"],
            "sample metadata rubric_items: input should be a valid dictionary or instance of "
            "StoredRubricItem (at 1), got",
        ),
    ],
)
def test_a_malformed_value_stops_the_export_naming_it(
    score: dict[str, object], items: object, message: str
) -> None:
    with pytest.raises(ExportError) as refused:
        rows(score, items)
    assert str(refused.value).startswith(f"{WHERE}: {message}")
    assert "\n" not in str(refused.value)


def test_rows_carry_the_cases_recall_and_precision() -> None:
    """F1 cases: the score's recall and precision on every row of the case (precision null
    when nothing was matched); points cases have neither."""
    f1 = {**SCORE, "grading_method": "f1_weighted_rubric", "severe_rate": 0}
    got = rows({**f1, "recall": 0.25, "precision": 0.75}, ITEMS)
    assert got is not None and {(r["recall"], r["precision"]) for r in got} == {(0.25, 0.75)}
    nothing = rows({**f1, "recall": 0.0, "precision": None}, ITEMS)
    assert nothing is not None and {(r["recall"], r["precision"]) for r in nothing} == {(0.0, None)}
    points = rows(SCORE, ITEMS)
    assert points is not None and {(r["recall"], r["precision"]) for r in points} == {(None, None)}


def test_a_grading_method_a_row_takes_is_checked_too() -> None:
    """The report does not read a score's grading method, `data export` does (its column)."""
    got = rows({**SCORE, "grading_method": "f1_weighted_rubric"}, ITEMS)
    assert got is not None and {r["grading_method"] for r in got} == {"f1_weighted_rubric"}
    with pytest.raises(ExportError) as refused:
        rows({**SCORE, "grading_method": "points"}, ITEMS)
    assert str(refused.value) == (
        f"{WHERE}: score metadata grading_method: input should be 'points_rubric' or "
        "'f1_weighted_rubric', got 'points'"
    )
