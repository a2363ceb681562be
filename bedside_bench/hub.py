"""Where a release is without Inspect: the environment variable that names a local copy, and
the pinned Hugging Face snapshot in the local cache. Kept apart from `sources`, whose errors
are Inspect's, so `bedside-bench data path` answers without importing Inspect."""

from __future__ import annotations

from pathlib import Path

from bedside_bench.protocol import HF_DATASET_REPO

DATA_ENV_VAR = "BEDSIDE_BENCH_DATA"
HF_PATTERNS = ["data/*/cases/*.json", "data/*/manifest.json", "registry.json"]


def snapshot(revision: str, local_files_only: bool) -> str:
    from huggingface_hub import snapshot_download

    return snapshot_download(
        repo_id=HF_DATASET_REPO,
        repo_type="dataset",
        revision=revision,
        allow_patterns=HF_PATTERNS,
        local_files_only=local_files_only,
    )


def cached_snapshot(revision: str) -> Path | None:
    """The snapshot of `revision` in the Hugging Face cache, without any request; None when it
    is not there (or is incomplete)."""
    try:
        return Path(snapshot(revision, local_files_only=True))
    except Exception:
        return None
