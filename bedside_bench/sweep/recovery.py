"""What failed, retried and killed runs leave behind, and how the sweep tidies it.

Every try of a (benchmark, model) run writes a log of its own, started from the one before it
(a failed try, the log recovered from a killed run's sample buffer), so the log eval_set ends
a run with holds every case the earlier ones hold; those are then superseded. eval_set would
delete them itself, keeping each run's newest log by modification time, but that time is not
an order: an object store gives whole seconds, so a retry that finishes within the second its
failed try was last written ties with it (and loses the tie to the older name), and a store
written from two machines has two clocks. The finished log was then the one deleted. So the
sweep turns eval_set's tidying off and removes what the logs eval_set returned supersede:
which log ended a run is known, not guessed.

A sweep killed mid-way (SIGKILL, SIGTERM, a crash) leaves its logs "started". eval_set resumes
such a log (its completed cases are recovered from Inspect's sample buffer and reused) but
cannot know its writer stopped; left behind, it shows as running in `inspect view` and holds a
second copy of the cases it had finished. It is removed only once its run has a successful log
and its writer is provably dead. The log-directory lock (`lock.py`) guarantees no other sweep
is writing meanwhile.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

import psutil
from fsspec.core import url_to_fs
from inspect_ai.log import list_eval_logs, read_eval_log, read_eval_log_sample_summaries

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


def location_key(location: str) -> str:
    """One spelling of a log's location: Inspect gives a local log as a path or a `file:` URL
    depending on where it was read from (a listing, the log eval_set returns)."""
    store, path = url_to_fs(location, use_listings_cache=False)
    return str(store.unstrip_protocol(path))


def remove_superseded_logs(log_dir: str, logs: Sequence[EvalLog]) -> list[str]:
    """Delete the logs that the logs eval_set returned (one per run, the last try of each)
    supersede: every other log of the same task, except a "started" one unless its run
    finished and its writer is provably dead. Never a returned log, whatever the times."""

    last_try = {log.eval.task_id: log for log in logs}
    kept = {location_key(log.location) for log in logs}
    removed = []
    for info in list_eval_logs(log_dir):
        header = read_eval_log(info, header_only=True)
        successor = last_try.get(header.eval.task_id)
        if successor is None or location_key(info.name) in kept:
            continue
        if header.status != "started":
            store, path = url_to_fs(info.name, use_listings_cache=False)
            store.rm(path)
        elif successor.status == "success" and writer_gone(info.name):
            remove_crash_log(info.name)
        else:
            continue
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


def scored_cases(log_dir: str, runs: set[tuple[str, str]]) -> set[tuple[str, str, str, int]]:
    """(model, benchmark, case id, epoch) of every case of `runs` some log in `log_dir` holds
    scored without an error, whatever the log's status: what a stopped sweep keeps."""
    found = set()
    for info in list_eval_logs(log_dir):
        run = run_key(read_eval_log(info, header_only=True))
        if run not in runs:
            continue
        for summary in read_eval_log_sample_summaries(info):
            if summary.error is None and summary.scores:
                found.add((*run, str(summary.id), summary.epoch))
    return found
