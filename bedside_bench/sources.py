"""Where the release files come from: a local tree, or the pinned Hugging Face revision."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from bedside_bench.protocol import HF_DATASET_REPO, HF_DATASET_REVISION

DATA_ENV_VAR = "BEDSIDE_BENCH_DATA"


@dataclass(frozen=True)
class DataSource:
    """A release tree on disk and how to name it in logs (a path, or repo@revision)."""

    root: Path
    label: str


def resolve_source(data_dir: str | None = None, revision: str | None = None) -> DataSource:
    """First match wins: the `data_dir` parameter, `$BEDSIDE_BENCH_DATA`, Hugging Face."""
    if data_dir:
        return _local(data_dir, "data_dir")
    env = os.environ.get(DATA_ENV_VAR)
    if env:
        return _local(env, DATA_ENV_VAR)
    return hugging_face_source(revision or HF_DATASET_REVISION)


def _local(path: str, origin: str) -> DataSource:
    root = Path(path).expanduser()
    if not root.is_dir():
        raise FileNotFoundError(f"{origin} {path!r} is not a directory")
    return DataSource(root=root.resolve(), label=str(root.resolve()))


def hugging_face_source(revision: str) -> DataSource:
    """Download (or find in the normal cache) the release at a pinned revision.

    huggingface_hub honours HF_HUB_OFFLINE=1 and serves a cached snapshot without a request.
    """
    from huggingface_hub import snapshot_download

    try:
        path = snapshot_download(
            repo_id=HF_DATASET_REPO,
            repo_type="dataset",
            revision=revision,
            allow_patterns=["data/*/cases/*.json", "data/*/manifest.json", "registry.json"],
        )
    except Exception as ex:
        raise RuntimeError(
            f"could not get {HF_DATASET_REPO}@{revision} from Hugging Face ({ex}); set "
            f"{DATA_ENV_VAR} or pass -T data_dir=PATH to a local copy of the release"
        ) from ex
    return DataSource(root=Path(path), label=f"hf://{HF_DATASET_REPO}@{revision}")
