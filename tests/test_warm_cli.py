"""The warm start (tests/warm_cli) changes nothing a test can see but the time: a command
started warm prints, exits and answers signals as the console script started cold does, and
killing the stand-in kills the command."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import psutil
import pytest

from tests import warm_cli
from tests.doubles import ProviderDouble
from tests.e2e_helpers import eval_args, read_logs, run_tool, start_tool, stop, sweep_env
from tests.release_factory import write_release

pytestmark = pytest.mark.slow  # subprocesses, a provider double

SAME_AS_COLD = (
    ("bedside-bench", "--help"),
    ("bedside-bench", "list"),
    ("bedside-bench", "report", "missing-logs"),
    ("bedside-bench", "sweep", "--no-such-flag"),
    ("inspect", "list", "tasks", "bedside_bench"),
    ("inspect", "eval", "bedside_bench/drug_safety", "--model", "openai/x", "-T", "data_dir=x"),
)


SAME_AS_COLD_MODULES = (
    ("bedside_bench.report", "--no-such-flag"),
    ("bedside_bench.documents.schemas", "--check"),  # a module with a __main__ block
    ("bedside_bench.sweep", "--help"),
)


def test_a_warm_command_prints_and_exits_as_the_cold_one(tmp_path: Path) -> None:
    """Including what depends on the working folder (Inspect keeps its import's folder as a
    default argument: the server gives each command its own) and the program's name."""
    (tmp_path / "bedside_bench").mkdir()  # a folder `inspect list tasks` would search
    (tmp_path / "bedside_bench" / "here.py").write_text(
        "from inspect_ai import task\n\n@task\ndef here():\n    pass\n"
    )
    for tool, *args in SAME_AS_COLD:
        warm = run_tool(tool, *args, cwd=tmp_path, timeout=120)
        cold = run_tool(tool, *args, cwd=tmp_path, timeout=120, warm=False)
        assert warm.args[:2] != cold.args[:2]  # one went through the server
        assert (warm.returncode, warm.stdout, warm.stderr) == (
            cold.returncode,
            cold.stdout,
            cold.stderr,
        ), " ".join(args)
    for module, *args in SAME_AS_COLD_MODULES:
        warm, cold = (
            subprocess.run(
                [*warm_cli.module_command(module, warm=start), *args],
                cwd=tmp_path,
                capture_output=True,
                text=True,
                timeout=120,
            )
            for start in (True, False)
        )
        assert (warm.returncode, warm.stdout, warm.stderr) == (
            cold.returncode,
            cold.stdout,
            cold.stderr,
        ), module
    listed = run_tool("inspect", "list", "tasks", "bedside_bench", cwd=tmp_path)
    assert listed.stdout.split() == ["bedside_bench/here.py@here"]


def server_children() -> list[psutil.Process]:
    assert warm_cli._server is not None
    return psutil.Process(warm_cli._server.pid).children()


def ended(process: psutil.Process) -> bool:
    """Dead: gone, or a zombie its parent (the server) has yet to reap."""
    try:
        return not process.is_running() or process.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def no_children_left() -> bool:
    deadline = time.monotonic() + 5
    while any(not ended(child) for child in server_children()):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def interrupt(
    tmp_path: Path, double: ProviderDouble, how: signal.Signals, warm: bool
) -> tuple[int, list[psutil.Process]]:
    """`inspect eval` of one case whose answer never comes, sent `how` once it has asked; its
    exit status, and the server's children it had (the command, when warm)."""
    release = tmp_path / "release"
    write_release(release, per_benchmark=1)
    env = sweep_env(double, tmp_path)
    double.configure(latency=3600)
    seen = double.count()
    args = eval_args("drug_safety", tmp_path / f"logs-{warm}", "-T", f"data_dir={release}")
    process = start_tool("inspect", *args, env=env, cwd=tmp_path, warm=warm)
    try:
        deadline = time.monotonic() + 60
        while double.count() == seen:
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        children = server_children() if warm else []
        stop(process, how, timeout=60)
    finally:
        stop(process)
    return process.returncode, children


def test_sigint_reaches_the_command_and_its_exit_comes_back(
    tmp_path: Path, provider_double: ProviderDouble
) -> None:
    """The answer never comes, so only the signal ends the command: warm as cold, with the
    same exit status and the same log."""
    cold, _ = interrupt(tmp_path, provider_double, signal.SIGINT, warm=False)
    warm, (command,) = interrupt(tmp_path, provider_double, signal.SIGINT, warm=True)
    assert warm == cold != 255  # 255: the stand-in lost the server
    assert ended(command)
    (cold_log,) = read_logs(tmp_path / "logs-False")
    (warm_log,) = read_logs(tmp_path / "logs-True")
    assert warm_log.status == cold_log.status == "cancelled"


def test_sigkill_of_the_stand_in_kills_the_command(
    tmp_path: Path, provider_double: ProviderDouble
) -> None:
    """SIGKILL cannot be forwarded: the server kills the command when its stand-in is gone,
    before the stand-in's output ends (so a test reading it to the end finds it dead)."""
    code, (command,) = interrupt(tmp_path, provider_double, signal.SIGKILL, warm=True)
    assert code == -signal.SIGKILL
    assert ended(command)
    assert no_children_left()


def test_a_client_gone_before_its_command_started_leaves_the_server_serving(
    tmp_path: Path,
) -> None:
    """A stand-in killed between connecting and sending, or mid-request: the server neither
    hangs on it nor dies of it, and the next command runs."""
    import socket
    import struct

    run_tool("bedside-bench", "--help", cwd=tmp_path)  # the server is up
    assert warm_cli._socket is not None and warm_cli._server is not None
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    silent.connect(warm_cli._socket)
    silent.close()
    partial = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    partial.connect(warm_cli._socket)
    partial.sendall(struct.pack("!I", 1000) + b'{"script"')
    partial.close()
    started = time.monotonic()
    after = run_tool("bedside-bench", "--help", cwd=tmp_path, timeout=60)
    assert after.returncode == 0 and "sweep" in after.stdout
    assert time.monotonic() - started < 10
    assert warm_cli._server.poll() is None


def ignoring_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def test_a_signal_the_caller_ignored_is_ignored_by_the_command(
    tmp_path: Path, provider_double: ProviderDouble
) -> None:
    """As under `nohup` or a preexec_fn: SIGINT ignored by the caller leaves the command
    running, warm as cold."""
    release = tmp_path / "release"
    write_release(release, per_benchmark=1)
    env = sweep_env(provider_double, tmp_path)
    provider_double.configure(latency=3600)
    args = eval_args("drug_safety", tmp_path / "logs", "-T", f"data_dir={release}")
    process = start_tool("inspect", *args, env=env, cwd=tmp_path, preexec_fn=ignoring_sigint)
    try:
        deadline = time.monotonic() + 60
        while provider_double.count() == 0:
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        (command,) = server_children()
        process.send_signal(signal.SIGINT)
        time.sleep(2)
        assert process.poll() is None and not ended(command)
    finally:
        stop(process, signal.SIGKILL, timeout=60)
    assert ended(command)
