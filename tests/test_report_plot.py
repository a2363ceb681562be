"""The forest plot (`report/plot.py`) draws whatever intervals the summaries hold."""

from __future__ import annotations

import pytest

from bedside_bench.documents.summary import OverallScore
from bedside_bench.report.plot import forest_png
from tests.report_helpers import run_summary


def test_an_interval_that_misses_its_mean_by_a_rounding_error_is_still_drawn() -> None:
    pytest.importorskip("matplotlib")
    # one case: the bootstrap interval is [x, x], summed in another order than the mean
    mean = 0.1 + 0.2
    assert mean - 0.3 > 0  # the mean lies outside its interval by a rounding error
    base = run_summary()
    entry = base.benchmarks["drug_safety"].model_copy(update={"mean": mean, "ci95": (0.3, 0.3)})
    summary = run_summary(
        benchmarks={"drug_safety": entry}, overall=OverallScore(mean=mean, ci95=(0.3, 0.3), n=1)
    )
    png = forest_png([summary], ["model"])
    assert png is not None and png.startswith(b"\x89PNG")
