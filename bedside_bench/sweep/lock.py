"""One writer per log directory (per shard): the sweep's lock on its log directory.

Two sweeps writing one log directory both pay for every case and delete each other's logs, so
a sweep holds a lock for as long as it runs (eval_set, clean-up and report) and a second sweep
on the same directory stops before its first call, naming the holder.

Local directory: `LOG_DIR/.sweep.lock`, an OS file lock taken with `filelock` (released by the
kernel when its process dies, so a killed run never leaves a live lock), beside a
`.sweep.lock.holder` file that names the holder (pid, host, start time). Finding a holder file
when the lock is free means its run was killed: the lock is taken over and that run named.

`s3://` directory: no file lock exists, so the lock is an object, `LOG_DIR/.sweep.lock`,
created with a conditional PUT (`If-None-Match: *`: exactly one creator wins) that holds the
holder and is rewritten every `HEARTBEAT_SECONDS` (`If-Match` its last ETag). A lock object
whose last write is older than `STALE_SECONDS` (by the store's own clock, so machines' clocks
do not matter) belongs to a killed run and is taken over with `If-Match` on the ETag read, so
of two runs taking over at once only one wins. Endpoint and credentials come from the standard
AWS configuration (`AWS_ENDPOINT_URL`, `AWS_ACCESS_KEY_ID`, profiles), as for Inspect's logs.

Shards (`--shard K/N`) of one sweep write the same directory at once by design: each takes
`.sweep.shard-K-of-N.lock`, so the same shard twice is refused, and a run whose lock is held
with another shard count (a whole sweep beside a sharded one) is refused too.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import threading
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

from bedside_bench.sweep.options import SweepError
from bedside_bench.sweep.shard import Shard

LOCK_STEM = ".sweep"
HEARTBEAT_SECONDS = 15.0
STALE_SECONDS = 90.0


class LogDirBusy(SweepError):
    """Another sweep holds the log directory."""


@dataclass(frozen=True)
class Holder:
    pid: int
    host: str
    started: str  # ISO 8601, UTC
    shard: str = "1/1"

    @classmethod
    def me(cls, shard: Shard) -> Holder:
        started = datetime.now(timezone.utc).isoformat(timespec="seconds")
        return cls(pid=os.getpid(), host=socket.gethostname(), started=started, shard=str(shard))

    @classmethod
    def from_json(cls, text: str | bytes) -> Holder | None:
        try:
            data = json.loads(text)
            return cls(
                pid=int(data["pid"]),
                host=str(data["host"]),
                started=str(data["started"]),
                shard=str(data.get("shard", "1/1")),
            )
        except (ValueError, KeyError, TypeError):
            return None

    def to_json(self, **extra: Any) -> str:
        return json.dumps({**asdict(self), **extra})

    def describe(self) -> str:
        shard = "" if self.shard == "1/1" else f", shard {self.shard}"
        return f"pid {self.pid} on {self.host}, started {self.started}{shard}"


def lock_name(shard: Shard) -> str:
    return f"{LOCK_STEM}.lock" if shard.whole else f"{LOCK_STEM}.{shard.tag}.lock"


def busy_message(log_dir: str, holder: Holder | None, detail: str = "") -> str:
    who = holder.describe() if holder else "a process that has not yet written its name"
    return (
        f"log directory {log_dir} is in use by another sweep ({who}{detail}); "
        "wait for it to finish, or give another --log-dir"
    )


class DirLock(Protocol):
    def acquire(self) -> Holder | None:
        """Take the lock; return the killed run whose lock was taken over, if any."""
        ...

    def release(self) -> None: ...


# --------------------------------------------------------------------------------------------
# local directory


class LocalLock:
    def __init__(self, log_dir: str, shard: Shard) -> None:
        from filelock import FileLock

        self.log_dir = log_dir
        self.shard = shard
        self.me = Holder.me(shard)
        self.path = Path(log_dir) / lock_name(shard)
        self.holder_path = self.path.with_name(self.path.name + ".holder")
        self._lock = FileLock(str(self.path), timeout=0)

    def acquire(self) -> Holder | None:
        from filelock import Timeout

        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._lock.acquire(timeout=0)
        except Timeout:
            raise LogDirBusy(busy_message(self.log_dir, self._read_holder())) from None
        previous = read_holder(self.holder_path)
        tmp = self.holder_path.with_name(f"{self.holder_path.name}.{os.getpid()}")
        tmp.write_text(self.me.to_json())
        os.replace(tmp, self.holder_path)
        try:
            self._refuse_other_shard_counts()
        except LogDirBusy:
            self.release()
            raise
        return previous

    def _read_holder(self) -> Holder | None:
        """The holder named beside a held lock (it writes its name just after locking)."""
        import time

        for _ in range(10):
            holder = read_holder(self.holder_path)
            if holder is not None:
                return holder
            time.sleep(0.1)
        return None

    def _refuse_other_shard_counts(self) -> None:
        from filelock import FileLock, Timeout

        for other in sorted(self.path.parent.glob(f"{LOCK_STEM}.*lock")):
            if other == self.path:
                continue
            holder = read_holder(other.with_name(other.name + ".holder"))
            if holder is None or Shard.parse(holder.shard).count == self.shard.count:
                continue
            probe = FileLock(str(other), timeout=0)
            try:
                probe.acquire(timeout=0)
            except Timeout:
                raise LogDirBusy(busy_message(self.log_dir, holder)) from None
            probe.release()

    def release(self) -> None:
        if not self._lock.is_locked:
            return
        if read_holder(self.holder_path) == self.me:
            self.holder_path.unlink(missing_ok=True)
        self._lock.release()


def read_holder(path: Path) -> Holder | None:
    try:
        return Holder.from_json(path.read_text())
    except OSError:
        return None


# --------------------------------------------------------------------------------------------
# s3:// directory


def _s3_client() -> Any:
    """A plain botocore S3 client (botocore comes with s3fs, which Inspect uses for s3://)."""
    import botocore.session

    return botocore.session.get_session().create_client("s3")


def _precondition_failed(ex: Exception) -> bool:
    error = getattr(ex, "response", {}).get("Error", {})
    status = getattr(ex, "response", {}).get("ResponseMetadata", {}).get("HTTPStatusCode")
    return error.get("Code") in ("PreconditionFailed", "ConditionalRequestConflict") or status in (
        409,
        412,
    )


class S3Lock:
    def __init__(
        self,
        log_dir: str,
        shard: Shard,
        client: Any = None,
        heartbeat: float = HEARTBEAT_SECONDS,
        stale: float = STALE_SECONDS,
    ) -> None:
        bucket, _, prefix = log_dir.removeprefix("s3://").partition("/")
        prefix = prefix.strip("/")
        self.log_dir = log_dir
        self.shard = shard
        self.bucket = bucket
        self.prefix = f"{prefix}/" if prefix else ""
        self.key = f"{self.prefix}{lock_name(shard)}"
        self.me = Holder.me(shard)
        self.heartbeat = heartbeat
        self.stale = stale
        self.client = client or _s3_client()
        self.etag: str | None = None
        self.lost = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _put(self, **condition: str) -> str:
        beat = datetime.now(timezone.utc).isoformat(timespec="seconds")
        response = self.client.put_object(
            Bucket=self.bucket,
            Key=self.key,
            Body=self.me.to_json(heartbeat=beat).encode(),
            ContentType="application/json",
            **condition,
        )
        return str(response["ETag"])

    def _read(self, key: str) -> tuple[Holder | None, str, float] | None:
        """(holder, ETag, seconds since its last write by the store's clock), None if absent."""
        from email.utils import parsedate_to_datetime

        try:
            response = self.client.get_object(Bucket=self.bucket, Key=key)
        except Exception as ex:
            if getattr(ex, "response", {}).get("Error", {}).get("Code") in ("NoSuchKey", "404"):
                return None
            raise
        body = response["Body"].read()
        date = response["ResponseMetadata"]["HTTPHeaders"].get("date")
        now = parsedate_to_datetime(date) if date else datetime.now(timezone.utc)
        age = (now - response["LastModified"]).total_seconds()
        return Holder.from_json(body), str(response["ETag"]), age

    def acquire(self) -> Holder | None:
        previous = None
        try:
            self.etag = self._put(IfNoneMatch="*")
        except Exception as ex:
            if not _precondition_failed(ex):
                raise
            found = self._read(self.key)
            if found is None:  # released in between: try once more
                self.etag = self._put(IfNoneMatch="*")
            else:
                holder, etag, age = found
                if age < self.stale:
                    detail = f", last heartbeat {age:.0f} s ago"
                    raise LogDirBusy(busy_message(self.log_dir, holder, detail)) from None
                try:
                    self.etag = self._put(IfMatch=etag)
                except Exception as ex2:
                    if _precondition_failed(ex2):  # another run took it over first
                        raise LogDirBusy(busy_message(self.log_dir, None)) from None
                    raise
                previous = holder
        try:
            self._refuse_other_shard_counts()
        except LogDirBusy:
            self.release()
            raise
        self._thread = threading.Thread(target=self._beat, name="sweep-lock", daemon=True)
        self._thread.start()
        return previous

    def _refuse_other_shard_counts(self) -> None:
        listing = self.client.list_objects_v2(
            Bucket=self.bucket, Prefix=f"{self.prefix}{LOCK_STEM}."
        )
        for item in listing.get("Contents", []):
            key = item["Key"]
            if key == self.key or not key.endswith(".lock"):
                continue
            found = self._read(key)
            if found is None:
                continue
            holder, _, age = found
            if holder and Shard.parse(holder.shard).count != self.shard.count and age < self.stale:
                raise LogDirBusy(busy_message(self.log_dir, holder))

    def _beat(self) -> None:
        while not self._stop.wait(self.heartbeat):
            try:
                assert self.etag is not None
                self.etag = self._put(IfMatch=self.etag)
            except Exception as ex:
                if _precondition_failed(ex):
                    self.lost = True
                    print(
                        f"bedside-bench sweep: warning: the lock on {self.log_dir} was taken "
                        "over by another run (this run's heartbeat stalled too long)",
                        file=sys.stderr,
                    )
                    return
                # a transient store error: the next beat tries again

    def release(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self.etag is None or self.lost:
            return
        try:
            self.client.delete_object(Bucket=self.bucket, Key=self.key, IfMatch=self.etag)
        except Exception as ex:
            if not _precondition_failed(ex):  # a store without conditional deletes
                with contextlib.suppress(Exception):
                    found = self._read(self.key)
                    if found is not None and found[0] == self.me:
                        self.client.delete_object(Bucket=self.bucket, Key=self.key)
        self.etag = None


def dir_lock(log_dir: str, shard: Shard) -> DirLock:
    if log_dir.startswith("s3://"):
        return S3Lock(log_dir, shard)
    if "://" in log_dir and not log_dir.startswith("file://"):
        scheme = log_dir.split("://", 1)[0]
        raise SweepError(
            f"cannot lock a {scheme}:// log directory (local directories and s3:// are "
            "supported); use one of those"
        )
    return LocalLock(log_dir.removeprefix("file://"), shard)


@contextlib.contextmanager
def holding(log_dir: str, shard: Shard) -> Iterator[Holder | None]:
    """Hold the log directory's lock for the block; yields the killed run taken over, if any."""
    lock = dir_lock(log_dir, shard)
    previous = lock.acquire()
    try:
        yield previous
    finally:
        lock.release()
