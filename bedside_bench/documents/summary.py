"""The per-group summary document (`<group>.summary.json`, protocol section 6) as typed models.

`summary.summarise` builds a `RunSummary`; the report's sections, the terminal table, the plot,
the ranking and the cost read it by attribute, and the file is its `model_dump(mode="json")`
(`RunSummary.as_json`). The models are the summary's one definition: the JSON Schema in
`schemas/summary.schema.json` is generated from them, and the benchmark names a summary may
hold come from `core/benchmarks.py` when this module is imported, so a benchmark added there is
known here without touching a schema. Field order is the document's key order.

A few keys are written only when they apply (the F1 diagnostics for F1 benchmarks, the judge
agreement with more than one pass, a cost's `per_full_run` once scaled): such a field is
written when it was set, even to null, and left out otherwise (`OnlyWhenSet`).
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal, TypeAlias

from pydantic import (
    ConfigDict,
    Field,
    JsonValue,
    NonNegativeFloat,
    NonNegativeInt,
    PositiveInt,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from bedside_bench.core.contracts import GradingMethod, SentTemperature
from bedside_bench.documents.base import (
    BenchmarkName,
    BootstrapSettings,
    Document,
    Interval,
    Share,
)

ScopeReason = Literal["smoke", "limit", "sample_id", "unknown"]
SCOPE_REASONS: tuple[ScopeReason, ...] = ("smoke", "limit", "sample_id", "unknown")
Temperature: TypeAlias = SentTemperature | Annotated[list[SentTemperature], Field(min_length=2)]
"""The value every scored case recorded (None: none was sent; "not recorded": the log keeps no
record of the request, as after `inspect score`); the distinct values when cases disagree."""


class OnlyWhenSet(Document):
    """A document part whose `OPTIONAL` keys are written only when they were set."""

    OPTIONAL: ClassVar[tuple[str, ...]] = ()

    @model_serializer(mode="wrap")
    def _leave_out_unset(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        data: dict[str, object] = handler(self)
        for name in self.OPTIONAL:
            if name not in self.model_fields_set:
                data.pop(name, None)
        return data


class AnswerConditions(Document):
    """Judged answers (every epoch's) by how they ended, when not on their own; `not_recorded`:
    scores written before conditions were recorded. Answers without text, scored unjudged,
    are counted apart (`answers_without_text`)."""

    truncated: NonNegativeInt
    filtered: NonNegativeInt
    refused: NonNegativeInt
    unknown: NonNegativeInt
    not_recorded: NonNegativeInt


class AnswersWithoutText(Document):
    """Answers (every epoch's) the model returned without text, by how they ended: scored, in
    the mean, as answers that state nothing (no rubric item matched), with no judge call."""

    total: NonNegativeInt
    complete: NonNegativeInt = Field(description="ended on their own with nothing said")
    truncated: NonNegativeInt = Field(description="the budget spent (on reasoning) before text")
    filtered: NonNegativeInt
    refused: NonNegativeInt
    unknown: NonNegativeInt


class InspectScore(Document):
    """The benchmark's score as Inspect's log holds it, reduced over epochs by a reducer other
    than the protocol's mean (`--epochs-reducer`)."""

    reducer: str
    mean: float = Field(description="Inspect's `mean` metric over the cases so reduced")
    headline: bool = Field(
        description="the number Inspect's headline shows (`inspect view`, the log listing, "
        "`evals_df`'s `score_headline_value`), as `inspect_ai.log.headline_metric` resolves "
        "it; false: another of the log's scores (with several reducers, one is the headline)"
    )


F1_FIELDS = ("mean_recall", "mean_precision", "severe_rate")
AGREEMENT_FIELDS = ("judge_agreement", "judge_kappa")
# the intervals over cases and what varies within a case, written only when the run measured it
JOINT_FIELDS = ("ci95_cases_and_judge", "ci95_cases_and_epochs")
CASES_AND_JUDGE = (
    "only with more than one judge pass: 95% interval resampling cases and, within each drawn "
    "case, its judge passes (docs/statistics.md); null when the pass scores are not recorded"
)
CASES_AND_EPOCHS = (
    "only with more than one epoch: 95% interval resampling cases and, within each drawn case, "
    "its epochs (and each drawn epoch's judge passes); null when they cannot be read"
)


class BenchmarkSummary(OnlyWhenSet):
    """One benchmark's mean over its completed cases, with its interval and what it left out."""

    OPTIONAL: ClassVar[tuple[str, ...]] = (
        *F1_FIELDS,
        *AGREEMENT_FIELDS,
        *JOINT_FIELDS,
        "inspect_scores",
    )
    # the schema says what `_diagnostics_match_grading` checks
    model_config = ConfigDict(
        json_schema_extra={
            "if": {"properties": {"grading_method": {"const": "f1_weighted_rubric"}}},
            "then": {"required": list(F1_FIELDS)},
            "else": {"not": {"anyOf": [{"required": [name]} for name in F1_FIELDS]}},
            "dependentRequired": {
                "judge_agreement": ["judge_kappa"],
                "judge_kappa": ["judge_agreement"],
            },
        }
    )

    grading_method: GradingMethod
    n: NonNegativeInt = Field(description="completed cases the mean is over")
    failed: NonNegativeInt = Field(description="cases with no successful score (not in the mean)")
    mean: Share | None
    ci95: Interval | None
    ci95_cases_and_judge: Interval | None = Field(default=None, description=CASES_AND_JUDGE)
    ci95_cases_and_epochs: Interval | None = Field(default=None, description=CASES_AND_EPOCHS)
    mean_recall: float | None = None
    mean_precision: float | None = None
    severe_rate: float | None = None
    answer_conditions: AnswerConditions
    answers_without_text: AnswersWithoutText
    failed_no_answer: NonNegativeInt = Field(
        description="failed cases the harness never got an answer for (a limit hit before or "
        "during the answer, a provider error); never judged, redone by a retry"
    )
    judge_agreement: float | None = Field(
        default=None,
        description="only with more than one judge pass: mean over cases of the fraction of "
        "items all passes agree on",
    )
    judge_kappa: float | None = Field(
        default=None, description="only with more than one judge pass: Fleiss' kappa over items"
    )
    inspect_scores: list[InspectScore] | None = Field(
        default=None,
        description="only when Inspect's log shows another score than `mean` (an epoch "
        "reducer other than the mean, `--epochs-reducer`): that score, by reducer; `mean` is "
        "the protocol's, which the headline, the ranking and every figure here use",
    )

    @model_validator(mode="after")
    def _diagnostics_match_grading(self) -> BenchmarkSummary:
        f1 = self.grading_method == "f1_weighted_rubric"
        given = {name for name in F1_FIELDS if name in self.model_fields_set}
        if given != (set(F1_FIELDS) if f1 else set()):
            raise ValueError("mean_recall, mean_precision and severe_rate are for F1 benchmarks")
        if ("judge_agreement" in self.model_fields_set) != ("judge_kappa" in self.model_fields_set):
            raise ValueError("judge_agreement and judge_kappa go together")
        return self

    @property
    def has_f1(self) -> bool:
        return "mean_recall" in self.model_fields_set

    @property
    def has_agreement(self) -> bool:
        return "judge_agreement" in self.model_fields_set


class OverallScore(OnlyWhenSet):
    """The macro-average of the ten benchmark means with its stratified interval."""

    OPTIONAL: ClassVar[tuple[str, ...]] = JOINT_FIELDS

    mean: Share
    ci95: Interval
    ci95_cases_and_judge: Interval | None = Field(default=None, description=CASES_AND_JUDGE)
    ci95_cases_and_epochs: Interval | None = Field(default=None, description=CASES_AND_EPOCHS)
    n: PositiveInt


class TokenCounts(Document):
    """Inspect's token counts (`input_tokens` excludes cache reads and writes)."""

    input_tokens: int
    output_tokens: int
    input_tokens_cache_read: int
    input_tokens_cache_write: int
    reasoning_tokens: int
    total_tokens: int


class WallTime(Document):
    sum_over_logs: float | None
    first_start_to_last_finish: float | None


class EpochTokens(Document):
    epoch: PositiveInt
    answer: TokenCounts
    judge: TokenCounts | None


class UsageSummary(Document):
    answer: TokenCounts
    judge: TokenCounts | None = Field(
        description="null when the judge's tokens cannot be told apart from the answer model's"
    )
    wall_time_seconds: WallTime
    counted_logs: list[str] = Field(
        description="the newest log of each Inspect task id, whose usage includes earlier attempts"
    )
    by_epoch: list[EpochTokens]


class BatchUse(Document):
    """Whether some of a part's tokens went through the batch API (priced at batch rates)."""

    answer: bool
    judge: bool


class FullRunCost(Document):
    """The cost scaled to a full run of the release: each part times cases / cases run."""

    cases: NonNegativeInt
    answer: float | None
    judge: float | None
    total: float | None


class PriceSources(Document):
    """Where each part's price is from: "prices file" (`--prices`), "Inspect cost config"
    (the `total_cost` Inspect recorded) or "genai-prices X.Y.Z"; null: the part has none."""

    answer: str | None
    judge: str | None


class CostSummary(OnlyWhenSet):
    """USD; a part is None (never 0) when its model has no price."""

    OPTIONAL: ClassVar[tuple[str, ...]] = ("batch", "per_full_run", "sources", "price_data")

    answer: float | None
    judge: float | None
    total: float | None
    prices: dict[str, dict[str, NonNegativeFloat]] = Field(
        description="the rates used (USD per million tokens), by the name their source knows "
        "the model by; none for a part priced from Inspect's recorded cost"
    )
    batch: BatchUse | None = None
    per_full_run: FullRunCost | None = None
    sources: PriceSources | None = None
    price_data: str | None = Field(
        default=None,
        description="the price database's version when it priced a part, e.g. "
        '"genai-prices 0.2.3 (bundled data)"',
    )


class BenchmarkScope(Document):
    cases_run: NonNegativeInt
    cases_in_benchmark: NonNegativeInt | None
    full: bool
    reasons: list[ScopeReason]


class Scope(Document):
    """How many of the benchmarks' cases ran, and why not all."""

    full: bool = Field(description="all ten benchmarks ran every case (never for smoke runs)")
    cases_run: NonNegativeInt
    cases_in_benchmarks: NonNegativeInt | None
    reasons: list[ScopeReason]
    limits: list[str] = Field(description="--limit values of the logs, as given")
    missing_benchmarks: list[BenchmarkName]
    benchmarks: dict[BenchmarkName, BenchmarkScope]
    description: str = Field(description="the scope in words, as the report shows it")


class RunSummary(Document):
    """One answer model with one judge, protocol version, dataset digest and grading options
    (grading protocol section 6). Numbers are unrounded.

    Its JSON Schema is `model_json_schema()` in validation mode (what it reads is what it
    writes); in serialization mode the parts that leave out unset keys describe any object."""

    SCHEMA_MODE: ClassVar[Literal["validation"]] = "validation"

    protocol_version: str
    answer_model: str
    judge_model: str
    judge_passes_per_answer: PositiveInt
    answer_temperature: Temperature
    judge_temperature: Temperature
    dataset_sha256: str = Field(pattern="^[0-9a-f]{64}$")
    data_source: str | None
    cases_completed: NonNegativeInt
    cases_failed: NonNegativeInt
    complete: bool
    benchmarks: dict[BenchmarkName, BenchmarkSummary] = Field(
        description="present benchmarks, keyed by name in registry order"
    )
    overall: OverallScore | None
    missing_benchmarks: list[BenchmarkName]
    bootstrap: BootstrapSettings
    logs: list[str] = Field(min_length=1)
    started_at: str | None
    finished_at: str | None
    notes: list[str]
    usage: UsageSummary
    cost: CostSummary | None
    epochs: PositiveInt
    release: str | None
    release_case_counts: dict[str, NonNegativeInt] | None
    scope: Scope
    generation_settings: dict[str, JsonValue] = Field(
        default_factory=dict,
        description="the answer model's answer-changing generate settings; empty: provider "
        "defaults. Part of the run group: runs that differ are never pooled.",
    )

    def as_json(self) -> dict[str, JsonValue]:
        """The document as written to `<group>.summary.json`."""
        return self.model_dump(mode="json")

    def with_note(self, note: str) -> RunSummary:
        return self.model_copy(update={"notes": [*self.notes, note]})
