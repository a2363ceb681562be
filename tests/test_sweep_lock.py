"""One writer per log directory: the sweep's lock, locally and on an S3-compatible store.

The local lock is exercised through real processes (a killed holder leaves a holder file and
no OS lock); the S3 lock against moto's S3 server on 127.0.0.1, which implements the
conditional writes (`If-None-Match: *`, `If-Match`) the lock relies on. The end-to-end tests,
two sweeps on one log directory and a directory holding duplicate logs, are in
tests/test_sweep.py's style against the provider double: the sweep that holds the lock is a
process of its own (`start_sweep`), the others run in this process.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bedside_bench.core.exit_codes import ERROR as EXIT_ERROR
from bedside_bench.doubles import ProviderDouble
from bedside_bench.sweep.lock import LocalLock, dir_lock
from bedside_bench.sweep.lock_holder import Holder, LogDirBusy
from bedside_bench.sweep.s3_lock import S3Lock
from bedside_bench.sweep.shard import Shard
from tests.e2e_helpers import (
    assert_scored_once,
    expected_scores,
    output,
    read_logs,
    release_held,
    run_sweep_cli,
    start_sweep,
    stop,
    summaries,
    sweep_args,
    sweep_env,
    wait_for,
)
from tests.release_factory import write_release

WHOLE = Shard(1, 1)
HOST = socket.gethostname()

# --------------------------------------------------------------------------------------------
# local lock


def test_second_local_lock_is_refused_naming_the_holder(tmp_path: Path) -> None:
    first = LocalLock(str(tmp_path / "logs"), WHOLE)
    assert first.acquire() is None
    second = LocalLock(str(tmp_path / "logs"), WHOLE)
    with pytest.raises(LogDirBusy) as refused:
        second.acquire()
    message = str(refused.value)
    assert f"pid {os.getpid()} on {HOST}, started {first.me.started}" in message
    assert str(tmp_path / "logs") in message and "--log-dir" in message
    first.release()
    # released cleanly: no holder file left, so the next one takes over nothing
    assert not first.holder_path.exists()
    assert second.acquire() is None
    second.release()


@pytest.mark.slow
def test_lock_of_a_killed_process_is_taken_over(tmp_path: Path) -> None:
    log_dir = tmp_path / "logs"
    holder_script = (
        "import sys,time\n"
        "from bedside_bench.sweep.lock import LocalLock\n"
        "from bedside_bench.sweep.shard import Shard\n"
        f"lock = LocalLock({str(log_dir)!r}, Shard(1, 1))\n"
        "lock.acquire()\n"
        "print('locked', flush=True)\n"
        "time.sleep(600)\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", holder_script], stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "locked"
        with pytest.raises(LogDirBusy, match=f"pid {process.pid} on {HOST}"):
            LocalLock(str(log_dir), WHOLE).acquire()
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(10)
    lock = LocalLock(str(log_dir), WHOLE)
    previous = lock.acquire()
    assert previous is not None and (previous.pid, previous.host) == (process.pid, HOST)
    holder = json.loads(lock.holder_path.read_text())
    assert holder["pid"] == os.getpid()
    lock.release()


def test_shards_of_one_sweep_share_a_directory_but_not_with_another_split(
    tmp_path: Path,
) -> None:
    log_dir = str(tmp_path / "logs")
    one, two = LocalLock(log_dir, Shard(1, 3)), LocalLock(log_dir, Shard(2, 3))
    assert one.acquire() is None and two.acquire() is None
    with pytest.raises(LogDirBusy, match="shard 1/3"):
        LocalLock(log_dir, Shard(1, 3)).acquire()
    # a whole sweep, or another split, beside the running shards is refused
    with pytest.raises(LogDirBusy, match=r"shard [12]/3"):
        LocalLock(log_dir, WHOLE).acquire()
    with pytest.raises(LogDirBusy, match=r"shard [12]/3"):
        LocalLock(log_dir, Shard(1, 2)).acquire()
    one.release()
    two.release()
    whole = LocalLock(log_dir, WHOLE)
    assert whole.acquire() is None
    whole.release()


def test_only_local_and_s3_log_dirs_can_be_locked(tmp_path: Path) -> None:
    assert isinstance(dir_lock(str(tmp_path), WHOLE), LocalLock)
    assert isinstance(dir_lock(f"file://{tmp_path}", WHOLE), LocalLock)
    with pytest.raises(LogDirBusy.__mro__[1], match="cannot lock a gs:// log directory"):
        dir_lock("gs://bucket/logs", WHOLE)


# --------------------------------------------------------------------------------------------
# S3 lock (moto's server on 127.0.0.1)


@pytest.fixture
def s3_client(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://{host}:{port}")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    import botocore.session

    client = botocore.session.get_session().create_client("s3")
    client.create_bucket(Bucket="team")
    yield client
    server.stop()


def lock_object(client: Any, key: str = "sweeps/run1/.sweep.lock") -> dict[str, Any] | None:
    try:
        response = client.get_object(Bucket="team", Key=key)
    except client.exceptions.NoSuchKey:
        return None
    data: dict[str, Any] = json.loads(response["Body"].read())
    return data


@pytest.mark.slow
def test_s3_lock_refuses_a_second_writer_and_heartbeats(s3_client: Any) -> None:
    first = S3Lock("s3://team/sweeps/run1", WHOLE, heartbeat=0.3)
    assert first.acquire() is None
    written = lock_object(s3_client)
    assert written is not None
    assert (written["pid"], written["host"], written["started"]) == (
        os.getpid(),
        HOST,
        first.me.started,
    )
    with pytest.raises(LogDirBusy) as refused:
        S3Lock("s3://team/sweeps/run1", WHOLE).acquire()
    assert f"pid {os.getpid()} on {HOST}, started {first.me.started}" in str(refused.value)
    assert "last heartbeat" in str(refused.value)
    # the heartbeat rewrites the object (its ETag changes) while the run holds it
    etag = first.etag
    deadline = time.monotonic() + 10
    while first.etag == etag and time.monotonic() < deadline:
        time.sleep(0.1)
    assert first.etag != etag and not first.lost
    first.release()
    assert lock_object(s3_client) is None
    # another directory in the same bucket is another lock
    other = S3Lock("s3://team/sweeps/run2", WHOLE)
    assert other.acquire() is None
    other.release()


@pytest.mark.slow
def test_s3_lock_of_a_killed_run_is_taken_over_once_stale(s3_client: Any) -> None:
    gone = Holder(pid=4242, host="ci-runner-7", started="2026-01-01T00:00:00+00:00")
    s3_client.put_object(
        Bucket="team", Key="sweeps/run1/.sweep.lock", Body=gone.to_json(heartbeat="x").encode()
    )
    with pytest.raises(LogDirBusy, match="pid 4242 on ci-runner-7"):
        S3Lock("s3://team/sweeps/run1", WHOLE, stale=60).acquire()
    time.sleep(2.1)  # the store's clock has second resolution
    lock = S3Lock("s3://team/sweeps/run1", WHOLE, stale=1.0)
    assert lock.acquire() == gone
    written = lock_object(s3_client)
    assert written is not None and written["pid"] == os.getpid()
    # the killed run, had it come back, would find its lock gone: its ETag no longer matches
    lock.release()
    assert lock_object(s3_client) is None


# --------------------------------------------------------------------------------------------
# end to end


@pytest.mark.slow
def test_second_sweep_on_a_busy_log_dir_refuses_without_a_call_then_takes_over(
    tmp_path: Path, provider_double: ProviderDouble
) -> None:
    release = tmp_path / "release"
    write_release(release, per_benchmark=1)
    models = ["openai/gpt-4.1-mini"]
    logs = tmp_path / "logs"
    args = sweep_args(
        models, logs, "--judge", "openai/gpt-4.1", "--max-connections", "1", data_dir=release
    )
    env = sweep_env(provider_double, tmp_path)
    # the first sweep's one answer connection hangs: it stays busy, and asks nothing more
    provider_double.configure(latency=3600)
    first = start_sweep(args, env, tmp_path)
    try:
        wait_for(lambda: provider_double.count() >= 1, 120, first, "the first sweep asked nothing")
        first_pid = first.pid  # the sweep's own process, which the lock names
        before = provider_double.count()
        started = time.monotonic()
        second = run_sweep_cli(args, env, tmp_path)
        refused_in = time.monotonic() - started
        assert second.returncode == EXIT_ERROR, output(second)
        assert provider_double.count() == before  # not one call from the second sweep
        holder = json.loads((logs / ".sweep.lock.holder").read_text())
        assert holder["pid"] == first_pid
        # the refusal is the last word (a note on the release it loaded may come before it)
        assert second.stderr.strip().splitlines()[-1:] == [
            f"bedside-bench sweep: error: log directory {logs} is in use by another sweep "
            f"(pid {first_pid} on {HOST}, started {holder['started']}); wait for it to "
            "finish, or give another --log-dir"
        ], output(second)
        print(f"second sweep refused in {refused_in:.1f} s")
    finally:
        stop(first, signal.SIGKILL, timeout=60)

    # the killed sweep's lock is taken over; the run completes
    provider_double.configure(latency=0.0)
    third = run_sweep_cli(args, env, tmp_path)
    assert third.returncode == 0, output(third)
    assert (
        f"sweep: took over the lock of a run that is gone (pid {first_pid} on {HOST}, "
        f"started {holder['started']})" in third.stdout
    ), output(third)
    assert not (logs / ".sweep.lock.holder").exists()
    assert_scored_once(read_logs(logs), expected_scores(release, models), cases=10)


@pytest.mark.slow
def test_duplicate_logs_of_one_run_still_report_and_resume(
    tmp_path: Path, provider_double: ProviderDouble
) -> None:
    """Logs of the same runs written twice (the old two-sweeps-at-once behaviour, or a copy)
    are complete per case: the rerun makes no call, exits 0 and counts every case once."""
    release = tmp_path / "release"
    write_release(release, per_benchmark=2)
    models = ["openai/gpt-4.1-mini"]
    benchmarks = "drug_safety,safety_therapeutic"
    env = sweep_env(provider_double, tmp_path)
    runs = {}
    for name in ("a", "b"):
        args = sweep_args(
            models,
            tmp_path / name,
            "--judge",
            "openai/gpt-4.1",
            "--benchmarks",
            benchmarks,
            "--no-report",
            data_dir=release,
        )
        runs[name] = args
        result = run_sweep_cli(args, env, tmp_path)
        assert result.returncode == 0, output(result)
    for path in (tmp_path / "b").glob("*.eval"):
        shutil.copy(path, tmp_path / "a" / path.name)
    assert len(list((tmp_path / "a").glob("*.eval"))) == 4

    before = provider_double.count()
    args = [a for a in runs["a"] if a != "--no-report"]
    rerun = run_sweep_cli(args, env, tmp_path)
    assert rerun.returncode == 0, output(rerun)
    assert provider_double.count() == before
    assert "sweep: 2/2 benchmark runs complete" in rerun.stdout, output(rerun)
    (summary,) = summaries(tmp_path / "a" / "report").values()
    assert (summary["cases_completed"], summary["cases_failed"]) == (4, 0)
    assert set(summary["benchmarks"]) == {"drug_safety", "safety_therapeutic"}
    assert len(summary["logs"]) == 4  # both copies read, each case counted once


@pytest.mark.slow
def test_second_sweep_on_a_busy_s3_store_refuses_without_a_call(
    tmp_path: Path, provider_double: ProviderDouble, s3_client: Any
) -> None:
    """The same through `bedside-bench sweep --log-dir s3://...` against moto's server: the
    lock object refuses the second sweep, is deleted when the first finishes, and the store's
    logs then resume with no call."""
    release = tmp_path / "release"
    write_release(release, per_benchmark=1)
    models = ["openai/gpt-4.1-mini"]
    store = "s3://team/sweeps/run1"
    args = sweep_args(
        models,
        Path("unused"),
        "--judge",
        "openai/gpt-4.1",
        "--benchmarks",
        "drug_safety",
        "--no-report",
        data_dir=release,
    )
    args[args.index("unused")] = store
    env = {
        **sweep_env(provider_double, tmp_path),
        **{k: os.environ[k] for k in os.environ if k.startswith("AWS_")},
        "NO_PROXY": "127.0.0.1,localhost",
    }
    # the first sweep's one answer call is held until the second sweep has been refused
    provider_double.configure(hold_until_in_flight=2)
    first = start_sweep(args, env, tmp_path)
    try:
        wait_for(lambda: provider_double.count() >= 1, 120, first, "the first sweep asked nothing")
        first_pid = first.pid  # the sweep's own process, which the lock names
        before = provider_double.count()
        second = run_sweep_cli(args, env, tmp_path)
        assert second.returncode == EXIT_ERROR, output(second)
        assert provider_double.count() == before
        holder = lock_object(s3_client)
        assert holder is not None and holder["pid"] == first_pid
        assert (
            f"log directory {store} is in use by another sweep (pid {first_pid} on {HOST}, "
            f"started {holder['started']}, last heartbeat" in second.stderr
        ), output(second)
        release_held(provider_double)  # the answer, then its judge call, go at once
        out, err = stop(first, None, timeout=300)
        assert first.returncode == 0, f"{out}\n{err}"
    finally:
        stop(first)
    assert lock_object(s3_client) is None  # released
    before = provider_double.count()
    again = run_sweep_cli(args, env, tmp_path)
    assert again.returncode == 0, output(again)
    assert provider_double.count() == before
    assert "sweep: 1/1 benchmark runs complete" in again.stdout
