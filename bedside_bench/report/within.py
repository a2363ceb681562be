"""What each case holds within it (its epochs' scores, its judge passes' scores), as the
intervals over cases and judge passes or epochs read it (`scoring.joint`), and which of those
intervals a run has (pure functions).

A run with one judge pass and one epoch has nothing to resample within a case: its only
interval is the protocol's. A run judged in several passes gets `ci95_cases_and_judge`; a run
of several epochs `ci95_cases_and_epochs` (which resamples each drawn epoch's passes too).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, TypedDict

import numpy as np

from bedside_bench.logs.records import CaseRecord
from bedside_bench.scoring.joint import MAX_PASSES, Over, WithinCase
from bedside_bench.scoring.stats import Interval

if TYPE_CHECKING:
    from bedside_bench.report.groups import RunGroup

# the document key of each interval, by what it resamples besides cases
JOINT_FIELDS: dict[Over, str] = {
    "judge": "ci95_cases_and_judge",
    "epochs": "ci95_cases_and_epochs",
}
# what each resamples, in words (the report and the notes say it)
JOINT_WORDS: dict[Over, str] = {
    "judge": "cases and judge passes",
    "epochs": "cases and epochs",
}
NOT_RECORDED = (
    "the scores do not record each judge pass's own score (`pass_scores`, written since "
    "bedside-bench reports intervals over judge passes): re-score the logs with `bedside-bench "
    "rejudge` or `inspect score` to get them"
)


def joint_overs(judge_passes: int, epochs: int) -> tuple[Over, ...]:
    """The intervals besides the protocol's that a run with these settings gets."""
    overs: list[Over] = []
    if judge_passes > 1:
        overs.append("judge")
    if epochs > 1:
        overs.append("epochs")
    return tuple(overs)


def within_case(
    cases: Sequence[CaseRecord], epochs: int, judge_passes: int
) -> WithinCase | str | None:
    """The completed `cases` (in case order) as the joint intervals read them; why they cannot
    be (one line); None when there is no case."""
    if not cases:
        return None
    if judge_passes > MAX_PASSES:
        return f"more than {MAX_PASSES} judge passes ({judge_passes})"
    epoch_scores: list[list[float]] = []
    pass_scores: list[list[tuple[float, ...]]] = []
    for case in cases:
        records = case.epoch_records or (case,)
        if len(records) != epochs or any(r.score is None for r in records):
            return f"case {case.case_id} has {len(records)} scored epochs, the run {epochs}"
        epoch_scores.append([r.score for r in records if r.score is not None])
        if judge_passes == 1:
            continue
        if any(r.pass_scores is None for r in records):
            return NOT_RECORDED
        per_epoch = [r.pass_scores for r in records if r.pass_scores is not None]
        wrong = next((len(p) for p in per_epoch if len(p) != judge_passes), None)
        if wrong is not None:
            return (
                f"case {case.case_id} has {wrong} pass scores, the run {judge_passes} judge passes"
            )
        pass_scores.append(per_epoch)
    passes = np.array(pass_scores, dtype=np.float64) if judge_passes > 1 else None
    return WithinCase.of(np.array(epoch_scores, dtype=np.float64), passes)


Within = WithinCase | str | None


def group_within(group: RunGroup) -> dict[str, Within]:
    """Each benchmark's completed cases as the joint intervals read them (`within_case`)."""
    key = group.key
    return {
        name: within_case(evidence.completed, key.epochs, key.judge_passes)
        for name, evidence in group.benchmarks.items()
    }


class JointIntervals(TypedDict, total=False):
    """The keys an entry has only when the run measured what they resample."""

    ci95_cases_and_judge: list[float] | None
    ci95_cases_and_epochs: list[float] | None


def joint_entries(
    judge_passes: int, epochs: int, interval: Callable[[Over], Interval | None]
) -> JointIntervals:
    """The intervals over cases and judge passes or epochs that apply (`joint_overs`)."""

    def bounds(over: Over) -> list[float] | None:
        ci = interval(over)
        return None if ci is None else list(ci.as_tuple())

    entries: JointIntervals = {}
    overs = joint_overs(judge_passes, epochs)
    if "judge" in overs:
        entries["ci95_cases_and_judge"] = bounds("judge")
    if "epochs" in overs:
        entries["ci95_cases_and_epochs"] = bounds("epochs")
    return entries


def joint_notes(group: RunGroup, within: Mapping[str, Within]) -> list[str]:
    """Why an interval over cases and judge passes or epochs is null (one note per reason)."""
    overs = joint_overs(group.key.judge_passes, group.key.epochs)
    reasons: dict[str, list[str]] = {}
    for name, found in within.items():
        if isinstance(found, str):
            reasons.setdefault(found, []).append(name)
    fields = " and ".join(JOINT_FIELDS[over] for over in overs)
    return [
        f"{fields} null for {', '.join(names)} (so no overall): {why}"
        for why, names in reasons.items()
        if overs
    ]
