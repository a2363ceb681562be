"""Repeated judging: combining N independent judge passes and measuring their agreement.

Pure functions over per-pass decisions ({item_id: value}); values are booleans (reference
grading) or levels (three-level grading), ordered by a rank.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

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


def unanimous_share(passes: Sequence[Mapping[str, Hashable]]) -> float:
    """Fraction of items on which every pass gave the same decision."""
    ids = list(passes[0])
    if not ids:
        raise ValueError("no items")
    same = sum(1 for i in ids if len({p[i] for p in passes}) == 1)
    return same / len(ids)


def category_counts(
    passes: Sequence[Mapping[str, Hashable]], categories: Sequence[Hashable]
) -> NDArray[np.int64]:
    """(n_items, n_categories) counts of passes per category: the input of Fleiss' kappa."""
    ids = list(passes[0])
    table = np.zeros((len(ids), len(categories)), dtype=np.int64)
    column = {c: n for n, c in enumerate(categories)}
    for row, item_id in enumerate(ids):
        for p in passes:
            table[row, column[p[item_id]]] += 1
    return table
