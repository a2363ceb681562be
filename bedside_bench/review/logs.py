"""Review's door to Inspect logs: answered cases and every judge's item decisions.

Samples are read whole (the prompt, the answer and the rubric are not in a summary, and the
decisions of a large rubric are thinned out of it). Every rubric-judge score of a sample counts:
the run's own judge (`rubric_judge`), judges appended by `inspect score` (`rubric_judge1`, ...)
and the judges of logs written by `bedside-bench rejudge`, which hold the same answers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from inspect_ai.log import read_eval_log

from bedside_bench.core.contracts import APPENDED_SCORE_KEY, RUBRIC_ITEMS_KEY, SCORE_KEY
from bedside_bench.core.safe_text import printable
from bedside_bench.core.score_metadata import ScoreMetadata
from bedside_bench.logs.read import (
    benchmark_of,
    display_location,
    judge_of,
    resolve_locations,
    skip_reason,
)
from bedside_bench.logs.values import rubric_items, score_values
from bedside_bench.review.records import (
    AnsweredCase,
    ItemKey,
    ReviewItem,
    ReviewSource,
)

if TYPE_CHECKING:
    from inspect_ai.log import EvalSample

HEAVY_FIELDS = {"events", "attachments", "store"}


def _decision(value: object) -> bool | None:
    """A judge's decision as matched / not matched; a three-level PARTIALLY_MET is neither."""
    if isinstance(value, bool):
        return value
    if value == "MET":
        return True
    if value == "NOT_MET":
        return False
    return None


def judge_label(metadata: Mapping[str, object], fallback: str, score_key: str = "") -> str:
    """One judging: the judge model, its passes ("x3"), its grading ("three-level") and, for a
    judge `inspect score --action append` added, its score key: two judgings by one model
    (the same grader appended again, a binary and a three-level run) are never merged."""
    judge = metadata.get("judge_model")
    label = judge if isinstance(judge, str) and judge else fallback
    passes = metadata.get("judge_passes")
    if isinstance(passes, int) and passes > 1:
        label += f" x{passes}"
    decisions = metadata.get("decisions")
    if isinstance(decisions, dict) and any(isinstance(v, str) for v in decisions.values()):
        label += " three-level"
    if APPENDED_SCORE_KEY.match(score_key):
        label += f" ({score_key.rsplit('/', 1)[-1]})"
    return label


def _prompt(sample: EvalSample) -> str:
    if isinstance(sample.input, str):
        return str(sample.input)
    return "\n\n".join(str(m.text) for m in sample.input if m.role == "user")


def _items(metadata: Mapping[str, object]) -> tuple[ReviewItem, ...] | str:
    """The sample's rubric items (none when it stores none), or why they cannot be used."""
    listed = metadata.get(RUBRIC_ITEMS_KEY)
    if listed is None:
        return ()
    items = rubric_items(listed)
    if isinstance(items, str):
        return items
    return tuple(ReviewItem(i.item_id, i.text, i.points) for i in items)


def add_log(source: ReviewSource, location: str) -> None:
    """The answered, judged samples of one log (a log that is not ours is listed as skipped)."""

    shown = printable(display_location(location), 300)
    header = read_eval_log(location, header_only=True)
    reason = skip_reason(header)
    if reason is not None:
        source.skipped.append((shown, reason))
        return
    benchmark = benchmark_of(header)
    assert benchmark is not None
    log = read_eval_log(location, exclude_fields=HEAVY_FIELDS)
    fallback = judge_of(header)
    for sample in log.samples or []:
        scores = {k: v for k, v in (sample.scores or {}).items() if SCORE_KEY.match(k)}
        answer = next((s.answer for s in scores.values() if isinstance(s.answer, str)), None)
        if sample.error is not None or not scores or answer is None:
            continue
        if any((s.metadata or {}).get("answer_empty") is True for s in scores.values()):
            continue  # no text: scored as stating nothing, no judge decided anything to check
        # what a reviewer is shown and scored against, checked as the report checks it
        where = f"{shown}: case {printable(str(sample.id), 100)} epoch {sample.epoch}"
        items = _items(sample.metadata or {})
        if isinstance(items, str):
            raise ReviewInputError(f"{where}: {printable(items, 500)}")
        checked: dict[str, ScoreMetadata] = {}
        for score_key, score in scores.items():
            values = score_values(score.metadata or {})
            if isinstance(values, str):
                raise ReviewInputError(f"{where}: {printable(values, 500)}")
            checked[score_key] = values
        case = AnsweredCase(
            answer_model=header.eval.model,
            benchmark=benchmark,
            case_id=str(sample.id),
            epoch=sample.epoch,
            prompt=_prompt(sample),
            answer=answer,
            items=items,
        )
        known = source.cases.setdefault(case.key, case)
        if known.answer_sha256 != case.answer_sha256:
            raise ReviewInputError(
                f"{shown}: case {printable(case.case_id, 100)} epoch {case.epoch} of "
                f"{printable(case.answer_model, 100)} has "
                "another answer than an earlier log's; review one run's answers at a time"
            )
        for score_key, values in checked.items():
            decisions = values.decisions
            if decisions is None:
                continue
            judge = judge_label(scores[score_key].metadata or {}, fallback, score_key)
            source.judges.add(judge)
            passes = values.pass_decisions or []
            for item in case.items:
                key: ItemKey = (*case.key, item.item_id)
                if item.item_id in decisions:
                    decided = source.decisions.setdefault(key, {})
                    value = _decision(decisions[item.item_id])
                    if judge in decided and decided[judge] != value:
                        source.conflicts.add((judge, shown))
                    decided.setdefault(judge, value)
                if len({repr(p.get(item.item_id)) for p in passes}) > 1:
                    source.pass_disagreements.add(key)


class ReviewInputError(RuntimeError):
    """A problem with review's inputs (logs, labels), reported as one line."""


def read_source(paths: Sequence[str]) -> ReviewSource:
    """Every answered case and judge decision under `paths` (log files or directories)."""

    source = ReviewSource()
    try:
        locations = asyncio.run(resolve_locations(paths))
    except FileNotFoundError as ex:
        raise ReviewInputError(printable(str(ex), 500)) from None
    for location in locations:
        try:
            add_log(source, location)
        except ReviewInputError:
            raise
        except Exception as ex:  # one unreadable log must not hide the others
            reason = f"cannot be read ({printable(str(ex), 300)})"
            source.skipped.append((display_location(location), reason))
    if not source.cases:
        named = ", ".join(printable(p, 300) for p in paths)
        why = ""
        if source.skipped:  # the reason a log that was meant to count was left out
            (first, reason), rest = source.skipped[0], len(source.skipped) - 1
            more = f", and {rest} more skipped" if rest else ""
            why = f" (skipped {printable(first, 300)}: {printable(reason, 300)}{more})"
        raise ReviewInputError(f"no judged BedsideBench answers in {named}{why}")
    for judge, location in sorted(source.conflicts):
        source.skipped.append(
            (
                location,
                f"{judge} decided items of answers an earlier log's {judge} decided "
                "otherwise (two judgings by one judge): the earlier decisions are used",
            )
        )
    return source
