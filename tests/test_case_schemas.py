"""The case schemas' `benchmark` enum is `core/benchmarks.py`'s (per grading method) when loaded,
and the committed files' copy, which readers of a release use, is the same."""

from __future__ import annotations

import pytest

from bedside_bench.core.benchmarks import BENCHMARKS, Benchmark
from bedside_bench.core.schema_files import load_schema
from bedside_bench.release import case_schema as case_schemas
from bedside_bench.release.case import validate_case
from bedside_bench.release.case_schema import (
    CASE_SCHEMA_FILES,
    benchmarks_graded_by,
    case_schema,
    case_validator,
)
from tests.release_factory import make_case

METHODS = sorted(CASE_SCHEMA_FILES)


def test_every_benchmark_is_in_the_enum_of_its_method_only() -> None:
    by_method = {m: set(case_schema(m)["properties"]["benchmark"]["enum"]) for m in METHODS}
    assert by_method == {
        "f1_weighted_rubric": {"safety_diagnostic", "safety_therapeutic"},
        "points_rubric": {b.name for b in BENCHMARKS} - {"safety_diagnostic", "safety_therapeutic"},
    }


@pytest.mark.parametrize("method", METHODS)
def test_the_committed_schema_files_enum_is_benchmarks_py(method: str) -> None:
    committed = load_schema(CASE_SCHEMA_FILES[method])["properties"]["benchmark"]["enum"]
    assert committed == benchmarks_graded_by(method), (
        f"schemas/{CASE_SCHEMA_FILES[method]}: set properties.benchmark.enum to "
        f"{benchmarks_graded_by(method)} (core/benchmarks.py's {method} benchmarks, in its order)"
    )


@pytest.mark.parametrize("method", METHODS)
def test_an_added_benchmark_is_valid_without_touching_the_schema_files(
    method: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    added = Benchmark("rare_diseases", method, "an eleventh benchmark")
    monkeypatch.setattr(case_schemas, "BENCHMARKS", (*BENCHMARKS, added))
    case_validator.cache_clear()
    try:
        case = make_case("rare_diseases", method, 0)
        assert list(case_validator(method).iter_errors(case)) == []
        # the schema file as read is left alone (it is cached for every reader)
        committed = load_schema(CASE_SCHEMA_FILES[method])["properties"]["benchmark"]["enum"]
        assert "rare_diseases" not in committed
    finally:
        monkeypatch.undo()
        case_validator.cache_clear()
    errors = list(case_validator(method).iter_errors(case))
    assert [list(e.path) for e in errors] == [["benchmark"]]


def test_a_benchmark_of_the_other_method_is_refused_by_the_schema() -> None:
    case = make_case("drug_safety", "f1_weighted_rubric", 0)
    problems = validate_case(
        case, file="c.json", expected_case_id=case["case_id"], expected_benchmark="drug_safety"
    )[1]
    assert [p.message for p in problems if p.field == "benchmark"] == [
        "'drug_safety' is not one of ['safety_diagnostic', 'safety_therapeutic']"
    ]
