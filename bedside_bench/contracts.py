"""The records that cross module boundaries, and the names they are stored under in logs.

The bottom of the package: it imports nothing from it, and everything that reads or writes a
rubric item, a grading variant, the judge's model role or the scorer's name takes it from here.
The names are part of the public surface (logs written today are read by tomorrow's report).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

# the model role the judge is bound to (`--model-role grader=...`)
GRADER_ROLE = "grader"
# the scorer's name, and so the key of its score in every sample
SCORER_NAME = "rubric_judge"
# sample metadata: the temperature the provider really received for the answer
ANSWER_TEMPERATURE_KEY = "answer_temperature"
# sample metadata: the case's rubric items, as `{"item_id", "text", "points"}` objects
RUBRIC_ITEMS_KEY = "rubric_items"

Grading = Literal["binary", "three_level"]
GRADINGS: tuple[Grading, ...] = ("binary", "three_level")

# one rubric item's decision: matched (reference grading) or a level (three-level grading)
Decision = bool | str


@dataclass(frozen=True)
class RubricItem:
    item_id: str
    text: str
    points: int


def rubric_items(metadata: Mapping[str, Any]) -> list[RubricItem]:
    """A sample's rubric items from its metadata (validated when the dataset was loaded)."""
    return [
        RubricItem(item_id=i["item_id"], text=i["text"], points=i["points"])
        for i in metadata[RUBRIC_ITEMS_KEY]
    ]
