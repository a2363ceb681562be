"""The report's plain records (`logs/records.py`): token arithmetic, what counts as a
completed case, and the order evidence is taken in (newest start first)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from bedside_bench.logs.records import TokenUsage, newest_first, parse_time
from tests.report_helpers import case_record, log_record

A = TokenUsage(1, 2, 3, 4, 5, 15)
B = TokenUsage(10, 20, 30, 40, 50, 150)


def test_token_usage_adds_and_subtracts_field_by_field() -> None:
    assert TokenUsage(11, 22, 33, 44, 55, 165) == A + B
    assert TokenUsage(9, 18, 27, 36, 45, 135) == B - A
    assert A + TokenUsage() == A


def test_a_case_is_completed_only_with_a_score_and_no_error() -> None:
    assert case_record("c", 0.0).completed  # a zero is a score
    assert not case_record("c", None).completed
    assert not case_record("c", 0.5, error="judge failed").completed


def test_parse_time_accepts_iso_and_nothing_else() -> None:
    assert parse_time("2026-01-01T10:00:00+01:00") == datetime(
        2026, 1, 1, 10, tzinfo=timezone(timedelta(hours=1))
    )
    assert parse_time(None) is None
    assert parse_time("") is None
    assert parse_time("yesterday") is None


def test_newest_first_by_start_then_location_and_unknown_starts_last() -> None:
    early = log_record({}, started_at="2026-01-01T10:00:00+00:00", location="b")
    late = log_record({}, started_at="2026-01-01T09:30:00-01:00", location="a")  # 10:30 UTC
    tie = log_record({}, started_at="2026-01-01T10:00:00+00:00", location="c")
    unknown = log_record({}, started_at="not a time", location="z")
    assert [r.location for r in newest_first([unknown, early, late, tie])] == ["a", "c", "b", "z"]
