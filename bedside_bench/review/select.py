"""Which items go in front of reviewers (pure): answers where judges disagree first, then a
sample of answers stratified by benchmark, several items from each answer read.

A reviewer's time goes into reading a question and its answer, not into one rubric item, so
the page is built of answers, each read once for about `per_answer` items. Answers holding
items where judges (or one judge's repeated passes) disagree come first, most disagreements
first (ties in random order): each brings all its disagreeing items and is topped up with its
other items to `per_answer`. The rest of the budget is a sample of the other answers, the
benchmarks' shares of it proportional to their items (largest remainders, every benchmark
represented while the budget allows). Within a benchmark, answers are drawn with probability
proportional to their number of items and each gives the same number of items, so every item
is about as likely to be drawn as in a sample of single items (an answer with a one-item rubric
is seldom worth a read for its one item), with its point values spread (+3, -2, ... before a
second item of one value). Items are resampled with their answers in the accuracy's bootstrap
(`review/score.py`), so a sample of whole answers is what the interval assumes. Seeded: the
same logs, budget, per-answer count and seed give the same selection.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from bedside_bench.review.records import AnswerKey, ItemKey, ReviewSource

DEFAULT_ITEMS = 100
DEFAULT_PER_ANSWER = 4
DEFAULT_SEED = 42

S = TypeVar("S", str, tuple[str, int])  # a stratum: a benchmark (or benchmark and points)


@dataclass(frozen=True)
class Selection:
    items: tuple[ItemKey, ...]  # in presentation order: case by case, rubric order
    disagreements: int  # how many of them judges or passes disagreed on

    @property
    def answers(self) -> int:
        return len({key[:3] for key in self.items})

    @property
    def per_answer(self) -> float:
        """Items per answer read (0 for an empty page)."""
        return len(self.items) / self.answers if self.items else 0.0


def disagreeing(source: ReviewSource) -> list[ItemKey]:
    found = [
        key
        for key, decisions in source.decisions.items()
        if len(set(decisions.values())) > 1 or key in source.pass_disagreements
    ]
    return sorted(found)


def allocate(sizes: dict[S, int], budget: int) -> dict[S, int]:
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


def spread(source: ReviewSource, keys: Sequence[ItemKey], rng: random.Random) -> list[ItemKey]:
    """An answer's items in the order they are taken: one of each point value (values in
    random order) before a second of any, random within a value."""
    by_points: dict[int, list[ItemKey]] = {}
    for key in keys:
        by_points.setdefault(_points(source, key), []).append(key)
    groups = [by_points[p] for p in sorted(by_points)]
    for group in groups:
        rng.shuffle(group)
    rng.shuffle(groups)
    out: list[ItemKey] = []
    for n in range(max((len(g) for g in groups), default=0)):
        out.extend(g[n] for g in groups if n < len(g))
    return out


def by_size(
    answers: Sequence[AnswerKey], items: dict[AnswerKey, list[ItemKey]], rng: random.Random
) -> list[AnswerKey]:
    """The answers in the order of a draw without replacement with probability proportional
    to their number of items (Efraimidis and Spirakis: the largest u ** (1 / size) first)."""
    keys = {a: rng.random() ** (1 / len(items[a])) for a in answers}
    return sorted(answers, key=lambda a: (-keys[a], a))


def fill(answers: Sequence[list[ItemKey]], n: int, per_answer: int) -> list[ItemKey]:
    """`n` items from answers in the given order (each list in `spread` order), read from as
    few answers as give about `per_answer` items each; an answer with fewer items opens the
    next, and once every answer is open the open ones give more."""
    if n <= 0:
        return []
    share = -(-n // max(1, round(n / per_answer)))  # items per answer, rounded up
    taken: list[ItemKey] = []
    left: list[list[ItemKey]] = []
    for items in answers:
        if len(taken) >= n:
            break
        now = items[: min(share, n - len(taken))]
        taken.extend(now)
        left.append(items[len(now) :])
    for items in left:
        taken.extend(items[: n - len(taken)])
    return taken


def select_items(
    source: ReviewSource,
    budget: int = DEFAULT_ITEMS,
    seed: int = DEFAULT_SEED,
    per_answer: int = DEFAULT_PER_ANSWER,
) -> Selection:
    rng = random.Random(seed)
    by_answer: dict[AnswerKey, list[ItemKey]] = {}
    for key in sorted(k for k in source.decisions if k[:3] in source.cases):
        by_answer.setdefault(key[:3], []).append(key)
    disagree = set(disagreeing(source))
    chosen: list[ItemKey] = []
    opened: set[AnswerKey] = set()
    hot = sorted(a for a, keys in by_answer.items() if any(k in disagree for k in keys))
    rng.shuffle(hot)
    hot.sort(key=lambda a: -sum(k in disagree for k in by_answer[a]))  # stable: ties shuffled
    for answer in hot:
        room = budget - len(chosen)
        if room <= 0:
            break
        mine = [k for k in by_answer[answer] if k in disagree]
        rng.shuffle(mine)
        others = spread(source, [k for k in by_answer[answer] if k not in disagree], rng)
        chosen.extend((mine + others)[: min(room, max(len(mine), per_answer))])
        opened.add(answer)
    by_benchmark: dict[str, list[AnswerKey]] = {}
    for answer in by_answer:
        if answer not in opened:
            by_benchmark.setdefault(source.cases[answer].benchmark, []).append(answer)
    sizes = {b: sum(len(by_answer[a]) for a in answers) for b, answers in by_benchmark.items()}
    counts = allocate(sizes, budget - len(chosen))
    for benchmark in sorted(by_benchmark):
        answers = by_size(by_benchmark[benchmark], by_answer, rng)
        lists = [spread(source, by_answer[a], rng) for a in answers]
        chosen.extend(fill(lists, counts[benchmark], per_answer))
    return Selection(
        items=order(source, set(chosen)), disagreements=sum(k in disagree for k in chosen)
    )


def _points(source: ReviewSource, key: ItemKey) -> int:
    return next(i.points for i in source.cases[key[:3]].items if i.item_id == key[3])


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
