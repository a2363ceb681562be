"""The `bedside-bench` console script as a user runs it."""

from __future__ import annotations

from pathlib import Path

import pytest

from bedside_bench.benchmarks import BENCHMARKS
from tests.e2e_helpers import run_tool

pytestmark = pytest.mark.slow  # starts subprocesses (the console script)


def test_list_shows_every_task_with_its_scope(tmp_path: Path) -> None:
    result = run_tool("bedside-bench", "list", cwd=tmp_path, timeout=60)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 11
    for line, benchmark in zip(lines, BENCHMARKS, strict=False):
        assert line.split()[0] == f"bedside_bench/{benchmark.name}"
        assert benchmark.grading_method in line and line.endswith(benchmark.scope)
    assert lines[-1].startswith("bedside_bench/judge_check")


def test_help_names_the_subcommands(tmp_path: Path) -> None:
    result = run_tool("bedside-bench", "--help", cwd=tmp_path, timeout=60)
    assert result.returncode == 0
    for command in ("list", "report", "sweep"):
        assert command in result.stdout
