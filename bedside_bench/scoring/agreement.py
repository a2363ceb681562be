"""Agreement statistics (grading protocol section 4), the one home for them: repeated judge
passes of one case (scorer), of many cases (the Inspect metric and the report's summary), and
different judges on the same answers (the report's judge comparison).

Pure functions. Decisions are booleans (matched / unmatched, reference grading) or levels
(three-level grading); kappa's categories are whatever decisions occur, so both kinds count.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "category_counts",
    "cohen_kappa",
    "fleiss_kappa",
    "kendall_tau",
    "pass_fail_counts",
    "pooled_kappa",
    "unanimous_fraction",
    "unanimous_share",
]

# one judge pass over one case: {item_id: decision}
Passes = Sequence[Mapping[str, Hashable]]


# --------------------------------------------------------------------------------------------
# Repeated judge passes


def unanimous_share(passes: Passes) -> float:
    """Fraction of a case's items on which every pass gave the same decision."""
    ids = list(passes[0])
    if not ids:
        raise ValueError("no items")
    same = sum(1 for i in ids if len({p[i] for p in passes}) == 1)
    return same / len(ids)


def category_counts(passes: Passes, categories: Sequence[Hashable]) -> NDArray[np.int64]:
    """(n_items, n_categories) counts of passes per category: the input of Fleiss' kappa."""
    ids = list(passes[0])
    table = np.zeros((len(ids), len(categories)), dtype=np.int64)
    column = {c: n for n, c in enumerate(categories)}
    for row, item_id in enumerate(ids):
        for p in passes:
            table[row, column[p[item_id]]] += 1
    return table


def pooled_kappa(cases: Iterable[Passes]) -> float | None:
    """Fleiss' kappa over every rubric item of the cases: raters = judge passes, categories =
    the decisions that occur (matched / unmatched, or the three levels).

    None when there are no items, when a case has fewer than two passes, or when a pass lacks
    an item of the first pass (the decisions cannot be lined up).
    """
    per_case = list(cases)
    for passes in per_case:
        if len(passes) < 2 or not all(i in p for p in passes for i in passes[0]):
            return None
    if not any(passes[0] for passes in per_case):
        return None
    categories = sorted({v for ps in per_case for p in ps for v in p.values()}, key=repr)
    return fleiss_kappa(np.concatenate([category_counts(ps, categories) for ps in per_case]))


def fleiss_kappa(ratings: ArrayLike) -> float | None:
    """Fleiss' kappa from an ``(n_items, n_categories)`` table of rating counts.

    Each row counts how many raters (e.g. repeated judge calls) put that item in each category;
    all rows must sum to the same number of raters, at least two. Returns ``None`` when kappa is
    undefined (every rating in one category, so chance agreement P_e is 1), instead of a NaN
    that would slip silently into averages.
    """
    table = np.asarray(ratings)
    if table.ndim != 2:
        raise ValueError(f"ratings must be 2-D (n_items, n_categories), got shape {table.shape}")
    n_items, n_categories = table.shape
    if n_items == 0 or n_categories == 0:
        raise ValueError(f"ratings is empty (shape {table.shape})")
    if table.dtype == np.bool_ or not np.issubdtype(table.dtype, np.number):
        raise ValueError("ratings must hold numeric counts")
    if not np.all(np.isfinite(table)) or np.any(table != np.round(table)) or np.any(table < 0):
        raise ValueError("ratings must hold non-negative whole-number counts")
    counts = table.astype(np.int64)
    raters_per_item = counts.sum(axis=1)
    n_raters = int(raters_per_item[0])
    if np.any(raters_per_item != n_raters):
        raise ValueError(
            "every item must have the same number of ratings; row sums are "
            f"{sorted(set(raters_per_item.tolist()))}"
        )
    if n_raters < 2:
        raise ValueError(f"kappa needs at least 2 ratings per item, got {n_raters}")

    category_totals = counts.sum(axis=0)
    if np.count_nonzero(category_totals) <= 1:
        return None  # P_e == 1 exactly: agreement beyond chance is undefined
    p_j = category_totals / (n_items * n_raters)
    p_i = (np.square(counts).sum(axis=1) - n_raters) / (n_raters * (n_raters - 1))
    p_bar = float(p_i.mean())
    p_e = float(np.square(p_j).sum())
    return (p_bar - p_e) / (1.0 - p_e)


def _check_decisions(pass_decisions: Sequence[Sequence[bool | np.bool_]]) -> None:
    if len(pass_decisions) == 0:
        raise ValueError("pass_decisions is empty: need at least one item")
    for i, item in enumerate(pass_decisions):
        if len(item) < 2:
            raise ValueError(
                f"item {i} has {len(item)} decision(s); repeated judging needs at least 2"
            )
        for d in item:
            if not isinstance(d, bool | np.bool_):
                raise ValueError(f"item {i} holds {d!r}; decisions must be booleans")


def unanimous_fraction(pass_decisions: Sequence[Sequence[bool | np.bool_]]) -> float:
    """Fraction of items whose repeated pass/fail decisions all agree.

    A plain, easily explained companion to kappa: unlike kappa it stays defined (and high) when
    nearly every decision is the same, which is common for easy rubric items.
    """
    _check_decisions(pass_decisions)
    unanimous = sum(1 for item in pass_decisions if all(item) or not any(item))
    return unanimous / len(pass_decisions)


def pass_fail_counts(pass_decisions: Sequence[Sequence[bool | np.bool_]]) -> NDArray[np.int64]:
    """``(n_items, 2)`` table of ``[pass, fail]`` counts per item: the input of ``fleiss_kappa``."""
    _check_decisions(pass_decisions)
    passes = np.array([sum(bool(d) for d in item) for item in pass_decisions], dtype=np.int64)
    totals = np.array([len(item) for item in pass_decisions], dtype=np.int64)
    return np.stack([passes, totals - passes], axis=1)


# --------------------------------------------------------------------------------------------
# Agreement between two judges, and between two rankings


def cohen_kappa(a: Sequence[bool], b: Sequence[bool]) -> float | None:
    """Cohen's kappa of two raters' matched / unmatched decisions on the same items.

    ``(p_o - p_e) / (1 - p_e)`` with ``p_e`` from each rater's own marginals. ``None`` when
    undefined (both raters put every item in the same single category, so ``p_e`` is 1).
    """
    if len(a) != len(b):
        raise ValueError(f"raters judged different numbers of items ({len(a)} and {len(b)})")
    if len(a) == 0:
        raise ValueError("no items: kappa needs at least one item judged by both raters")
    for d in (*a, *b):
        if not isinstance(d, bool | np.bool_):
            raise ValueError(f"decisions must be booleans, got {d!r}")
    n = len(a)
    p_o = sum(1 for x, y in zip(a, b, strict=True) if bool(x) == bool(y)) / n
    pa, pb = sum(map(bool, a)) / n, sum(map(bool, b)) / n
    p_e = pa * pb + (1 - pa) * (1 - pb)
    if p_e == 1.0:
        return None
    return (p_o - p_e) / (1.0 - p_e)


def kendall_tau(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Kendall's tau-b between two scorings of the same objects (ties allowed).

    ``(concordant - discordant) / sqrt((n0 - ties_x) * (n0 - ties_y))`` over all pairs;
    ``None`` when undefined (fewer than two objects, or every value tied in one scoring).
    """
    if len(x) != len(y):
        raise ValueError(f"rankings have different lengths ({len(x)} and {len(y)})")
    concordant = discordant = ties_x = ties_y = pairs = 0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            pairs += 1
            dx, dy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
            if dx == 0:
                ties_x += 1
            if dy == 0:
                ties_y += 1
            if dx != 0 and dy != 0:
                if dx == dy:
                    concordant += 1
                else:
                    discordant += 1
    denominator = float(np.sqrt(float(pairs - ties_x) * float(pairs - ties_y)))
    if pairs == 0 or denominator == 0.0:
        return None
    return (concordant - discordant) / denominator
