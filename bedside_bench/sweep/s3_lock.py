"""The log-directory lock on an `s3://` store, where no file lock exists (see `lock.py`).

The lock is an object created with a conditional PUT (`If-None-Match: *`), rewritten by a
heartbeat (`If-Match` its last ETag), judged stale by the store's own clock and taken over with
`If-Match`, so every step that decides ownership is one atomic request to the store.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Protocol, TypedDict

import botocore.session
import psutil
from botocore.exceptions import BotoCoreError, ClientError

from bedside_bench.core.safe_text import printable
from bedside_bench.sweep.lock_holder import (
    HEARTBEAT_SECONDS,
    LOCK_STEM,
    STALE_SECONDS,
    Holder,
    LogDirBusy,
    busy_message,
    lock_name,
)
from bedside_bench.sweep.options import SweepError
from bedside_bench.sweep.shard import Shard


class S3Body(Protocol):
    def read(self) -> bytes: ...


class HTTPMetadata(TypedDict):
    HTTPHeaders: dict[str, str]


class PutObjectResponse(TypedDict):
    ETag: str


class GetObjectResponse(TypedDict):
    Body: S3Body
    ETag: str
    LastModified: datetime
    ResponseMetadata: HTTPMetadata


class ObjectEntry(TypedDict):
    Key: str


class ListObjectsResponse(TypedDict, total=False):
    Contents: list[ObjectEntry]


class S3Client(Protocol):
    """The calls of botocore's S3 client the lock makes, and the response fields it reads
    (botocore builds its clients at run time and ships no types)."""

    def put_object(
        self,
        *,
        Bucket: str,
        Key: str,
        Body: bytes,
        ContentType: str,
        IfNoneMatch: str = ...,
        IfMatch: str = ...,
    ) -> PutObjectResponse: ...

    def get_object(self, *, Bucket: str, Key: str) -> GetObjectResponse: ...

    def list_objects_v2(self, *, Bucket: str, Prefix: str) -> ListObjectsResponse: ...

    def delete_object(self, *, Bucket: str, Key: str, IfMatch: str = ...) -> object: ...


def _s3_client() -> S3Client:
    """A plain botocore S3 client (botocore comes with s3fs, which Inspect uses for s3://)."""

    client: S3Client = botocore.session.get_session().create_client("s3")
    return client


def store_problem(log_dir: str, ex: Exception) -> str:
    """One line for an error of the store: what it said, its kind, and what to check."""
    said = printable(" ".join(str(ex).split()) or type(ex).__name__, 300)
    check = (
        "set AWS credentials for the bucket (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "
        "AWS_PROFILE, or an instance role)"
        if type(ex).__name__ in ("NoCredentialsError", "PartialCredentialsError")
        else "check the bucket, the credentials and the endpoint"
    )
    return (
        f"cannot take the lock of {printable(log_dir, 300)}: {said} ({type(ex).__name__}); "
        f"{check}; nothing was run"
    )


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
        client: S3Client | None = None,
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
        """Take the lock (the killed run taken over, if any). A store that refuses or cannot
        be reached (no credentials, no such bucket, no network) stops the sweep in one line
        naming the log directory, before anything is bought."""
        try:
            return self._acquire()
        except (BotoCoreError, ClientError) as ex:
            raise SweepError(store_problem(self.log_dir, ex)) from None

    def _acquire(self) -> Holder | None:
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
                if age < self.stale and not self._gone_from_this_host(holder):
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

    def _gone_from_this_host(self, holder: Holder | None) -> bool:
        """A holder on this machine whose process has ended (a killed sweep rerun here) need
        not be waited out: its heartbeat will never come again."""

        return (
            holder is not None
            and holder.host == self.me.host
            and holder.pid != self.me.pid
            and not psutil.pid_exists(holder.pid)
        )

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
