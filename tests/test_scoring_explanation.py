"""The explanation `inspect view` shows beside a score, exactly: the case score rounded to three
places with what it is made of, then one line per item (short label, points, decision, text)."""

from __future__ import annotations

from bedside_bench.core.contracts import RubricItem
from bedside_bench.scoring.case_score import case_score, decision_label, decisions_table

CASE = "0123456789abcdef0123456789abcdef"  # the md5 part of a canonical item id


def canonical(*rows: tuple[int, str]) -> list[RubricItem]:
    return [RubricItem(f"{CASE}_{n}", text, points) for n, (points, text) in enumerate(rows)]


def test_points_rubric_rounded_score_and_one_line_per_item() -> None:
    rubric = canonical((2, "Stops the | drug"), (1, "Checks  the\nlevel"), (0, "Mentions cost"))
    decisions = {rubric[0].item_id: True, rubric[1].item_id: False, rubric[2].item_id: True}
    result = case_score("points_rubric", rubric, decisions)
    assert result.score == 2 / 3  # the value keeps every digit; the text rounds it
    assert decisions_table(rubric, decisions, result) == "\n".join(
        [
            "**Score 0.667**: 2 of 3 available points",
            "",
            f"Item `#` (id `{CASE}_#`) · points · decision · criterion:",
            "",
            "- **0** · +2 · matched · Stops the | drug",
            "- **1** · +1 · not matched · Checks the level",
            "- **2** · 0 · matched · Mentions cost",
        ]
    )


def test_a_clamped_points_score_says_so() -> None:
    rubric = canonical((1, "Good"), (-2, "Harmful"))
    decisions = {rubric[0].item_id: False, rubric[1].item_id: True}
    result = case_score("points_rubric", rubric, decisions)
    assert decisions_table(rubric, decisions, result).splitlines()[0] == (
        "**Score 0.000**: -2 of 1 available points (raw -2.000, clamped to [0, 1])"
    )


def test_f1_line_with_the_severe_gate() -> None:
    # +3 missed (weight 72), +1 matched (3), -1 not matched: recall 3/75, precision 3/3,
    # F1 = 2 x 1 x 0.04 / 1.04 = 0.0769...; a missed +3 is severe, and the gate zeroes the case
    rubric = canonical((3, "Key step"), (1, "Minor step"), (-1, "Minor harm"))
    decisions = {rubric[0].item_id: False, rubric[1].item_id: True, rubric[2].item_id: False}
    gated = case_score("f1_weighted_rubric", rubric, decisions, severe_gate=True)
    assert decisions_table(rubric, decisions, gated).splitlines()[0] == (
        "**Score 0.000**: weighted F1 0.077, recall 0.040, precision 1.000, severe miss yes "
        "(zeroed by the severe gate)"
    )
    plain = case_score("f1_weighted_rubric", rubric, decisions)
    assert decisions_table(rubric, decisions, plain).splitlines()[0] == (
        "**Score 0.077**: weighted F1 0.077, recall 0.040, precision 1.000, severe miss yes"
    )


def test_f1_with_nothing_matched_has_no_precision() -> None:
    rubric = canonical((2, "Step"))
    decisions = {rubric[0].item_id: False}
    result = case_score("f1_weighted_rubric", rubric, decisions)
    assert decisions_table(rubric, decisions, result).splitlines()[0] == (
        "**Score 0.000**: weighted F1 0.000, recall 0.000, precision none matched, severe miss no"
    )


def test_three_level_decisions_and_ids_that_are_not_canonical() -> None:
    """Ids of another form label their lines in full; levels read as words; a partly met
    item counts half its points."""
    rubric = [RubricItem("a", "First", 2), RubricItem("b", "Second", 2)]
    decisions = {"a": "MET", "b": "PARTIALLY_MET"}
    result = case_score("points_rubric", rubric, {"a": 1.0, "b": 0.5})
    assert decisions_table(rubric, decisions, result) == "\n".join(
        [
            "**Score 0.750**: 3 of 4 available points",
            "",
            "Item id · points · decision · criterion:",
            "",
            "- `a` · +2 · met · First",
            "- `b` · +2 · partly met · Second",
        ]
    )


def test_without_a_score_only_the_items() -> None:
    """The judge check shows the judge's decisions against gold, without a case score."""
    rubric = canonical((1, "Only"))
    assert decisions_table(rubric, {rubric[0].item_id: "not matched, gold matched"}) == (
        f"Item `#` (id `{CASE}_#`) · points · decision · criterion:\n\n"
        "- **0** · +1 · not matched, gold matched · Only"
    )


def test_decision_labels() -> None:
    assert [decision_label(v) for v in (True, False, "MET", "PARTIALLY_MET", "NOT_MET")] == [
        "matched",
        "not matched",
        "met",
        "partly met",
        "not met",
    ]
    assert decision_label("something else") == "something else"
    assert decision_label(1) == "1"  # not True: an int is shown as written
