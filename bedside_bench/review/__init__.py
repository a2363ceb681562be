"""Physician review: put judge decisions in front of clinicians, and measure every judge
against their labels (`bedside-bench review export | score`, `report --labels`). The commands
themselves are `bedside_bench.cli.review`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bedside_bench.core.lazy import lazy_exports

if TYPE_CHECKING:  # the same names with their types, for type checkers and IDEs
    from bedside_bench.review.inputs import PROG as PROG
    from bedside_bench.review.inputs import score_inputs as score_inputs
    from bedside_bench.review.logs import ReviewInputError as ReviewInputError
    from bedside_bench.review.logs import read_source as read_source
    from bedside_bench.review.page import page_data as page_data
    from bedside_bench.review.page import render_page as render_page
    from bedside_bench.review.select import select_items as select_items

# imported when first asked for (`core/lazy.py`): `bedside-bench review` parses its command
# line without importing Inspect
_EXPORTS: dict[str, str] = {
    "PROG": "inputs",
    "ReviewInputError": "logs",
    "page_data": "page",
    "read_source": "logs",
    "render_page": "page",
    "score_inputs": "inputs",
    "select_items": "select",
}
__all__ = sorted(_EXPORTS)

__getattr__ = lazy_exports(__name__, _EXPORTS)
