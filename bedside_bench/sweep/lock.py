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
import os
import time
from collections.abc import Iterator
from pathlib import Path

from filelock import FileLock, Timeout

from bedside_bench.core.extras import MissingExtra, require
from bedside_bench.core.safe_text import printable
from bedside_bench.sweep.lock_holder import (
    LOCK_STEM,
    DirLock,
    Holder,
    LogDirBusy,
    busy_message,
    lock_name,
    read_holder,
)
from bedside_bench.sweep.options import SweepError
from bedside_bench.sweep.s3_lock import S3Lock
from bedside_bench.sweep.shard import Shard


class LocalLock:
    def __init__(self, log_dir: str, shard: Shard) -> None:
        self.log_dir = log_dir
        self.shard = shard
        self.me = Holder.me(shard)
        self.path = Path(log_dir) / lock_name(shard)
        self.holder_path = self.path.with_name(self.path.name + ".holder")
        self._lock = FileLock(str(self.path), timeout=0)

    def acquire(self) -> Holder | None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._lock.acquire(timeout=0)
        except Timeout:
            raise LogDirBusy(busy_message(self.log_dir, self._read_holder())) from None
        except OSError as ex:  # a file where the folder should be, no permission, ...
            folder = Path(self.log_dir)
            is_file = folder.exists() and not folder.is_dir()
            reason = "a file, not a folder" if is_file else printable(ex.strerror or str(ex), 200)
            raise SweepError(
                f"cannot use {printable(self.log_dir, 300)} as the log directory ({reason}); "
                "nothing was run"
            ) from None
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

        for _ in range(10):
            holder = read_holder(self.holder_path)
            if holder is not None:
                return holder
            time.sleep(0.1)
        return None

    def _refuse_other_shard_counts(self) -> None:
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


def dir_lock(log_dir: str, shard: Shard) -> DirLock:
    if log_dir.startswith("s3://"):
        try:
            # conditional PUTs (If-None-Match) came with botocore 1.35
            require("botocore", "s3", "the lock of an s3:// log directory", minimum="1.35")
        except MissingExtra as ex:
            raise SweepError(str(ex)) from None
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
