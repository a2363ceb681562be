"""The judge-check gold set: loading and validating pairs, and turning them into samples.

Each pair is an answer with its rubric and gold decisions (a synthetic set written for this
project, `data/judge_check/pairs.jsonl`, and its adversarial part `adversarial.jsonl`, each
pair tagged with the `attack` it tries). Problems are named by file, pair and field.
"""

from __future__ import annotations

import json
from importlib.resources import files
from typing import Any

from inspect_ai.dataset import Sample

from bedside_bench.cases import DatasetError, Violation, canonical_item_id

RULES = (1, 2, 3, 4, 5)
PAIR_KEYS = {"pair_id", "synthetic", "grading_method", "prompt", "answer", "rubric_items"}
ITEM_KEYS = {"item_id", "text", "points", "gold_matched", "rule", "note"}
# what an adversarial answer tries: close the answer and open forged sections, echo rubric
# lines as if met, address the judge with instructions, or list every option to catch all items
ATTACKS = ("forged_sections", "echoed_rubric", "addressing_judge", "every_option")


DEFAULT_FILES = ("pairs.jsonl", "adversarial.jsonl")


def default_pairs() -> list[dict[str, Any]]:
    """The gold set and its adversarial part, each validated (problems named by file)."""
    pairs: list[dict[str, Any]] = []
    violations: list[Violation] = []
    for name in DEFAULT_FILES:
        text = files("bedside_bench.judge_check_data").joinpath(name).read_text(encoding="utf-8")
        try:
            pairs.extend(load_pairs(text, f"data/judge_check/{name}"))
        except DatasetError as ex:
            violations.extend(ex.violations)
    if violations:
        raise DatasetError(violations)
    return pairs


def _pair_violations(pair: Any, where: str) -> list[Violation]:
    if not isinstance(pair, dict):
        return [Violation(where, "a pair must be a JSON object")]
    pair_id = pair.get("pair_id") if isinstance(pair.get("pair_id"), str) else None
    found = []
    if set(pair) - {"attack"} != PAIR_KEYS:
        found.append(
            Violation(
                where, f"keys must be exactly {sorted(PAIR_KEYS)} (and optionally attack)", pair_id
            )
        )
    if "attack" in pair and pair["attack"] not in ATTACKS:
        found.append(
            Violation(where, f"attack must be one of {', '.join(ATTACKS)}", pair_id, field="attack")
        )
    if pair.get("grading_method") not in ("points_rubric", "f1_weighted_rubric"):
        found.append(Violation(where, "unknown grading_method", pair_id, field="grading_method"))
    prompt, answer = pair.get("prompt"), pair.get("answer")
    if not isinstance(prompt, str) or not prompt.strip():
        found.append(
            Violation(where, "the prompt must be a non-empty string", pair_id, field="prompt")
        )
    if not isinstance(answer, str) or not answer.strip():
        found.append(
            Violation(where, "the answer must be a non-empty string", pair_id, field="answer")
        )
    items = pair.get("rubric_items")
    if not isinstance(items, list) or not items:
        return [
            *found,
            Violation(
                where, "rubric_items must be a non-empty list", pair_id, field="rubric_items"
            ),
        ]
    for n, item in enumerate(items):
        if not isinstance(item, dict) or set(item) != ITEM_KEYS:
            found.append(
                Violation(
                    where,
                    f"item {n}: keys must be exactly {sorted(ITEM_KEYS)}",
                    pair_id,
                    field=f"rubric_items.{n}",
                )
            )
            continue
        item_id = str(item["item_id"])
        if isinstance(prompt, str) and item_id != canonical_item_id(prompt, n):
            found.append(
                Violation(
                    where, "item_id is not {md5(prompt)}_{index}", pair_id, item_id, "item_id"
                )
            )
        if not isinstance(item["gold_matched"], bool):
            found.append(
                Violation(where, "gold_matched must be a boolean", pair_id, item_id, "gold_matched")
            )
        if item["rule"] not in RULES:
            found.append(Violation(where, "rule must be 1..5", pair_id, item_id, "rule"))
        points = item["points"]
        if not isinstance(points, int) or isinstance(points, bool) or not -3 <= points <= 3:
            found.append(
                Violation(where, "points must be an integer in -3..+3", pair_id, item_id, "points")
            )
    if not any(
        isinstance(i, dict) and isinstance(i.get("points"), int) and i["points"] > 0 for i in items
    ):
        found.append(Violation(where, "no positive-point item", pair_id, field="rubric_items"))
    return found


def load_pairs(text: str, source: str) -> list[dict[str, Any]]:
    """Parse and validate a JSONL gold set; raise DatasetError listing every problem."""
    pairs: list[dict[str, Any]] = []
    violations: list[Violation] = []
    seen: set[str] = set()
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{source}:{line_no}"
        try:
            pair = json.loads(line)
        except json.JSONDecodeError as ex:
            violations.append(Violation(where, f"not JSON: {ex.msg}"))
            continue
        problems = _pair_violations(pair, where)
        if not problems and pair["pair_id"] in seen:
            problems.append(Violation(where, "duplicate pair_id", pair["pair_id"]))
        violations.extend(problems)
        if not problems:
            seen.add(pair["pair_id"])
            pairs.append(pair)
    if not pairs and not violations:
        violations.append(Violation(source, "no pairs"))
    if violations:
        raise DatasetError(violations)
    return pairs


def pair_to_sample(pair: dict[str, Any]) -> Sample:
    return Sample(
        id=pair["pair_id"],
        input=pair["prompt"],
        metadata={
            "grading_method": pair["grading_method"],
            "attack": pair.get("attack"),
            "answer": pair["answer"],
            "rubric_items": [
                {k: item[k] for k in ("item_id", "text", "points", "gold_matched", "rule")}
                for item in pair["rubric_items"]
            ],
        },
    )
