"""Three-level grading: strict replies, verified evidence, tighten-only overrides, scoring."""

from __future__ import annotations

import json

import pytest

from bedside_bench.core.contracts import RubricItem
from bedside_bench.judging.reply import JudgeReplyError
from bedside_bench.judging.three_level import (
    ItemJudgement,
    apply_overrides,
    match_values,
    parse_three_level,
)
from bedside_bench.scoring.case_score import f1_weighted_score, points_rubric_score

ANSWER = "Stop the  NSAID now.\nCheck creatinine in 48 hours. Do not start an ACE inhibitor."
IDS = ["p_0", "p_1"]


def reply(*entries: dict[str, object]) -> str:
    return json.dumps({"decisions": list(entries)})


def e(
    item_id: str, decision: str, evidence: str = "", rationale: str = "Stated."
) -> dict[str, object]:
    return {"item_id": item_id, "decision": decision, "rationale": rationale, "evidence": evidence}


def test_valid_reply_with_whitespace_normalised_evidence() -> None:
    parsed = parse_three_level(
        reply(e("p_0", "MET", "Stop the NSAID   now. Check"), e("p_1", "NOT_MET")), ANSWER, IDS
    )
    assert [(j.item_id, j.decision) for j in parsed] == [("p_0", "MET"), ("p_1", "NOT_MET")]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (
            reply(e("p_0", "MET", "Stop aspirin now."), e("p_1", "NOT_MET")),
            "the evidence quote does not occur in the answer",
        ),
        (
            reply(e("p_0", "PARTIALLY_MET", ""), e("p_1", "NOT_MET")),
            "PARTIALLY_MET needs a verbatim evidence quote",
        ),
        (reply(e("p_0", "MET", "   "), e("p_1", "NOT_MET")), "MET needs a verbatim evidence"),
        (
            reply(e("p_0", "met", "Stop the NSAID now."), e("p_1", "NOT_MET")),
            "decision must be one of MET, PARTIALLY_MET, NOT_MET",
        ),
        (reply(e("p_0", "UNSURE"), e("p_1", "NOT_MET")), "decision must be one of"),
        (
            reply({"item_id": "p_0", "decision": "NOT_MET", "evidence": ""}, e("p_1", "NOT_MET")),
            "missing ['rationale']",
        ),
        (
            reply({**e("p_0", "NOT_MET"), "matched": False}, e("p_1", "NOT_MET")),
            "unexpected ['matched']",
        ),
        (
            reply({**e("p_0", "NOT_MET"), "rationale": None}, e("p_1", "NOT_MET")),
            "rationale and evidence must be strings",
        ),
        (reply(e("p_0", "NOT_MET")), "missing item_id p_1"),
        (
            reply(e("p_0", "NOT_MET"), e("p_1", "NOT_MET"), e("p_1", "NOT_MET")),
            "duplicate item_id p_1",
        ),
        ("not json", "not JSON"),
    ],
)
def test_invalid_replies(text: str, reason: str) -> None:
    with pytest.raises(JudgeReplyError, match=None) as caught:
        parse_three_level(text, ANSWER, IDS)
    assert reason in str(caught.value)


def test_not_met_may_quote_the_answer_but_only_verbatim() -> None:
    ok = reply(e("p_0", "NOT_MET", "Do not start an ACE inhibitor."), e("p_1", "NOT_MET"))
    assert parse_three_level(ok, ANSWER, IDS)[0].evidence
    bad = reply(e("p_0", "NOT_MET", "Start an ACE inhibitor today."), e("p_1", "NOT_MET"))
    with pytest.raises(JudgeReplyError, match="does not occur"):
        parse_three_level(bad, ANSWER, IDS)


ITEMS = [
    RubricItem("a", "x", 2),
    RubricItem("b", "y", 1),
    RubricItem("c", "z", -2),
    RubricItem("d", "w", 0),
]


def j(item_id: str, decision: str, rationale: str) -> ItemJudgement:
    return ItemJudgement(item_id, decision, rationale, "q")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("decision", "rationale", "final", "phrase"),
    [
        ("MET", "States the dose but is missing the renal adjustment.", "PARTIALLY_MET", "missing"),
        ("MET", "Somewhat addresses monitoring.", "PARTIALLY_MET", "somewhat"),
        ("MET", "It could have named the drug.", "PARTIALLY_MET", "could have"),
        ("MET", "Only partially explains the risk.", "PARTIALLY_MET", "partially"),
        ("MET", "Fails to mention potassium.", "NOT_MET", "fails to"),
        ("MET", "The plan contradicts the guideline.", "NOT_MET", "contradicts"),
        ("PARTIALLY_MET", "A dangerous omission of monitoring.", "NOT_MET", "dangerous"),
        ("PARTIALLY_MET", "Is missing the interval.", "PARTIALLY_MET", None),
        ("NOT_MET", "Fully and clearly stated.", "NOT_MET", None),
        ("NOT_MET", "It fails to ... no wait, it is met.", "NOT_MET", None),
        ("MET", "Fully stated with the dose.", "MET", None),
        ("MET", "Uses the word dangerously? no: no override for parts of words", "MET", None),
    ],
)
def test_override_rules_tighten_only(
    decision: str, rationale: str, final: str, phrase: str | None
) -> None:
    levels, overrides = apply_overrides([j("a", decision, rationale)], ITEMS)
    assert levels == {"a": final}
    if phrase is None:
        assert overrides == []
    else:
        (override,) = overrides
        assert override.as_dict() == {
            "item_id": "a",
            "from": decision,
            "to": final,
            "phrase": phrase,
        }


def test_overrides_never_touch_harmful_or_zero_point_items() -> None:
    # on a -2 item MET is the penalty: "dangerous" in its rationale must not remove it
    levels, overrides = apply_overrides(
        [j("c", "MET", "Recommends a dangerous combination."), j("d", "MET", "missing")], ITEMS
    )
    assert levels == {"c": "MET", "d": "MET"}
    assert overrides == []


def test_match_values_partial_harm_counts_as_harm() -> None:
    levels = {"a": "PARTIALLY_MET", "b": "MET", "c": "PARTIALLY_MET", "d": "PARTIALLY_MET"}
    values = match_values(levels, ITEMS)  # type: ignore[arg-type]
    assert values == {"a": 0.5, "b": 1.0, "c": 1.0, "d": 0.5}
    # points: (2 * 0.5 + 1 - 2 * 1) / 3 = 0 ; the 0-point item is inert
    assert points_rubric_score(ITEMS, values).score == 0.0
    f1_items = [RubricItem("a", "x", 3), RubricItem("c", "z", -1)]
    result = f1_weighted_score(f1_items, {"a": 0.5, "c": 1.0})
    assert result.recall == 0.5 and result.precision == pytest.approx(36 / 39)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("{" * 50_000, "the reply nests 50000 levels deep; at most 32"),
        (json.dumps({f"k{n}": n for n in range(100)}), "an object has 100 keys; at most 64"),
        ('{"decisions": [], "decisions": []}', "duplicate JSON keys ['decisions']"),
    ],
)
def test_three_level_replies_have_bounded_cost(text: str, reason: str) -> None:
    with pytest.raises(JudgeReplyError) as caught:
        parse_three_level(text, ANSWER, IDS)
    assert reason in str(caught.value)


def test_a_long_bad_decision_value_gives_a_capped_message() -> None:
    entry = {"item_id": IDS[0], "decision": "MET" * 10_000, "rationale": "r", "evidence": ""}
    with pytest.raises(JudgeReplyError) as caught:
        parse_three_level(json.dumps({"decisions": [entry]}), ANSWER, IDS)
    assert str(caught.value).endswith(" characters in all)")
    assert len(str(caught.value)) < 1_100
