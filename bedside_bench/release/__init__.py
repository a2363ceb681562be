"""The release: where its tree is (a folder, `$BEDSIDE_BENCH_DATA`, the Hugging Face cache),
one case validated into canonical form, the known releases, and the whole release loaded as
Inspect samples with its digest. Knows files, not models."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bedside_bench.core.lazy import lazy_exports

if TYPE_CHECKING:  # the same names with their types, for type checkers and IDEs
    from bedside_bench.release.case import DatasetError as DatasetError
    from bedside_bench.release.case import Violation as Violation
    from bedside_bench.release.case_model import Case as Case
    from bedside_bench.release.dataset import load_release as load_release
    from bedside_bench.release.sources import DataSource as DataSource
    from bedside_bench.release.sources import hugging_face_source as hugging_face_source

# imported when first asked for (`core/lazy.py`): `bedside-bench data path` answers without
# importing Inspect
_EXPORTS: dict[str, str] = {
    "Case": "case_model",
    "DataSource": "sources",
    "DatasetError": "case",
    "Violation": "case",
    "hugging_face_source": "sources",
    "load_release": "dataset",
}
__all__ = sorted(_EXPORTS)

__getattr__ = lazy_exports(__name__, _EXPORTS)
