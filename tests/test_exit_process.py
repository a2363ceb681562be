"""A console script's process ends with its command's code even when a library left a
non-daemon thread running that nothing will stop (as anyio's worker thread started during a
cancelled run's clean-up): Python would wait for it without limit. A process of its own each:
how the interpreter ends is the point."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import tomllib

pytestmark = pytest.mark.slow  # processes of their own (Python alone: under a second each)

LEFT_RUNNING = """
import atexit, threading
from bedside_bench.core.entry import exit_process
atexit.register(lambda: print("at exit", flush=True))
{thread}
print("interrupted", flush=True)
exit_process(130, grace=0.2)
"""
FOREVER = "threading.Thread(target=threading.Event().wait, name='worker').start()"
ENDS_SOON = "threading.Thread(target=threading.Event().wait, args=(0.05,), name='worker').start()"
# a run cancelled after it used a worker thread: the loop closes before anyio stops the worker
ANYIO_WORKER = """
import asyncio, anyio.to_thread
loop = asyncio.new_event_loop()
async def run():
    await anyio.to_thread.run_sync(lambda: None)
    raise KeyboardInterrupt
try:
    loop.run_until_complete(run())
except KeyboardInterrupt:
    pass
loop.close()
"""


def run(thread: str) -> subprocess.CompletedProcess[str]:
    code = textwrap.dedent(LEFT_RUNNING.format(thread=thread))
    # the timeout only stops a hung process from hanging the suite: it is the failure
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_a_thread_nothing_stops_does_not_hold_the_process() -> None:
    result = run(FOREVER)
    assert (result.returncode, result.stdout, result.stderr) == (130, "interrupted\n", "")


@pytest.mark.parametrize(
    "thread",
    [ENDS_SOON, "", ANYIO_WORKER],
    ids=["a thread that ends", "no thread", "an anyio worker whose loop closed"],
)
def test_otherwise_the_process_exits_as_usual(thread: str) -> None:
    result = run(thread)
    assert (result.returncode, result.stdout, result.stderr) == (130, "interrupted\nat exit\n", "")


def test_the_console_script_is_the_one_that_ends_the_process() -> None:
    project = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    assert project["project"]["scripts"]["bedside-bench"] == "bedside_bench.cli.main:console"
