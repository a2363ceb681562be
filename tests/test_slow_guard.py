"""The conftest guard: a test without @pytest.mark.slow cannot start slow work.

These tests are themselves unmarked, so the guard is active while they run.
"""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Callable

import pytest

from bedside_bench.doubles import ProviderDouble
from tests import conftest


def listen() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()


@pytest.mark.parametrize(
    ("start", "what"),
    [
        (lambda: subprocess.run(["true"], check=True), "a subprocess"),
        (lambda: ProviderDouble().start(), "a provider double"),
        (listen, "a server (a listening socket)"),
    ],
    ids=["subprocess", "double", "server"],
)
def test_an_unmarked_test_cannot_start_slow_work(start: Callable[[], object], what: str) -> None:
    with pytest.raises(pytest.fail.Exception) as refused:
        start()
    assert str(refused.value) == (
        "tests/test_slow_guard.py::test_an_unmarked_test_cannot_start_slow_work"
        f"[{refused_id(what)}] starts {what} but is not marked @pytest.mark.slow "
        "(mark the test, or its module with `pytestmark = pytest.mark.slow`)"
    )
    assert conftest._started_unmarked == [str(refused.value)]
    conftest._started_unmarked.clear()  # else the guard fails this test after its call


def refused_id(what: str) -> str:
    return {"a subprocess": "subprocess", "a provider double": "double"}.get(what, "server")


@pytest.mark.slow
def test_a_marked_test_may() -> None:
    assert subprocess.run(["true"], check=True).returncode == 0
    assert conftest._started_unmarked == []
