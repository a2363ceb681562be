"""`comparison.json` as typed models: what `report/comparison.py` builds, the report renders and
`schemas/comparison.schema.json` is generated from (`documents/schemas.py`)."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from bedside_bench.documents.base import (
    BenchmarkName,
    BootstrapSettings,
    Document,
    Interval,
    Share,
)
from bedside_bench.logs.group_key import GroupKey

# the value of one run-group field (`GroupKey`)
KeyValue = str | bool | int | None

VerdictWord = Literal["ahead", "behind", "not distinguishable"]

CASES_AND_JUDGE = (
    "95% interval resampling cases and, within each drawn case, its judge passes "
    "(docs/statistics.md); null with one judge pass, or when the pass scores are not recorded"
)
CASES_AND_EPOCHS = (
    "95% interval resampling cases and, within each drawn case, its epochs (and each drawn "
    "epoch's judge passes); null with one epoch"
)
CASES_NEEDED = (
    "paired cases that would detect the observed difference with 80% power at the two-sided "
    "5% level (normal approximation from the observed variance of the paired differences, "
    "stratified as the overall interval; docs/statistics.md); null when the difference is 0 "
    "or a benchmark has fewer than 2 paired cases"
)


class Mismatch(Document):
    """A run-group field the compared groups do not share, with each group's value."""

    field: str
    values: dict[str, KeyValue] = Field(description="group label -> its value of the field")

    def describe(self) -> str:
        shown = "; ".join(f"{label}: {value}" for label, value in self.values.items())
        return f"{self.field} differs ({shown})"


class ComparedModel(Document):
    """One compared run group: its label, summary file and group key."""

    label: str
    answer_model: str
    summary: str
    group: GroupKey
    complete: bool
    full_scope: bool


class BenchmarkScore(Document):
    """A group's score on one benchmark, as its summary gives it."""

    mean: Share | None
    ci95: Interval | None
    ci95_cases_and_judge: Interval | None = Field(description=CASES_AND_JUDGE)
    ci95_cases_and_epochs: Interval | None = Field(description=CASES_AND_EPOCHS)
    n: int
    failed: int


class OverallScore(Document):
    """A group's overall score (macro-average), as its summary gives it."""

    mean: Share | None
    ci95: Interval | None
    ci95_cases_and_judge: Interval | None = Field(description=CASES_AND_JUDGE)
    ci95_cases_and_epochs: Interval | None = Field(description=CASES_AND_EPOCHS)
    n: int


class Pair(Document):
    """A minus B on the cases both completed."""

    a: str
    b: str
    n: int = Field(ge=0, description="cases both completed")
    difference: float | None = Field(description="mean of a minus b (overall: macro-average)")
    ci95: Interval | None
    ci95_cases_and_judge: Interval | None = Field(description=CASES_AND_JUDGE)
    ci95_cases_and_epochs: Interval | None = Field(description=CASES_AND_EPOCHS)
    cases_needed_for_80_power: int | None = Field(ge=0, description=CASES_NEEDED)
    excludes_zero: bool | None = Field(
        description="the verdict; null whenever verdict_withheld is set"
    )
    verdict_withheld: str | None = Field(
        description="why excludes_zero is null although an interval exists (fewer than 10 "
        "paired cases, a smoke or partial group), or why there is no interval"
    )


class BenchmarkComparison(Document):
    """One benchmark: each group's score (null: not in the group) and every pair."""

    models: dict[str, BenchmarkScore | None]
    pairs: list[Pair]


class OverallComparison(Document):
    """The overall score of each group (null: a benchmark is missing) and every pair."""

    models: dict[str, OverallScore | None]
    pairs: list[Pair]


class Verdict(Document):
    """One pair of ranked full runs, higher-ranked minus lower-ranked overall."""

    higher: str = Field(description="label of the higher-ranked model")
    lower: str
    n: int = Field(ge=0, description="cases both completed")
    difference: float | None = Field(description="macro-average of higher minus lower")
    ci95: Interval | None
    ci95_cases_and_judge: Interval | None = Field(description=CASES_AND_JUDGE)
    ci95_cases_and_epochs: Interval | None = Field(description=CASES_AND_EPOCHS)
    cases_needed_for_80_power: int | None = Field(ge=0, description=CASES_NEEDED)
    excludes_zero: bool | None
    verdict: VerdictWord | None = Field(
        description="ahead: interval above 0; behind: below 0; null whenever verdict_withheld "
        "is set"
    )
    verdict_withheld: str | None


class Comparison(Document):
    """Written by `bedside-bench report` when two or more run groups are compared: whether
    they are like for like, each group's scores, and the paired differences (A minus B on the
    cases both completed) per benchmark and overall, and the verdicts between ranked full
    runs."""

    model_config = ConfigDict(title="BedsideBench comparison of run groups (bedside-bench report)")

    like_for_like: bool = Field(
        description="false only when forced (--force) across different judge, digest, "
        "protocol, grading options, epochs or release"
    )
    mismatches: list[Mismatch]
    bootstrap: BootstrapSettings
    models: list[ComparedModel] = Field(min_length=2)
    benchmarks: dict[BenchmarkName, BenchmarkComparison]
    overall: OverallComparison
    verdicts: list[Verdict] = Field(
        default_factory=list,
        description="the ranked full runs, higher-ranked minus lower-ranked overall: every "
        "pair for up to 4 ranked models, else the leader against each and each against the "
        "next; empty when fewer than two full runs are ranked",
    )
