"""The report in stages (`report/run.py`: compute, render, write) and its one list of sections
(`report/sections.py`), on hand-built records (no logs, no I/O)."""

from __future__ import annotations

import inspect
import json

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.documents.summary import RunSummary
from bedside_bench.report import cost_section, document, sections
from bedside_bench.report.document import Heading
from bedside_bench.report.run import (
    MARKDOWN_FILE,
    ReportDocuments,
    analyse,
    render,
    report_outputs,
)
from bedside_bench.report.sections import SECTIONS, report_blocks
from bedside_bench.report.summary import BootstrapOptions
from tests.report_helpers import log_record

OPTIONS = BootstrapOptions(resamples=50, seed=3)


def section_functions(module: object) -> set[str]:
    return {
        name
        for name, f in inspect.getmembers(module, inspect.isfunction)
        if f.__module__ == getattr(module, "__name__", None)
        and (name.endswith("_section") or name == "cost_headline")
    }


def test_every_section_function_is_one_entry_of_the_one_list() -> None:
    listed = [f.__name__ for f in SECTIONS]
    assert len(listed) == len(set(listed))
    written = (
        section_functions(document) | section_functions(sections) | section_functions(cost_section)
    )
    # `estimate_section` takes the estimate itself; the list holds its context wrapper
    assert written - {"estimate_section"} == set(listed)


def documents(models: tuple[str, ...] = ("test/a", "test/b")) -> ReportDocuments:
    records = [
        log_record({"c1": 0.5, "c2": 0.25 if m == "test/a" else 0.75}, benchmark=n, answer_model=m)
        for m in models
        for n in BENCHMARK_NAMES
    ]
    return ReportDocuments(
        analysis=analyse(records, OPTIONS),
        judges=None,
        review=None,
        estimate=None,
        png=None,
        skipped=[],
        prices=None,
    )


def test_the_sections_come_in_the_documented_order() -> None:
    headings = [
        b.text
        for b in report_blocks(documents().context())
        if isinstance(b, Heading) and b.level <= 2
    ]
    assert headings == [
        "BedsideBench report",
        "Verdict",
        "Cost",  # its own heading (no --prices: a line saying how to get it)
        "Benchmark scores",
        "Pairwise differences",
        "Forest plot",
        "Usage and cost",
        "Runs",
        "Notes",
    ]


def test_render_and_outputs_are_the_documents_as_written() -> None:
    docs = documents()
    rendered = render(docs)
    outputs = report_outputs(docs, rendered)
    assert outputs[MARKDOWN_FILE] == rendered.markdown.encode("utf-8")
    for name, summary in zip(docs.analysis.files, docs.analysis.summaries, strict=True):
        text = outputs[name].decode("utf-8")
        assert text == json.dumps(summary.as_json(), indent=2, ensure_ascii=False) + "\n"
        assert RunSummary.model_validate_json(text) == summary
    assert "comparison.json" in outputs
    assert render(docs) == rendered  # rendering twice gives the same report


def test_the_sections_come_in_reading_order() -> None:
    """The verdict and cost first, then the scores; the judges' effect right after the
    differences between models; the estimate beside usage."""
    assert [f.__name__ for f in SECTIONS] == [
        "intro_section",
        "warnings_section",
        "headline_section",
        "verdict_section",
        "unranked_section",
        "cost_headline",
        "scores_section",
        "f1_section",
        "agreement_section",
        "differences_section",
        "judge_comparison_section",
        "review_section",
        "plot_section",
        "usage_section",
        "estimate_vs_actual_section",
        "runs_section",
        "skipped_section",
        "notes_section",
    ]
