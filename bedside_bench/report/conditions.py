"""What a summary says about how answers ended and how they were generated (pure functions).

Per benchmark: how many judged answers came truncated, filtered, refused or with an unknown
stop (`answer_condition`), how many had no text (scored as stating nothing, no judge asked),
and how many failed cases never got an answer; per group: the answer model's generation
settings (`report.generation`), which are part of its key.
"""

from __future__ import annotations

from collections.abc import Sequence

from bedside_bench.core.answer_condition import (
    ANSWER_CONDITIONS,
    COUNTED_CONDITIONS,
    count_conditions,
)
from bedside_bench.logs.generation import DEFAULTS_TEXT
from bedside_bench.logs.records import CaseRecord
from bedside_bench.report.groups import RunGroup


def _answers(cases: Sequence[CaseRecord]) -> list[CaseRecord]:
    """Every epoch's answer of the cases."""
    return [r for case in cases for r in (case.epoch_records or (case,))]


def answer_conditions(cases: Sequence[CaseRecord]) -> dict[str, int]:
    """How many judged answers came truncated, filtered, refused or with an unknown stop
    (every epoch's answer counts), and how many scores do not say; answers without text are
    counted apart (`answers_without_text`)."""
    return count_conditions([r.answer_condition for r in _answers(cases) if not r.answer_empty])


def answers_without_text(cases: Sequence[CaseRecord]) -> dict[str, int]:
    """How many answers (every epoch's) had no text and were scored as stating nothing, in all
    and by condition."""
    empty = [r.answer_condition for r in _answers(cases) if r.answer_empty]
    return {"total": len(empty), **{c: empty.count(c) for c in ANSWER_CONDITIONS}}


def without_text_notes(group: RunGroup) -> list[str]:
    """One note per benchmark with answers that had no text: how they were scored and why."""
    notes = []
    for name, evidence in group.benchmarks.items():
        empty = [r for r in _answers(evidence.completed) if r.answer_empty]
        if empty:
            counts = count_conditions([r.answer_condition for r in empty])
            how = ", ".join(f"{counts[c]} {c}" for c in COUNTED_CONDITIONS if counts[c])
            notes.append(
                f"{name}: {len(empty)} answer(s) had no text ({how or 'ended on their own'}): "
                "the model's answers under the run's settings, scored as answers that state "
                "nothing (no rubric item matched) and counted in the mean; no judge was asked"
            )
    return notes


def answer_condition_notes(group: RunGroup) -> list[str]:
    """One note per benchmark whose judged answers did not all come complete."""
    notes = []
    for name, evidence in group.benchmarks.items():
        counts = answer_conditions(evidence.completed)
        found = ", ".join(f"{counts[c]} {c}" for c in COUNTED_CONDITIONS if counts[c])
        if found:
            notes.append(
                f"{name}: judged answers that did not end on their own: {found} "
                "(scored as they came, see answer_conditions)"
            )
    return notes


def no_answer_notes(group: RunGroup) -> list[str]:
    """Failed cases whose answer never came: `inspect eval-retry` runs them again under the
    same limits and settings, so a limit hit before or during the answer is hit again."""
    counts = {n: len(b.no_answer) for n, b in group.benchmarks.items() if b.no_answer}
    if not counts:
        return []
    listed = ", ".join(f"{name} {n}" for name, n in counts.items())
    return [
        f"{sum(counts.values())} failed case(s) have no answer ({listed}): a limit was hit "
        "before or during the answer, or the provider answered with an error; they were not "
        "judged. "
        "`inspect eval-retry` keeps the run's limits: rerun those cases without the limit "
        "(or with a larger one)"
    ]


def generation_notes(group: RunGroup) -> list[str]:
    if group.key.generation == DEFAULTS_TEXT:
        return []
    return [
        f"answer generation settings: {group.key.generation}; runs with other settings are "
        "never pooled with these and are compared only with --force"
    ]
