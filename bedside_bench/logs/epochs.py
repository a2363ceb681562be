"""One record per case from the records of its epochs (pure functions).

A case's score is the mean over its epochs, computed as Inspect's default `mean` reducer does
(`statistics.mean`), so it equals the reduced score Inspect writes into the log. A case counts as
completed only when every epoch has a successful score: a mean over the epochs that happened to
succeed would weigh cases unevenly. The bootstrap then resamples cases, never epochs.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping

from bedside_bench.logs.records import CaseRecord, TokenUsage


def _mean(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return float(statistics.mean(present)) if present else None


def _usage_sum(values: Iterable[TokenUsage | None]) -> TokenUsage | None:
    """Judge tokens of every epoch (all were spent), None when an epoch did not record them."""
    total = TokenUsage()
    for value in values:
        if value is None:
            return None
        total = total + value
    return total


def reduce_case(case_id: str, records: Mapping[int, CaseRecord], epochs: int) -> CaseRecord:
    """The case over epochs 1..`epochs`; with one epoch, that epoch's record unchanged."""
    if epochs == 1 and 1 in records:
        return records[1]
    ordered = [records[e] for e in range(1, epochs + 1) if e in records]
    for epoch in range(1, epochs + 1):
        record = records.get(epoch)
        if record is None or not record.completed:
            why = "not run" if record is None else record.error
            return CaseRecord(
                case_id=case_id,
                score=None,
                error=f"epoch {epoch} of {epochs}: {why}",
                epoch_records=tuple(ordered),
            )
    judges = {r.judge_model for r in ordered}
    # the temperature the judge received, from an epoch it was asked about
    asked = [r for r in ordered if not r.answer_empty] or ordered
    return CaseRecord(
        case_id=case_id,
        score=_mean(r.score for r in ordered),
        recall=_mean(r.recall for r in ordered),
        precision=_mean(r.precision for r in ordered),
        severe_rate=_mean(r.severe_rate for r in ordered),
        judge_model=ordered[0].judge_model if len(judges) == 1 else None,
        judge_temperature=asked[0].judge_temperature,
        answer_temperature=ordered[0].answer_temperature,
        judge_agreement=_mean(r.judge_agreement for r in ordered),
        judge_usage=_usage_sum(r.judge_usage for r in ordered),
        answer_empty=all(r.answer_empty for r in ordered),
        epoch_records=tuple(ordered),
    )


def reduce_epochs(
    by_epoch: Mapping[tuple[str, int], CaseRecord], epochs: int
) -> dict[str, CaseRecord]:
    """{case_id: record over its epochs} for every case with at least one epoch recorded."""
    grouped: dict[str, dict[int, CaseRecord]] = {}
    for (case_id, epoch), record in by_epoch.items():
        if 1 <= epoch <= epochs:
            grouped.setdefault(case_id, {})[epoch] = record
    return {i: reduce_case(i, records, epochs) for i, records in grouped.items()}
