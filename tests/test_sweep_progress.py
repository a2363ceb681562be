"""A piped sweep's progress (`calls/progress.py`): Inspect's panels off, a plain line of cases
done, to go and failed at least every `PROGRESS_EVERY` seconds, and one when it ends."""

from __future__ import annotations

import io
import threading
import time
from pathlib import Path

import pytest

from bedside_bench.calls import progress as progress_module
from bedside_bench.calls.progress import PROGRESS_EVERY, Progress, progress_lines
from bedside_bench.core import exit_codes
from bedside_bench.doubles import ProviderDouble
from tests.e2e_helpers import output, run_sweep_cli, sweep_env
from tests.ledger import assert_bought_once
from tests.release_factory import write_release

LINE = "sweep: {done} cases done, {to_go} to go, {failed} failed ({runs} benchmark runs started"


def test_the_counts_follow_tasks_samples_and_retries() -> None:
    p = Progress()
    p.task_started("e1", "task-a", 3)
    p.task_started("e2", "task-b", 2)
    p.sample_ended("e1", failed=False)
    p.sample_ended("e1", failed=True)
    p.sample_ended("e2", failed=False)
    p.sample_ended("unknown", failed=False)  # another eval in the process: not ours
    assert p.line().startswith(LINE.format(done=2, to_go=2, failed=1, runs=2))
    # eval_set's retry of task-a: its failed case is to go again, its done one stays done
    p.task_started("e3", "task-a", 3)
    assert p.line().startswith(LINE.format(done=2, to_go=3, failed=0, runs=2))
    p.sample_ended("e3", failed=False)
    # the log's own counts at the task's end, a case reused from an earlier run included
    p.task_ended("e3", completed=3, total=3)
    p.task_ended("e2", completed=None, total=None)  # no results: the counts stand
    assert p.line().startswith(LINE.format(done=4, to_go=1, failed=0, runs=2))
    assert p.line().endswith("elapsed)")


def test_lines_come_while_the_block_runs_and_one_when_it_ends() -> None:
    assert PROGRESS_EVERY <= 15
    out = io.StringIO()
    with progress_lines(out, every=0.01) as p:
        assert progress_module._active is p
        p.task_started("e1", "t", 2)
        give_up = time.monotonic() + 60  # a stop for a hung ticker, not a duration asserted
        while out.getvalue().count("\n") < 2 and time.monotonic() < give_up:
            time.sleep(0.01)
    assert progress_module._active is None
    lines = out.getvalue().splitlines()
    assert all(line.startswith("sweep: ") for line in lines)
    assert lines[-1].startswith(LINE.format(done=0, to_go=2, failed=0, runs=1))
    assert not [t for t in threading.enumerate() if t.name == "sweep-progress"]


@pytest.mark.slow
def test_a_piped_sweep_prints_progress_lines_not_panels(tmp_path: Path) -> None:
    """In this process stdout is not a terminal, as in a pipe or CI log: no `--display`."""
    cases = write_release(tmp_path / "release", per_benchmark=2)
    model, judge = "openai/gpt-4.1-mini", "openai/gpt-4.1"
    args = [
        "--model", model, "--judge", judge, "--log-dir", str(tmp_path / "logs"),
        "--data-dir", str(tmp_path / "release"), "--benchmarks", "drug_safety,safety_diagnostic",
    ]  # fmt: skip
    with ProviderDouble() as double:
        env = sweep_env(double, tmp_path)
        env.pop("INSPECT_DISPLAY", None)
        result = run_sweep_cli(args, env, tmp_path)
        assert result.returncode == exit_codes.OK, output(result)
        run = {b: cases[b] for b in ("drug_safety", "safety_diagnostic")}
        assert_bought_once(double, run, [model])
    lines = result.stdout.splitlines()
    progress = [i for i, line in enumerate(lines) if "cases done" in line]
    assert progress, lines
    # the last one when the eval set ended, before the report's lines
    last = lines[progress[-1]]
    assert last.startswith(LINE.format(done=4, to_go=0, failed=0, runs=2)), lines
    report = next(i for i, line in enumerate(lines) if line.startswith("wrote 4 files to"))
    assert progress[-1] < report
    # Inspect's panels and live display are off (its hooks banner stays)
    assert not any(c in result.stdout + result.stderr for c in "╭│╰━")
    assert "Completed all tasks" not in result.stdout + result.stderr
