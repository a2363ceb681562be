"""Load and validate a release tree; turn cases into Inspect samples; the dataset digest.

One module past 300 lines because reading, checking and ordering the tree is one pass that
shares one violation list and one file reader, so every problem of a release is reported at once.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import stat
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample

from bedside_bench.core.benchmarks import BENCHMARK_NAMES, BENCHMARKS_BY_NAME
from bedside_bench.core.console import warn_visibly
from bedside_bench.core.contracts import SampleMetadata
from bedside_bench.release.case import MAX_CASE_FILE_BYTES, DatasetError, Violation, validate_case
from bedside_bench.release.case_model import Case
from bedside_bench.release.known import UNRECOGNISED, identify_release
from bedside_bench.release.sources import DataSource

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Release:
    """Every case of the ten benchmarks, canonical and in registry then manifest order."""

    source: DataSource
    cases: dict[str, list[Case]]

    @property
    def all_cases(self) -> list[Case]:
        return [case for name in BENCHMARK_NAMES for case in self.cases[name]]

    @cached_property
    def dataset_sha256(self) -> str:
        """Computed once: every task's metadata names it (and the release it identifies)."""
        return dataset_sha256(self.all_cases)

    @property
    def case_counts(self) -> dict[str, int]:
        return {name: len(self.cases[name]) for name in BENCHMARK_NAMES}

    @cached_property
    def name(self) -> str:
        """The known release this is (`release/known.py`), else "unrecognised"."""
        return identify_release(self.dataset_sha256, self.case_counts)


def dataset_sha256(cases: Sequence[Case]) -> str:
    """SHA-256 of the compact, key-sorted JSON of the case objects, in the order given."""
    objects = [case.json_object() for case in cases]
    text = json.dumps(objects, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def case_sha256(case: Case) -> str:
    """SHA-256 of one canonical case, as `dataset_sha256` writes it: a sample records the
    digest of the case it asked, so a resume whose case files changed is found."""
    text = json.dumps(case.json_object(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def case_of_sample(prompt: str, metadata: SampleMetadata) -> Case:
    """The canonical case a sample holds (its input and metadata), to recompute its digest."""
    return Case(
        case_id=metadata.case_id,
        benchmark=metadata.benchmark,
        grading_method=metadata.grading_method,
        prompt=prompt,
        rubric_items=tuple(metadata.rubric_items),
        split=metadata.split,
    )


def _data_dir(root: Path) -> Path:
    """The folder holding `<benchmark>/cases/`: `root/data` in the release layout."""
    return root / "data" if (root / "data").is_dir() else root


class _DuplicateKeyError(ValueError):
    pass


def _refuse_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """object_pairs_hook: a JSON object must not repeat a key (linear: one dict, one compare)."""
    value = dict(pairs)
    if len(value) != len(pairs):
        repeated = sorted(k for k, n in Counter(k for k, _ in pairs).items() if n > 1)
        raise _DuplicateKeyError(f"duplicate JSON keys {repeated}")
    return value


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def _file_kind(mode: int) -> str:
    for test, kind in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return kind
    return "not a regular file"


def _read_bounded(path: Path, limit: int) -> bytes | str:
    """The bytes of a regular file of at most `limit` bytes, else why not (a sentence).

    Opened without blocking and checked on the open descriptor: a FIFO, a device or a folder
    under a data file's name is refused instead of hanging the loader (or reading forever),
    even if it was swapped in after a check by name.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        return f"{_file_kind(mode)}, not a regular file; refused"
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        return f"the file has more than {limit} bytes; at most {limit} are allowed"
    return data


def _read_json(path: Path, violations: list[Violation], limit: int = MAX_CASE_FILE_BYTES) -> Any:
    """Strict JSON: a regular file, bounded size, no duplicate keys, no NaN/Infinity; None
    (and a violation) when the file cannot be used."""
    try:
        size = path.stat().st_size
        if size > limit:
            violations.append(
                Violation(str(path), f"the file has {size} bytes; at most {limit} are allowed")
            )
            return None
        data = _read_bounded(path, limit)
        if isinstance(data, str):
            violations.append(Violation(str(path), data))
            return None
        return json.loads(
            data.decode("utf-8"),
            object_pairs_hook=_refuse_duplicate_keys,
            parse_constant=_refuse_constant,
        )
    except _DuplicateKeyError as ex:
        violations.append(Violation(str(path), str(ex)))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as ex:
        reason = "it nests too deeply" if isinstance(ex, RecursionError) else str(ex)
        violations.append(Violation(str(path), f"cannot be read as JSON: {reason}"))
    return None


def _outside(path: Path, tree: Path) -> str | None:
    """Where `path` really is, when that is outside `tree` (a symlink out of the release)."""
    resolved = path.resolve()
    return None if resolved.is_relative_to(tree) else str(resolved)


def _refuse_outside(path: Path, tree: Path, violations: list[Violation]) -> bool:
    target = _outside(path, tree)
    if target is None:
        return False
    violations.append(
        Violation(str(path), f"resolves outside the release tree ({tree}) to {target}; refused")
    )
    return True


def _registry_names(registry: Any, path: str, violations: list[Violation]) -> list[str] | None:
    """The benchmark names of a registry of the documented shape, else a violation and None.

    Shape: an object whose `benchmarks` (older: `panels`) is a list of benchmark names or of
    objects with a string `name` (or `benchmark`) and, optionally, the benchmark's
    `grading_method`.
    """
    if not isinstance(registry, dict):
        violations.append(
            Violation(path, f"the registry must be a JSON object, got {type(registry).__name__}")
        )
        return None
    key = "panels" if "panels" in registry and "benchmarks" not in registry else "benchmarks"
    entries = registry.get(key)
    if not isinstance(entries, list):
        what = "missing" if key not in registry else f"a {type(entries).__name__}"
        violations.append(
            Violation(path, f"'benchmarks' must be a list of benchmarks, is {what}", field=key)
        )
        return None
    names: list[str] = []
    for n, entry in enumerate(entries):
        name = entry.get("name", entry.get("benchmark")) if isinstance(entry, dict) else entry
        if not isinstance(name, str):
            violations.append(
                Violation(
                    path,
                    "an entry must be a benchmark name or an object with a string 'name'",
                    field=f"{key}.{n}",
                )
            )
            continue
        method = entry.get("grading_method") if isinstance(entry, dict) else None
        spec = BENCHMARKS_BY_NAME.get(name)
        if method is not None and spec is not None and method != spec.grading_method:
            violations.append(
                Violation(
                    path,
                    f"grading_method {method!r} is not {name}'s {spec.grading_method!r}",
                    field=f"{key}.{n}.grading_method",
                )
            )
        names.append(name)
    if len(names) != len(entries):
        return None
    if names != list(BENCHMARK_NAMES):
        violations.append(
            Violation(
                path,
                f"benchmarks {names} are not the ten benchmarks in registry order "
                f"{list(BENCHMARK_NAMES)}",
                field=key,
            )
        )
    return names


def _check_registry(root: Path, tree: Path, violations: list[Violation]) -> None:
    path = root / "registry.json"
    if not path.exists() or _refuse_outside(path, tree, violations):
        return
    registry = _read_json(path, violations)
    if registry is not None:
        _registry_names(registry, str(path), violations)


def _check_data_folders(data_dir: Path, violations: list[Violation]) -> None:
    """Every folder under the data directory is one of the ten benchmarks (dot-folders aside)."""
    for entry in sorted(data_dir.iterdir()):
        if entry.name.startswith(".") or not entry.is_dir():
            continue
        if entry.name not in BENCHMARKS_BY_NAME:
            violations.append(
                Violation(
                    str(entry),
                    f"unknown folder {entry.name!r}: not one of the ten benchmarks "
                    f"({', '.join(BENCHMARK_NAMES)})",
                )
            )


def _case_files(bench_dir: Path, tree: Path, violations: list[Violation]) -> list[Path]:
    """Case files in manifest order when there is a manifest, otherwise by case_id."""
    cases_dir = bench_dir / "cases"
    present: dict[str, Path] = {}
    refused: set[str] = set()
    for path in sorted(cases_dir.iterdir()):
        if path.name.startswith("."):
            continue
        if path.is_symlink() and not path.exists():
            violations.append(
                Violation(str(path), f"a link to {os.readlink(path)}, which does not exist")
            )
            continue
        if path.suffix != ".json" or not path.is_file():
            violations.append(
                Violation(str(path), "not a case file: cases/ holds only <case_id>.json files")
            )
            continue
        if _refuse_outside(path, tree, violations):
            refused.add(path.stem)
        else:
            present[path.stem] = path
    manifest_path = bench_dir / "manifest.json"
    if not manifest_path.exists():
        return [present[k] for k in sorted(present)]
    if _refuse_outside(manifest_path, tree, violations):
        return []
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
    for missing in [i for i in ids if i not in present and i not in refused]:
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
    tree = source.tree
    _check_registry(source.root, tree, violations)
    data_dir = _data_dir(source.root)
    _check_data_folders(data_dir, violations)
    cases: dict[str, list[Case]] = {}
    case_ids: dict[str, str] = {}
    for benchmark in BENCHMARK_NAMES:
        bench_dir = data_dir / benchmark
        cases[benchmark] = []
        if not (bench_dir / "cases").is_dir():
            violations.append(
                Violation(
                    str(bench_dir / "cases"), f"missing: no case folder for benchmark {benchmark}"
                )
            )
            continue
        if _refuse_outside(bench_dir, tree, violations) or _refuse_outside(
            bench_dir / "cases", tree, violations
        ):
            continue
        loaded = []
        for path in _case_files(bench_dir, tree, violations):
            raw = _read_json(path, violations)
            if raw is None:
                continue
            case, problems = validate_case(
                raw, file=str(path), expected_case_id=path.stem, expected_benchmark=benchmark
            )
            violations.extend(problems)
            if case is None:
                continue
            if case.case_id in case_ids:
                violations.append(
                    Violation(
                        str(path),
                        f"duplicate case_id, also in {case_ids[case.case_id]}",
                        case.case_id,
                        field="case_id",
                    )
                )
                continue
            case_ids[case.case_id] = str(path)
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
    """Path, size and modification time of every entry the loader looks at (links followed),
    so a new folder, a stray file or a changed link target invalidates the cached release."""
    data_dir = _data_dir(root)
    paths = [
        *data_dir.glob("*"),
        *data_dir.glob("*/cases/*"),
        *data_dir.glob("*/manifest.json"),
        root / "registry.json",
    ]
    entries = []
    for path in sorted(paths):
        try:
            stat = path.stat()
        except (FileNotFoundError, OSError):
            entries.append((str(path), -1, -1))  # e.g. a dangling link
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
        if release.name == UNRECOGNISED:
            warn_visibly(
                logger,
                f"{source.label} is not a known BedsideBench release (cases per benchmark: "
                f"{release.case_counts}); runs on it are marked release=unrecognised and not "
                "compared with a known release",
            )
        if len(_RELEASE_CACHE) >= _RELEASE_CACHE_SIZE:
            _RELEASE_CACHE.pop(next(iter(_RELEASE_CACHE)))
        _RELEASE_CACHE[key] = release
    return release


def case_to_sample(case: Case) -> Sample:
    """A canonical case as an Inspect sample; its metadata is `SampleMetadata`'s fields (the
    prompt is the sample's input)."""
    metadata = SampleMetadata(
        case_id=case.case_id,
        benchmark=case.benchmark,
        grading_method=case.grading_method,
        split=case.split,
        rubric_items=list(case.rubric_items),
        case_sha256=case_sha256(case),
    )
    return Sample(
        id=case.case_id, input=case.prompt, metadata=metadata.model_dump(exclude_unset=True)
    )


def benchmark_dataset(release: Release, benchmark: str, smoke: bool = False) -> MemoryDataset:
    cases = release.cases[benchmark][:1] if smoke else release.cases[benchmark]
    return MemoryDataset(
        samples=[case_to_sample(c) for c in cases],
        name=f"bedside_bench/{benchmark}",
        location=release.source.label,
        shuffled=False,
    )
