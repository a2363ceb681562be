"""`judges.json` as typed models: what `report/judges.py` builds, `report/judges_section.py`
renders and `schemas/judges.schema.json` is generated from (`documents/schemas.py`)."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from bedside_bench.documents.base import BenchmarkName, BootstrapSettings, Document, Interval


class JudgeSetup(Document):
    """What every run group of one judge comparison shares besides the answers."""

    protocol_version: str
    dataset_sha256: str
    severe_gate: bool
    grading: str
    smoke: bool


class Score(Document):
    """A judge's mean over the cases every judge completed."""

    n: int = Field(ge=0)
    mean: float | None
    ci95: Interval | None


class Effect(Document):
    """Judge B minus judge A, paired on the same answers."""

    n: int = Field(ge=0)
    b_minus_a: float | None = Field(
        description="judge B's mean minus judge A's, paired on the same answers"
    )
    ci95: Interval | None
    excludes_zero: bool | None


class JudgeScores(Document):
    """One judge's scores of one answer model (overall null unless every benchmark has
    cases)."""

    benchmarks: dict[BenchmarkName, Score]
    overall: Score | None


class JudgeEffect(Document):
    """The judge effect between two judges of one answer model."""

    a: str
    b: str
    benchmarks: dict[BenchmarkName, Effect]
    overall: Effect | None


class ModelJudges(Document):
    """One answer model: every judge's means and each pair's judge effect."""

    answer_model: str
    judges: dict[str, JudgeScores]
    effects: list[JudgeEffect]


class Coverage(Document):
    """What the agreement figures cover, against the cases every judge completed."""

    cases: int = Field(ge=0, description="cases every judge completed (each epoch counted)")
    cases_decided: int = Field(
        ge=0, description="of those, cases with item decisions from every judge"
    )
    items: int = Field(ge=0, description="items compared")
    rubric_items: int = Field(ge=0, description="items in the rubrics of all those cases")
    complete: bool = Field(description="every item of every case every judge completed is compared")
    shortfall: list[str] = Field(
        description="why items are missing, one sentence each; empty when complete"
    )

    @classmethod
    def of(cls, cases: int, cases_decided: int, items: int, rubric_items: int) -> Coverage:
        """The coverage of these counts, with its shortfall in words."""
        reasons = []
        if cases_decided < cases:
            reasons.append(
                f"{cases - cases_decided} of {cases} cases have no item decisions from every "
                "judge (three-level grading, decisions not recorded, or an answer without "
                "text, which no judge is asked about)"
            )
        missing = rubric_items - items
        if missing > 0:
            reasons.append(f"{missing} of {rubric_items} rubric items are not compared")
        return cls(
            cases=cases,
            cases_decided=cases_decided,
            items=items,
            rubric_items=rubric_items,
            complete=not reasons,
            shortfall=reasons,
        )


N_CASES = (
    "answers the items come from: each case of each answer model and epoch, as "
    "coverage.cases counts them"
)
KAPPA = "Cohen's kappa (pairs) or Fleiss' kappa (all judges); null when undefined"


class PairStatistic(Document):
    """Two judges' item-level agreement."""

    n_items: int = Field(ge=0)
    n_cases: int = Field(ge=0, description=N_CASES)
    agreement: float | None = Field(description="share of items both judges decided alike")
    kappa: float | None = Field(description=KAPPA)

    @property
    def share(self) -> float | None:
        return self.agreement


class FleissStatistic(Document):
    """Every judge's item-level agreement."""

    n_items: int = Field(ge=0)
    n_cases: int = Field(ge=0, description=N_CASES)
    unanimous: float | None = Field(description="share of items every judge decided alike")
    kappa: float | None = Field(description=KAPPA)

    @property
    def share(self) -> float | None:
        return self.unanimous


POINTS = 'by the items\' point value, e.g. "+3", "-3"'


class PairAgreement(Document):
    """Item agreement of judges a and b: overall, per benchmark and per point value."""

    a: str
    b: str
    coverage: Coverage
    overall: PairStatistic
    benchmarks: dict[BenchmarkName, PairStatistic]
    points: dict[str, PairStatistic] = Field(description=POINTS)


class FleissAgreement(Document):
    """Item agreement of all the judges (three or more)."""

    judges: list[str]
    coverage: Coverage
    overall: FleissStatistic
    benchmarks: dict[BenchmarkName, FleissStatistic]
    points: dict[str, FleissStatistic] = Field(description=POINTS)


class Agreement(Document):
    """Item agreement per pair of judges, and of all of them with three or more."""

    pairs: list[PairAgreement]
    fleiss: FleissAgreement | None


class RankPair(Document):
    """How the ranking under judge a and under judge b differ."""

    a: str
    b: str
    kendall_tau: float | None
    swapped: list[list[str]] = Field(description="pairs of answer models ranked the other way")


class Ranking(Document):
    """The answer models ranked under each judge (two or more answer models)."""

    basis: str
    order: dict[str, list[str]]
    scores: dict[str, dict[str, float]]
    pairs: list[RankPair]
    changes: bool


class JudgeComparison(Document):
    """One set-up judged by two or more judges."""

    setup: JudgeSetup
    judges: list[str] = Field(
        min_length=2, description='reference judge first; "model xN" for N judge passes'
    )
    answer_models: list[str]
    models: list[ModelJudges]
    agreement: Agreement
    ranking: Ranking | None


class ExcludedGroup(Document):
    """A run group left out of the judge comparison, and why."""

    group: str
    reason: str


class JudgesDocument(Document):
    """The same answers judged by two or more judges: each judge's means, the paired judge
    effect, item-level agreement and, with two or more answer models, the ranking under each
    judge. Written by `bedside-bench report` when the logs hold such answers."""

    model_config = ConfigDict(title="BedsideBench judge comparison (judges.json)")

    bootstrap: BootstrapSettings
    comparisons: list[JudgeComparison]
    excluded: list[ExcludedGroup]
