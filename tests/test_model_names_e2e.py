"""A misspelt provider in every command that takes a model or judge name, as a user types it,
against the provider doubles: one line naming the closest provider, exit 1, nothing bought, no
log written. (`inspect eval -T judge_model=`: tests/test_judge_preflight.py.)"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from bedside_bench.core import exit_codes
from bedside_bench.doubles import ProviderDouble
from tests.conftest import SYNTHETIC_RELEASE
from tests.e2e_helpers import Result, output, run_sweep_cli, run_tool, sweep_args, sweep_env
from tests.ledger import ledger

pytestmark = pytest.mark.slow

TYPO = "antropic/claude-sonnet-4-6"
SUGGESTION = (
    "Inspect knows no model provider 'antropic' (did you mean anthropic/claude-sonnet-4-6?)"
)


@pytest.fixture(scope="module")
def double() -> Iterator[ProviderDouble]:
    with ProviderDouble() as started:
        yield started


def refused_in_one_line(result: Result, double: ProviderDouble, logs: Path) -> str:
    assert result.returncode == exit_codes.ERROR, output(result)
    assert result.stdout == "", output(result)
    (line,) = result.stderr.splitlines()
    assert ledger(double) == Counter() and double.requests() == []  # nothing bought
    assert not logs.exists()
    return line


@pytest.mark.parametrize("role", ["model", "judge"])
def test_sweep(tmp_path: Path, double: ProviderDouble, role: str) -> None:
    logs = tmp_path / "logs"
    if role == "model":  # the command: the second of two models misspelt
        args = sweep_args(["openai/gpt-4.1-mini", TYPO], logs, data_dir=SYNTHETIC_RELEASE)
    else:
        args = sweep_args(["openai/gpt-4.1-mini"], logs, "--judge", TYPO)
    result = run_sweep_cli(args, sweep_env(double, tmp_path), tmp_path)
    line = refused_in_one_line(result, double, logs)
    assert line == f"bedside-bench sweep: error: {role} {TYPO}: {SUGGESTION}"


def test_rejudge(tmp_path: Path, double: ProviderDouble) -> None:
    source = tmp_path / "source"
    source.mkdir()
    out = tmp_path / "rejudged"
    result = run_tool(
        "bedside-bench",
        "rejudge",
        str(source),
        "--judge",
        TYPO,
        "--output-dir",
        str(out),
        env=sweep_env(double, tmp_path),
        cwd=tmp_path,
    )
    line = refused_in_one_line(result, double, out)
    assert line == f"bedside-bench rejudge: error: judge {TYPO}: {SUGGESTION}"
