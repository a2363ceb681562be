"""A remote store that refuses or cannot be reached ends a command in one line, never in its
library's traceback: a sweep on `s3://` without credentials (its lock is the first request),
and any command whose first touch of the store fails (the entry guard). And the `s3` extra's
hint is true: Inspect installs botocore in whatever version, so what can be missing is the
version the lock's conditional writes need."""

from __future__ import annotations

from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import botocore.exceptions
import pytest

from bedside_bench.core import exit_codes
from bedside_bench.core.entry import entry_point
from bedside_bench.core.extras import MissingExtra, require
from tests.e2e_helpers import sweep_into_s3

NO_CREDENTIALS = (
    "Unable to locate credentials (NoCredentialsError); set credentials for the store (for "
    "s3://: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or an instance role)"
)


@pytest.fixture
def no_aws_credentials(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No AWS credentials anywhere botocore looks, and a store endpoint nothing listens on."""
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9")
    yield


def test_a_sweep_on_s3_without_credentials_is_one_line_before_any_call(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    no_aws_credentials: None,
) -> None:
    """Through the sweep's handler: the lock is the store's first request, before the eval
    set starts (the answer models' key is a placeholder no request ever carries)."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # checked before the lock
    code, out, err = sweep_into_s3(tmp_path, capsys)
    assert (code, out) == (exit_codes.ERROR, "")
    assert err == (
        "bedside-bench sweep: error: cannot take the lock of s3://team/sweeps/run1: Unable to "
        "locate credentials (NoCredentialsError); set AWS credentials for the bucket "
        "(AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or an instance role); "
        "nothing was run\n"
    )


def test_any_command_whose_store_fails_ends_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The entry guard: what the store's library raised, wherever it was first touched."""

    @entry_point
    def reads_a_store() -> int:
        raise botocore.exceptions.NoCredentialsError()

    @entry_point
    def breaks() -> int:
        raise KeyError("a fault of the package is not a store error")

    assert reads_a_store() == exit_codes.ERROR
    assert capsys.readouterr().err == (
        f"bedside-bench: error: a remote store refused or could not be reached: {NO_CREDENTIALS}\n"
    )
    with pytest.raises(KeyError):
        breaks()


def test_the_s3_extra_names_the_version_the_lock_needs() -> None:
    installed = metadata.version("botocore")
    require("botocore", "s3", "the lock of an s3:// log directory", minimum="1.35")
    with pytest.raises(MissingExtra) as raised:
        require("botocore", "s3", "the lock of an s3:// log directory", minimum="999.1")
    assert str(raised.value) == (
        f"the lock of an s3:// log directory needs botocore 999.1 or later, {installed} is "
        "installed: pip install 'bedside-bench[s3]'"
    )
