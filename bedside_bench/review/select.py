"""Which items go in front of reviewers (pure): disagreements first, then a stratified sample.

Items where judges (or one judge's repeated passes) disagree are where a physician's reading
decides most; they come first, all of them up to the budget (in random order when there are
more). The rest of the budget is a random sample stratified by benchmark and point value, so
every stratum the logs hold is represented in proportion to its size (largest remainders,
at least one item per stratum while the budget allows). Seeded: the same logs, budget and seed
give the same selection.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from bedside_bench.review.records import ItemKey, ReviewSource

DEFAULT_ITEMS = 100
DEFAULT_SEED = 42


@dataclass(frozen=True)
class Selection:
    items: tuple[ItemKey, ...]  # in presentation order: case by case, rubric order
    disagreements: int  # how many of them judges or passes disagreed on


def disagreeing(source: ReviewSource) -> list[ItemKey]:
    found = [
        key
        for key, decisions in source.decisions.items()
        if len(set(decisions.values())) > 1 or key in source.pass_disagreements
    ]
    return sorted(found)


def _stratum(source: ReviewSource, key: ItemKey) -> tuple[str, int]:
    case = source.cases[key[:3]]
    points = next(i.points for i in case.items if i.item_id == key[3])
    return (case.benchmark, points)


def allocate(sizes: dict[tuple[str, int], int], budget: int) -> dict[tuple[str, int], int]:
    """Proportional allocation of `budget` over strata (largest remainders, one each first)."""
    total = sum(sizes.values())
    if budget >= total:
        return dict(sizes)
    strata = sorted(sizes)
    counts = {s: 0 for s in strata}
    if budget >= len(strata):
        for s in strata:
            counts[s] = 1
    left = budget - sum(counts.values())
    rest = {s: sizes[s] - counts[s] for s in strata}
    pool = sum(rest.values())
    if left > 0 and pool > 0:
        shares = {s: left * rest[s] / pool for s in strata}
        for s in strata:
            counts[s] += int(shares[s])
        remaining = budget - sum(counts.values())
        by_remainder = sorted(strata, key=lambda s: (-(shares[s] - int(shares[s])), s))
        for s in by_remainder[:remaining]:
            counts[s] += 1
    return counts


def select_items(
    source: ReviewSource, budget: int = DEFAULT_ITEMS, seed: int = DEFAULT_SEED
) -> Selection:
    rng = random.Random(seed)
    decided = sorted(k for k in source.decisions if k[:3] in source.cases)
    first = disagreeing(source)
    if len(first) > budget:
        first = sorted(rng.sample(first, budget))
    chosen = set(first)
    rest: dict[tuple[str, int], list[ItemKey]] = {}
    for key in decided:
        if key not in chosen:
            rest.setdefault(_stratum(source, key), []).append(key)
    counts = allocate({s: len(v) for s, v in rest.items()}, budget - len(first))
    for stratum, keys in rest.items():
        chosen.update(rng.sample(keys, counts[stratum]))
    return Selection(items=order(source, chosen), disagreements=len(first))


def order(source: ReviewSource, keys: set[ItemKey]) -> tuple[ItemKey, ...]:
    """Case by case (model, benchmark, case, epoch), items in rubric order."""

    def position(key: ItemKey) -> tuple[str, str, str, int, int]:
        case = source.cases[key[:3]]
        index = next(n for n, i in enumerate(case.items) if i.item_id == key[3])
        return (case.answer_model, case.benchmark, case.case_id, case.epoch, index)

    return tuple(sorted(keys, key=position))


def selected_cases(source: ReviewSource, items: Sequence[ItemKey]) -> list[tuple[str, str, int]]:
    seen: dict[tuple[str, str, int], None] = {}
    for key in items:
        seen.setdefault(key[:3], None)
    return list(seen)
