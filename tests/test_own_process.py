"""The runner of `own_process` tests (tests/conftest.py) passes a test only when its function
returned: an exit of any status from inside it, an exception of any kind, or a hang fails it,
with the child's output. Each case is a plain Python process of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import own_process_failure

pytestmark = pytest.mark.slow  # processes of their own

ROOT = Path(__file__).resolve().parent.parent
CASES = "tests.own_process_cases"


def test_a_function_that_returns_passes_with_its_parameters() -> None:
    assert own_process_failure(CASES, "returns", {"value": 7}, ROOT) is None


@pytest.mark.parametrize(
    ("name", "params", "expected"),
    [
        ("returns", {"value": 6}, "AssertionError"),
        ("fails_an_assertion", {"value": 7}, "seven is not eight"),
        ("exits_zero", {}, "SystemExit"),
        ("ends_the_process_with_status_zero", {}, "(exit 0, the function did not return)"),
        ("interrupted", {}, "KeyboardInterrupt"),
        ("prints_the_pass_line_then_fails", {}, "RuntimeError: after the line"),
    ],
)
def test_every_other_ending_fails_and_says_why(
    name: str, params: dict[str, int], expected: str
) -> None:
    failure = own_process_failure(CASES, name, params, ROOT)
    assert failure is not None and expected in failure, failure


def test_a_hang_fails_with_the_stack_of_every_thread() -> None:
    failure = own_process_failure(CASES, "hangs", {}, ROOT, timeout=32.0)
    assert failure is not None and "Thread 0x" in failure and "(exit 1" in failure, failure
