"""The human report's sections, in the order they appear: ONE list (`SECTIONS`) of functions
`ReportContext -> list[Block]`, the judges', the review's, the cost headline and the estimate
as much as the rest (pure functions).

A new section is a function taking the context (which carries every document the report
computed) and an entry here; nothing is inserted by position anywhere else.
"""

from __future__ import annotations

from collections.abc import Sequence

from bedside_bench.report.cost_section import cost_headline, estimate_section
from bedside_bench.report.document import (
    Block,
    ReportContext,
    Section,
    agreement_section,
    differences_section,
    f1_section,
    headline_section,
    in_report_order,
    intro_section,
    notes_section,
    plot_section,
    runs_section,
    scores_section,
    skipped_section,
    unranked_section,
    usage_section,
    verdict_section,
    warnings_section,
)
from bedside_bench.report.judges_section import judges_section
from bedside_bench.report.review_section import review_blocks


def model_places(context: ReportContext) -> dict[str, int]:
    """Each answer model's first place in the report's order (a model with several groups:
    its first listed)."""
    summaries, _ = in_report_order(context)
    return {s.answer_model: n for n, s in reversed(list(enumerate(summaries)))}


def judge_comparison_section(context: ReportContext) -> list[Block]:
    """How much the scores depend on the judge (`judges.json`), each answer model's table in
    the report's order."""
    document = context.judges
    if document is not None:
        place = model_places(context)
        document = document.model_copy(
            update={
                "comparisons": [
                    c.model_copy(
                        update={
                            "models": sorted(
                                c.models, key=lambda m: place.get(m.answer_model, len(place))
                            )
                        }
                    )
                    for c in document.comparisons
                ]
            }
        )
    return judges_section(document)


def review_section(context: ReportContext) -> list[Block]:
    """Each judge against the physicians' labels (`report --labels`)."""
    if context.review is None:
        return []

    return review_blocks(context.review)


def estimate_vs_actual_section(context: ReportContext) -> list[Block]:
    """The estimate `sweep --estimate` kept, beside what the runs spent: its models in the
    report's order (a model the report does not list last, as the estimate gives them)."""
    estimate = context.estimate
    if estimate is not None:
        place = model_places(context)
        models = sorted(estimate.models.items(), key=lambda m: place.get(m[0], len(place)))
        estimate = estimate.model_copy(update={"models": dict(models)})
    return estimate_section(estimate, context.groups, context.prices)


SECTIONS: tuple[Section, ...] = (
    intro_section,
    warnings_section,
    headline_section,
    verdict_section,
    unranked_section,
    # cost right under the ranking and its verdicts
    cost_headline,
    scores_section,
    f1_section,
    agreement_section,
    differences_section,
    # how much the scores depend on the judge, right after the differences between models
    judge_comparison_section,
    review_section,
    plot_section,
    usage_section,
    # the estimate, if kept, beside usage
    estimate_vs_actual_section,
    runs_section,
    skipped_section,
    notes_section,
)


def report_blocks(context: ReportContext, sections: Sequence[Section] = SECTIONS) -> list[Block]:
    """The report's blocks, section by section."""
    return [block for section in sections for block in section(context)]
