"""A rubric-judge score's metadata: the one model the scorer writes and every reader reads.

The scorer (and the epoch reducer) build a `ScoreMetadata` and store `logged()` as the Inspect
`Score`'s metadata: the keys they gave, in the model's field order (the order logs have always
held them); a key not given stays absent. The report, `data export` and `review` read a log's
score metadata back through the same model (`logs/values.py`), so what is written and what is
read cannot drift apart.

A log is a file anyone can write (an earlier version, a judge appended by `inspect score`, a
hand edit), so the model is strict (no coercion: "3" is not a count, 1 is not True, NaN is no
share), bounded where the writer's values are (shares in [0, 1], counts >= 0, text not empty),
and leaves alone keys it does not name (`extra="ignore"`). A reader validates only the keys it
reads (`logs/values.py`): a malformed value elsewhere does not fail a case whose figures it
does not touch. A writer gives its keys as keyword arguments, which mypy checks against the
fields; a part of the metadata built apart (the grading variant's keys, the passes') is a
`ScoreMetadata` too, passed on as its `logged()` keys.

Every field is optional: which keys a score holds depends on how its case was scored (points
or F1, judge passes, grading variant, an answer without text, epochs); which ones a case must
hold to count is the reader's to say (`logs/values.py` `required_score_fields`). None is an
absent key, except for the `NULLABLE` keys, which the scorer writes as null; a null anywhere
else is refused.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from bedside_bench.core.answer_condition import AnswerCondition
from bedside_bench.core.contracts import (
    Decision,
    GradingMethod,
    ItemJudgementRecord,
    JudgeAttempt,
    NotRecorded,
    OverrideRecord,
)

# how every value read from a log is checked (here and in `logs/values.py`)
STRICT = ConfigDict(strict=True, frozen=True, extra="ignore", allow_inf_nan=False)

Share = Annotated[float, Field(ge=0.0, le=1.0)]
Temperature = Annotated[float, Field(ge=0.0)]
Count = Annotated[int, Field(ge=0)]
Positive = Annotated[int, Field(ge=1)]
Text = Annotated[str, Field(min_length=1)]
# a value the writer gives as a whole number or a float, kept as given (JSON `2` stays `2`):
# the signed points of binary decisions are whole, of three-level ones may be halves; a
# case's severe flag is 0 or 1, its mean over epochs a share. The float first, so that a
# refusal names the float's range.
SignedPoints = float | int
SevereFlag = Share | Annotated[int, Field(ge=0, le=1)]

# the keys the scorer writes as null: precision without a matched item, a temperature that
# was not sent
NULLABLE = frozenset({"precision", "judge_temperature", "answer_temperature"})


class TokenCounts(BaseModel):
    """One judge model's tokens in a score's `judge_usage` (`scorer.judge_usage`)."""

    model_config = STRICT

    input_tokens: Count = 0
    output_tokens: Count = 0
    input_tokens_cache_read: Count = 0
    input_tokens_cache_write: Count = 0
    reasoning_tokens: Count = 0
    total_tokens: Count = 0


class ScoreMetadata(BaseModel):
    """A rubric-judge score's metadata, its fields in the order logs hold them."""

    model_config = STRICT

    # {item_id: matched}, or {item_id: level} with three-level grading; combined over passes
    decisions: dict[str, Decision] | None = None
    grading_method: GradingMethod | None = None
    # points_rubric cases
    matched_signed_points: SignedPoints | None = None
    available_positive_points: Count | None = None
    # f1_weighted_rubric cases; severe_rate is 1 when the case has a severe error (a missed
    # +3 or a matched -3), else 0
    recall: Share | None = None
    precision: Share | None = None
    severe_rate: SevereFlag | None = None
    judge_model: Text | None = None
    # what the provider received: None when none was sent, `NOT_RECORDED` when Inspect kept no
    # record of the request (`core/contracts.SentTemperature`)
    judge_temperature: Temperature | NotRecorded | None = None
    answer_temperature: Temperature | NotRecorded | None = None
    # the answer as it came (`answer_condition`): Inspect's stop reason, its condition and
    # whether it is complete
    answer_stop_reason: Text | None = None
    answer_condition: AnswerCondition | None = None
    answer_complete: bool | None = None
    # the answer had no text: scored as stating nothing (no item matched), no judge asked
    answer_empty: bool | None = None
    judge_attempts: list[JudgeAttempt] | None = None
    judge_message_format: Text | None = None
    severe_gate: bool | None = None
    # judge tokens by model (inspect score adds none to a log's stats)
    judge_usage: dict[str, TokenCounts] | None = None
    # repeated judging (judge_passes > 1)
    judge_passes: Positive | None = None
    pass_decisions: Annotated[list[dict[str, Decision]], Field(min_length=1)] | None = None
    # each pass's case score on its own (the case's score combines the passes' decisions)
    pass_scores: Annotated[list[Share], Field(min_length=1)] | None = None
    judge_agreement: Share | None = None
    # three-level grading: per pass when there are several
    judgements: list[ItemJudgementRecord] | list[list[ItemJudgementRecord]] | None = None
    overrides: list[OverrideRecord] | list[list[OverrideRecord]] | None = None
    match_values: dict[str, Share] | None = None
    # a case reduced over several epochs (the epoch reducer's)
    epochs: Positive | None = None

    @field_validator("*", mode="before")
    @classmethod
    def _null_only_where_written(cls, value: object, info: ValidationInfo) -> object:
        if value is None and info.field_name not in NULLABLE:
            raise ValueError("the scorer never writes null here")
        return value

    def logged(self) -> dict[str, Any]:
        """The metadata as a log stores it: the keys given, in field order."""
        return self.model_dump(exclude_unset=True)
