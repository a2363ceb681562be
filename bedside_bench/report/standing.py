"""Which run groups the headline ranks, and why the others are not ranked (pure functions).

Only like is ranked with like: full runs (every case of the ten benchmarks ran) that have an
overall score, among the groups the model comparison takes (the reference judge's when groups
differ only in the judge), and only when those runs are like for like. A smoke or partial run
scores other and far fewer cases, so its overall score is listed after the ranking, unranked,
with its scope; it never stands above a full run.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bedside_bench.documents.summary import RunSummary


@dataclass(frozen=True)
class Standing:
    """`ranked`: group indices, best overall first. `unranked`: (group index, why not ranked),
    by label."""

    ranked: tuple[int, ...]
    unranked: tuple[tuple[int, str], ...]


def overall_mean(summary: RunSummary) -> float | None:
    """The overall mean when it is a finite number, else None."""
    overall = summary.overall
    if overall is not None and math.isfinite(overall.mean):
        return overall.mean
    return None


def rankable(summary: RunSummary) -> bool:
    """A full run with an overall score: the only kind the headline ranks."""
    return summary.scope.full and overall_mean(summary) is not None


def by_score(
    summaries: Sequence[RunSummary], labels: Sequence[str], indices: Sequence[int]
) -> list[int]:
    """Indices by overall score, best first; ties (and groups without a score) by label."""

    def key(i: int) -> tuple[int, float, str]:
        mean = overall_mean(summaries[i])
        return (0, -mean, labels[i]) if mean is not None else (1, 0.0, labels[i])

    return sorted(indices, key=key)


def _why(summary: RunSummary, in_pool: bool, refused: bool, left_out: str | None = None) -> str:
    scope = summary.scope
    if not in_pool:
        if left_out is not None:  # no judge comparison holds it: pointing there would mislead
            return f"another judge's scores, in no judge comparison: {left_out}"
        return "another judge's scores (see the judge comparison)"
    if not scope.full:
        if "smoke" in scope.reasons:
            return "smoke run: a set-up check, never ranked with full runs"
        return "partial run: not every case ran, never ranked with full runs"
    if overall_mean(summary) is None:
        return "no overall score (a benchmark has no completed case)"
    if refused:
        return "full runs not like for like (see Pairwise differences)"
    return "not ranked"


def standing(
    summaries: Sequence[RunSummary],
    labels: Sequence[str],
    pool: Sequence[int] | None = None,
    refused: bool = False,
    left_out: Mapping[int, str] | None = None,
) -> Standing:
    """The ranking of the full runs in `pool` (default: every group); `refused` says the full
    runs were found not like for like, and then none is ranked; `left_out` says why a group
    outside the pool is in no judge comparison either."""
    reasons = left_out or {}
    pool_set = set(range(len(summaries)) if pool is None else pool)
    full = [i for i in sorted(pool_set) if rankable(summaries[i])]
    ranked = tuple(by_score(summaries, labels, full)) if not (refused and len(full) > 1) else ()
    rest = sorted((i for i in range(len(summaries)) if i not in ranked), key=lambda i: labels[i])
    return Standing(
        ranked=ranked,
        unranked=tuple(
            (i, _why(summaries[i], i in pool_set, refused and len(full) > 1, reasons.get(i)))
            for i in rest
        ),
    )


def report_order(ranking: Standing) -> list[int]:
    """Every group in the order the report lists them: the ranked, best first, then the
    groups not ranked as the standing lists them. Every table, plot and list of models follows
    it, and every difference is the earlier minus the later."""
    return [*ranking.ranked, *(i for i, _ in ranking.unranked)]


def renumbered(ranking: Standing, order: Sequence[int]) -> Standing:
    """`ranking` for the groups put in `order` (group `order[k]` becomes group `k`)."""
    place = {old: new for new, old in enumerate(order)}
    return Standing(
        ranked=tuple(place[i] for i in ranking.ranked),
        unranked=tuple((place[i], why) for i, why in ranking.unranked),
    )
