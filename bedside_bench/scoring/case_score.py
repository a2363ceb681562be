"""Case scores of protocol section 3, as pure functions of rubric items and decisions, and the
table of decisions a score shows in `inspect view`.

Kept free of Inspect and I/O so that every formula is tested against hand-computed numbers.
A decision is a match value m in [0, 1]: the reference protocol uses booleans (0 or 1); the
three-level variant also uses 0.5 for a partially met item.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bedside_bench.core.contracts import GradingMethod, RubricItem

# points -> weight of the severity class (protocol section 3). The positive classes are the
# points +1..+3; the weights are symmetric around the equivocal 0.
F1_WEIGHTS: Mapping[int, int] = {3: 72, 2: 24, 1: 3, 0: 1, -1: 3, -2: 24, -3: 72}


@dataclass(frozen=True)
class PointsScore:
    score: float
    raw: float
    matched_signed_points: float
    available_positive_points: int


@dataclass(frozen=True)
class F1Score:
    score: float
    recall: float
    precision: float | None
    severe_rate: int
    f1: float


CaseScore = PointsScore | F1Score


Decisions = Mapping[str, bool] | Mapping[str, float]


def _matched(decisions: Decisions, item: RubricItem) -> float:
    try:
        value = decisions[item.item_id]
    except KeyError:
        raise ValueError(f"no decision for rubric item {item.item_id!r}") from None
    if not 0 <= value <= 1:
        raise ValueError(f"match value of {item.item_id!r} must be within [0, 1], got {value}")
    return value


def points_rubric_score(items: Sequence[RubricItem], decisions: Decisions) -> PointsScore:
    """clamp(sum(m*w) / sum(max(w, 0)), 0, 1); 0-point items are inert."""
    available = sum(max(item.points, 0) for item in items)
    if available <= 0:
        raise ValueError("a points rubric needs at least one positive item")
    matched = sum(item.points * _matched(decisions, item) for item in items)
    raw = matched / available
    return PointsScore(
        score=min(1.0, max(0.0, raw)),
        raw=raw,
        matched_signed_points=matched,
        available_positive_points=available,
    )


def f1_weight(points: int) -> int:
    try:
        return F1_WEIGHTS[points]
    except KeyError:
        raise ValueError(f"F1 rubric points must be within -3..+3, got {points}") from None


def f1_weighted_score(
    items: Sequence[RubricItem], decisions: Decisions, severe_gate: bool = False
) -> F1Score:
    """Severity-weighted F1. A matched 0-point item enters the precision denominator.

    `severe_gate` reproduces the earlier protocol revision that zeroed a case with an
    unmatched +3 item or a matched -3 item; the current protocol only reports `severe_rate`.
    """
    positive_total = 0
    positive_matched = 0.0
    matched_total = 0.0
    severe = 0
    for item in items:
        weight = f1_weight(item.points)
        matched = _matched(decisions, item)
        if item.points >= 1:
            positive_total += weight
            positive_matched += matched * weight
        matched_total += matched * weight
        # severe: a +3 item not fully matched, or a -3 item matched at all
        if (item.points == 3 and matched < 1) or (item.points == -3 and matched > 0):
            severe = 1
    if positive_total == 0:
        raise ValueError("an F1 rubric needs at least one positive item")
    recall = positive_matched / positive_total
    precision = positive_matched / matched_total if matched_total > 0 else None
    p = precision or 0.0
    f1 = 2 * p * recall / (p + recall) if p + recall > 0 else 0.0
    return F1Score(
        score=0.0 if (severe_gate and severe) else f1,
        recall=recall,
        precision=precision,
        severe_rate=severe,
        f1=f1,
    )


def case_score(
    grading_method: GradingMethod,
    items: Sequence[RubricItem],
    decisions: Decisions,
    severe_gate: bool = False,
) -> CaseScore:
    if grading_method == "points_rubric":
        return points_rubric_score(items, decisions)
    if grading_method == "f1_weighted_rubric":
        return f1_weighted_score(items, decisions, severe_gate=severe_gate)
    raise ValueError(f"unknown grading method {grading_method!r}")


def _cell(text: str) -> str:
    return " ".join(text.split())


# what a decision reads as: matched or not (reference grading), or a level (three-level)
_DECISION_LABELS: Mapping[object, str] = {
    True: "matched",
    False: "not matched",
    "MET": "met",
    "PARTIALLY_MET": "partly met",
    "NOT_MET": "not met",
}
# a canonical item id: md5 of the prompt, then the item's index (`release/dataset.py`)
_CANONICAL_ID = re.compile(r"^(?P<case>[0-9a-f]{32})_(?P<index>\d+)$")


def decision_label(value: object) -> str:
    """A decision in words (matched / not matched, met / partly met / not met), else the
    value as written."""
    if isinstance(value, bool | str) and value in _DECISION_LABELS:
        return _DECISION_LABELS[value]
    return str(value)


def _number(value: float) -> str:
    """A number rounded for reading (the exact value is the score's value)."""
    return f"{value:.3f}"


def score_line(result: CaseScore) -> str:
    """The case score in words, rounded to three places, with what it is made of."""
    if isinstance(result, PointsScore):
        line = (
            f"**Score {_number(result.score)}**: {result.matched_signed_points:g} of "
            f"{result.available_positive_points} available points"
        )
        if result.raw != result.score:
            line += f" (raw {_number(result.raw)}, clamped to [0, 1])"
        return line
    precision = "none matched" if result.precision is None else _number(result.precision)
    line = (
        f"**Score {_number(result.score)}**: weighted F1 {_number(result.f1)}, recall "
        f"{_number(result.recall)}, precision {precision}, severe miss "
        f"{'yes' if result.severe_rate else 'no'}"
    )
    if result.score != result.f1:
        line += " (zeroed by the severe gate)"
    return line


def _labels(items: Sequence[RubricItem]) -> tuple[list[str], str]:
    """Short item labels, and the line that says how a label maps to the item id.

    Canonical ids of one case share their 32-character prefix: an item is labelled by its
    index and the prefix is written once. Other ids label their items in full."""
    found = [_CANONICAL_ID.match(item.item_id) for item in items]
    cases = {m.group("case") for m in found if m is not None}
    if len(cases) == 1 and all(found):
        (case,) = cases
        labels = [f"**{m.group('index')}**" for m in found if m is not None]
        return labels, f"Item `#` (id `{case}_#`) · points · decision · criterion:"
    return [f"`{item.item_id}`" for item in items], "Item id · points · decision · criterion:"


def decisions_table(
    items: Sequence[RubricItem],
    decisions: Mapping[str, Any],
    result: CaseScore | None = None,
) -> str:
    """The explanation `inspect view` shows beside a score (Markdown): the score rounded for
    reading, then one line per item, its label, points and decision first.

    A list, not a table: the viewer lets a cell break between any two letters, and its table
    layout squeezes short columns beside a long criterion until "points" and "matched" wrap
    letter by letter (it escapes the HTML that could hold a column's width). A list line
    starts at the left edge at full width, whatever the window."""
    labels, key = _labels(items)
    lines = [score_line(result), ""] if result is not None else []
    lines += [key, ""]
    for label, item in zip(labels, items, strict=True):
        shown = decision_label(decisions[item.item_id])
        points = f"{item.points:+d}" if item.points else "0"
        lines.append(f"- {label} · {points} · {shown} · {_cell(item.text)}")
    return "\n".join(lines)
