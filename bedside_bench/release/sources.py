"""Where the release files come from: a local tree, or the pinned Hugging Face revision."""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

from huggingface_hub import constants

from bedside_bench.core.inspect_private import PrerequisiteError
from bedside_bench.core.protocol import HF_DATASET_REPO, HF_DATASET_REVISION
from bedside_bench.release.hub import DATA_ENV_VAR as DATA_ENV_VAR
from bedside_bench.release.hub import HF_PATTERNS as HF_PATTERNS
from bedside_bench.release.hub import cached_snapshot as cached_snapshot
from bedside_bench.release.hub import snapshot

# how long the first contact with the Hub may take before it counts as unreachable
HUB_PROBE_SECONDS = 3.0


@dataclass(frozen=True)
class DataSource:
    """A release tree on disk and how to name it in logs (a path, or repo@revision).

    `tree_root` bounds what the loader may read: a file resolving outside it is refused. It is
    the release folder itself, except in the Hugging Face cache, whose snapshot files are links
    into the repository's `blobs/` folder.
    """

    root: Path
    label: str
    tree_root: Path | None = None

    @property
    def tree(self) -> Path:
        return (self.tree_root or self.root).resolve()


class DataSourceError(PrerequisiteError, FileNotFoundError):
    """No release could be found or downloaded; the message says what was tried and what to do.

    A PrerequisiteError, so the `inspect` command prints the message without a traceback; a
    FileNotFoundError, so callers that report missing files (the sweep) report it too.
    """

    def __init__(self, message: str) -> None:
        FileNotFoundError.__init__(self, message)
        self.message = message


class DataDirError(DataSourceError):
    """`-T data_dir` or $BEDSIDE_BENCH_DATA does not name a folder."""


def resolve_source(data_dir: str | None = None, revision: str | None = None) -> DataSource:
    """First match wins: the `data_dir` parameter, `$BEDSIDE_BENCH_DATA`, Hugging Face."""
    if data_dir:
        return _local(data_dir, "-T data_dir")
    env = os.environ.get(DATA_ENV_VAR)
    if env:
        return _local(env, DATA_ENV_VAR)
    return hugging_face_source(revision or HF_DATASET_REVISION)


def _local(path: str, origin: str) -> DataSource:
    root = Path(path).expanduser()
    if not root.is_dir():
        # Inspect runs a task given by file (`bedside_bench/tasks.py@...`) in the file's folder
        where = "" if root.is_absolute() else f" (read from {Path.cwd()})"
        raise DataDirError(
            f"{origin} {path!r} is not a directory{where}. Point it at a copy of the release (the "
            "folder holding data/<benchmark>/cases/), or leave -T data_dir and "
            f"{DATA_ENV_VAR} unset to download the pinned revision from Hugging Face."
        )
    return DataSource(root=root.resolve(), label=str(root.resolve()))


def _advice(tried: str) -> str:
    return (
        f"no BedsideBench release found: {tried}. Do one of: pass -T data_dir=PATH to a local "
        f"copy of the release, set {DATA_ENV_VAR}=PATH, or run once with a working connection "
        "to Hugging Face (the download is cached for later offline runs)."
    )


def _hub_reachable(endpoint: str, timeout: float) -> bool:
    """One TCP connection to the Hub's host: a quick answer to "is there a network at all"."""
    url = urlparse(endpoint)
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        with socket.create_connection((url.hostname or "", port), timeout=timeout):
            return True
    except OSError:
        return False


def hugging_face_source(revision: str) -> DataSource:
    """The release at a pinned revision: from the normal Hugging Face cache, else downloaded.

    The cache is tried first without any request (huggingface_hub also honours
    HF_HUB_OFFLINE=1). Before a download the Hub's host gets one short connection attempt, so
    an unreachable Hub fails in seconds with advice instead of after minutes of retries.
    """

    spec = f"{HF_DATASET_REPO}@{revision}"
    cached = cached_snapshot(revision)
    if cached is not None:
        return _hf(cached, spec)
    if constants.HF_HUB_OFFLINE:
        raise DataSourceError(
            _advice(f"{spec} is not in the Hugging Face cache and HF_HUB_OFFLINE is set")
        ) from None
    endpoint = constants.ENDPOINT
    if not _hub_reachable(endpoint, HUB_PROBE_SECONDS):
        raise DataSourceError(
            _advice(
                f"{spec} is not in the Hugging Face cache, and {endpoint} did not answer "
                f"within {HUB_PROBE_SECONDS:g} s"
            )
        ) from None
    try:
        path = snapshot(revision, local_files_only=False)
    except Exception as ex:
        reason = str(ex).strip().splitlines()[0][:200] if str(ex).strip() else type(ex).__name__
        raise DataSourceError(
            _advice(f"downloading {spec} from {endpoint} failed ({reason})")
        ) from None
    return _hf(Path(path), spec)


def _hf(snapshot: Path, spec: str) -> DataSource:
    # snapshots/<revision>/... link into ../../blobs/: the repository folder bounds the tree
    return DataSource(root=snapshot, label=f"hf://{spec}", tree_root=snapshot.parent.parent)
