"""Which judge's scores a log holds, and what that judging cost (pure functions).

`inspect score --action append` adds a second judge's scores to a log under `rubric_judge1`,
`rubric_judge2`, ...; each key is read as its own record, so the report never takes one
judge's scores for another's. `inspect score` adds no judge tokens to a log's stats, so a
record whose scores came from a judge other than the one the header ran with takes its judge
tokens from the scores themselves (`judge_usage` in the score metadata).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from bedside_bench.core.contracts import APPENDED_SCORE_KEY, SCORER_NAME
from bedside_bench.logs.records import CaseRecord, LogRecord, TokenUsage

if TYPE_CHECKING:  # the report reads Inspect's summaries; importing them here is not needed
    from inspect_ai.log import EvalSampleSummary

PRIMARY = SCORER_NAME
MIXED_PREFIX = "mixed: "


def appended_keys(summaries: Iterable[EvalSampleSummary]) -> list[str]:
    """Score keys of judges appended after the first, in the order they first appear."""
    keys: dict[str, None] = {}
    for summary in summaries:
        for key in summary.scores or {}:
            if APPENDED_SCORE_KEY.match(key):
                keys.setdefault(key, None)
    return list(keys)


def appended_records(record: LogRecord, summaries: Sequence[EvalSampleSummary]) -> list[LogRecord]:
    """One record per appended judge: same answers and header, read for that judge's scores.
    The answer tokens stay with the first record (they were spent once), and so does the
    per-epoch usage."""
    return [
        replace(
            record,
            scorer=key,
            task_id=f"{record.task_id}#{key}",
            answer_usage=TokenUsage(),
            answer_cost=None,
            judge_cost=None,
            usage_by_epoch=(),
        )
        for key in appended_keys(summaries)
    ]


def case_judges(cases: Iterable[CaseRecord]) -> list[str]:
    """Distinct judge models the successful scores name (each epoch's own), sorted."""
    found = {
        r.judge_model
        for c in cases
        for r in (c.epoch_records or (c,))
        if r.completed and r.judge_model
    }
    return sorted(found)


def case_judge(cases: Iterable[CaseRecord]) -> str | None:
    """The judge the scores name; several are never merged silently: "mixed: a, b"."""
    judges = case_judges(cases)
    if not judges:
        return None
    return judges[0] if len(judges) == 1 else MIXED_PREFIX + ", ".join(judges)


def rescored_judge_usage(
    record: LogRecord, judge: str, cases: Iterable[CaseRecord]
) -> TokenUsage | None:
    """The header's judge tokens when the scores are the header judge's own and the header has
    any (they include failed attempts); else (scored later by `inspect score`, re-scored by
    another judge, or appended) the tokens the scores recorded."""
    own = record.scorer == PRIMARY and judge == record.judge_model
    if own and record.judge_usage != TokenUsage():
        return record.judge_usage
    total = TokenUsage()
    for case in cases:
        if case.completed and case.judge_usage is not None:
            total = total + case.judge_usage
    return total
