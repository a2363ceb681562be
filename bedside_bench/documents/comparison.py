"""`comparison.json` as typed models: what `report/comparison.py` builds, the report renders and
`schemas/comparison.schema.json` is generated from (`documents/schemas.py`)."""

from __future__ import annotations

from collections.abc import Sequence
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


def negated(ci: list[float] | None) -> list[float] | None:
    """The interval of the opposite difference, [-hi, -lo], exactly (`0.0 - x`: never -0.0)."""
    return None if ci is None else [0.0 - ci[1], 0.0 - ci[0]]


class Pair(Document):
    """A minus B on the cases both completed; A is the one the report lists first (ranked
    higher: `Comparison.models` is in the report's order)."""

    a: str = Field(
        description="label of the model the report lists first: ranked higher, or, when "
        "neither is ranked, listed first among the groups not ranked"
    )
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

    def reversed(self) -> Pair:
        """B minus A: this very computation read the other way, every number exactly
        negated. A pair is computed once, in the report's order; drawing B minus A again
        would give an interval that is not the mirror image of this one."""
        difference = self.difference
        return self.model_copy(
            update={
                "a": self.b,
                "b": self.a,
                "difference": None if difference is None else 0.0 - difference,
                "ci95": negated(self.ci95),
                "ci95_cases_and_judge": negated(self.ci95_cases_and_judge),
                "ci95_cases_and_epochs": negated(self.ci95_cases_and_epochs),
            }
        )


def oriented(pairs: Sequence[Pair], a: str, b: str) -> Pair:
    """`a` minus `b` from `pairs`: the pair itself, or the pair `b` minus `a` read the other way
    (`Pair.reversed`, exact negation); never drawn again."""
    for pair in pairs:
        if (pair.a, pair.b) == (a, b):
            return pair
        if (pair.a, pair.b) == (b, a):
            return pair.reversed()
    raise KeyError(f"the comparison has no pair of {a} and {b}")


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
    cases both completed, A ranked above B) per benchmark and overall, and the verdicts between
    ranked full runs. Every list and map of models is in the report's order: the ranked full
    runs best first, then the groups not ranked as the report lists them."""

    model_config = ConfigDict(title="BedsideBench comparison of run groups (bedside-bench report)")

    like_for_like: bool = Field(
        description="false only when forced (--force) across different judge, digest, "
        "protocol, grading options, epochs or release"
    )
    mismatches: list[Mismatch]
    bootstrap: BootstrapSettings
    models: list[ComparedModel] = Field(
        min_length=2,
        description="in the report's order: the ranked full runs best first, then the rest as "
        "the report lists them; every pair is a minus b with a listed before b",
    )
    benchmarks: dict[BenchmarkName, BenchmarkComparison]
    overall: OverallComparison
    verdicts: list[Verdict] = Field(
        default_factory=list,
        description="the ranked full runs, higher-ranked minus lower-ranked overall: every "
        "pair for up to 4 ranked models, else the leader against each and each against the "
        "next; empty when fewer than two full runs are ranked",
    )
