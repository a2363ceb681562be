"""The records that cross module boundaries, and the names they are stored under in logs.

The bottom of the package: it imports nothing from it, and everything that reads or writes a
rubric item, a grading variant, the judge's model role, the scorer's name, or the metadata of a
sample, a score or a task takes it from here. `SampleMetadata`, `ScoreMetadata` and
`TaskMetadata` name every key once, with its type, so mypy checks each writer and reader. The
names are part of the public surface (logs written today are read by tomorrow's report).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypedDict

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


class _CaseMetadata(TypedDict):
    case_id: str
    benchmark: str
    grading_method: str
    split: str
    rubric_items: list[dict[str, Any]]


class SampleMetadata(_CaseMetadata, total=False):
    """A benchmark sample's metadata (`dataset.case_to_sample`, then the solver)."""

    # written by the solver: the temperature the provider really received (None: not sent)
    answer_temperature: float | None


class ScoreMetadata(TypedDict, total=False):
    """The rubric judge's score metadata, as the report and `data export` read it back."""

    # {item_id: matched}, or {item_id: level} with three-level grading; combined over passes
    decisions: dict[str, Decision]
    grading_method: str
    # points_rubric cases
    matched_signed_points: float
    available_positive_points: int
    # f1_weighted_rubric cases
    recall: float
    precision: float | None
    severe_rate: int
    judge_model: str
    judge_temperature: float | None
    answer_temperature: float | None
    judge_attempts: list[dict[str, Any]]
    judge_message_format: str
    severe_gate: bool
    # judge tokens by model (inspect score adds none to a log's stats)
    judge_usage: dict[str, dict[str, int]]
    # repeated judging (judge_passes > 1)
    judge_passes: int
    pass_decisions: list[dict[str, Decision]]
    judge_agreement: float
    # three-level grading: per pass when there are several
    judgements: list[Any]
    overrides: list[Any]
    match_values: dict[str, float]
    # a case reduced over several epochs
    epochs: int


class TaskMetadata(TypedDict, total=False):
    """A benchmark log's `eval.metadata` (`tasks.task_metadata`); what the report groups by."""

    benchmark: str
    grading_method: str
    protocol_version: str
    dataset_sha256: str
    data_source: str
    release: str
    release_case_counts: dict[str, int]
    smoke: bool
    severe_gate: bool
    judge_passes: int
    grading: str
    # a log written by `bedside-bench rejudge`: where its answers came from
    rejudge: dict[str, Any]


def metadata_keys(record: type) -> frozenset[str]:
    """Every key a metadata TypedDict names."""
    return frozenset(record.__required_keys__ | record.__optional_keys__)  # type: ignore[attr-defined]
