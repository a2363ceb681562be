"""Repeated judging: combining N independent judge passes into one decision per item (their
agreement is in `bedside_bench.scoring.agreement`).

Pure functions over per-pass decisions ({item_id: value}); values are booleans (reference
grading) or levels (three-level grading), ordered by a rank.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import TypeVar

V = TypeVar("V", bound=Hashable)


def combine_passes(passes: Sequence[Mapping[str, V]], rank: Callable[[V], float]) -> dict[str, V]:
    """The lower median of each item's pass values.

    For booleans this is the strict-majority rule with ties unmatched: [T, T, F] -> T,
    [T, F] -> F. For ordered levels it is the conservative middle judgement.
    """
    if not passes:
        raise ValueError("need at least one judge pass")
    combined: dict[str, V] = {}
    for item_id in passes[0]:
        values = sorted((p[item_id] for p in passes), key=rank)
        combined[item_id] = values[(len(values) - 1) // 2]
    return combined
