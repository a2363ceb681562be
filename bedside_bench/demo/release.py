"""Which cases the demo runs: the public release when one is at hand without a download
(`$BEDSIDE_BENCH_DATA`, or the pinned snapshot in the Hugging Face cache), else the synthetic
release shipped inside the package. `--cases N` keeps the first N cases of each benchmark, in
manifest order, written as a release tree of their own in the demo's folder: every case of
that tree runs, so the report ranks the runs as full runs of it (of an unrecognised release,
which it says), where a `--limit` would leave partial runs that it never ranks.

The demo never downloads: it promises no network beyond 127.0.0.1.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bedside_bench.core.benchmarks import BENCHMARKS
from bedside_bench.core.owned_output import write_text
from bedside_bench.core.protocol import HF_DATASET_REVISION
from bedside_bench.release.dataset import load_release
from bedside_bench.release.hub import DATA_ENV_VAR, cached_snapshot
from bedside_bench.release.sources import DataSource, resolve_source

if TYPE_CHECKING:
    from bedside_bench.release.dataset import Release
    from bedside_bench.release.sources import DataSource

SYNTHETIC_PACKAGE = "bedside_bench.synthetic_release"
SYNTHETIC_ORIGIN = "the synthetic release shipped with the package"
HUGGING_FACE_ORIGIN = "the Hugging Face cache"


@dataclass(frozen=True)
class DemoCases:
    """The cases of the demo and where they come from."""

    origin: str  # how the release was found: SYNTHETIC_ORIGIN, $BEDSIDE_BENCH_DATA, ...
    label: str  # the release as its source names it (a path, hf://repo@revision)
    synthetic: bool
    per_benchmark: Mapping[str, int]  # the cases run of each benchmark
    # the tasks' `data_dir`; None: the pinned Hugging Face snapshot, which the tasks find
    data_dir: Path | None
    subset: bool  # the first cases of each benchmark only (`--cases`)

    @property
    def total(self) -> int:
        return sum(self.per_benchmark.values())

    def describe(self) -> str:
        """The cases in words, for the demo's opening lines."""
        counts = set(self.per_benchmark.values())
        each = f"{counts.pop()} per benchmark" if len(counts) == 1 else "per benchmark as listed"
        kind = "synthetic cases, not BedsideBench data" if self.synthetic else "cases"
        first = " (the first of each)" if self.subset else ""
        return f"{self.total} {kind}, {each}{first}, from {self.origin} ({self.label})"


def shipped_synthetic_release() -> Path:
    """The synthetic release inside the installed package (data/synthetic in a checkout)."""
    return Path(str(files(SYNTHETIC_PACKAGE)))


def found_source(synthetic_only: bool) -> tuple[DataSource, str, bool]:
    """(the release, how it was found, whether it is the synthetic one), without a download."""

    if not synthetic_only:
        env = os.environ.get(DATA_ENV_VAR)
        if env:
            return resolve_source(), f"${DATA_ENV_VAR}", False
        if cached_snapshot(HF_DATASET_REVISION) is not None:
            return resolve_source(), HUGGING_FACE_ORIGIN, False
    root = shipped_synthetic_release().resolve()
    return DataSource(root=root, label=str(root)), SYNTHETIC_ORIGIN, True


def demo_cases(folder: Path, cases: int | None, synthetic_only: bool) -> DemoCases:
    """The demo's cases; with `cases` below a benchmark's count, the first `cases` of each
    benchmark written to `folder` (which must not exist yet). Raises `DatasetError` naming
    every problem of a release that does not load."""

    source, origin, synthetic = found_source(synthetic_only)
    release = load_release(source)
    counts = release.case_counts
    if cases is None or all(n <= cases for n in counts.values()):
        data_dir = None if origin == HUGGING_FACE_ORIGIN else source.root
        return DemoCases(origin, source.label, synthetic, counts, data_dir, subset=False)
    write_first_cases(release, cases, folder)
    kept = {name: min(n, cases) for name, n in counts.items()}
    return DemoCases(origin, source.label, synthetic, kept, folder, subset=True)


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def write_first_cases(release: Release, cases: int, folder: Path) -> None:
    """A release tree of the first `cases` cases of each benchmark (canonical case files, a
    manifest each, the registry), as `bedside-bench data check` accepts it."""
    folder.mkdir(parents=True)
    registry = {
        "benchmarks": [{"name": b.name, "grading_method": b.grading_method} for b in BENCHMARKS]
    }
    write_text(folder / "registry.json", _json(registry))
    for benchmark in BENCHMARKS:
        kept = release.cases[benchmark.name][:cases]
        bench_dir = folder / "data" / benchmark.name
        (bench_dir / "cases").mkdir(parents=True)
        manifest = {
            "benchmark": benchmark.name,
            "grading_method": benchmark.grading_method,
            "case_ids": [case.case_id for case in kept],
        }
        write_text(bench_dir / "manifest.json", _json(manifest))
        for case in kept:
            write_text(bench_dir / "cases" / f"{case.case_id}.json", _json(case.json_object()))
