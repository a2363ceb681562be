"""Known-answer tests for bedside_bench.scoring.agreement: exact fractions for kappa, hand-counted
tables for repeated passes, and hand arithmetic for degenerate inputs."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from bedside_bench.scoring.agreement import (
    category_counts,
    cohen_kappa,
    fleiss_kappa,
    kendall_tau,
    pass_fail_counts,
    pooled_kappa,
    unanimous_fraction,
    unanimous_share,
)
from tests.independent import fleiss_kappa_exact

# ---------------------------------------------------------------------------------------------
# Fleiss' kappa and the per-item tables


# Fleiss (1971) as reproduced on Wikipedia: 10 subjects, 14 raters, 5 categories, kappa 0.210.
WIKIPEDIA_TABLE = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]


def test_fleiss_kappa_wikipedia_example() -> None:
    kappa = fleiss_kappa(np.array(WIKIPEDIA_TABLE))
    assert kappa is not None
    assert round(kappa, 3) == 0.210
    assert kappa == pytest.approx(float(fleiss_kappa_exact(WIKIPEDIA_TABLE)), abs=1e-12)
    # By hand: category totals 20, 28, 39, 21, 32 of 140 ratings, so P_e = 4170 / 19600
    # (0.213); sum over items of (sum n_ij^2 - 14) = 688, so P-bar = 688 / (10 * 14 * 13) (0.378).
    p_bar, p_e = Fraction(688, 1820), Fraction(4170, 19600)
    assert kappa == pytest.approx(float((p_bar - p_e) / (1 - p_e)), abs=1e-12)
    assert fleiss_kappa(WIKIPEDIA_TABLE) == kappa  # plain lists work too


def test_fleiss_kappa_perfect_agreement_is_one() -> None:
    assert fleiss_kappa([[3, 0], [0, 3], [3, 0]]) == 1.0


def test_fleiss_kappa_undefined_when_one_category_takes_everything() -> None:
    assert fleiss_kappa([[5, 0], [5, 0]]) is None
    assert fleiss_kappa([[0, 2, 0]]) is None


def test_fleiss_kappa_binary_hand_example() -> None:
    # 4 items, 3 raters: [3,0] [2,1] [1,2] [0,3]
    # p = (6/12, 6/12), P_e = 1/2; P_i = 1, 1/3, 1/3, 1 -> P-bar = 2/3; kappa = (2/3-1/2)/(1/2).
    assert fleiss_kappa([[3, 0], [2, 1], [1, 2], [0, 3]]) == pytest.approx(1 / 3, abs=1e-15)


def test_fleiss_kappa_worse_than_chance_is_negative() -> None:
    # Each item split evenly between two raters: P-bar = 0, P_e = 1/2, kappa = -1.
    assert fleiss_kappa([[1, 1], [1, 1]]) == -1.0


@pytest.mark.parametrize(
    ("ratings", "message"),
    [
        ([3, 0], "2-D"),
        (np.zeros((0, 2)), "empty"),
        ([[3, 0], [2, 0]], "same number of ratings"),
        ([[1, 0], [0, 1]], "at least 2 ratings"),
        ([[2.5, 0.5]], "whole-number"),
        ([[3, -1]], "non-negative"),
        ([[True, True]], "numeric counts"),
    ],
)
def test_fleiss_kappa_rejects_bad_tables(ratings: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        fleiss_kappa(ratings)  # type: ignore[arg-type]


def test_unanimous_fraction() -> None:
    decisions = [[True, True, True], [False, False, False], [True, False, True], [True, True]]
    assert unanimous_fraction(decisions) == 0.75
    assert unanimous_fraction([[np.bool_(True), np.bool_(True)]]) == 1.0
    assert unanimous_fraction([[True, False]]) == 0.0


@pytest.mark.parametrize(
    ("decisions", "message"),
    [
        ([], "empty"),
        ([[True, True], [True]], "item 1 has 1 decision"),
        ([[1, 1]], "must be booleans"),
    ],
)
def test_unanimous_fraction_rejects_bad_input(decisions: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        unanimous_fraction(decisions)  # type: ignore[arg-type]


def test_pass_fail_counts_feed_fleiss_kappa() -> None:
    decisions = [[True, True, True], [True, True, False], [True, False, False], [False] * 3]
    counts = pass_fail_counts(decisions)
    assert counts.tolist() == [[3, 0], [2, 1], [1, 2], [0, 3]]
    assert fleiss_kappa(counts) == pytest.approx(1 / 3, abs=1e-15)


# ---------------------------------------------------------------------------------------------
# Repeated passes of one case and of many cases


def test_unanimous_share_counts_items_every_pass_agrees_on() -> None:
    passes = [{"a": True, "b": True, "c": "MET"}, {"a": True, "b": False, "c": "MET"}]
    assert unanimous_share(passes) == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="no items"):
        unanimous_share([{}, {}])


def test_category_counts_by_hand() -> None:
    passes = [{"i": "MET", "j": "NOT_MET"}, {"i": "MET", "j": "PARTIAL"}]
    table = category_counts(passes, ["MET", "PARTIAL", "NOT_MET"])
    assert table.tolist() == [[2, 0, 0], [0, 1, 1]]


def test_pooled_kappa_of_booleans_equals_the_pass_fail_table() -> None:
    # items (T,T,T) (T,T,F) | (T,F,F) (F,F,F): the hand example above, split over two cases
    one = [{"a": True, "b": True}, {"a": True, "b": True}, {"a": True, "b": False}]
    two = [{"c": True, "d": False}, {"c": False, "d": False}, {"c": False, "d": False}]
    assert pooled_kappa([one, two]) == pytest.approx(1 / 3, abs=1e-15)


def test_pooled_kappa_counts_three_levels_as_three_categories() -> None:
    # items: (MET, MET) (MET, PARTIAL) (NOT_MET, NOT_MET); counts [2,0,0] [1,1,0] [0,0,2]
    # P_i = 1, 0, 1 -> P_bar = 2/3; p_j = 3/6, 1/6, 2/6 -> P_e = 14/36
    # kappa = (2/3 - 14/36) / (1 - 14/36) = (10/36) / (22/36) = 5/11
    passes = [
        {"i": "MET", "j": "MET", "k": "NOT_MET"},
        {"i": "MET", "j": "PARTIAL", "k": "NOT_MET"},
    ]
    assert pooled_kappa([passes]) == pytest.approx(5 / 11, abs=1e-15)


def test_pooled_kappa_is_none_when_passes_cannot_be_lined_up() -> None:
    assert pooled_kappa([]) is None
    assert pooled_kappa([[{"i": True}]]) is None  # one pass
    assert pooled_kappa([[{"i": True}, {"j": True}]]) is None  # a pass lacks item i
    assert pooled_kappa([[{}, {}]]) is None  # no items
    assert pooled_kappa([[{"i": True}, {"i": True}]]) is None  # one category: undefined


# ---------------------------------------------------------------------------------------------
# Two judges, two rankings


def test_cohen_kappa_by_hand() -> None:
    # p_o = 3/4, p_e = 1/2 * 1/4 + 1/2 * 3/4 = 1/2 -> (3/4 - 1/2) / (1/2) = 1/2
    assert cohen_kappa([True, True, False, False], [True, False, False, False]) == 0.5
    assert cohen_kappa([True, False], [True, False]) == 1.0
    assert cohen_kappa([True, False], [False, True]) == -1.0
    assert cohen_kappa([True, True], [True, True]) is None  # p_e = 1
    with pytest.raises(ValueError, match="different numbers"):
        cohen_kappa([True], [True, False])
    with pytest.raises(ValueError, match="booleans"):
        cohen_kappa([1], [0])  # type: ignore[list-item]


def test_kendall_tau_b_by_hand() -> None:
    assert kendall_tau([1, 2, 3], [1, 2, 3]) == 1.0
    assert kendall_tau([1, 2], [2, 1]) == -1.0
    assert kendall_tau([1, 2, 3], [1, 3, 2]) == pytest.approx(1 / 3)  # C=2, D=1 of 3 pairs
    # C=3, D=2, one tie in each: (3 - 2) / sqrt(5 * 5)
    assert kendall_tau([1, 2, 3, 3], [1, 3, 2, 2]) == pytest.approx(0.2)
    assert kendall_tau([1, 1], [1, 2]) is None
    assert kendall_tau([1], [1]) is None
