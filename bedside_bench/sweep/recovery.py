"""What a killed sweep leaves behind, and how a later run tidies it.

A sweep killed mid-way (SIGKILL, SIGTERM, a crash) leaves its logs "started". eval_set resumes
such a log (its completed cases are recovered from Inspect's sample buffer and reused) but never
deletes it, since it cannot know its writer stopped; left behind, it shows as running in
`inspect view` and holds a second copy of the cases it had finished. Only logs whose task has a
newer successful log, and whose writer is provably dead, are removed. The log-directory lock
(`lock.py`) guarantees no other sweep is writing meanwhile.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

import psutil
from fsspec.core import url_to_fs
from inspect_ai.log import list_eval_logs, read_eval_log

from bedside_bench.core import inspect_private

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog


def writer_gone(location: str) -> bool:
    """Whether the process that wrote a "started" log is provably dead: Inspect names each
    log's local sample buffer after its writer's pid. No local buffer proves nothing (the log
    may be written from another machine), so that counts as alive."""

    pids = [db.name.rsplit(".", 2)[-2] for db in inspect_private.sample_buffer_dbs(location)]
    return bool(pids) and all(p.isdigit() and not psutil.pid_exists(int(p)) for p in pids)


def remove_crash_log(location: str) -> None:
    """The log and its dead writer's sample buffer (otherwise kept for days as a safety net):
    each SQLite database with its write-ahead log and shared-memory files, and its folder
    once empty."""

    for db in inspect_private.sample_buffer_dbs(location):
        for path in (db, db.with_name(f"{db.name}-wal"), db.with_name(f"{db.name}-shm")):
            path.unlink(missing_ok=True)
        with contextlib.suppress(OSError):  # not empty: another log's buffer is there
            db.parent.rmdir()
    store, path = url_to_fs(location, use_listings_cache=False)  # any store Inspect writes to
    store.rm(path)


def remove_superseded_crash_logs(log_dir: str, logs: Sequence[EvalLog]) -> list[str]:
    """Delete logs a killed sweep left "started" once a later run of the same task finished."""

    finished = {log.eval.task_id: log.location for log in logs if log.status == "success"}
    removed = []
    for info in list_eval_logs(log_dir):
        header = read_eval_log(info, header_only=True)
        successor = finished.get(header.eval.task_id)
        if header.status != "started" or successor in (None, info.name):
            continue
        if writer_gone(info.name):
            remove_crash_log(info.name)
            removed.append(info.name)
    return removed


def run_key(log: EvalLog) -> tuple[str, str]:
    """(model, benchmark) of a log, the unit the sweep and its shards count in."""
    return log.eval.model, log.eval.task.rsplit("/", 1)[-1]


def complete_runs(logs: Sequence[EvalLog]) -> set[tuple[str, str]]:
    """The (model, benchmark) runs with a successful log of every case. Decided per run from
    what each log holds, never by counting logs: a directory may hold several logs of one run
    (an older sweep, a copy), and the report takes each case's newest score among them."""
    done = set()
    for log in logs:
        results = log.results
        if log.status != "success" or results is None:
            continue
        if results.completed_samples >= results.total_samples:
            done.add(run_key(log))
    return done


def was_interrupted(log_dir: str, logs: Sequence[EvalLog], runs: set[tuple[str, str]]) -> bool:
    """Whether Ctrl-C stopped the eval set.

    Inspect (0.3.285, asyncio) turns SIGINT into a cancellation that eval_set does not always
    raise: it can return `(True, logs)` with only the runs that had finished, leaving the
    others on disk with status "cancelled". A short result is therefore checked against the
    log directory (this sweep's runs only) rather than trusted.
    """
    if any(log.status == "cancelled" for log in logs):
        return True
    if {run_key(log) for log in logs} >= runs:
        return False

    for info in list_eval_logs(log_dir):
        header = read_eval_log(info, header_only=True)
        if header.status == "cancelled" and run_key(header) in runs:
            return True
    return False
