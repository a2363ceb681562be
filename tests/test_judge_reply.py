"""Strict parsing of judge replies: a corpus of malformed replies, each with its reason."""

from __future__ import annotations

import json

import pytest

from bedside_bench.judge_reply import (
    JudgeReplyError,
    format_points,
    judge_user_message,
    parse_decisions,
    rubric_line,
)
from bedside_bench.protocol import JUDGE_SYSTEM_MESSAGE
from bedside_bench.schema_files import validator
from bedside_bench.scoring import RubricItem

IDS = ["aa_0", "aa_1", "aa_2"]
GOOD = {
    "decisions": [
        {"item_id": "aa_0", "matched": True},
        {"item_id": "aa_1", "matched": False},
        {"item_id": "aa_2", "matched": True},
    ]
}
EXPECTED = {"aa_0": True, "aa_1": False, "aa_2": True}


def body(*decisions: object, **extra: object) -> str:
    return json.dumps({"decisions": list(decisions), **extra})


def d(item_id: object, matched: object) -> dict[str, object]:
    return {"item_id": item_id, "matched": matched}


MALFORMED: list[tuple[str, str]] = [
    ("", "empty reply"),
    ("   \n ", "empty reply"),
    ("The answer matches items 0 and 2.", "not JSON"),
    ('{"decisions": [', "not JSON"),
    ("{'decisions': []}", "not JSON"),
    (json.dumps(GOOD) + "\nThat is my grading.", "not JSON"),
    ("Here you go:\n" + json.dumps(GOOD), "not JSON"),
    (json.dumps(GOOD) + json.dumps(GOOD), "not JSON"),
    ('{"decisions": [{"item_id": "aa_0", "matched": NaN}]}', "not JSON"),
    ("```json\n" + json.dumps(GOOD) + "\n```\n```json\n{}\n```", "not exactly one fenced block"),
    ("```json\n" + json.dumps(GOOD), "not exactly one fenced block"),
    ("```json\n" + json.dumps(GOOD) + "\n```\nDone.", "not exactly one fenced block"),
    ("[" + json.dumps(GOOD) + "]", "must be a JSON object"),
    ('"decisions"', "must be a JSON object"),
    ("null", "must be a JSON object"),
    ("{}", "missing top-level key 'decisions'"),
    (json.dumps({"decision": GOOD["decisions"]}), "unexpected top-level keys ['decision']"),
    (json.dumps({**GOOD, "rationale": "fine"}), "unexpected top-level keys ['rationale']"),
    ('{"decisions": [], "decisions": []}', "duplicate JSON keys ['decisions']"),
    (json.dumps({"decisions": {"aa_0": True}}), "'decisions' must be a list"),
    (body(d("aa_0", True), "aa_1", d("aa_2", True)), "decision 1 is not an object"),
    (body(d("aa_0", True), {"item_id": "aa_1"}, d("aa_2", True)), "missing ['matched']"),
    (body(d("aa_0", True), {"matched": False}, d("aa_2", True)), "missing ['item_id']"),
    (
        body(d("aa_0", True), {**d("aa_1", False), "reason": "x"}, d("aa_2", True)),
        "unexpected ['reason']",
    ),
    (body(d(0, True), d("aa_1", False), d("aa_2", True)), "item_id must be a string"),
    (body(d("aa_0", "true"), d("aa_1", False), d("aa_2", True)), "matched must be a JSON boolean"),
    (body(d("aa_0", 1), d("aa_1", False), d("aa_2", True)), "matched must be a JSON boolean"),
    (body(d("aa_0", 0), d("aa_1", False), d("aa_2", True)), "matched must be a JSON boolean"),
    (body(d("aa_0", None), d("aa_1", False), d("aa_2", True)), "matched must be a JSON boolean"),
    (body(d("aa_0", "yes"), d("aa_1", False), d("aa_2", True)), "matched must be a JSON boolean"),
    (body(d("aa_0", [True]), d("aa_1", False), d("aa_2", True)), "matched must be a JSON boolean"),
    (body(d("aa_0", True), d("aa_1", False)), "missing item_id aa_2"),
    (body(), "missing item_id aa_0, aa_1, aa_2"),
    (
        body(d("aa_0", True), d("aa_1", False), d("aa_2", True), d("aa_2", False)),
        "duplicate item_id aa_2",
    ),
    (
        body(d("aa_0", True), d("aa_1", False), d("aa_2", True), d("aa_3", False)),
        "unknown item_id aa_3",
    ),
    (
        body(d("item_0", True), d("item_1", False), d("item_2", True)),
        "unknown item_id item_0, item_1, item_2; missing item_id aa_0, aa_1, aa_2",
    ),
    (body(d("AA_0", True), d("aa_1", False), d("aa_2", True)), "unknown item_id AA_0"),
    (body(d(" aa_0", True), d("aa_1", False), d("aa_2", True)), "unknown item_id  aa_0"),
]


@pytest.mark.parametrize(("reply", "reason"), MALFORMED)
def test_malformed_reply_is_rejected_with_its_reason(reply: str, reason: str) -> None:
    with pytest.raises(JudgeReplyError) as caught:
        parse_decisions(reply, IDS)
    assert reason in str(caught.value)


def test_corpus_is_large_enough() -> None:
    assert len(MALFORMED) >= 30


@pytest.mark.parametrize(
    "reply",
    [
        json.dumps(GOOD),
        json.dumps(GOOD, indent=2),
        "  \n" + json.dumps(GOOD) + "\n\n",
        "```json\n" + json.dumps(GOOD, indent=2) + "\n```",
        "```\n" + json.dumps(GOOD) + "\n```",
        "\n```JSON\n" + json.dumps(GOOD) + "\n```\n",
        json.dumps({"decisions": list(reversed(GOOD["decisions"]))}),
        json.dumps(
            {"decisions": [GOOD["decisions"][1], GOOD["decisions"][2], GOOD["decisions"][0]]}
        ),
        json.dumps(
            {
                "decisions": [
                    {"matched": True, "item_id": "aa_0"},
                    {"matched": False, "item_id": "aa_1"},
                    {"matched": True, "item_id": "aa_2"},
                ]
            }
        ),
    ],
)
def test_valid_variants_are_accepted(reply: str) -> None:
    assert parse_decisions(reply, IDS) == EXPECTED


def test_shipped_schema_agrees_with_the_parser_on_structure() -> None:
    schema = validator("judge_decisions.schema.json")
    assert schema.is_valid(GOOD)
    for reply, reason in MALFORMED:
        if "duplicate JSON keys" in reason:
            continue  # json.loads keeps the last key, so the schema never sees the duplicate
        try:
            value = json.loads(reply)
        except json.JSONDecodeError:
            continue
        if schema.is_valid(value):
            # structurally valid replies may only fail on the id set
            with pytest.raises(JudgeReplyError, match="item_id"):
                parse_decisions(reply, IDS)


def test_rubric_lines_and_points_format() -> None:
    assert [format_points(p) for p in (3, 2, 1, 0, -1, -2, -3)] == [
        "+3",
        "+2",
        "+1",
        "+0",
        "-1",
        "-2",
        "-3",
    ]
    item = RubricItem("abc_0", "Checks renal function.", -2)
    assert rubric_line(item) == "[abc_0] points=-2 :: Checks renal function."


def test_judge_user_message_has_labelled_sections() -> None:
    message = judge_user_message(
        "Q?", "A.", [RubricItem("x_0", "one", 1), RubricItem("x_1", "two", 0)]
    )
    assert message == (
        "<clinical_prompt>\nQ?\n</clinical_prompt>\n\n<answer>\nA.\n</answer>\n\n"
        "<rubric_items>\n[x_0] points=+1 :: one\n[x_1] points=+0 :: two\n</rubric_items>"
    )


def test_judge_system_message_is_the_protocol_text() -> None:
    assert JUDGE_SYSTEM_MESSAGE.startswith(
        "You are grading a clinical answer against independent rubric items.\n\n"
    )
    assert (
        "6. Return exactly one decision for every supplied item_id and no other item_ids."
        in JUDGE_SYSTEM_MESSAGE
    )
    assert JUDGE_SYSTEM_MESSAGE.endswith(
        '`{"decisions":[{"item_id":"item_0","matched":true},{"item_id":"item_1","matched":false}]}`'
    )
