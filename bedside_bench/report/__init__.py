"""`bedside-bench report`: summaries, comparisons and a human report from Inspect logs.

Modules, one job each: `groups` (run groups, newest evidence per case), `summary` and
`comparison` (numbers, via `bedside_bench.scoring.stats`; the documents' shapes are in
`bedside_bench.documents`), `usage` (tokens, wall time, cost), `document`/`sections`/`render`/
`plot` (human report), `run` (compute, render, write), `command` (the command line). Logs are
read by `bedside_bench.logs`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bedside_bench.core.lazy import lazy_exports

if TYPE_CHECKING:  # the same names with their types, for type checkers and IDEs
    from bedside_bench.report.render import to_html as to_html
    from bedside_bench.report.render import to_markdown as to_markdown
    from bedside_bench.report.review_section import review_blocks as review_blocks
    from bedside_bench.report.run import ReportError as ReportError
    from bedside_bench.report.run import ReportOptions as ReportOptions
    from bedside_bench.report.run import ReportResult as ReportResult
    from bedside_bench.report.run import build_report as build_report
    from bedside_bench.report.run import load_prices as load_prices
    from bedside_bench.report.run import report_file as report_file
    from bedside_bench.report.run import split_labels_option as split_labels_option
    from bedside_bench.report.summary import BootstrapOptions as BootstrapOptions

# imported when first asked for (PEP 562): `bedside-bench report` parses its command line from
# `report/command.py`, inside this package, without importing Inspect
_EXPORTS: dict[str, str] = {
    "review_blocks": "review_section",
    "to_html": "render",
    "to_markdown": "render",
    "BootstrapOptions": "summary",
    "ReportError": "run",
    "ReportOptions": "run",
    "ReportResult": "run",
    "build_report": "run",
    "load_prices": "run",
    "report_file": "run",
    "split_labels_option": "run",
}
__all__ = sorted(_EXPORTS)


__getattr__ = lazy_exports(__name__, _EXPORTS)
