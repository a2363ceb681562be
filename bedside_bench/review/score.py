"""Each judge against physicians' labels (pure functions of labels and decisions).

A judge's accuracy is the share of labelled items (matched or not matched; "unsure" is counted
apart, never as a decision) on which its decision equals the label. With two or more reviewers
the reference is their majority (a strict majority of their decided labels; a tie has none),
and their agreement is Cohen's kappa (two) or Fleiss' kappa (three or more). The 95% interval is
a percentile bootstrap over answered cases (items of one answer are not independent: all of a
case's items are resampled together), with the protocol's resamples and seed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from bedside_bench.core.protocol import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED
from bedside_bench.documents.review import (
    JudgeAccuracy,
    JudgeAccuracyByReviewer,
    LabelCounts,
    ReviewBootstrap,
    ReviewDocument,
    ReviewerAgreement,
    Share,
    SkippedLog,
)
from bedside_bench.review.labels import Label, ReviewLabels, shown
from bedside_bench.review.logs import ReviewInputError
from bedside_bench.review.records import AnsweredCase, ItemKey, ReviewSource
from bedside_bench.scoring.agreement import cohen_kappa, fleiss_kappa, pass_fail_counts


@dataclass(frozen=True)
class Outcome:
    key: ItemKey
    benchmark: str
    points: int
    correct: bool


def check_labels(source: ReviewSource, labels: ReviewLabels) -> None:
    """Every label names an answer the logs hold (the same answer: its SHA-256), of the
    benchmark the logs give it, and an item of that answer's rubric; a label that does not
    is named by file and field."""
    for reviewer, mine in labels.by_reviewer.items():
        for label in mine.values():
            problem = _label_problem(source.cases.get(label.key[:3]), label)
            if problem is not None:
                field, reason = problem
                raise ReviewInputError(
                    f"{labels.origin(reviewer, label.key, field)}reviewer '{shown(reviewer)}': "
                    f"case {shown(label.case_id)} of {shown(label.answer_model)}, epoch "
                    f"{label.epoch}: {reason}"
                )


def _label_problem(case: AnsweredCase | None, label: Label) -> tuple[str, str] | None:
    """(the label's field at fault, why) when the logs do not hold what it labels."""
    if case is None:
        return "", "no judged answer in the logs"
    if label.answer_sha256 != case.answer_sha256:
        return ".answer_sha256", "the logs hold another answer to this case"
    if label.benchmark != case.benchmark:
        return (
            ".benchmark",
            f"labelled as {shown(label.benchmark)}, but the logs' case is of {case.benchmark}",
        )
    if all(i.item_id != label.item_id for i in case.items):
        return ".item_id", f"item {shown(label.item_id)} is not in its rubric"
    return None


def majority(labels: Mapping[str, Mapping[ItemKey, Label]]) -> dict[ItemKey, bool | None]:
    """Per item, the strict majority of the reviewers' decided labels (None: unsure or tie)."""
    keys = {k for mine in labels.values() for k in mine}
    out: dict[ItemKey, bool | None] = {}
    for key in keys:
        votes = [m[key].matched for m in labels.values() if key in m]
        decided = [v for v in votes if v is not None]
        yes = sum(decided)
        no = len(decided) - yes
        out[key] = True if yes > no else False if no > yes else None
    return out


def outcomes(
    source: ReviewSource, judge: str, reference: Mapping[ItemKey, bool | None]
) -> tuple[list[Outcome], int]:
    """The judge's decided items against the decided reference labels, and how many items it
    decided that the reference left unsure (or tied)."""
    out: list[Outcome] = []
    unsure = 0
    for key, label in sorted(reference.items()):
        decision = source.decisions.get(key, {}).get(judge)
        if decision is None:
            continue
        if label is None:
            unsure += 1
            continue
        case = source.cases[key[:3]]
        points = next(i.points for i in case.items if i.item_id == key[3])
        out.append(Outcome(key, case.benchmark, points, decision == label))
    return out, unsure


def case_bootstrap(
    rows: Sequence[Outcome], resamples: int, seed: int
) -> tuple[float, float] | None:
    """Percentile 95% interval of the accuracy, resampling cases (of an answer model, with all
    their items and epochs) with replacement."""
    if not rows:
        return None
    cases: dict[tuple[str, str], list[bool]] = {}
    for r in rows:  # the epochs of one case are resampled together, like its items
        cases.setdefault(r.key[:2], []).append(r.correct)
    correct = np.array([sum(v) for v in cases.values()], dtype=np.float64)
    counts = np.array([len(v) for v in cases.values()], dtype=np.float64)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(cases), size=(resamples, len(cases)))
    accuracy = correct[picks].sum(axis=1) / counts[picks].sum(axis=1)
    low, high = np.percentile(accuracy, [2.5, 97.5])
    return (float(low), float(high))


def _share(rows: Sequence[Outcome]) -> Share:
    return Share(accuracy=sum(r.correct for r in rows) / len(rows) if rows else None, n=len(rows))


def judge_entry(
    source: ReviewSource,
    judge: str,
    reference: Mapping[ItemKey, bool | None],
    resamples: int,
    seed: int,
) -> JudgeAccuracy:
    rows, unsure = outcomes(source, judge, reference)
    ci = case_bootstrap(rows, resamples, seed)
    points = sorted({r.points for r in rows}, reverse=True)
    benchmarks = sorted({r.benchmark for r in rows})
    share = _share(rows)
    return JudgeAccuracy(
        accuracy=share.accuracy,
        n=share.n,
        correct=sum(r.correct for r in rows),
        ci95=list(ci) if ci is not None else None,
        cases=len({r.key[:3] for r in rows}),
        unsure=unsure,
        by_points={f"{p:+d}": _share([r for r in rows if r.points == p]) for p in points},
        by_benchmark={b: _share([r for r in rows if r.benchmark == b]) for b in benchmarks},
    )


def reviewer_agreement(labels: Mapping[str, Mapping[ItemKey, Label]]) -> ReviewerAgreement | None:
    """Agreement of two or more reviewers on the items every one of them decided."""
    reviewers = sorted(labels)
    if len(reviewers) < 2:
        return None
    shared = sorted(
        k
        for k in set.intersection(*(set(labels[r]) for r in reviewers))
        if all(labels[r][k].matched is not None for r in reviewers)
    )
    votes = [[bool(labels[r][k].matched) for r in reviewers] for k in shared]
    unanimous = sum(len(set(v)) == 1 for v in votes) / len(votes) if votes else None
    if len(reviewers) == 2:
        a = [v[0] for v in votes]
        b = [v[1] for v in votes]
        return ReviewerAgreement(
            reviewers=reviewers,
            n_items=len(shared),
            unanimous=unanimous,
            statistic="cohen_kappa",
            kappa=cohen_kappa(a, b) if votes else None,
        )
    return ReviewerAgreement(
        reviewers=reviewers,
        n_items=len(shared),
        unanimous=unanimous,
        statistic="fleiss_kappa",
        kappa=fleiss_kappa(pass_fail_counts(votes)) if votes else None,
    )


def review_document(
    source: ReviewSource,
    review: ReviewLabels,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> ReviewDocument:
    """`review.json`: every judge in the logs against the labels (or the reviewers' majority)."""
    check_labels(source, review)
    labels = review.by_reviewer
    reviewers = sorted(labels)
    if len(reviewers) == 1:
        reference = {k: v.matched for k, v in labels[reviewers[0]].items()}
        against = f"reviewer {reviewers[0]}"
    else:
        reference = majority(labels)
        against = f"majority of {len(reviewers)} reviewers"
    judges: dict[str, JudgeAccuracyByReviewer | JudgeAccuracy] = {}
    for judge in sorted(source.judges):
        entry = judge_entry(source, judge, reference, resamples, seed)
        if len(reviewers) > 1:
            entry = JudgeAccuracyByReviewer(
                **dict(entry),
                by_reviewer={
                    r: _share(
                        outcomes(source, judge, {k: v.matched for k, v in labels[r].items()})[0]
                    )
                    for r in reviewers
                },
            )
        judges[judge] = entry
    labelled = {k for mine in labels.values() for k in mine}
    return ReviewDocument(
        review_id=review.review_id,
        against=against,
        reviewers=reviewers,
        labels=LabelCounts(
            items=len(labelled),
            decided=sum(1 for v in reference.values() if v is not None),
            unsure_or_tied=sum(1 for v in reference.values() if v is None),
            cases=len({k[:3] for k in labelled}),
        ),
        judges=judges,
        reviewer_agreement=reviewer_agreement(labels),
        bootstrap=ReviewBootstrap(resamples=resamples, seed=seed),
        skipped=[SkippedLog(log=log, reason=reason) for log, reason in source.skipped],
    )
