"""The JSON Schemas generated from the document models (`documents/schemas.py`): the committed
files are the generated ones, `--check` names every stale file, the benchmark enums are the
table in `core/benchmarks.py`, and documents as the package builds them satisfy their schemas."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from bedside_bench.core import benchmarks
from bedside_bench.core.benchmarks import BENCHMARK_NAMES, Benchmark
from bedside_bench.core.schema_files import validator
from bedside_bench.documents.comparison import Comparison
from bedside_bench.documents.judges import JudgeScores, JudgesDocument, Score
from bedside_bench.documents.review import ReviewDocument
from bedside_bench.documents.schemas import (
    COMMAND,
    DOCUMENT_SCHEMAS,
    HAND_WRITTEN,
    generated_schemas,
    main,
    schema_of,
    schemas_dir,
    stale_files,
)
from bedside_bench.logs.records import LogRecord
from bedside_bench.report.groups import group_records
from bedside_bench.report.judges import judge_comparison
from bedside_bench.report.run import analyse
from bedside_bench.report.summary import BootstrapOptions
from bedside_bench.review.labels import ReviewLabels
from bedside_bench.review.score import review_document
from bedside_bench.sweep.estimate.plan import estimate_sweep
from tests.report_helpers import log_record, scores_for
from tests.test_estimate import MODELS
from tests.test_estimate import options as estimate_options
from tests.test_report_judges import record
from tests.test_report_properties import runs
from tests.test_review import SOURCE, labels_of

OPTIONS = BootstrapOptions(resamples=50, seed=1)


def test_committed_schemas_are_the_generated_ones() -> None:
    shipped = files("bedside_bench.schemas")
    stale = [
        file
        for file, text in generated_schemas().items()
        if not shipped.joinpath(file).is_file()
        or shipped.joinpath(file).read_text(encoding="utf-8") != text
    ]
    assert not stale, f"not the schema its model generates: {', '.join(stale)}; run `{COMMAND}`"
    assert stale_files(schemas_dir()) == {}, f"run `{COMMAND}`"


def test_every_document_is_generated_or_named_as_hand_written() -> None:
    generated = {file for file, _ in DOCUMENT_SCHEMAS}
    assert {"comparison.schema.json", "judges.schema.json", "review.schema.json"} <= generated
    assert "estimate.schema.json" in generated
    on_disk = {p.name for p in schemas_dir().glob("*.schema.json")}
    assert on_disk <= generated | HAND_WRITTEN


def test_check_names_each_stale_file_and_write_repairs_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--write", "--dir", str(tmp_path)]) == 0
    assert main(["--check", "--dir", str(tmp_path)]) == 0
    (tmp_path / "judges.schema.json").write_text("{}\n", encoding="utf-8")
    (tmp_path / "review.schema.json").unlink()
    (tmp_path / "orphan.schema.json").write_text("{}\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["--check", "--dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert f"{tmp_path / 'judges.schema.json'}: differs from the schema its model generates" in err
    assert f"{tmp_path / 'review.schema.json'}: missing" in err
    assert f"{tmp_path / 'orphan.schema.json'}: neither generated" in err
    assert "comparison.schema.json" not in err
    assert COMMAND in err
    assert main(["--write", "--dir", str(tmp_path)]) == 0
    assert sorted(stale_files(tmp_path)) == ["orphan.schema.json"]
    # the same text every time: sorted keys, indented, one trailing newline
    text = (tmp_path / "judges.schema.json").read_text(encoding="utf-8")
    assert text == generated_schemas()["judges.schema.json"] and text.endswith("}\n")


def _benchmark_enums(node: Any) -> list[list[str]]:
    """Every enum in a schema that names a benchmark."""
    found = []
    if isinstance(node, dict):
        enum = node.get("enum")
        if isinstance(enum, list) and "drug_safety" in enum:
            found.append(enum)
        for value in node.values():
            found += _benchmark_enums(value)
    elif isinstance(node, list):
        for value in node:
            found += _benchmark_enums(value)
    return found


@pytest.mark.parametrize("model", [Comparison, JudgesDocument, ReviewDocument])
def test_benchmark_enums_are_the_table_in_benchmarks_py(model: Any) -> None:
    schema = schema_of("x.schema.json", model)
    enums = _benchmark_enums(schema)
    assert enums and all(enum == list(BENCHMARK_NAMES) for enum in enums)


def test_benchmark_names_are_checked_against_the_table_at_run_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    score = Score(n=1, mean=0.5, ci95=[0.5, 0.5])
    with pytest.raises(ValidationError, match="unknown benchmark 'eleventh'"):
        JudgeScores(benchmarks={"eleventh": score}, overall=None)
    eleventh = Benchmark("eleventh", "points_rubric", "an eleventh benchmark")
    table = {**benchmarks.BENCHMARKS_BY_NAME, "eleventh": eleventh}
    monkeypatch.setattr(benchmarks, "BENCHMARKS_BY_NAME", table)
    scores = JudgeScores(benchmarks={"eleventh": score, "drug_safety": score}, overall=None)
    assert list(scores.benchmarks) == ["eleventh", "drug_safety"]


def _objects_forbid_extra_keys(schema: dict[str, Any]) -> list[str]:
    """Names of the object definitions that would accept a key they do not declare."""
    open_ = [n for n, d in schema["$defs"].items() if d.get("additionalProperties") is not False]
    return open_ + ([] if schema.get("additionalProperties") is False else ["<root>"])


@pytest.mark.parametrize("model", [Comparison, JudgesDocument, ReviewDocument])
def test_report_documents_declare_every_key(model: Any) -> None:
    schema = schema_of("x.schema.json", model)
    assert _objects_forbid_extra_keys(schema) == []


def validate(document: Any, file: str) -> None:
    """`document` as written satisfies the shipped schema `file` (what readers use), and its
    model reads it back as it was."""
    model = dict(DOCUMENT_SCHEMAS)[file]
    assert isinstance(document, model)
    errors = list(validator(file).iter_errors(document.model_dump(mode="json")))
    assert errors == [], errors[0].message
    assert model.model_validate_json(document.model_dump_json()) == document


def test_documents_as_built_satisfy_their_schemas() -> None:
    records = [
        log_record(dict(scores_for(name, 10, offset)), benchmark=name, answer_model=model)
        for model, offset in (("test/a", 0.0), ("test/b", -0.1), ("test/c", -0.3))
        for name in BENCHMARK_NAMES
    ]
    comparison = analyse(records, OPTIONS).comparison
    assert comparison is not None and len(comparison.verdicts) == 3
    validate(comparison, "comparison.schema.json")

    decisions = {"A": [{"x": True, "y": False}], "B": [{"x": True, "y": True}]}
    decisions["C"] = [{"x": False, "y": True}]
    judged = [record(m, j, "drug_safety", d) for m in ("m", "n") for j, d in decisions.items()]
    judges = judge_comparison(group_records(judged), OPTIONS, {"x": 2, "y": -1})
    assert judges is not None and judges.comparisons[0].agreement.fleiss is not None
    validate(judges, "judges.schema.json")

    x = labels_of(("d1", 0, True), ("d1", 1, True), ("d2", 0, False), ("s1", 0, True))
    y = labels_of(("d1", 0, True), ("d1", 1, False), ("d2", 0, False), ("s1", 0, None))
    for labels in ({"x": x}, {"x": x, "y": y}):
        review = ReviewLabels("0123456789abcdef", labels)
        validate(review_document(SOURCE, review, resamples=50, seed=1), "review.schema.json")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=runs(), force=st.booleans())
def test_any_comparison_satisfies_the_shipped_schema(records: list[LogRecord], force: bool) -> None:
    """Whatever the runs (full, smoke, partial, failed cases, missing benchmarks), the
    comparison the report writes is valid against the schema readers get."""
    comparison = analyse(records, OPTIONS, force=force).comparison
    if comparison is not None:
        validate(comparison, "comparison.schema.json")


def test_an_estimate_as_written_satisfies_its_schema(tmp_path: Path) -> None:
    prices = {
        "gpt-4.1-mini": {"input": 0.4, "output": 1.6},
        "openai/gpt-4": {"input": 2.0, "output": 8.0, "batch_discount": 0.5},
    }
    # models no price source knows (genai-prices prices the well-known ones out of the box)
    unknown = {"models": ["openai/no-such-model"], "judge": "anthropic/no-such-judge"}
    unpriced = estimate_sweep(estimate_options(tmp_path, **unknown), prices=None)
    priced = estimate_sweep(estimate_options(tmp_path, models=[MODELS[0]]), prices=prices)
    assert priced.cost_usd is not None and unpriced.cost_usd is None
    validate(unpriced, "estimate.schema.json")
    validate(priced, "estimate.schema.json")
