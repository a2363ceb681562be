"""Reading Inspect logs: the one reader that the report, review, rejudge, the estimate and the
export share. Logs become plain records here, every value validated at this edge."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bedside_bench.core.lazy import lazy_exports

if TYPE_CHECKING:  # the same names with their types, for type checkers and IDEs
    from bedside_bench.logs.export import ExportError as ExportError
    from bedside_bench.logs.export import check_out_dir as check_out_dir
    from bedside_bench.logs.export import collect as collect
    from bedside_bench.logs.export import write_parquet as write_parquet

# imported when first asked for (`core/lazy.py`): `bedside-bench data` parses its command
# line without importing Inspect
_EXPORTS: dict[str, str] = {
    "ExportError": "export",
    "check_out_dir": "export",
    "collect": "export",
    "write_parquet": "export",
}
__all__ = sorted(_EXPORTS)

__getattr__ = lazy_exports(__name__, _EXPORTS)
