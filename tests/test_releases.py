"""Known releases: a tree is named only when its digest and its counts both match."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.release.dataset import load_release
from bedside_bench.release.known import FULL, KNOWN_RELEASES, PUBLIC, UNRECOGNISED, identify_release
from bedside_bench.release.sources import DataSource, resolve_source
from tests.release_factory import case_path, write_release

PUBLIC_DIGEST = "3f44e6c7773aae3568d32d24c71d31a52ceb7286559d599549b386b3d3760cfe"
SYNTHETIC = Path(__file__).resolve().parent.parent / "data" / "synthetic"


def test_the_known_releases() -> None:
    assert [r.name for r in KNOWN_RELEASES] == ["public@90d08d9", "full"]
    assert PUBLIC.dataset_sha256 == PUBLIC_DIGEST
    assert dict(PUBLIC.case_counts) == {name: 25 for name in BENCHMARK_NAMES}
    assert dict(FULL.case_counts) == {name: 50 for name in BENCHMARK_NAMES}
    assert FULL.dataset_sha256 is None


def test_identify_needs_digest_and_counts() -> None:
    public_counts = {name: 25 for name in BENCHMARK_NAMES}
    assert identify_release(PUBLIC_DIGEST, public_counts) == "public@90d08d9"
    assert identify_release("0" * 64, public_counts) == UNRECOGNISED
    assert identify_release(PUBLIC_DIGEST, {**public_counts, "drug_safety": 24}) == UNRECOGNISED
    # the full release's counts alone do not make a tree the full release
    assert identify_release("0" * 64, {name: 50 for name in BENCHMARK_NAMES}) == UNRECOGNISED
    assert UNRECOGNISED == "unrecognised"


def test_synthetic_fixture_is_unrecognised() -> None:
    release = load_release(DataSource(root=SYNTHETIC, label=str(SYNTHETIC)))
    assert release.name == "unrecognised"
    assert release.case_counts == {name: 2 for name in BENCHMARK_NAMES}


def test_factory_tree_is_unrecognised(tmp_path: Path) -> None:
    write_release(tmp_path, per_benchmark=25)
    release = load_release(DataSource(root=tmp_path, label=str(tmp_path)))
    assert release.case_counts == {name: 25 for name in BENCHMARK_NAMES}
    assert release.name == "unrecognised"


def _copy_release(src: Path, dst: Path) -> None:
    """Copy the public release's case files into a temporary tree (for a test, never kept)."""
    for path in src.glob("data/*/cases/*.json"):
        target = dst / path.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(path.read_bytes())


def test_real_public_release_is_recognised(real_release: str) -> None:
    release = load_release(resolve_source(real_release))
    assert release.dataset_sha256 == PUBLIC_DIGEST
    assert release.name == "public@90d08d9"
    assert release.case_counts == {name: 25 for name in BENCHMARK_NAMES}


def test_a_copy_missing_one_case_is_unrecognised(tmp_path: Path, real_release: str) -> None:
    _copy_release(Path(real_release), tmp_path)
    victim = sorted((tmp_path / "data" / "landmark_trials" / "cases").iterdir())[3]
    victim.unlink()
    release = load_release(DataSource(root=tmp_path, label=str(tmp_path)))
    assert release.name == "unrecognised"
    assert release.case_counts == {
        name: 24 if name == "landmark_trials" else 25 for name in BENCHMARK_NAMES
    }


def test_an_edited_copy_is_unrecognised(tmp_path: Path, real_release: str) -> None:
    _copy_release(Path(real_release), tmp_path)
    path = sorted((tmp_path / "data" / "drug_safety" / "cases").iterdir())[0]
    case = json.loads(path.read_text())
    path.write_text(json.dumps({**case, "split": "test"}))
    release = load_release(DataSource(root=tmp_path, label=str(tmp_path)))
    assert release.case_counts == {name: 25 for name in BENCHMARK_NAMES}
    assert release.dataset_sha256 != PUBLIC_DIGEST
    assert release.name == "unrecognised"


@pytest.mark.parametrize("per_benchmark", [1, 3])
def test_counts_follow_the_tree(tmp_path: Path, per_benchmark: int) -> None:
    cases = write_release(tmp_path, per_benchmark=per_benchmark, manifests=False)
    if per_benchmark > 1:
        case_path(tmp_path, cases["safety_therapeutic"][0]).unlink()
    release = load_release(DataSource(root=tmp_path, label=str(tmp_path)))
    expected = {name: per_benchmark for name in BENCHMARK_NAMES}
    if per_benchmark > 1:
        expected["safety_therapeutic"] -= 1
    assert release.case_counts == expected
