"""Property tests: whatever the records (full, smoke and partial runs; one case or several;
failed cases; missing benchmarks; constant scores), the report is built through the real
pipeline (`run.analyse`, the document's sections, Markdown, HTML, the terminal table and the
forest plot) without an error, ranks only full runs, and gives verdicts only between them; and
summaries with degenerate intervals (zero width, a bound a bit off its mean, NaN) render too."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bedside_bench.documents.summary import RunSummary
from bedside_bench.logs.records import LogRecord
from bedside_bench.report.document import ReportContext
from bedside_bench.report.plot import forest_png, matplotlib_available
from bedside_bench.report.render import terminal_table, to_html, to_markdown
from bedside_bench.report.run import Analysis, analyse
from bedside_bench.report.sections import report_blocks
from bedside_bench.report.standing import overall_mean
from bedside_bench.report.summary import BootstrapOptions
from tests.report_helpers import a_run, context_of

OPTIONS = BootstrapOptions(resamples=30, seed=3)
MODELS = ("test/a", "test/b", "test/c", "test/d")
# scores that make degenerate intervals: equal scores, and a mean whose last bit differs from
# the stratified bound's (one case per benchmark)
SCORE = st.one_of(
    st.sampled_from([0.0, 1.0, 0.5, 0.6168650793650793, 1 / 3, 0.1]),
    st.floats(0.0, 1.0, allow_nan=False),
)
CASE_SCORE = st.one_of(SCORE, SCORE, SCORE, st.none())  # None: a failed case


@st.composite
def runs(draw: st.DrawFn) -> list[LogRecord]:
    k = draw(st.integers(1, len(MODELS)))
    return [r for model in MODELS[:k] for r in draw(a_run(model, lambda _: CASE_SCORE))]


def render_everything(context: ReportContext) -> tuple[str, str, str]:
    blocks = report_blocks(context)
    terminal = terminal_table(context.summaries, context.labels, (), context)
    return to_markdown(blocks), to_html(blocks), terminal


def check_ranking(analysis: Analysis) -> None:
    summaries, labels, standing = analysis.summaries, analysis.labels, analysis.standing
    ranked = list(standing.ranked)
    assert sorted(ranked + [i for i, _ in standing.unranked]) == list(range(len(summaries)))
    for i in ranked:
        assert summaries[i].scope.full and overall_mean(summaries[i]) is not None
    means = [overall_mean(summaries[i]) for i in ranked]
    assert means == sorted(means, reverse=True)  # type: ignore[type-var]
    verdicts = analysis.comparison.verdicts if analysis.comparison else []
    position = {labels[i]: p for p, i in enumerate(ranked)}
    for v in verdicts:
        assert position[v.higher] < position[v.lower]
        if v.verdict is None:
            assert v.verdict_withheld and v.excludes_zero is None
        else:
            assert v.ci95 is not None
            lo, hi = v.ci95
            assert v.verdict == (
                "ahead" if lo > 0 else "behind" if hi < 0 else "not distinguishable"
            )
            assert v.n >= 10
    if len(ranked) < 2:
        assert verdicts == []


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=runs())
def test_the_report_of_any_runs_renders_and_ranks_only_full_runs(records: list[LogRecord]) -> None:
    analysis = analyse(records, OPTIONS)
    check_ranking(analysis)
    markdown, page, terminal = render_everything(context_of(analysis))
    for label in analysis.labels:
        assert label in terminal and label in page
    assert "## Verdict" in markdown and "verdict (higher-ranked" in terminal


def degenerate(entry: Mapping[str, Any] | None, how: str) -> dict[str, Any] | None:
    """The entry with its interval made degenerate in one of several ways."""
    if entry is None or entry.get("mean") is None:
        return None if entry is None else dict(entry)
    mean = entry["mean"]
    if how == "zero width":
        return {**entry, "ci95": [mean, mean]}
    if how == "lo above mean":
        return {**entry, "ci95": [math.nextafter(mean, 2.0)] * 2}
    if how == "hi below mean":
        return {**entry, "ci95": [math.nextafter(mean, -1.0)] * 2}
    return {**entry, "mean": None, "ci95": None}  # an empty group


# (a NaN mean is no longer among them: the summary model refuses a mean outside [0, 1])
HOW = st.sampled_from(["zero width", "lo above mean", "hi below mean", "empty", "keep"])


@st.composite
def degenerate_summaries(draw: st.DrawFn) -> tuple[Analysis, list[RunSummary]]:
    analysis = analyse(draw(runs()), OPTIONS)
    changed = []
    for summary in analysis.summaries:
        copy: dict[str, Any] = summary.as_json()
        copy["benchmarks"] = {
            name: (degenerate(e, how) if (how := draw(HOW)) != "keep" else e)
            for name, e in copy["benchmarks"].items()
        }
        how = draw(HOW)
        if how != "keep":
            overall = degenerate(copy["overall"], how)
            # an overall score always has a mean: an empty one is no overall score
            copy["overall"] = overall if overall and overall["mean"] is not None else None
        changed.append(RunSummary.model_validate(copy))
    return analysis, changed


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(drawn=degenerate_summaries())
def test_degenerate_intervals_render(drawn: tuple[Analysis, list[RunSummary]]) -> None:
    analysis, summaries = drawn
    context = context_of(analysis)
    render_everything(
        ReportContext(**{**context.__dict__, "summaries": summaries, "standing": None})
    )


@pytest.mark.slow  # CPU: a PNG per example
@pytest.mark.skipif(not matplotlib_available(), reason="matplotlib (the report extra) absent")
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(drawn=degenerate_summaries())
def test_the_plot_never_crashes(drawn: tuple[Analysis, list[RunSummary]]) -> None:
    analysis, summaries = drawn
    for these in (analysis.summaries, summaries):
        png = forest_png(these, analysis.labels)
        assert png is not None and png.startswith(b"\x89PNG")
