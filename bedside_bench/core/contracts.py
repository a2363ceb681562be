"""The records that cross module boundaries, and the names they are stored under in logs.

The bottom of the package: it imports nothing from it, and everything that reads or writes a
rubric item, a grading variant, the judge's model role, the scorer's name, the metadata of a
sample or a task, or the judge records a score holds takes it from here. The names are part
of the public surface (logs written today are read by tomorrow's report).

A sample's metadata is a frozen pydantic model, as Inspect's `TaskState.metadata_as` expects:
the dataset writes it, the solver adds the answer temperature, the scorer reads it back as
`state.metadata_as(SampleMetadata)`, its rubric items already typed.

A score's metadata is one pydantic model of its own (`core/score_metadata.py`), which the
scorer builds and every reader validates; the judge records it holds are the TypedDicts below
(plain dicts in a log, in their key order). Task metadata stays a TypedDict: each key is named
once here, and mypy checks every writer's literal key against it, at no cost at run time; the
report reads it back through a strict model of only the keys it reads (`logs/values.py`, whose
field names a test keeps within this TypedDict): a malformed value skips its log, named in one
line; keys it does not read may hold anything.
"""

from __future__ import annotations

import re
from typing import Final, Literal, TypeAlias, get_args

from pydantic import BaseModel, ConfigDict
from pydantic.dataclasses import dataclass

# not typing's: pydantic reads these (TypeAdapter, JSON Schema) only from typing_extensions'
# before Python 3.12, and NotRequired is new in 3.11
from typing_extensions import NotRequired, TypedDict

# the model role the judge is bound to (`--model-role grader=...`)
GRADER_ROLE = "grader"
# the scorer's name, and so the key of its score in every sample
SCORER_NAME = "rubric_judge"
# a rubric-judge score's key: the run's own, or a judge appended by `inspect score` (keyed
# rubric_judge1, ...), with or without the package prefix
SCORE_KEY = re.compile(rf"^(?:[A-Za-z0-9_]+/)?{SCORER_NAME}(?:-?\d+)?$")
APPENDED_SCORE_KEY = re.compile(rf"^(?:[A-Za-z0-9_]+/)?{SCORER_NAME}-?\d+$")
# `SampleMetadata` fields written or read by key: the solver writes the answer temperature
# into the state's metadata; the report reads a stored sample's rubric items (`{"item_id",
# "text", "points"}` objects) without validating the record
ANSWER_TEMPERATURE_KEY = "answer_temperature"
# a temperature whose request Inspect kept no record of: `inspect score` (and so `rejudge`)
# re-scores with none, `--no-log-model-api` keeps none, and by default only a sample's first
# few calls per model are kept. Neither the value sent nor that none was is then known, so it
# is said, never read as "not sent" (None)
NOT_RECORDED: Final = "not recorded"
NotRecorded: TypeAlias = Literal["not recorded"]
SentTemperature: TypeAlias = float | None | NotRecorded
RUBRIC_ITEMS_KEY = "rubric_items"
# the eval tag of a run whose answers and judge decisions are the provider doubles' scripted
# stand-ins (`bedside-bench demo`): `inspect view` shows it, the report reads it and says so
DEMO_TAG = "bedside-bench-demo"

# how a case is scored (protocol section 3), one per benchmark
GradingMethod = Literal["points_rubric", "f1_weighted_rubric"]
# how the judge decides an item (the grading variants)
Grading = Literal["binary", "three_level"]
GRADINGS: tuple[Grading, ...] = get_args(Grading)

# one rubric item's decision: matched (reference grading) or a level (three-level grading)
Decision = bool | str


@dataclass(frozen=True)
class RubricItem:
    """One rubric item (a pydantic dataclass: a field of the metadata models below)."""

    item_id: str
    text: str
    points: int


class SampleMetadata(BaseModel):
    """A benchmark sample's metadata (`dataset.case_to_sample`, then the solver).

    Stored in this field order; `answer_temperature` only once the solver has written it.
    """

    model_config = ConfigDict(frozen=True)

    case_id: str
    benchmark: str
    grading_method: GradingMethod
    split: str
    rubric_items: list[RubricItem]
    # the digest of this case as asked (`dataset.case_sha256`): a resumed log whose case files
    # changed is told apart from its release by it (None: a log written before it was kept)
    case_sha256: str | None = None
    # written by the solver: the temperature the provider really received (None: not sent)
    answer_temperature: SentTemperature = None


@dataclass(frozen=True)
class GoldItem(RubricItem):
    """A judge-check item: a rubric item with its gold decision and the judge rule it tests."""

    gold_matched: bool
    rule: int


class GoldPairMetadata(BaseModel):
    """A judge-check sample's metadata (`judge_check.data.pair_to_sample`)."""

    model_config = ConfigDict(frozen=True)

    grading_method: GradingMethod
    attack: str | None
    answer: str
    rubric_items: list[GoldItem]


# the records a score keeps of its judging (`ScoreMetadata`: plain dicts in the log, in this
# key order). One judge attempt; "pass" (first) only when there were several passes
JudgeAttempt = TypedDict(
    "JudgeAttempt",
    {
        "pass": NotRequired[int],
        "attempt": int,
        # the reply, cut to a bound and encodable; raw_chars is its full length
        "raw": str,
        "raw_chars": int,
        # why the reply was invalid (None: it was valid)
        "error": str | None,
    },
)


class ItemJudgementRecord(TypedDict):
    """One item's three-level judgement as the judge gave it (before any override)."""

    item_id: str
    decision: str
    rationale: str
    evidence: str


# a three-level decision tightened because its rationale contradicts it
OverrideRecord = TypedDict(
    "OverrideRecord", {"item_id": str, "from": str, "to": str, "phrase": str}
)


class RejudgeSource(TypedDict):
    """A `bedside-bench rejudge` log's `eval.metadata["rejudge"]`: where its answers came from."""

    source_log: str
    source_eval_id: str
    source_task_id: str
    judge: str
    failed_only: bool


class TaskMetadata(TypedDict, total=False):
    """A benchmark log's `eval.metadata` (`tasks.task_metadata`); what the report groups by."""

    benchmark: str
    grading_method: str
    protocol_version: str
    dataset_sha256: str
    data_source: str
    release: str
    release_case_counts: dict[str, int]
    # case id -> `dataset.case_sha256` of every case the task asks: each sample must be its
    # case as the log's release holds it
    case_sha256: dict[str, str]
    smoke: bool
    severe_gate: bool
    judge_passes: int
    grading: str
    # the judge the run resolved when its tasks were built (absent: built outside the run)
    judge_model: str
    # a log written by `bedside-bench rejudge`: where its answers came from
    rejudge: RejudgeSource


def metadata_keys(record: type) -> frozenset[str]:
    """Every key a metadata record names: a model's fields, a TypedDict's keys."""
    if issubclass(record, BaseModel):
        return frozenset(record.model_fields)
    return frozenset(record.__required_keys__ | record.__optional_keys__)  # type: ignore[attr-defined]
