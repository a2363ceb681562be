"""`bedside_bench.analysis` on small logs built in memory (tests/log_factory.py): which score a
row reads, typed numbers where a grading method has none, a failed case, and the per-item
frame's one-line refusal of a score whose decisions do not cover its items. The frames of a
real eval, against the report, are in tests/test_analysis_e2e.py."""

from __future__ import annotations

import pandas as pd
import pytest
from inspect_ai.analysis import samples_df
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.scorer import Score

from bedside_bench.analysis import SAMPLE_COLUMNS, item_decisions
from bedside_bench.core.contracts import RUBRIC_ITEMS_KEY
from tests.log_factory import JUDGE_A, JUDGE_B, eval_log, sample

ITEMS = [
    {"item_id": "i1", "text": "Stops the NSAID.", "points": 2},
    {"item_id": "i2", "text": "Adds warfarin.", "points": -2},
]


def scored(case: str, value: float, **metadata: object) -> EvalSample:
    s = sample(case)
    s.scores = {"rubric_judge": Score(value=value, metadata={"judge_model": JUDGE_A, **metadata})}
    s.metadata = {RUBRIC_ITEMS_KEY: ITEMS}
    return s


def located(log: EvalLog, name: str) -> EvalLog:
    log.location = f"/logs/{name}.eval"
    return log


def test_points_only_logs_still_have_float_recall_and_a_failed_case_no_score() -> None:
    points = scored("c1", 0.5, matched_signed_points=2, available_positive_points=4)
    failed = sample("c2", judge=None, error="the judge never gave a valid reply")
    frame = samples_df([located(eval_log([points, failed]), "a")], columns=SAMPLE_COLUMNS)
    for name in ("score", "recall", "precision", "points_matched", "points_available"):
        assert pd.api.types.is_float_dtype(frame[name]), (name, frame[name].dtype)
    rows = frame.set_index("case_id")
    assert (rows.loc["c1", "points_matched"], rows.loc["c1", "points_available"]) == (2.0, 4.0)
    assert pd.isna(rows.loc["c1", "recall"]) and pd.isna(rows.loc["c2", "score"])
    assert rows.loc["c2", "error"] == "the judge never gave a valid reply"
    # the report's mean leaves the failed case out; so does the frame's
    assert frame["score"].mean() == 0.5


def test_the_row_reads_the_logs_own_judge_not_an_appended_one() -> None:
    case = scored("c1", 0.25, recall=0.5, precision=None)
    assert case.scores is not None
    case.scores = {
        "rubric_judge1": Score(value=1.0, metadata={"judge_model": JUDGE_B, "recall": 1.0}),
        **case.scores,
    }
    frame = samples_df([located(eval_log([case]), "a")], columns=SAMPLE_COLUMNS)
    [row] = frame.to_dict("records")
    assert (row["score"], row["judge_model"], row["recall"]) == (0.25, JUDGE_A, 0.5)
    assert pd.isna(row["precision"])  # nothing matched: no precision, not 0


def test_item_rows_follow_the_items_and_a_missing_decision_stops_in_one_line() -> None:
    good = scored("c1", 1.0, decisions={"i1": True, "i2": False})
    items = item_decisions([located(eval_log([good]), "a")], quiet=True)
    assert items[["case_id", "item_id", "points", "decision", "match_value"]].to_dict(
        "records"
    ) == [
        {"case_id": "c1", "item_id": "i1", "points": 2, "decision": "matched", "match_value": 1.0},
        {
            "case_id": "c1",
            "item_id": "i2",
            "points": -2,
            "decision": "not_matched",
            "match_value": 0.0,
        },
    ]
    bad = scored("c9", 1.0, decisions={"i1": True})
    with pytest.raises(ValueError) as refused:
        item_decisions([located(eval_log([bad]), "b")], quiet=True)
    message = str(refused.value)
    assert "\n" not in message
    assert "case c9, epoch 1, item i2: no judge decision for this item" in message
    assert "/logs/b.eval" in message
