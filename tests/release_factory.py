"""Builds small, valid release trees in a temporary folder for loader tests."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from bedside_bench.core.benchmarks import BENCHMARKS, Benchmark


def make_case(
    benchmark: str, grading_method: str, n: int, legacy_ids: bool = False
) -> dict[str, Any]:
    prompt = f"Synthetic question {n} for {benchmark}: what is the next step?"
    md5 = hashlib.md5(prompt.encode("utf-8")).hexdigest()
    points = [2, 1, -1, 0] if grading_method == "points_rubric" else [3, 1, 0, -2, -3]
    return {
        "case_id": hashlib.md5(f"{benchmark}-{n}".encode()).hexdigest(),
        "benchmark": benchmark,
        "grading_method": grading_method,
        "prompt": prompt,
        "rubric_items": [
            {
                "item_id": f"item_{i}" if legacy_ids else f"{md5}_{i}",
                "text": f"Criterion {i}.",
                "points": p,
            }
            for i, p in enumerate(points)
        ],
        "split": "train",
    }


def write_release(
    root: Path,
    per_benchmark: int = 2,
    manifests: bool = True,
    legacy_ids: bool = False,
    benchmarks: Iterable[Benchmark] = BENCHMARKS,
) -> dict[str, list[dict[str, Any]]]:
    """Write a release tree in the documented layout; return the cases by benchmark
    (`benchmarks`: the package's, or another table, such as one with an added benchmark)."""
    written: dict[str, list[dict[str, Any]]] = {}
    for b in benchmarks:
        cases = [make_case(b.name, b.grading_method, n, legacy_ids) for n in range(per_benchmark)]
        folder = root / "data" / b.name / "cases"
        folder.mkdir(parents=True, exist_ok=True)
        for case in cases:
            write_case(folder / f"{case['case_id']}.json", case)
        if manifests:
            (root / "data" / b.name / "manifest.json").write_text(
                json.dumps(
                    {
                        "benchmark": b.name,
                        "grading_method": b.grading_method,
                        "case_ids": [c["case_id"] for c in cases],
                    }
                )
            )
        written[b.name] = cases
    return written


def write_case(path: Path, case: Any) -> None:
    path.write_text(json.dumps(case, indent=2, ensure_ascii=False), encoding="utf-8")


def case_path(root: Path, case: dict[str, Any]) -> Path:
    return root / "data" / case["benchmark"] / "cases" / f"{case['case_id']}.json"
