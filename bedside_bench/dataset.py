"""Load and validate a release tree; turn cases into Inspect samples; the dataset digest."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample

from bedside_bench.benchmarks import BENCHMARK_NAMES
from bedside_bench.cases import DatasetError, Violation, validate_case
from bedside_bench.sources import DataSource


@dataclass(frozen=True)
class Release:
    """Every case of the ten benchmarks, canonical and in registry then manifest order."""

    source: DataSource
    cases: dict[str, list[dict[str, Any]]]

    @property
    def all_cases(self) -> list[dict[str, Any]]:
        return [case for name in BENCHMARK_NAMES for case in self.cases[name]]

    @property
    def dataset_sha256(self) -> str:
        return dataset_sha256(self.all_cases)


def dataset_sha256(cases: Sequence[dict[str, Any]]) -> str:
    """SHA-256 of the compact, key-sorted JSON of the case objects, in the order given."""
    text = json.dumps(list(cases), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _data_dir(root: Path) -> Path:
    """The folder holding `<benchmark>/cases/`: `root/data` in the release layout."""
    return root / "data" if (root / "data").is_dir() else root


def _read_json(path: Path, violations: list[Violation]) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as ex:
        violations.append(Violation(str(path), f"cannot be read as JSON: {ex}"))
        return None


def _check_registry(root: Path, violations: list[Violation]) -> None:
    path = root / "registry.json"
    if not path.is_file():
        return
    registry = _read_json(path, violations)
    if not isinstance(registry, dict):
        return
    entries = registry.get("benchmarks", registry.get("panels"))
    if not isinstance(entries, list):
        return
    names = [
        e if isinstance(e, str) else e.get("name", e.get("benchmark"))
        for e in entries
        if isinstance(e, str | dict)
    ]
    if names and list(names) != list(BENCHMARK_NAMES):
        violations.append(
            Violation(
                str(path),
                f"benchmarks {names} are not the ten benchmarks in registry order "
                f"{list(BENCHMARK_NAMES)}",
                field="benchmarks",
            )
        )


def _case_files(bench_dir: Path, benchmark: str, violations: list[Violation]) -> list[Path]:
    """Case files in manifest order when there is a manifest, otherwise by case_id."""
    cases_dir = bench_dir / "cases"
    present = {p.stem: p for p in cases_dir.glob("*.json")}
    manifest_path = bench_dir / "manifest.json"
    if not manifest_path.is_file():
        return [present[k] for k in sorted(present)]
    manifest = _read_json(manifest_path, violations)
    ids = manifest.get("case_ids") if isinstance(manifest, dict) else None
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        violations.append(
            Violation(str(manifest_path), "case_ids must be a list of strings", field="case_ids")
        )
        return []
    if len(set(ids)) != len(ids):
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        violations.append(
            Violation(str(manifest_path), f"duplicate case ids {dupes}", field="case_ids")
        )
    for missing in [i for i in ids if i not in present]:
        violations.append(
            Violation(
                str(manifest_path),
                f"listed in the manifest but there is no file {cases_dir / (missing + '.json')}",
                case_id=missing,
                field="case_ids",
            )
        )
    for extra in sorted(set(present) - set(ids)):
        violations.append(
            Violation(str(present[extra]), f"not listed in {manifest_path}", case_id=extra)
        )
    return [present[i] for i in dict.fromkeys(ids) if i in present]


def load_release(source: DataSource) -> Release:
    """Read and validate all ten benchmarks; raise DatasetError listing every violation."""
    violations: list[Violation] = []
    _check_registry(source.root, violations)
    data_dir = _data_dir(source.root)
    cases: dict[str, list[dict[str, Any]]] = {}
    case_ids: dict[str, str] = {}
    for benchmark in BENCHMARK_NAMES:
        bench_dir = data_dir / benchmark
        if not (bench_dir / "cases").is_dir():
            violations.append(
                Violation(
                    str(bench_dir / "cases"), f"missing: no case folder for benchmark {benchmark}"
                )
            )
            cases[benchmark] = []
            continue
        loaded = []
        for path in _case_files(bench_dir, benchmark, violations):
            raw = _read_json(path, violations)
            if raw is None:
                continue
            case, problems = validate_case(
                raw, file=str(path), expected_case_id=path.stem, expected_benchmark=benchmark
            )
            violations.extend(problems)
            if case is None:
                continue
            if case["case_id"] in case_ids:
                violations.append(
                    Violation(
                        str(path),
                        f"duplicate case_id, also in {case_ids[case['case_id']]}",
                        case["case_id"],
                        field="case_id",
                    )
                )
                continue
            case_ids[case["case_id"]] = str(path)
            loaded.append(case)
        if not loaded and not any(str(bench_dir) in v.file for v in violations):
            violations.append(Violation(str(bench_dir / "cases"), "no case files"))
        cases[benchmark] = loaded
    if violations:
        raise DatasetError(violations)
    return Release(source=source, cases=cases)


_RELEASE_CACHE: dict[tuple[str, str, tuple[tuple[str, int, int], ...]], Release] = {}
_RELEASE_CACHE_SIZE = 4


def _tree_fingerprint(root: Path) -> tuple[tuple[str, int, int], ...]:
    """Path, size and modification time of every file the loader reads."""
    data_dir = _data_dir(root)
    paths = [
        *data_dir.glob("*/cases/*.json"),
        *data_dir.glob("*/manifest.json"),
        root / "registry.json",
    ]
    entries = []
    for path in sorted(paths):
        try:
            stat = path.stat()
        except FileNotFoundError:
            continue
        entries.append((str(path), stat.st_size, stat.st_mtime_ns))
    return tuple(entries)


def load_release_cached(source: DataSource) -> Release:
    """`load_release`, reused while no file of the tree changed.

    Every task validates the whole release (the digest covers all ten benchmarks), so an eval
    set of ten tasks would otherwise read and validate the same files ten times.
    """
    key = (str(source.root), source.label, _tree_fingerprint(source.root))
    release = _RELEASE_CACHE.get(key)
    if release is None:
        release = load_release(source)
        if len(_RELEASE_CACHE) >= _RELEASE_CACHE_SIZE:
            _RELEASE_CACHE.pop(next(iter(_RELEASE_CACHE)))
        _RELEASE_CACHE[key] = release
    return release


def case_to_sample(case: dict[str, Any]) -> Sample:
    return Sample(
        id=case["case_id"],
        input=case["prompt"],
        metadata={
            "case_id": case["case_id"],
            "benchmark": case["benchmark"],
            "grading_method": case["grading_method"],
            "split": case["split"],
            "rubric_items": case["rubric_items"],
        },
    )


def benchmark_dataset(release: Release, benchmark: str, smoke: bool = False) -> MemoryDataset:
    cases = release.cases[benchmark][:1] if smoke else release.cases[benchmark]
    return MemoryDataset(
        samples=[case_to_sample(c) for c in cases],
        name=f"bedside_bench/{benchmark}",
        location=release.source.label,
        shuffled=False,
    )
