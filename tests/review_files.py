"""Labels files as the review page writes them, for the review tests: the page's items
(`review_items`), the review id as their digest (computed here, from the documented recipe, not
through the package), and the reviewer's labels."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

LABELS_FORMAT = "bedside-bench-labels-v2"
ENTRY_FIELDS = ("answer_model", "case_id", "epoch", "item_id", "benchmark", "answer_sha256")


def entry_of(row: Mapping[str, object]) -> dict[str, object]:
    """A label's review item: the label without its mark and note."""
    return {k: row[k] for k in ENTRY_FIELDS}


def review_id(items: Sequence[Mapping[str, object]]) -> str:
    """The first 16 hex digits of the SHA-256 of the page's items as compact ASCII JSON lists
    of the entry fields, in page order."""
    body = json.dumps([[i[k] for k in ENTRY_FIELDS] for i in items], separators=(",", ":"))
    return hashlib.sha256(body.encode("ascii")).hexdigest()[:16]


def labels_doc(
    reviewer: str,
    rows: Sequence[Mapping[str, object]],
    page: Sequence[Mapping[str, object]] | None = None,
) -> dict[str, object]:
    """A labels file: `page` (default: the rows) lists the page's items."""
    items = [entry_of(r) for r in (rows if page is None else page)]
    return {
        "format": LABELS_FORMAT,
        "reviewer": reviewer,
        "review_id": review_id(items),
        "review_items": items,
        "labels": [dict(r) for r in rows],
    }


def write_labels(
    path: Path,
    reviewer: str,
    rows: Sequence[Mapping[str, object]],
    page: Sequence[Mapping[str, object]] | None = None,
) -> Path:
    path.write_text(json.dumps(labels_doc(reviewer, rows, page)), encoding="utf-8")
    return path


# --------------------------------------------------------------------------------------------
# a small judged log (tests/log_factory.py: no eval, no model)

POINTS = (3, 1, -2)


def judged_log(path: Path, answers: Mapping[str, str]) -> str:
    """A drug_safety log whose cases (id -> answer) each have three rubric items, judged by
    judge A and by an appended judge B that disagree on each case's first item."""
    from inspect_ai.scorer import Score

    from bedside_bench.core.contracts import RUBRIC_ITEMS_KEY
    from tests.log_factory import JUDGE_A, JUDGE_B, eval_log, sample, write

    samples = []
    for case_id, answer in answers.items():
        one = sample(case_id, answer=answer)
        items = [
            {"item_id": f"{case_id}_{n}", "text": f"item {n} of {case_id}", "points": p}
            for n, p in enumerate(POINTS)
        ]
        one.metadata = {RUBRIC_ITEMS_KEY: items}
        decisions = {i["item_id"]: True for i in items}
        one.scores = {
            "rubric_judge": Score(
                value=1.0, answer=answer, metadata={"decisions": decisions, "judge_model": JUDGE_A}
            ),
            "rubric_judge1": Score(
                value=0.5,
                answer=answer,
                metadata={
                    "decisions": {**decisions, f"{case_id}_0": False},
                    "judge_model": JUDGE_B,
                },
            ),
        }
        samples.append(one)
    return write(eval_log(samples), path)


def rows_of(answers: Mapping[str, str], matched: bool | None = True) -> list[dict[str, object]]:
    """A label for every item of `judged_log`'s cases, as the page writes them."""
    from tests.log_factory import ANSWER_MODEL, BENCHMARK

    return [
        {
            "answer_model": ANSWER_MODEL,
            "case_id": case_id,
            "epoch": 1,
            "item_id": f"{case_id}_{n}",
            "benchmark": BENCHMARK,
            "answer_sha256": hashlib.sha256(answer.encode("utf-8")).hexdigest(),
            "matched": matched,
            "note": "",
        }
        for case_id, answer in answers.items()
        for n in range(len(POINTS))
    ]
