"""The one guard every entry point of the package runs under (console script, `python -m`).

A reader that stops reading (`bedside-bench report LOGS | head -1`, `python -m
bedside_bench.report LOGS | head -1`) closes the pipe: the next write to stdout, or the
interpreter's last flush of a buffered stdout, raises BrokenPipeError. Every entry point ends
then as `ls | head` does: exit code 128 + SIGPIPE (`exit_codes.PIPE_CLOSED`), no traceback and
no "Exception ignored" line. `tests/test_entry_points.py` finds every entry point (console
scripts, `__main__` modules and blocks) and fails on one that does not use this guard.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from typing import ParamSpec

from bedside_bench.core import exit_codes

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

    return guarded
