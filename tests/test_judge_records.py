"""The judge records a score keeps (`contracts.JudgeAttempt`, `ItemJudgementRecord`,
`OverrideRecord`) are typed, and stored as the same JSON as ever, byte for byte, key order
included: the report, `review` and `data export` read them back from old logs."""

from __future__ import annotations

import asyncio
import json

from bedside_bench.core.contracts import RubricItem
from bedside_bench.core.score_metadata import ScoreMetadata
from bedside_bench.judging.grading import PassResult, ThreeLevelGrading
from bedside_bench.judging.judge import JudgeOutcome, ask_judge
from bedside_bench.judging.reply import parse_decisions
from bedside_bench.judging.three_level import ItemJudgement
from bedside_bench.scoring.scorer import _attempts
from tests.scripted_model import scripted_model

VALID = '{"decisions": [{"item_id": "a", "matched": true}]}'


def test_attempts_are_stored_as_before() -> None:
    model, _ = scripted_model("records", ["no", VALID])
    outcome = asyncio.run(
        ask_judge(model, "SYSTEM", "USER", lambda raw: parse_decisions(raw, ["a"]), 1)
    )
    assert json.dumps(outcome.attempts) == (
        '[{"attempt": 1, "raw": "no", "raw_chars": 2, '
        '"error": "not JSON: Expecting value at line 1 column 1"}, '
        f'{{"attempt": 2, "raw": {json.dumps(VALID)}, "raw_chars": 50, "error": null}}]'
    )
    # several passes: each attempt says its pass, first
    one = PassResult({"a": True}, 0.0, outcome.attempts[1:], {})
    assert json.dumps(_attempts([one])) == json.dumps(outcome.attempts[1:])
    assert json.dumps(_attempts([one, one])) == (
        f'[{{"pass": 1, "attempt": 2, "raw": {json.dumps(VALID)}, "raw_chars": 50, '
        '"error": null}, '
        f'{{"pass": 2, "attempt": 2, "raw": {json.dumps(VALID)}, "raw_chars": 50, '
        '"error": null}]'
    )


ITEMS = [RubricItem("p", "Stops the NSAID.", 2), RubricItem("h", "Adds warfarin.", -2)]


def test_three_level_records_are_stored_as_before() -> None:
    said = [
        ItemJudgement("p", "MET", "Names it but is missing the dose.", "Stop."),
        ItemJudgement("h", "NOT_MET", "Not suggested.", ""),
    ]
    attempt = {"attempt": 1, "raw": "r", "raw_chars": 1, "error": None}
    grading = ThreeLevelGrading()
    result = grading.to_pass(JudgeOutcome(said, None, [attempt]), ITEMS)  # type: ignore[list-item]
    judgements = (
        '[{"item_id": "p", "decision": "MET", "rationale": "Names it but is missing the dose.", '
        '"evidence": "Stop."}, '
        '{"item_id": "h", "decision": "NOT_MET", "rationale": "Not suggested.", "evidence": ""}]'
    )
    overrides = '[{"item_id": "p", "from": "MET", "to": "PARTIALLY_MET", "phrase": "missing"}]'
    assert json.dumps(result.details) == f'{{"judgements": {judgements}, "overrides": {overrides}}}'
    matches = grading.matches(grading.combine([result.decisions]), ITEMS)
    assert json.dumps(grading.score_details([result], matches)) == (
        f'{{"judgements": {judgements}, "overrides": {overrides}, '
        '"match_values": {"p": 0.5, "h": 0.0}}'
    )
    assert json.dumps(grading.score_details([result, result], matches)) == (
        f'{{"judgements": [{judgements}, {judgements}], "overrides": [{overrides}, {overrides}], '
        '"match_values": {"p": 0.5, "h": 0.0}}'
    )


def test_what_old_logs_hold_is_what_the_records_describe() -> None:
    """Score metadata as logs written before the records were typed hold it (one pass and
    three passes, three-level) validates against `ScoreMetadata` unchanged."""
    attempt = {"attempt": 1, "raw": "{}", "raw_chars": 2, "error": None}
    judgement = {"item_id": "p", "decision": "MET", "rationale": "r", "evidence": "e"}
    override = {"item_id": "p", "from": "MET", "to": "NOT_MET", "phrase": "fails to"}
    one_pass = {
        "decisions": {"p": "NOT_MET"},
        "judge_attempts": [attempt],
        "judgements": [judgement],
        "overrides": [override],
        "match_values": {"p": 0.0},
    }
    three_passes = {
        "decisions": {"p": "NOT_MET"},
        "judge_attempts": [{"pass": n, **attempt} for n in (1, 2, 3)],
        "judge_passes": 3,
        "pass_decisions": [{"p": "NOT_MET"}] * 3,
        "judgements": [[judgement]] * 3,
        "overrides": [[override]] * 3,
        "match_values": {"p": 0.0},
    }
    for stored in (one_pass, three_passes):
        assert ScoreMetadata.model_validate_json(json.dumps(stored)).logged() == stored
