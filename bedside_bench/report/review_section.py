"""The "Judge vs physicians" section, from `review.json` (pure): the same blocks feed the review's
own Markdown/HTML and the report's section with `bedside-bench report --labels`."""

from __future__ import annotations

from bedside_bench.documents.review import ReviewDocument, Share
from bedside_bench.report.document import Block, Bullets, Heading, Paragraph, Table, interval, num


def _acc(entry: Share | None) -> str:
    if entry is None or entry.accuracy is None:
        return "n/a"
    return f"{num(entry.accuracy)} (n={entry.n})"


def coverage_sentence(document: ReviewDocument) -> str:
    labels = document.labels
    items, cases, reviewers = labels.items, labels.cases, len(document.reviewers)
    return (
        f"{items} rubric item{'' if items == 1 else 's'} of {cases} "
        f"answer{'' if cases == 1 else 's'} reviewed by {reviewers} "
        f"reviewer{'' if reviewers == 1 else 's'} ({', '.join(document.reviewers)}); "
        f"{labels.decided} decided, {labels.unsure_or_tied} unsure or tied"
    )


def review_blocks(document: ReviewDocument) -> list[Block]:
    judges = document.judges
    rows = []
    for judge, e in judges.items():
        acc = "n/a" if e.accuracy is None else f"{num(e.accuracy)} {interval(e.ci95)}"
        rows.append((judge, acc, str(e.n), str(e.cases), str(e.unsure)))
    blocks: list[Block] = [
        Heading(2, "Judge vs physicians"),
        Paragraph(
            f"Each judge's decisions against the {document.against}: the share of reviewed "
            "items it decided as the reviewers did, with a 95% bootstrap interval over answered "
            "cases. Unsure labels (and ties) are counted apart, never as a decision. "
            + coverage_sentence(document)
            + "."
        ),
        Table(("judge", "accuracy [95% CI]", "items", "answers", "unsure"), tuple(rows)),
    ]
    points = sorted({p for e in judges.values() for p in e.by_points}, key=lambda p: -int(p))
    if points:
        blocks.append(
            Table(
                ("judge", *(f"items {p}" for p in points)),
                tuple((j, *(_acc(e.by_points.get(p)) for p in points)) for j, e in judges.items()),
            )
        )
    names = sorted({b for e in judges.values() for b in e.by_benchmark})
    if names:
        blocks.append(
            Table(
                ("judge", *names),
                tuple(
                    (j, *(_acc(e.by_benchmark.get(b)) for b in names)) for j, e in judges.items()
                ),
            )
        )
    agreement = document.reviewer_agreement
    if agreement is not None:
        kind = "Cohen's" if agreement.statistic == "cohen_kappa" else "Fleiss'"
        blocks.append(
            Bullets(
                (
                    f"Reviewers' agreement on the {agreement.n_items} items all of them "
                    f"decided: {num(agreement.unanimous)} unanimous, {kind} kappa "
                    f"{num(agreement.kappa)}",
                )
            )
        )
    return blocks
