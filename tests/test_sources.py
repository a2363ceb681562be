"""Where the release tree comes from (`release/sources.py`): `-T data_dir`, then
`$BEDSIDE_BENCH_DATA`, then the pinned Hugging Face revision from its cache, with an error that says
what to do when there is none."""

from __future__ import annotations

from pathlib import Path

import pytest

from bedside_bench.release.dataset import load_release
from bedside_bench.release.sources import DataSourceError, resolve_source


def test_source_resolution_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    monkeypatch.setenv("BEDSIDE_BENCH_DATA", str(b))
    assert resolve_source(str(a)).root == a.resolve()
    assert resolve_source(None).root == b.resolve()
    with pytest.raises(DataSourceError) as caught:
        resolve_source(str(tmp_path / "missing"))
    assert str(caught.value).startswith(f"-T data_dir '{tmp_path / 'missing'}' is not a directory.")
    assert isinstance(caught.value, FileNotFoundError)
    monkeypatch.setenv("BEDSIDE_BENCH_DATA", str(tmp_path / "gone"))
    with pytest.raises(DataSourceError, match="BEDSIDE_BENCH_DATA '.*gone' is not a directory"):
        resolve_source(None)


def test_a_relative_path_names_the_folder_it_was_read_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Inspect runs a task given by file in the file's folder, so a relative path may be read
    from somewhere the user did not expect: the error says where."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BEDSIDE_BENCH_DATA", "../release")
    with pytest.raises(DataSourceError) as caught:
        resolve_source(None)
    assert str(caught.value).startswith(
        f"BEDSIDE_BENCH_DATA '../release' is not a directory (read from {tmp_path}). "
    )


def test_hugging_face_offline_without_cache_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BEDSIDE_BENCH_DATA", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    import huggingface_hub.constants as constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hf" / "hub"))
    with pytest.raises(DataSourceError) as caught:
        resolve_source(None)
    assert str(caught.value) == (
        "no BedsideBench release found: doximity/bedside-bench@"
        "90d08d93c96a93ec22c928610af69b3225be51f4 is not in the Hugging Face cache and "
        "HF_HUB_OFFLINE is set. Do one of: pass -T data_dir=PATH to a local copy of the "
        "release, set BEDSIDE_BENCH_DATA=PATH, or run once with a working connection to "
        "Hugging Face (the download is cached for later offline runs)."
    )


def test_hugging_face_cached_snapshot_is_used_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A revision already in the normal Hugging Face cache loads with HF_HUB_OFFLINE=1."""
    import shutil

    import huggingface_hub.constants as constants

    from bedside_bench.core.protocol import HF_DATASET_REVISION

    cache = tmp_path / "hf" / "hub"
    repo = cache / "datasets--doximity--bedside-bench"
    snapshot = repo / "snapshots" / HF_DATASET_REVISION
    shutil.copytree(Path(__file__).resolve().parent.parent / "data" / "synthetic", snapshot)
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(HF_DATASET_REVISION)
    monkeypatch.delenv("BEDSIDE_BENCH_DATA", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    source = resolve_source(None)
    assert source.label == f"hf://doximity/bedside-bench@{HF_DATASET_REVISION}"
    assert source.root == snapshot
    assert len(load_release(source).all_cases) == 20
