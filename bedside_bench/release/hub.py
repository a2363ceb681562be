"""Where a release is without Inspect: the environment variable that names a local copy, and
the pinned Hugging Face snapshot in the local cache. Kept apart from `sources`, whose errors
are Inspect's, so `bedside-bench data path` answers without importing Inspect."""

from __future__ import annotations

from pathlib import Path

from huggingface_hub import constants, snapshot_download

from bedside_bench.core.protocol import HF_DATASET_REPO

DATA_ENV_VAR = "BEDSIDE_BENCH_DATA"
HF_PATTERNS = ["data/*/cases/*.json", "data/*/manifest.json", "registry.json"]


def snapshot(revision: str, local_files_only: bool) -> str:
    return snapshot_download(
        repo_id=HF_DATASET_REPO,
        repo_type="dataset",
        revision=revision,
        allow_patterns=HF_PATTERNS,
        local_files_only=local_files_only,
    )


def cached_snapshot(revision: str) -> Path | None:
    """The snapshot of `revision` in the Hugging Face cache, without any request; None when it
    is not there. Read from the cache's layout (`snapshots/<commit>`, a branch or tag through
    `refs/<name>`), as `snapshot_download(local_files_only=True)` does, without importing the
    download machinery."""

    repo = Path(constants.HF_HUB_CACHE) / f"datasets--{HF_DATASET_REPO.replace('/', '--')}"
    commit = revision
    ref = repo / "refs" / revision
    if ref.is_file():
        commit = ref.read_text(encoding="utf-8").strip()
    folder = repo / "snapshots" / commit
    return folder if folder.is_dir() else None
