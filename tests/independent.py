"""The tests' one independent reference: the protocol's formulas (case scores, the F1 weights,
three-level match values, Fleiss' kappa) in exact fractions, written from the spec and not
through the package, applied to case files read with plain `json` (not the package's loader)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

# grading_protocol.md section 3, its table as written: signed points -> severity class -> weight
SEVERITY_CLASS = {3: 9, 2: 8, 1: 7, 0: 5, -1: 3, -2: 2, -3: 1}
CLASS_WEIGHT = {9: 72, 8: 24, 7: 3, 5: 1, 3: 3, 2: 24, 1: 72}
WEIGHT = {points: CLASS_WEIGHT[c] for points, c in SEVERITY_CLASS.items()}
# docs/judge_reliability.md: what a level counts for (on a negative item, partial counts as met)
LEVEL_VALUE = {"MET": Fraction(1), "PARTIALLY_MET": Fraction(1, 2), "NOT_MET": Fraction(0)}

# {item_id: m_i}: True/False, or a fraction of a match (three-level grading)
Matches = Mapping[str, bool | int | float | Fraction]


def read_cases(root: Path, benchmark: str) -> list[dict[str, Any]]:
    """Cases of one benchmark with canonical item ids, in manifest or case_id order."""
    folder = Path(root) / "data" / benchmark
    manifest = folder / "manifest.json"
    if manifest.exists():
        ids = json.loads(manifest.read_text())["case_ids"]
    else:
        ids = sorted(p.stem for p in (folder / "cases").glob("*.json"))
    cases = []
    for case_id in ids:
        case = json.loads((folder / "cases" / f"{case_id}.json").read_text(encoding="utf-8"))
        md5 = hashlib.md5(case["prompt"].encode("utf-8")).hexdigest()
        for n, item in enumerate(case["rubric_items"]):
            item["item_id"] = f"{md5}_{n}"
        cases.append(case)
    return cases


def three_level_matches(
    items: Sequence[Mapping[str, Any]], levels: Mapping[str, str]
) -> dict[str, Fraction]:
    """m_i of each item from its level: a partial endorsement of harm is scored as harm."""
    return {
        i["item_id"]: Fraction(1)
        if i["points"] < 0 and levels[i["item_id"]] == "PARTIALLY_MET"
        else LEVEL_VALUE[levels[i["item_id"]]]
        for i in items
    }


def _m(matched: Matches, item: Mapping[str, Any]) -> Fraction:
    return Fraction(matched[item["item_id"]])


def points_score(items: Sequence[Mapping[str, Any]], matched: Matches) -> Fraction:
    """score = min(1, max(0, sum(m_i * w_i) / sum(max(w_i, 0))))."""
    available: int = sum(max(i["points"], 0) for i in items)
    raw = sum((_m(matched, i) * int(i["points"]) for i in items), Fraction(0)) / available
    return min(Fraction(1), max(Fraction(0), raw))


def f1_parts(
    items: Sequence[Mapping[str, Any]], matched: Matches
) -> tuple[Fraction, Fraction | None, Fraction, int]:
    """(recall, precision or None when nothing matched, F1, severe): the weighted F1 of section
    3 over items of class >= 7; severe when a +3 item is not fully met or a -3 item is met."""
    positive = [i for i in items if SEVERITY_CLASS[i["points"]] >= 7]
    hit = sum((WEIGHT[i["points"]] * _m(matched, i) for i in positive), Fraction(0))
    denom = sum((WEIGHT[i["points"]] * _m(matched, i) for i in items), Fraction(0))
    recall = hit / sum(WEIGHT[i["points"]] for i in positive)
    precision = hit / denom if denom else None
    p = precision or Fraction(0)
    f1 = 2 * p * recall / (p + recall) if p + recall else Fraction(0)
    severe = int(
        any(
            (i["points"] == 3 and _m(matched, i) < 1) or (i["points"] == -3 and _m(matched, i) > 0)
            for i in items
        )
    )
    return recall, precision, f1, severe


def exact_case_score(
    case: Mapping[str, Any], matched: Matches, severe_gate: bool = False
) -> Fraction:
    """A case's score in exact fractions; with the earlier protocol's severe gate a severe F1
    case scores 0."""
    if case["grading_method"] == "points_rubric":
        return points_score(case["rubric_items"], matched)
    _, _, f1, severe = f1_parts(case["rubric_items"], matched)
    return Fraction(0) if (severe_gate and severe) else f1


def case_score(case: Mapping[str, Any], matched: Matches, severe_gate: bool = False) -> float:
    return float(exact_case_score(case, matched, severe_gate))


def fleiss_kappa_exact(rows: list[list[int]]) -> Fraction:
    """Fleiss' kappa written out from its definition, in exact fractions: rows of per-category
    rating counts (one row per item, every row the same number of ratings)."""
    n_items, n = len(rows), sum(rows[0])
    p_j = [Fraction(sum(row[j] for row in rows), n_items * n) for j in range(len(rows[0]))]
    p_i = [Fraction(sum(c * c for c in row) - n, n * (n - 1)) for row in rows]
    p_bar = sum(p_i, Fraction(0)) / n_items
    p_e = sum((p * p for p in p_j), Fraction(0))
    return (p_bar - p_e) / (1 - p_e)


def fleiss_kappa(rows: list[list[int]]) -> float:
    return float(fleiss_kappa_exact(rows))
