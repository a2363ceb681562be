"""What the report makes of odd values in a log it reads (fast: logs built in memory with
Inspect's own classes, `tests/log_factory.py`)."""

from __future__ import annotations

import pytest

from bedside_bench.report.logs import case_record, header_record
from tests.log_factory import eval_log, sample


@pytest.mark.parametrize(
    ("provenance", "source"),
    [
        ({"source_task_id": "answers-run"}, "answers-run"),
        ("x", "task-1"),
        (3, "task-1"),
        (["a"], "task-1"),
        ({"source_task_id": 7}, "task-1"),
    ],
)
def test_the_report_reads_a_rejudge_provenance_and_ignores_anything_else(
    provenance: object, source: str
) -> None:
    """A log's `rejudge` key names the run whose answers it judged; in a log not written by
    rejudge it may hold anything, and the log is then its own answers' run (no crash)."""
    log = eval_log([sample("c1")], metadata={"rejudge": provenance})
    assert log.eval.task_id == "task-1"
    assert header_record("/logs/a.eval", log).answer_source == source


@pytest.mark.parametrize(
    ("value", "error"),
    [
        (0.0, None),
        (1.0, None),
        (7.0, "score value 7.0 is outside [0, 1]"),
        (-0.5, "score value -0.5 is outside [0, 1]"),
        (float("nan"), "score value nan is not a number"),
    ],
)
def test_a_score_outside_zero_to_one_fails_its_case(value: float, error: str | None) -> None:
    """A case score is in [0, 1]; a log holding another (tampered, or another scorer's) fails
    that case by name instead of bending the benchmark's mean."""
    scored = sample("c1", value=value)
    record = case_record("c1", None, scored.scores)
    assert record.error == error
    assert record.score == (value if error is None else None)
