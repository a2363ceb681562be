"""The grading variants as strategies (`judging/grading.py`): chosen once by name, each with its own
judge texts, reply parsing, combining of passes and match values (a scripted in-process judge
for the one call)."""

from __future__ import annotations

import asyncio
import json
from fractions import Fraction
from typing import Any

import pytest

from bedside_bench.core.contracts import GRADINGS, RubricItem
from bedside_bench.core.protocol import (
    JUDGE_SYSTEM_MESSAGE,
    JUDGE_TEMPERATURE,
    PROTOCOL_VERSION,
    THREE_LEVEL_PROTOCOL_VERSION,
    THREE_LEVEL_SYSTEM_MESSAGE,
)
from bedside_bench.judging.grading import (
    BINARY,
    STRATEGIES,
    BinaryGrading,
    ThreeLevelGrading,
    grading_strategy,
)
from bedside_bench.judging.judge import JudgeOutcome
from bedside_bench.judging.reply import JudgeReplyError, judge_user_message
from bedside_bench.judging.three_level import ItemJudgement
from tests.independent import three_level_matches
from tests.scripted_model import scripted_model

ITEMS = [RubricItem("p", "names the drug", 2), RubricItem("h", "starts warfarin", -2)]
ANSWER = "Stop ibuprofen. Recheck creatinine in 48 hours."
THREE = ThreeLevelGrading()


def test_one_strategy_per_grading_name() -> None:
    assert set(STRATEGIES) == set(GRADINGS) == {"binary", "three_level"}
    assert grading_strategy("binary") is BINARY and isinstance(BINARY, BinaryGrading)
    assert isinstance(grading_strategy("three_level"), ThreeLevelGrading)
    with pytest.raises(ValueError, match="grading must be one of binary, three_level, got 'x'"):
        grading_strategy("x")


def test_each_variant_has_its_protocol_version_and_system_message() -> None:
    assert (BINARY.protocol_version, BINARY.system_message) == (
        PROTOCOL_VERSION,
        JUDGE_SYSTEM_MESSAGE,
    )
    assert (THREE.protocol_version, THREE.system_message) == (
        THREE_LEVEL_PROTOCOL_VERSION,
        THREE_LEVEL_SYSTEM_MESSAGE,
    )


def test_binary_combines_by_strict_majority_and_matches_are_the_decisions() -> None:
    passes = [{"p": True, "h": False}, {"p": True, "h": True}, {"p": False, "h": False}]
    assert BINARY.combine(passes) == {"p": True, "h": False}
    assert BINARY.combine(passes[1:]) == {"p": False, "h": False}
    assert BINARY.matches({"p": True, "h": False}, ITEMS) == {"p": True, "h": False}
    assert BINARY.score_details([], {}) == {}


def test_binary_parses_strictly() -> None:
    reply = json.dumps({"decisions": [{"item_id": "p", "matched": True}]})
    with pytest.raises(JudgeReplyError, match="missing item_id h"):
        BINARY.parse(reply, ANSWER, ["p", "h"])


def test_three_level_combines_by_the_lower_median_and_scores_partial_harm_as_harm() -> None:
    passes = [{"p": "MET", "h": "PARTIALLY_MET"}, {"p": "PARTIALLY_MET", "h": "NOT_MET"}]
    combined = THREE.combine(passes)
    assert combined == {"p": "PARTIALLY_MET", "h": "NOT_MET"}
    levels = {"p": "PARTIALLY_MET", "h": "PARTIALLY_MET"}
    matches = THREE.matches(levels, ITEMS)
    assert matches == {"p": 0.5, "h": 1.0}
    rubric = [{"item_id": i.item_id, "points": i.points} for i in ITEMS]
    assert {k: Fraction(v) for k, v in matches.items()} == three_level_matches(rubric, levels)


def judgement(item_id: str, decision: str, rationale: str, evidence: str = "") -> ItemJudgement:
    return ItemJudgement(item_id, decision, rationale, evidence)  # type: ignore[arg-type]


def test_three_level_pass_applies_overrides_and_keeps_what_the_judge_said() -> None:
    said = [
        judgement("p", "MET", "Names it but is missing the dose.", "Stop ibuprofen."),
        judgement("h", "NOT_MET", "Not suggested."),
    ]
    result = THREE.to_pass(JudgeOutcome(said, 0.0, [{"attempt": 1}]), ITEMS)
    assert result.decisions == {"p": "PARTIALLY_MET", "h": "NOT_MET"}
    assert (result.temperature_sent, result.attempts) == (0.0, [{"attempt": 1}])
    assert result.details == {
        "judgements": [
            {
                "item_id": "p",
                "decision": "MET",
                "rationale": "Names it but is missing the dose.",
                "evidence": "Stop ibuprofen.",
            },
            {"item_id": "h", "decision": "NOT_MET", "rationale": "Not suggested.", "evidence": ""},
        ],
        "overrides": [{"item_id": "p", "from": "MET", "to": "PARTIALLY_MET", "phrase": "missing"}],
    }
    # one pass: its lists as they are; two passes: one list per pass
    one = THREE.score_details([result], {"p": 0.5, "h": 0.0})
    assert one == {
        "judgements": result.details["judgements"],
        "overrides": result.details["overrides"],
        "match_values": {"p": 0.5, "h": 0.0},
    }
    two = THREE.score_details([result, result], {"p": 0.5, "h": 0.0})
    assert two["judgements"] == [result.details["judgements"]] * 2
    assert two["overrides"] == [result.details["overrides"]] * 2


def test_three_level_evidence_must_be_a_quote_of_the_answer() -> None:
    def reply(evidence: str) -> str:
        entries = [
            {"item_id": "p", "decision": "MET", "rationale": "Stated.", "evidence": evidence},
            {"item_id": "h", "decision": "NOT_MET", "rationale": "No.", "evidence": ""},
        ]
        return json.dumps({"decisions": entries})

    parsed = THREE.parse(reply("Stop ibuprofen."), ANSWER, ["p", "h"])
    assert [(j.item_id, j.decision) for j in parsed] == [("p", "MET"), ("h", "NOT_MET")]
    with pytest.raises(JudgeReplyError, match="does not occur in the answer"):
        THREE.parse(reply("Stop aspirin."), ANSWER, ["p", "h"])


@pytest.mark.parametrize("strategy", [BINARY, THREE], ids=["binary", "three_level"])
def test_ask_sends_the_variants_system_message_and_the_delimited_case(
    strategy: BinaryGrading | ThreeLevelGrading,
) -> None:
    if strategy is BINARY:
        entries = [{"item_id": "p", "matched": True}, {"item_id": "h", "matched": False}]
    else:
        entries = [
            {"item_id": "p", "decision": "MET", "rationale": "Yes.", "evidence": "Stop ibuprofen."},
            {"item_id": "h", "decision": "NOT_MET", "rationale": "No.", "evidence": ""},
        ]
    model, script = scripted_model(f"ask-{strategy.name}", [json.dumps({"decisions": entries})])
    outcome: JudgeOutcome[Any] = asyncio.run(
        strategy.ask(model, "Kidney injury on NSAIDs?", ANSWER, ITEMS, 0)
    )
    (call,) = script.calls
    assert [(m.role, m.text) for m in call.messages] == [
        ("system", strategy.system_message),
        ("user", judge_user_message("Kidney injury on NSAIDs?", ANSWER, ITEMS)),
    ]
    assert call.temperature == JUDGE_TEMPERATURE
    assert len(outcome.attempts) == 1 and outcome.attempts[0]["error"] is None
