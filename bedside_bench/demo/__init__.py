"""`bedside-bench demo`: the whole job on one machine without a key. The provider doubles
(`bedside_bench.doubles`) answer a two-provider sweep of every benchmark, on the public release
when it is at hand and else on the synthetic release shipped with the package; then the report.
Every output says it is a demo.

`release` (which cases), `settings` (options and results), `run` (the doubles, the eval set,
the report, the environment kept as it was), `command` (the command line). The package's names
are imported on first use (`core/lazy.py`), so `bedside-bench demo` parses its command line
without importing Inspect.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bedside_bench.core.lazy import lazy_exports

if TYPE_CHECKING:  # the same names with their types, for type checkers and IDEs
    from bedside_bench.demo.run import run_demo as run_demo
    from bedside_bench.release.case import DatasetError as DatasetError
    from bedside_bench.report.run import ReportError as ReportError

# what the command's handler uses, each imported when first asked for
_EXPORTS: dict[str, str] = {
    "DatasetError": "bedside_bench.release.case",
    "ReportError": "bedside_bench.report.run",
    "run_demo": "run",
}
__all__ = sorted(_EXPORTS)

__getattr__ = lazy_exports(__name__, _EXPORTS)
