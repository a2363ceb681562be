"""Test functions of every ending, for `test_own_process.py`: each is run by the own_process
runner in a process of its own (not collected: the name does not start with test_)."""

from __future__ import annotations

import os
import sys


def returns(value: int) -> None:
    assert value == 7


def fails_an_assertion(value: int) -> None:
    assert value == 8, "seven is not eight"


def exits_zero() -> None:
    sys.exit(0)


def ends_the_process_with_status_zero() -> None:
    os._exit(0)


def interrupted() -> None:
    raise KeyboardInterrupt


def prints_the_pass_line_then_fails() -> None:
    print("own_process: the test function returned", flush=True)
    raise RuntimeError("after the line")


def hangs() -> None:
    import time

    time.sleep(3600)
