"""Combining repeated judge passes (`judging/passes.py`): strict majority for booleans (a tie is not
matched), the lower median for levels, checked by hand and against every combination."""

from __future__ import annotations

import itertools

import pytest

from bedside_bench.judging.passes import combine_passes

LEVELS = ("NOT_MET", "PARTIALLY_MET", "MET")
RANK = {level: n for n, level in enumerate(LEVELS)}


def test_booleans_by_hand() -> None:
    passes = [
        {"a": True, "b": True, "c": False, "d": True},
        {"a": True, "b": False, "c": False, "d": False},
        {"a": False, "b": True, "c": False, "d": False},
    ]
    assert combine_passes(passes, rank=int) == {"a": True, "b": True, "c": False, "d": False}
    # two passes that disagree: a tie, so not matched
    assert combine_passes(passes[:2], rank=int) == {"a": True, "b": False, "c": False, "d": False}


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_booleans_are_a_strict_majority_for_every_combination(n: int) -> None:
    for votes in itertools.product([False, True], repeat=n):
        passes = [{"i": v} for v in votes]
        assert combine_passes(passes, rank=int) == {"i": 2 * sum(votes) > n}, votes


def test_levels_by_hand() -> None:
    passes = [
        {"a": "MET", "b": "MET", "c": "NOT_MET"},
        {"a": "PARTIALLY_MET", "b": "MET", "c": "MET"},
        {"a": "NOT_MET", "b": "PARTIALLY_MET", "c": "MET"},
    ]
    combined = combine_passes(passes, rank=RANK.__getitem__)
    assert combined == {"a": "PARTIALLY_MET", "b": "MET", "c": "MET"}
    # two passes: the lower of the two, the conservative judgement
    assert combine_passes(passes[:2], rank=RANK.__getitem__) == {
        "a": "PARTIALLY_MET",
        "b": "MET",
        "c": "NOT_MET",
    }


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_levels_are_the_lower_median_for_every_combination(n: int) -> None:
    # the lower median: the lowest level that at least half of the passes (rounded up) reach
    # or fall below
    for values in itertools.product(LEVELS, repeat=n):
        passes = [{"i": v} for v in values]
        need = (n + 1) // 2
        expected = next(
            level for level in LEVELS if sum(RANK[v] <= RANK[level] for v in values) >= need
        )
        assert combine_passes(passes, rank=RANK.__getitem__) == {"i": expected}, values


def test_items_keep_the_first_pass_order() -> None:
    passes = [{"z": True, "a": False}, {"a": False, "z": True}]
    assert list(combine_passes(passes, rank=int)) == ["z", "a"]


def test_no_pass_is_an_error() -> None:
    with pytest.raises(ValueError, match="need at least one judge pass"):
        combine_passes(list[dict[str, bool]](), rank=int)
