"""A run group's scope and release counts (`report/scope.py`) on hand-built records: what the
summary records and the one line the report shows, by hand."""

from __future__ import annotations

from typing import Any

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.documents.summary import Scope
from bedside_bench.report.groups import RunGroup, group_records
from bedside_bench.report.scope import (
    release_case_counts,
    release_counts_text,
    scope_json,
    scope_words,
)
from tests.report_helpers import log_record


def group(benchmarks: tuple[str, ...] = BENCHMARK_NAMES, **fields: Any) -> RunGroup:
    """One group of one log per benchmark, two cases each (c1 scored, c2 scored)."""
    records = [log_record({"c1": 0.5, "c2": 0.25}, benchmark=b, **fields) for b in benchmarks]
    (only,) = group_records(records)
    return only


def test_a_full_run() -> None:
    scope = scope_json(group()).model_dump()
    assert scope["description"] == "full: all 20 cases of the ten benchmarks ran"
    assert {k: v for k, v in scope.items() if k != "benchmarks"} == {
        "full": True,
        "cases_run": 20,
        "cases_in_benchmarks": 20,
        "reasons": [],
        "limits": [],
        "missing_benchmarks": [],
        "description": "full: all 20 cases of the ten benchmarks ran",
    }
    assert scope["benchmarks"]["drug_safety"] == {
        "cases_run": 2,
        "cases_in_benchmark": 2,
        "full": True,
        "reasons": [],
    }


def test_a_limited_run_says_how_many_of_how_many_and_why() -> None:
    scope = scope_json(group(dataset_samples=5, limit="2")).model_dump()
    assert (scope["full"], scope["cases_run"], scope["cases_in_benchmarks"]) == (False, 20, 50)
    assert (scope["reasons"], scope["limits"]) == (["limit"], ["2"])
    assert scope["description"] == "partial: 20 of 50 cases ran (--limit 2)"


def test_missing_benchmarks_are_named_and_the_total_is_of_those_run() -> None:
    scope = scope_json(group(benchmarks=BENCHMARK_NAMES[:8])).model_dump()
    assert scope["missing_benchmarks"] == list(BENCHMARK_NAMES[8:])
    assert scope["description"] == (
        "partial: 16 of 16 cases ran of the 8 benchmark(s) run "
        "(2 benchmark(s) not run: safety_diagnostic, safety_therapeutic)"
    )


def test_scope_words_for_each_reason() -> None:
    base: dict[str, Any] = {
        "cases_run": 10,
        "cases_in_benchmarks": None,
        "missing_benchmarks": [],
        "limits": [],
        "benchmarks": {},
        "description": "",
    }
    smoke = {**base, "full": False, "reasons": ["smoke"]}
    assert scope_words(Scope(**smoke)) == (
        "smoke: 10 of an unrecorded number of cases ran (smoke run, one case per benchmark)"
    )
    picked = {**base, "full": False, "reasons": ["sample_id", "unknown"]}
    assert scope_words(Scope(**picked)) == (
        "partial: 10 of an unrecorded number of cases ran "
        "(--sample-id; cause not recorded in the logs)"
    )
    limits = {**base, "full": False, "reasons": ["limit"], "limits": ["1", "2-5"]}
    assert scope_words(Scope(**limits)) == (
        "partial: 10 of an unrecorded number of cases ran (--limit 1, --limit 2-5)"
    )


def test_release_counts_come_from_the_newest_log_that_records_them() -> None:
    old = {name: 25 for name in BENCHMARK_NAMES}
    new = {name: 50 for name in BENCHMARK_NAMES}
    records = [
        log_record({"c": 1.0}, started_at="2026-01-01T10:00:00+00:00", release_case_counts=old),
        log_record({"c": 1.0}, started_at="2026-01-01T11:00:00+00:00", release_case_counts=new),
        log_record({"c": 1.0}, started_at="2026-01-01T12:00:00+00:00"),
    ]
    (only,) = group_records(records)
    assert release_case_counts(only) == new
    (unrecorded,) = group_records(records[2:])
    assert release_case_counts(unrecorded) is None


def test_release_counts_text() -> None:
    assert release_counts_text(None) == "not recorded"
    assert release_counts_text({}) == "none"
    assert release_counts_text({"drug_safety": 25, "health_equity": 3}) == (
        "drug_safety 25, health_equity 3"
    )
