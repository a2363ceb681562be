"""A local S3-compatible server for tests: moto in server mode, as a real process.

The server binds 127.0.0.1 on a free port; a bucket is created in it, and the environment a
test (or a subprocess it starts) needs to reach it is the standard AWS one, nothing of our own:
AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_DEFAULT_REGION. botocore (and so
s3fs through aiobotocore, and Inspect through s3fs) reads AWS_ENDPOINT_URL itself.

The credentials are recognisable dummies so a test can search logs and output for them.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import pytest

ACCESS_KEY_ID = "AKIATESTS3ACCESSKEY7"
SECRET_ACCESS_KEY = "s3-test-SECRET-key-4d91b7e2"
REGION = "us-east-1"
BUCKET = "bedside-logs"
# variables that would make boto pick other credentials or endpoints than the test's
_AWS_OVERRIDES = (
    "AWS_PROFILE",
    "AWS_SESSION_TOKEN",
    "AWS_SECURITY_TOKEN",
    "AWS_ENDPOINT_URL_S3",
    "AWS_CONFIG_FILE",
    "AWS_SHARED_CREDENTIALS_FILE",
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class S3Server:
    """moto_server on 127.0.0.1; `start()`, `env`, `client()`, `stop()`."""

    bucket: str = BUCKET
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None
    log_file: Path | None = None
    _log: IO[bytes] | None = None

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def env(self) -> dict[str, str]:
        """The standard AWS variables that point any AWS SDK at this server."""
        return {
            "AWS_ENDPOINT_URL": self.endpoint,
            "AWS_ACCESS_KEY_ID": ACCESS_KEY_ID,
            "AWS_SECRET_ACCESS_KEY": SECRET_ACCESS_KEY,
            "AWS_DEFAULT_REGION": REGION,
            # no ~/.aws of the machine running the tests may change what the test sees
            "AWS_CONFIG_FILE": os.devnull,
            "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
        }

    def subprocess_env(self, base: Mapping[str, str] | None = None) -> dict[str, str]:
        env = dict(os.environ if base is None else base)
        for name in _AWS_OVERRIDES:
            env.pop(name, None)
        env.update(self.env)
        return env

    def url(self, prefix: str) -> str:
        return f"s3://{self.bucket}/{prefix.strip('/')}"

    def start(self, log_dir: Path | None = None, timeout: float = 30) -> S3Server:
        if log_dir:
            self.log_file = log_dir / "moto_server.log"
            self._log = self.log_file.open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
            stdout=self._log or subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"moto_server exited with {self.process.returncode}")
            try:
                with urllib.request.urlopen(f"{self.endpoint}/moto-api/", timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"moto_server did not answer on {self.endpoint}") from None
                time.sleep(0.1)
        self.client().create_bucket(Bucket=self.bucket)
        return self

    def client(self):  # type: ignore[no-untyped-def]
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            aws_access_key_id=ACCESS_KEY_ID,
            aws_secret_access_key=SECRET_ACCESS_KEY,
            region_name=REGION,
        )

    def keys(self, prefix: str = "") -> list[str]:
        """Every object key under `prefix`, sorted."""
        paginator = self.client().get_paginator("list_objects_v2")
        keys = []
        for page in paginator.paginate(Bucket=self.bucket, Prefix=prefix):
            keys.extend(obj["Key"] for obj in page.get("Contents", []))
        return sorted(keys)

    def download(self, prefix: str, dest: Path) -> list[Path]:
        """Copy every object under `prefix` into `dest` (keys as relative paths)."""
        client = self.client()
        paths = []
        for key in self.keys(prefix):
            path = dest / key
            path.parent.mkdir(parents=True, exist_ok=True)
            client.download_file(self.bucket, key, str(path))
            paths.append(path)
        return paths

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> S3Server:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@pytest.fixture(scope="session")
def s3_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    """One moto_server for the whole session (it takes seconds to start); every test gets a
    bucket of its own on it (`s3_server`), so no test sees another's objects."""
    server = S3Server().start(log_dir=tmp_path_factory.mktemp("moto"))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def s3_server(s3_process: S3Server, monkeypatch: pytest.MonkeyPatch) -> Iterator[S3Server]:
    """An empty bucket of this test's own on the session's server, its AWS variables set for
    the test (subprocesses started with `os.environ` inherit them)."""
    server = dataclasses.replace(
        s3_process, bucket=f"{BUCKET}-{next(_buckets)}", process=None, log_file=None, _log=None
    )
    server.client().create_bucket(Bucket=server.bucket)
    for name in _AWS_OVERRIDES:
        monkeypatch.delenv(name, raising=False)
    for name, value in server.env.items():
        monkeypatch.setenv(name, value)
    _forget_s3_filesystems()
    try:
        yield server
    finally:
        _forget_s3_filesystems()


_buckets = itertools.count(1)


def _forget_s3_filesystems() -> None:
    """fsspec caches filesystem instances (and their endpoint) per process; a test's server
    has its own port, so drop the cached ones."""
    try:
        import s3fs

        s3fs.S3FileSystem.clear_instance_cache()
    except ImportError:  # pragma: no cover
        pass
