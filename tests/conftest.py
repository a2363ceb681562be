"""Shared test set-up: no network, nothing written outside a temporary folder."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.doubles.fixtures import (  # noqa: F401  (fixtures)
    provider_double,
    provider_double_factory,
    provider_env,
)
from tests.s3_server import s3_server  # noqa: F401  (fixture)

REPO_ROOT = Path(__file__).resolve().parent.parent
SYNTHETIC_RELEASE = REPO_ROOT / "data" / "synthetic"

# tests may run from any folder and start subprocesses elsewhere: make the path absolute once
if os.environ.get("BEDSIDE_BENCH_DATA"):
    os.environ["BEDSIDE_BENCH_DATA"] = str(Path(os.environ["BEDSIDE_BENCH_DATA"]).resolve())
REAL_RELEASE = os.environ.get("BEDSIDE_BENCH_DATA")
os.environ["HF_HUB_OFFLINE"] = "1"


@pytest.fixture(autouse=True)
def isolated_inspect(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Inspect's default log dir and any stray output go to the test's temporary folder."""
    monkeypatch.setenv("INSPECT_LOG_DIR", str(tmp_path / "logs"))
    yield


@pytest.fixture
def real_release() -> str:
    if not REAL_RELEASE:
        pytest.skip("set BEDSIDE_BENCH_DATA to the public release to run this test")
    return REAL_RELEASE
