"""An independent path to expected case scores: the protocol's formulas in exact fractions,
applied to case files read with plain `json` (not through the package's loader)."""

from __future__ import annotations

import hashlib
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

WEIGHT = {3: 72, 2: 24, 1: 3, 0: 1, -1: 3, -2: 24, -3: 72}


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


def points_score(items: list[dict[str, Any]], matched: dict[str, bool]) -> Fraction:
    available = sum(max(i["points"], 0) for i in items)
    raw = Fraction(sum(i["points"] for i in items if matched[i["item_id"]]), available)
    return min(Fraction(1), max(Fraction(0), raw))


def f1_parts(
    items: list[dict[str, Any]], matched: dict[str, bool]
) -> tuple[Fraction, Fraction | None, Fraction, int]:
    pos = sum(WEIGHT[i["points"]] for i in items if i["points"] >= 1)
    hit = sum(WEIGHT[i["points"]] for i in items if i["points"] >= 1 and matched[i["item_id"]])
    denom = sum(WEIGHT[i["points"]] for i in items if matched[i["item_id"]])
    recall = Fraction(hit, pos)
    precision = Fraction(hit, denom) if denom else None
    p = precision or Fraction(0)
    f1 = 2 * p * recall / (p + recall) if p + recall else Fraction(0)
    severe = int(
        any(
            (i["points"] == 3 and not matched[i["item_id"]])
            or (i["points"] == -3 and matched[i["item_id"]])
            for i in items
        )
    )
    return recall, precision, f1, severe


def case_score(case: dict[str, Any], matched: dict[str, bool], severe_gate: bool = False) -> float:
    if case["grading_method"] == "points_rubric":
        return float(points_score(case["rubric_items"], matched))
    _, _, f1, severe = f1_parts(case["rubric_items"], matched)
    return 0.0 if (severe_gate and severe) else float(f1)


def fleiss_kappa(rows: list[list[int]]) -> float:
    """Fleiss' kappa written out from its definition: rows of per-category rating counts."""
    n = sum(rows[0])
    total = len(rows) * n
    p_j = [sum(r[c] for r in rows) / total for c in range(len(rows[0]))]
    p_i = [(sum(x * x for x in r) - n) / (n * (n - 1)) for r in rows]
    p_bar, p_e = sum(p_i) / len(p_i), sum(p * p for p in p_j)
    return (p_bar - p_e) / (1 - p_e)
