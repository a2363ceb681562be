"""One case's validation and canonical form (`release/case.py`), called directly on dicts: every
violation named with its file, case, item and field; legacy item ids rewritten to
md5(prompt)_index. (The whole-release checks are in test_dataset.py.)"""

from __future__ import annotations

import hashlib
import json
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.core.contracts import RubricItem
from bedside_bench.core.schema_files import load_schema
from bedside_bench.release.case import (
    MAX_MESSAGE_CHARS,
    DatasetError,
    Violation,
    canonical_item_id,
    validate_case,
)
from bedside_bench.release.case_model import Case

CASE_ID = "0123456789abcdef0123456789abcdef"
PROMPT = "A 70-year-old on warfarin asks about ibuprofen."
MD5 = hashlib.md5(PROMPT.encode("utf-8")).hexdigest()
FILE = "data/drug_safety/cases/0123456789abcdef0123456789abcdef.json"


def case(**changes: Any) -> dict[str, Any]:
    base = {
        "case_id": CASE_ID,
        "benchmark": "drug_safety",
        "grading_method": "points_rubric",
        "prompt": PROMPT,
        "split": "public",
        "rubric_items": [
            {"item_id": "item_0", "text": "Advises against ibuprofen.", "points": 2},
            {"item_id": "item_1", "text": "Recommends aspirin instead.", "points": -1},
        ],
    }
    return {**base, **changes}


def check(value: Any) -> tuple[Case | None, list[str]]:
    canonical, violations = validate_case(
        value, file=FILE, expected_case_id=CASE_ID, expected_benchmark="drug_safety"
    )
    return canonical, [str(v) for v in violations]


def test_legacy_item_ids_become_md5_of_the_prompt_and_the_index() -> None:
    canonical, problems = check(case())
    assert problems == []
    assert canonical is not None
    assert [i.item_id for i in canonical.rubric_items] == [f"{MD5}_0", f"{MD5}_1"]
    assert canonical_item_id(PROMPT, 1) == f"{MD5}_1"
    # canonical ids stay as they are
    items = [{**i, "item_id": f"{MD5}_{n}"} for n, i in enumerate(case()["rubric_items"])]
    again, problems = check(case(rubric_items=items))
    assert problems == [] and again is not None and again.json_object()["rubric_items"] == items


def test_a_case_that_is_not_an_object() -> None:
    assert check(["x"]) == (None, [f"{FILE}: a case must be a JSON object, got list"])


def test_folder_and_file_name_must_agree() -> None:
    other_id = "f" * 32
    canonical, problems = check(case(case_id=other_id, benchmark="health_equity"))
    assert canonical is None
    assert problems == [
        f"{FILE}, case {other_id}, field case_id: case_id does not equal the file name ({CASE_ID})",
        f"{FILE}, case {other_id}, field benchmark: benchmark 'health_equity' does not equal "
        "its folder 'drug_safety'",
    ]


def test_the_grading_method_is_the_benchmarks() -> None:
    _, violations = validate_case(
        case(benchmark="safety_diagnostic"),
        file=FILE,
        expected_case_id=CASE_ID,
        expected_benchmark="safety_diagnostic",
    )
    # the points-rubric schema names the eight points benchmarks; the check names the method
    assert [str(v) for v in violations] == [
        f"{FILE}, case {CASE_ID}, field benchmark: 'safety_diagnostic' is not one of "
        f"{list(BENCHMARK_NAMES[:8])}",
        f"{FILE}, case {CASE_ID}, field grading_method: grading_method 'points_rubric' is not "
        "safety_diagnostic's 'f1_weighted_rubric'",
    ]


def test_the_key_set_is_exact() -> None:
    value = case(notes="x")
    del value["split"]
    _, problems = check(value)
    assert problems == [
        f"{FILE}, case {CASE_ID}: the key set must be exactly the six documented keys: "
        "missing keys ['split']; unexpected keys ['notes']"
    ]


def test_item_problems_name_the_item_and_its_field() -> None:
    items = [
        {"item_id": "item_0", "text": "Line one.\nLine two.", "points": 2},
        {"item_id": "item_0", "text": "Again.", "points": 1.0},
    ]
    _, problems = check(case(rubric_items=items))
    assert problems == [
        f"{FILE}, case {CASE_ID}, item item_0, field rubric_items.0.text: the item text must "
        "be one line (the judge message has one line per item)",
        f"{FILE}, case {CASE_ID}, item item_0, field rubric_items.1.points: points must be "
        "written as a JSON integer, got 1.0",
        f"{FILE}, case {CASE_ID}, item item_0, field item_id: duplicate item_id",
        f"{FILE}, case {CASE_ID}, item item_0, field item_id: legacy item id index 0 does not "
        "equal the item's position 1",
    ]


def test_a_rubric_needs_a_positive_item() -> None:
    items = [{"item_id": "item_0", "text": "Harm.", "points": -2}]
    _, problems = check(case(rubric_items=items))
    assert problems == [
        f"{FILE}, case {CASE_ID}, field rubric_items: the rubric has no positive-point item"
    ]


def test_violation_messages_are_capped_and_the_error_counts_them() -> None:
    long = Violation("f.json", "x" * (MAX_MESSAGE_CHARS + 1))
    assert (
        long.message == "x" * MAX_MESSAGE_CHARS + f"... ({MAX_MESSAGE_CHARS + 1} characters in all)"
    )
    one = DatasetError([Violation("a.json", "bad", field="prompt")])
    assert str(one) == (
        "invalid BedsideBench data (1 problem); nothing was evaluated:\n"
        "  - a.json, field prompt: bad"
    )
    two = DatasetError([Violation("a.json", "bad"), Violation("b.json", "worse", "c", "i")])
    assert str(two) == (
        "invalid BedsideBench data (2 problems); nothing was evaluated:\n"
        "  - a.json: bad\n  - b.json, case c, item i: worse"
    )


def test_the_model_has_the_schemas_keys_in_the_release_order() -> None:
    """The schema validates and the model holds: a key added to one and not the other fails
    here, not as a case the model refuses after the collector accepted it."""
    for method in ("points_rubric", "f1_weighted_rubric"):
        schema = load_schema(f"case.{method}.schema.json")
        assert list(Case.model_fields) == schema["required"]
        item = schema["properties"]["rubric_items"]["items"]
        assert [f.name for f in fields(RubricItem)] == item["required"]


def test_a_case_file_is_its_models_json_object() -> None:
    """Every synthetic case file (canonical ids) read as plain JSON is, key order included,
    the JSON object of the case the loader made of it."""
    root = Path(__file__).resolve().parent.parent / "data" / "synthetic" / "data"
    paths = sorted(root.glob("*/cases/*.json"))
    assert len(paths) == 20
    for path in paths:
        raw = json.loads(path.read_text(encoding="utf-8"))
        made, problems = validate_case(
            raw,
            file=str(path),
            expected_case_id=path.stem,
            expected_benchmark=path.parent.parent.name,
        )
        assert problems == [] and made is not None
        assert made.json_object() == raw
        assert list(made.json_object()) == list(raw)
        assert [list(i) for i in made.json_object()["rubric_items"]] == [
            list(i) for i in raw["rubric_items"]
        ]


def test_a_case_is_typed_and_frozen() -> None:
    made, _ = check(case())
    assert made is not None
    assert made.rubric_items == (
        RubricItem(f"{MD5}_0", "Advises against ibuprofen.", 2),
        RubricItem(f"{MD5}_1", "Recommends aspirin instead.", -1),
    )
    with pytest.raises(ValidationError, match="frozen"):
        made.prompt = "Another question?"  # type: ignore[misc]
    with pytest.raises(ValidationError, match="notes"):
        Case.model_validate({**made.json_object(), "notes": "x"})
