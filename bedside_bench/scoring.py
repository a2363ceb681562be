"""Case scores of protocol section 3, as pure functions of rubric items and decisions, and the
table of decisions a score shows in `inspect view`.

Kept free of Inspect and I/O so that every formula is tested against hand-computed numbers.
A decision is a match value m in [0, 1]: the reference protocol uses booleans (0 or 1); the
three-level variant also uses 0.5 for a partially met item.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bedside_bench.contracts import GradingMethod, RubricItem

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
    return " ".join(text.replace("|", "\\|").split())


def decisions_table(items: Sequence[RubricItem], decisions: Mapping[str, Any]) -> str:
    """Markdown table so `inspect view` shows at a glance which items matched."""
    rows = ["| item | points | matched | criterion |", "|---|---|---|---|"]
    for item in items:
        value = decisions[item.item_id]
        shown = ("yes" if value else "no") if isinstance(value, bool) else str(value)
        rows.append(f"| `{item.item_id}` | {item.points:+d} | {shown} | {_cell(item.text)} |")
    return "\n".join(rows)
