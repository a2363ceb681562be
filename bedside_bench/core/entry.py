"""The one guard every entry point of the package runs under (console script, `python -m`).

A reader that stops reading (`bedside-bench report LOGS | head -1`, `python -m
bedside_bench.report LOGS | head -1`) closes the pipe: the next write to stdout, or the
interpreter's last flush of a buffered stdout, raises BrokenPipeError. Every entry point ends
then as `ls | head` does: exit code 128 + SIGPIPE (`exit_codes.PIPE_CLOSED`), no traceback and
no "Exception ignored" line. `tests/test_entry_points.py` finds every entry point (console
scripts, `__main__` modules and blocks) and fails on one that does not use this guard.

A remote store that refuses or cannot be reached (an `s3://` log directory without
credentials) ends any command in one line naming the store's error, exit 1, wherever the
command first touched the store (reading logs, writing them, a lock): the store is an input
of the user's, and its library's traceback says nothing a user can act on.
"""

from __future__ import annotations

import contextlib
import functools
import os
import queue
import sys
import threading
import time
from collections.abc import Callable
from typing import NoReturn, ParamSpec

from bedside_bench.core import exit_codes
from bedside_bench.core.safe_text import printable

P = ParamSpec("P")


def _stdout_to_devnull() -> None:
    """Point stdout at devnull, so that no later flush (the interpreter's at exit) can fail."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    finally:
        os.close(devnull)


def entry_point(main: Callable[P, int]) -> Callable[P, int]:
    """`main`, ending with `exit_codes.PIPE_CLOSED` when stdout's reader went away.

    stdout is flushed before `main` returns (or exits: argparse's `--help` raises SystemExit),
    so a buffered write that would fail only at interpreter exit fails here, where it is
    caught.
    """

    @functools.wraps(main)
    def guarded(*args: P.args, **kwargs: P.kwargs) -> int:
        try:
            try:
                return main(*args, **kwargs)
            finally:
                sys.stdout.flush()
        except BrokenPipeError:
            _stdout_to_devnull()
            return exit_codes.PIPE_CLOSED
        except Exception as ex:
            if not store_error(ex):
                raise
            print(store_error_line(ex), file=sys.stderr, flush=True)
            return exit_codes.ERROR

    return guarded


# the libraries through which logs and locks reach a remote store (s3:// through s3fs)
STORE_LIBRARIES = ("botocore", "aiobotocore", "boto3", "s3fs")


# seconds the threads a command leaves running get to end once it has returned
THREAD_GRACE = 10.0


def _lingering(current: threading.Thread) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t is not current and not t.daemon and t.is_alive()]


def _stop_if_abandoned(thread: threading.Thread) -> None:
    """Stop an anyio worker thread whose event loop has closed and that holds no work.

    anyio stops its workers when the task that started them ends; after a cancelled run that
    stop may never come (the loop closed first), and the worker waits on its queue for work
    that only that loop could give it. Told to stop as anyio tells it (`None` on its queue), it
    ends at once, and the process exits as usual (at-exit handlers included) instead of being
    ended after the whole grace. Recognised by what it holds (anyio's `WorkerThread`: `loop`,
    and `queue` counting unfinished work); a thread that does not hold them is waited for."""
    loop = getattr(thread, "loop", None)
    work = getattr(thread, "queue", None)
    is_closed = getattr(loop, "is_closed", None)
    if not callable(is_closed) or not isinstance(work, queue.Queue):
        return
    if is_closed() is True and work.unfinished_tasks == 0:
        with contextlib.suppress(queue.Full):
            work.put_nowait(None)


def exit_process(code: int, grace: float = THREAD_GRACE) -> NoReturn:
    """End a console script's process with `code` once its command has returned.

    Python waits at exit, without limit, for every non-daemon thread. A worker thread that
    anyio starts while asyncio is cancelling a run's last tasks (Inspect releases a log's
    buffer that way after a Ctrl-C) is never told to stop, so an interrupted command could
    say "interrupted" and then never exit. Such a worker, idle, is told to stop
    (`_stop_if_abandoned`); other threads get `grace` seconds to end; if any is still
    running then, the process ends at once with `code` (its logs are written: the command has
    returned). Otherwise it exits as usual, at-exit handlers included."""
    current = threading.current_thread()
    deadline = time.monotonic() + grace
    while (lingering := _lingering(current)) and time.monotonic() < deadline:
        for thread in lingering:  # a worker may be finishing its last work: looked at again
            _stop_if_abandoned(thread)
        lingering[0].join(min(0.05, max(0.0, deadline - time.monotonic())))
    if _lingering(current):
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(code)
    sys.exit(code)


def store_error(ex: BaseException) -> bool:
    """An error a remote store's library raised (no credentials, no bucket, no network):
    an input of the user's (the store named, its credentials), never a fault of the package."""
    return any(cls.__module__.split(".")[0] in STORE_LIBRARIES for cls in type(ex).__mro__)


def store_error_line(ex: BaseException) -> str:
    """One printable line: what the store said, its kind, and what to check."""
    said = printable(" ".join(str(ex).split()) or type(ex).__name__, 300)
    name = type(ex).__name__
    check = (
        "set credentials for the store (for s3://: AWS_ACCESS_KEY_ID and "
        "AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or an instance role)"
        if "Credentials" in name
        else "check the path, the credentials and the endpoint of the store"
    )
    return (
        f"bedside-bench: error: a remote store refused or could not be reached: {said} "
        f"({name}); {check}"
    )
