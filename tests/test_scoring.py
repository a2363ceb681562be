"""Case scores against hand-computed values (protocol section 3)."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from bedside_bench.core.contracts import RubricItem
from bedside_bench.scoring.case_score import (
    F1Score,
    PointsScore,
    case_score,
    f1_weighted_score,
    points_rubric_score,
)
from tests.independent import f1_parts, points_score


def items(*points: int) -> list[RubricItem]:
    return [RubricItem(f"i{n}", f"criterion {n}", p) for n, p in enumerate(points)]


def decide(*matched: bool) -> dict[str, bool]:
    return {f"i{n}": m for n, m in enumerate(matched)}


# ---- points rubrics -----------------------------------------------------------------------


def test_points_all_positive_matched_is_one() -> None:
    result = points_rubric_score(items(1, 1, 2), decide(True, True, True))
    assert result == PointsScore(1.0, 1.0, 4, 4)


def test_points_partial_credit() -> None:
    # matched +1 and +2 of +1 +1 +2: 3/4
    result = points_rubric_score(items(1, 1, 2), decide(True, False, True))
    assert result.score == 0.75
    assert result.matched_signed_points == 3
    assert result.available_positive_points == 4


def test_points_negative_item_deducts() -> None:
    # +1 +1 +1 -1, matched the first two and the -1: (2 - 1) / 3
    result = points_rubric_score(items(1, 1, 1, -1), decide(True, True, False, True))
    assert result.score == pytest.approx(1 / 3)
    assert result.raw == pytest.approx(1 / 3)
    assert result.matched_signed_points == 1


def test_points_clamped_at_zero() -> None:
    # +1 +1 -3: only the -3 matched -> raw -3/2, reported 0
    result = points_rubric_score(items(1, 1, -3), decide(False, False, True))
    assert result.raw == -1.5
    assert result.score == 0.0


def test_points_upper_bound_is_one() -> None:
    # with every match in [0, 1], raw never exceeds 1: the upper clamp is the identity there
    result = points_rubric_score(items(2, -1), {"i0": True, "i1": False})
    assert result.score == 1.0
    # a negative item cannot push above one
    assert points_rubric_score(items(2, -1), decide(True, True)).score == 0.5


def test_points_zero_point_items_are_inert() -> None:
    with_zero = points_rubric_score(items(1, 0, 1), decide(True, True, False))
    without = points_rubric_score(items(1, 0, 1), decide(True, False, False))
    assert with_zero == without == PointsScore(0.5, 0.5, 1, 2)


def test_points_needs_a_positive_item() -> None:
    with pytest.raises(ValueError, match="positive"):
        points_rubric_score(items(0, -1), decide(True, True))


def test_missing_decision_is_an_error_not_a_zero() -> None:
    with pytest.raises(ValueError, match="no decision for rubric item 'i1'"):
        points_rubric_score(items(1, 1), {"i0": True})


# ---- F1 rubrics -----------------------------------------------------------------------------


def expected_f1(
    points: list[int], matched: list[bool]
) -> tuple[Fraction, Fraction | None, Fraction]:
    """Independent path: exact fractions straight from the protocol's formulas."""
    rubric = [{"item_id": f"i{n}", "points": p} for n, p in enumerate(points)]
    recall, precision, f1, _ = f1_parts(rubric, decide(*matched))
    return recall, precision, f1


@pytest.mark.parametrize(
    ("points", "matched"),
    [
        ([3, 2, 1, 0, -1, -2, -3], [True, True, True, False, False, False, False]),
        ([3, 2, 1, 0, -1, -2, -3], [True, False, True, True, True, False, False]),
        ([3, 3, -3, -2, 1], [True, False, False, True, True]),
        ([2, 1, 1, -1, -1, 0, 0], [False, True, True, True, False, True, True]),
    ],
)
def test_f1_matches_exact_fractions(points: list[int], matched: list[bool]) -> None:
    recall, precision, f1 = expected_f1(points, matched)
    result = f1_weighted_score(items(*points), decide(*matched))
    assert result.recall == pytest.approx(float(recall), abs=1e-15)
    assert result.precision == pytest.approx(float(precision), abs=1e-15)  # type: ignore[arg-type]
    assert result.score == pytest.approx(float(f1), abs=1e-15)


def test_f1_hand_computed_example() -> None:
    # +3 matched, +2 unmatched, +1 matched, 0 matched, -2 matched
    # recall = (72 + 3) / (72 + 24 + 3) = 75/99; precision = 75 / (72 + 3 + 1 + 24) = 75/100
    result = f1_weighted_score(items(3, 2, 1, 0, -2), decide(True, False, True, True, True))
    recall, precision = 75 / 99, 0.75
    assert result.recall == pytest.approx(recall)
    assert result.precision == pytest.approx(precision)
    assert result.score == pytest.approx(2 * precision * recall / (precision + recall))
    assert result.severe_rate == 0


def test_f1_matched_zero_point_item_enters_precision_denominator() -> None:
    without = f1_weighted_score(items(1, 0), decide(True, False))
    with_zero = f1_weighted_score(items(1, 0), decide(True, True))
    assert without.precision == 1.0
    assert with_zero.precision == pytest.approx(3 / 4)
    assert with_zero.score < without.score


def test_f1_nothing_matched() -> None:
    result = f1_weighted_score(items(3, 1, -1), decide(False, False, False))
    assert result == F1Score(score=0.0, recall=0.0, precision=None, severe_rate=1, f1=0.0)


def test_f1_only_negatives_matched() -> None:
    result = f1_weighted_score(items(2, 1, -1, -2), decide(False, False, True, True))
    assert result.recall == 0.0
    assert result.precision == 0.0
    assert result.score == 0.0
    assert result.severe_rate == 0


def test_f1_severe_rate_and_gate() -> None:
    # a matched -3 item: severe; the current protocol keeps the F1 score
    pts, hit = (3, 1, -3), (True, True, True)
    plain = f1_weighted_score(items(*pts), decide(*hit))
    gated = f1_weighted_score(items(*pts), decide(*hit), severe_gate=True)
    assert plain.severe_rate == gated.severe_rate == 1
    assert plain.score == pytest.approx(2 * (75 / 147) * 1 / (75 / 147 + 1))
    assert gated.score == 0.0
    assert gated.f1 == plain.score
    # an unmatched +3 item is severe too
    assert f1_weighted_score(items(3, 2), decide(False, True)).severe_rate == 1
    # neither: the gate changes nothing
    clean = f1_weighted_score(items(3, 2, -3), decide(True, False, False), severe_gate=True)
    assert clean.severe_rate == 0
    assert clean.score == pytest.approx(2 * 1 * (72 / 96) / (1 + 72 / 96))


def test_f1_rejects_points_outside_range() -> None:
    with pytest.raises(ValueError, match="-3..\\+3"):
        f1_weighted_score(items(4, 1), decide(True, True))


def test_fractional_matches_for_three_level_grading() -> None:
    # half of +2 and all of +1 of +1 +1 +2: (1 + 1) / 4
    assert points_rubric_score(items(1, 1, 2), {"i0": 1, "i1": 0, "i2": 0.5}).score == 0.5
    result = f1_weighted_score(items(3, 1), {"i0": 0.5, "i1": 1.0})
    assert result.recall == pytest.approx((36 + 3) / 75)
    assert result.precision == 1.0
    assert result.severe_rate == 1  # a +3 item not fully matched


def test_case_score_dispatches_on_grading_method() -> None:
    assert isinstance(case_score("points_rubric", items(1), decide(True)), PointsScore)
    assert isinstance(case_score("f1_weighted_rubric", items(1), decide(True)), F1Score)
    with pytest.raises(ValueError, match="unknown grading method"):
        case_score("other", items(1), decide(True))  # type: ignore[arg-type]


# ---- against the independent reference on many rubrics --------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_scores_equal_the_exact_reference_on_random_rubrics(seed: int) -> None:
    """Random rubrics (points -3..+3, one positive item at least) and match values 0, 1/2, 1
    (three-level grading) against `tests.independent`'s exact fractions."""
    rng = random.Random(seed)
    for _ in range(200):
        points = [rng.randint(-3, 3) for _ in range(rng.randint(1, 12))]
        points[rng.randrange(len(points))] = rng.randint(1, 3)
        matched = [rng.choice([0.0, 0.5, 1.0]) for _ in points]
        rubric = [{"item_id": f"i{n}", "points": p} for n, p in enumerate(points)]
        m = {f"i{n}": v for n, v in enumerate(matched)}
        assert points_rubric_score(items(*points), m).score == pytest.approx(
            float(points_score(rubric, m)), abs=1e-12
        )
        recall, precision, f1, severe = f1_parts(rubric, m)
        result = f1_weighted_score(items(*points), m)
        assert result.recall == pytest.approx(float(recall), abs=1e-12)
        if precision is None:
            assert result.precision is None
        else:
            assert result.precision == pytest.approx(float(precision), abs=1e-12)
        assert result.score == pytest.approx(float(f1), abs=1e-12)
        assert result.severe_rate == severe
