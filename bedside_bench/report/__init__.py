"""`bedside-bench report`: summaries, comparisons and a human report from Inspect logs.

Modules, one job each: `logs` (Inspect logs -> records; the only reader), `groups` (run groups,
newest evidence per case), `summary` and `comparison` (numbers, via `bedside_bench.scoring.stats`;
the summary's shape is `summary_model`), `usage` (tokens, wall time, cost),
`document`/`sections`/`render`/`plot` (human report), `run` (compute, render, write).
"""

from bedside_bench.report.run import (
    ReportError,
    ReportOptions,
    ReportResult,
    build_report,
)
from bedside_bench.report.summary import BootstrapOptions

__all__ = ["BootstrapOptions", "ReportError", "ReportOptions", "ReportResult", "build_report"]
