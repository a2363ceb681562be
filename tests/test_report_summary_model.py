"""The summary document as typed models (`documents/summary.py`): what it writes, what it
refuses, and that its benchmark names come from `core/benchmarks.py`."""

from __future__ import annotations

import json
from typing import Any

import pydantic
import pytest
from jsonschema import Draft202012Validator

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.core.schema_files import validator
from bedside_bench.documents.summary import SCOPE_REASONS, BenchmarkSummary, RunSummary
from bedside_bench.report import groups
from bedside_bench.report.groups import group_records
from bedside_bench.report.summary import BootstrapOptions, summarise
from tests.report_helpers import case_record, full_group, log_record, run_summary

OPTIONS = BootstrapOptions(resamples=50, seed=3)
PRICES = {"test/a": {"input": 1.0, "output": 2.0}, "test/judge": {"input": 0.5, "output": 1.0}}


def summaries() -> list[RunSummary]:
    """A full group with prices, a group judged three times with a failed case, an F1 one."""
    passes = ({"i1": True, "i2": False}, {"i1": True, "i2": True}, {"i1": False, "i2": False})
    cases = {
        "c1": case_record("c1", 0.6, judge_agreement=0.5, pass_decisions=passes),
        "c2": case_record("c2", None, "judge failed"),
    }
    (passes_3,) = group_records([log_record(cases, judge_passes=3)])
    (f1,) = group_records([log_record({"d1": 0.2}, benchmark="safety_diagnostic")])
    return [
        summarise(full_group(n=3), OPTIONS, PRICES),
        summarise(passes_3, OPTIONS),
        summarise(f1, OPTIONS, PRICES),
    ]


def test_the_document_reads_back_as_the_same_document() -> None:
    for summary in summaries():
        written = json.loads(json.dumps(summary.as_json(), allow_nan=False))
        again = RunSummary.model_validate(written).as_json()
        assert again == written
        assert json.dumps(again) == json.dumps(written)  # key order too
        assert list(written) == list(RunSummary.model_fields)


def test_the_document_meets_the_committed_schema() -> None:
    check = validator("summary.schema.json")
    for summary in summaries():
        check.validate(summary.as_json())


def test_keys_are_written_only_where_they_apply() -> None:
    full, passes_3, f1 = summaries()
    points = full.as_json()["benchmarks"]["drug_safety"]
    assert not {"mean_recall", "judge_agreement", "judge_kappa"} & set(points)
    assert {"judge_agreement", "judge_kappa"} <= set(
        passes_3.as_json()["benchmarks"]["drug_safety"]
    )
    f1_entry = f1.as_json()["benchmarks"]["safety_diagnostic"]
    assert [k for k in f1_entry if k in ("mean_recall", "mean_precision", "severe_rate")] == [
        "mean_recall",
        "mean_precision",
        "severe_rate",
    ]
    assert full.as_json()["cost"]["per_full_run"]["cases"] == 250
    assert f1.as_json()["cost"]["batch"] == {"answer": False, "judge": False}


def entry(**changes: Any) -> dict[str, Any]:
    (_, passes_3, _) = summaries()
    return {**passes_3.as_json()["benchmarks"]["drug_safety"], **changes}


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"mean_recall": 0.5, "mean_precision": 0.5, "severe_rate": 0.0}, "F1 benchmarks"),
        ({"judge_agreement": "high"}, "judge_agreement"),
        ({"extra": 1}, "extra"),
        ({"grading_method": "points"}, "grading_method"),
    ],
)
def test_a_wrong_benchmark_entry_is_refused(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(pydantic.ValidationError, match=message):
        BenchmarkSummary.model_validate(entry(**changes))


def test_one_of_a_pair_of_agreement_keys_is_refused() -> None:
    alone = {k: v for k, v in entry().items() if k != "judge_kappa"}
    with pytest.raises(pydantic.ValidationError, match="go together"):
        BenchmarkSummary.model_validate(alone)


def test_an_unknown_benchmark_or_key_is_refused_by_name() -> None:
    written = summaries()[0].as_json()
    assert isinstance(written["benchmarks"], dict)
    renamed = {**written, "benchmarks": {"drug_safty": written["benchmarks"]["drug_safety"]}}
    with pytest.raises(pydantic.ValidationError, match="unknown benchmark 'drug_safty'"):
        RunSummary.model_validate(renamed)
    with pytest.raises(pydantic.ValidationError, match="extra"):
        RunSummary.model_validate({**written, "extra": 1})
    with pytest.raises(pydantic.ValidationError, match="overall"):
        RunSummary.model_validate({k: v for k, v in written.items() if k != "overall"})


def test_benchmark_names_in_the_schema_come_from_the_benchmark_table() -> None:
    schema = RunSummary.model_json_schema()
    defs = schema["$defs"]
    names = list(BENCHMARK_NAMES)
    assert schema["properties"]["missing_benchmarks"]["items"]["enum"] == names
    assert schema["properties"]["benchmarks"]["propertyNames"]["enum"] == names
    assert defs["Scope"]["properties"]["missing_benchmarks"]["items"]["enum"] == names


def test_the_models_name_the_committed_schemas_keys() -> None:
    committed = validator("summary.schema.json").schema
    assert set(committed["properties"]) == set(RunSummary.model_fields)
    ref = committed["properties"]["benchmarks"]["additionalProperties"]["$ref"]
    entry_schema = committed["$defs"][ref.rsplit("/", 1)[-1]]
    assert set(entry_schema["properties"]) == set(BenchmarkSummary.model_fields)


def test_the_generated_schema_accepts_the_documents_and_refuses_what_the_models_refuse() -> None:
    schema = RunSummary.model_json_schema()
    check = Draft202012Validator(schema)
    Draft202012Validator.check_schema(schema)
    full, passes_3, f1 = (s.as_json() for s in summaries())
    for written in (full, passes_3, f1):
        check.validate(written)
    entry = f1["benchmarks"]["safety_diagnostic"]
    no_recall = {k: v for k, v in entry.items() if k != "mean_recall"}
    points = {**full["benchmarks"]["drug_safety"], "severe_rate": 0.0}
    alone = {k: v for k, v in passes_3["benchmarks"]["drug_safety"].items() if k != "judge_kappa"}
    for name, bad in (
        ("safety_diagnostic", no_recall),
        ("drug_safety", points),
        ("drug_safety", alone),
    ):
        document = {**full, "benchmarks": {**full["benchmarks"], name: bad}}
        assert not check.is_valid(document)
        with pytest.raises(pydantic.ValidationError):
            RunSummary.model_validate(document)
    assert not check.is_valid({**full, "benchmarks": {"triage": entry}})


def test_scope_reasons_are_the_groups_reasons() -> None:
    assert SCOPE_REASONS == groups.SCOPE_REASONS


@pytest.mark.parametrize("mean", [float("nan"), -0.01, 1.01, 7.0])
def test_a_mean_outside_zero_to_one_is_refused(mean: float) -> None:
    """Every case score is in [0, 1], so a mean outside it (or NaN) is a bug, never written."""
    written = run_summary().as_json()
    benchmarks = written["benchmarks"]
    assert isinstance(benchmarks, dict)
    entry = {**benchmarks["drug_safety"], "mean": mean}
    with pytest.raises(pydantic.ValidationError, match="mean"):
        RunSummary.model_validate({**written, "benchmarks": {**benchmarks, "drug_safety": entry}})
