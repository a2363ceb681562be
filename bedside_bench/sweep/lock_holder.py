"""Who holds a sweep's log directory: the holder record, the lock names and the lock
interface that the local and the s3:// locks share (see `sweep/lock.py`)."""

from __future__ import annotations

import json
import os
import socket
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Protocol

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

    def to_json(self, **extra: str) -> str:
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


def read_holder(path: Path) -> Holder | None:
    try:
        return Holder.from_json(path.read_text())
    except OSError:
        return None
