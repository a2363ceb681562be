"""`review.json` and the review page's data as typed models: what `review/score.py` and
`review/page.py` build, `report/review_section.py` renders and `schemas/review.schema.json` is
generated from (`documents/schemas.py`)."""

from __future__ import annotations

from typing import Final, Literal

from pydantic import ConfigDict, Field

from bedside_bench.documents.base import BenchmarkName, Document, Interval

SCORE_FORMAT: Final = "bedside-bench-review-score-v1"


class Share(Document):
    """The share of decided items a judge decided as the reference did."""

    accuracy: float | None = Field(ge=0, le=1)
    n: int = Field(ge=0)


class JudgeAccuracy(Document):
    """One judge against the reference labels."""

    accuracy: float | None = Field(ge=0, le=1)
    n: int = Field(ge=0, description="decided labels the judge decided too")
    correct: int = Field(ge=0)
    ci95: Interval | None
    cases: int = Field(ge=0)
    unsure: int = Field(
        ge=0, description="items the judge decided whose reference label is unsure or tied"
    )
    by_points: dict[str, Share]
    by_benchmark: dict[BenchmarkName, Share]


class JudgeAccuracyByReviewer(JudgeAccuracy):
    """One judge against the majority of two or more reviewers, and against each of them."""

    by_reviewer: dict[str, Share]


class LabelCounts(Document):
    """What the labels cover."""

    items: int = Field(ge=0, description="items any reviewer labelled")
    decided: int = Field(ge=0, description="items with a decided reference label")
    unsure_or_tied: int = Field(
        ge=0, description="items whose reference is unsure (or a tie of reviewers)"
    )
    cases: int = Field(ge=0, description="answers the labelled items belong to")


class ReviewerAgreement(Document):
    """Agreement of two or more reviewers on the items every one of them decided."""

    reviewers: list[str] = Field(min_length=2)
    n_items: int = Field(ge=0)
    unanimous: float | None
    statistic: Literal["cohen_kappa", "fleiss_kappa"]
    kappa: float | None


class ReviewBootstrap(Document):
    """The accuracy intervals' bootstrap: resampling answered cases."""

    resamples: int = Field(ge=1)
    seed: int
    unit: Literal["case of an answer model"] = "case of an answer model"


class SkippedLog(Document):
    """A log not used, and why."""

    log: str
    reason: str


class ReviewDocument(Document):
    """Written by `bedside-bench review score`: each judge found in the logs against
    reviewers' labels (one reviewer's, or the majority of several), with a 95% bootstrap
    interval over answered cases."""

    model_config = ConfigDict(title="BedsideBench judges against physicians' labels (review.json)")

    format: Literal["bedside-bench-review-score-v1"] = SCORE_FORMAT
    review_id: str = Field(
        pattern=r"^[0-9a-f]{16}$",
        description="the review the labels come from: the digest of the items its page showed",
    )
    against: str = Field(description='"reviewer NAME" or "majority of N reviewers"')
    reviewers: list[str] = Field(min_length=1)
    labels: LabelCounts
    # by_reviewer first: a judge entry with it is never read as one without
    judges: dict[str, JudgeAccuracyByReviewer | JudgeAccuracy]
    reviewer_agreement: ReviewerAgreement | None
    bootstrap: ReviewBootstrap
    skipped: list[SkippedLog] = Field(
        description="logs not used, with the reason (unreadable, not BedsideBench's, a judge "
        "deciding one answer twice)"
    )


# --------------------------------------------------------------------------------------------
# the review page's data (embedded in review.html; no schema file)


class PageItem(Document):
    """A rubric item as the reviewer sees it (never a judge's decision)."""

    item_id: str
    text: str
    points: int


class PageCase(Document):
    """One answered case with the items selected for review."""

    answer_model: str
    benchmark: str
    case_id: str
    epoch: int
    answer_sha256: str
    prompt: str
    answer: str
    items: list[PageItem]


class PageData(Document):
    """What the review page shows, case by case in presentation order."""

    format: str
    labels_format: str
    review_id: str
    title: str
    cases: list[PageCase]
