"""A sweep stops on SIGINT even when started with SIGINT ignored (a background job of a shell
script), and on SIGTERM, while its calls are on the wire; nothing it finished is asked again
by the next run. Through the CLI against the provider double: the signalled sweeps are
processes of their own, the last run is in this process. How fast it stops:
benchmarks/bench_sweep_sigint.py (`--signal SIGTERM` for SIGTERM).

A sweep stopped by a plain SIGINT (a terminal's Ctrl-C): tests/test_kill_after_judging.py;
a drain ended by its grace (the calls in flight are held and never come back):
tests/test_sweep_resilience.py's killed sweep."""

from __future__ import annotations

import random
import shlex
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from inspect_ai.log import EvalLog

from bedside_bench.doubles import ProviderDouble
from tests.e2e_helpers import (
    BEDSIDE_BENCH,
    assert_bought_once,
    assert_scored_once,
    expected_scores,
    local_path,
    ok,
    output,
    read_logs,
    run_sweep_cli,
    stop,
    sweep_args,
    sweep_env,
    wait_for,
)
from tests.release_factory import write_release

pytestmark = pytest.mark.slow  # subprocesses, Inspect evals and a provider double

# two benchmarks (one of each grading method), ten cases each: the cases of a sweep with
# two evals a model instead of ten
BENCHMARKS = ("drug_safety", "safety_diagnostic")
PER_BENCHMARK = 10
CASES = len(BENCHMARKS) * PER_BENCHMARK


TWO_MODELS = ["openai/gpt-4.1-mini", "anthropic/claude-sonnet-4-6"]
# what the sweep logs when a first signal starts a drain (short: a display wraps long lines)
DRAIN_LINE = "no new call is started"


def scored(logs: Path) -> set[tuple[str, str, int]]:
    """(model, case id, epoch) of every case some log holds scored without an error."""
    return {
        (log.eval.model, str(sample.id), sample.epoch)
        for log in read_logs(logs)
        for sample in log.samples or []
        if sample.error is None and sample.scores
    }


@pytest.mark.slow
def test_a_first_signal_keeps_the_calls_in_flight_and_the_rerun_buys_each_call_once(
    tmp_path: Path, provider_double: ProviderDouble
) -> None:
    """Two stops at random points of a two-model sweep, each while calls are on the wire (the
    judge's replies held, then every reply held): the first SIGINT, to a sweep started with
    SIGINT ignored (a background job of a shell script), then a SIGTERM. The double
    bills a request its client abandons, as a provider does, so a call cancelled in flight
    would be bought twice; here the held replies are let go once the sweep says it drains,
    and over both stops and the same command run again every answer and judge call is bought
    once. Each stopped run ends 130 / 143 with one last line: the cases kept, the cases to
    go, the command that resumes; nothing it printed says the tasks completed."""
    release = tmp_path / "release"
    release_cases = write_release(release, per_benchmark=PER_BENCHMARK)  # 20 a model swept
    cases = {benchmark: release_cases[benchmark] for benchmark in BENCHMARKS}
    provider_double.configure(bill_abandoned=True)
    logs = tmp_path / "logs"
    args = sweep_args(
        TWO_MODELS,
        logs,
        "--judge",
        "openai/gpt-4.1",
        "--benchmarks",
        ",".join(BENCHMARKS),
        "--max-connections",
        "4",
        "--no-report",
        # the drain waits for the test to let the replies go: no grace may end it first
        "--stop-grace",
        "600",
        data_dir=release,
    )
    env = sweep_env(provider_double, tmp_path)
    rng = random.Random(29)
    for how, held in (
        (signal.SIGINT, {"judge_latency": 3600}),
        (signal.SIGTERM, {"latency": 3600}),
    ):
        provider_double.configure(latency=0.05, judge_latency=None)
        judged = len(ok(provider_double.requests(kind="judge")))
        before = {log.location: last_written(log) for log in read_logs(logs)}
        out_path, err_path = tmp_path / f"{how.name}.out", tmp_path / f"{how.name}.err"
        with out_path.open("w") as out_file, err_path.open("w") as err_file:
            # streams to files, read while it runs: the drain is announced in its log
            # SIGINT ignored as a shell script's background job has it (set by a shell
            # before the exec: no Python runs in a child forked from this threaded process)
            ignore = ["sh", "-c", 'trap "" INT; exec "$0" "$@"'] if how == signal.SIGINT else []
            process = subprocess.Popen(
                [*ignore, str(BEDSIDE_BENCH), "sweep", *args],
                env=env,
                cwd=tmp_path,
                text=True,
                stdout=out_file,
                stderr=err_file,
            )

        def announced(paths: tuple[Path, ...] = (out_path, err_path)) -> bool:
            return any(DRAIN_LINE in path.read_text() for path in paths)

        try:
            wait_for(judged_since_count(provider_double, judged + rng.randint(1, 8)), 180, process)
            provider_double.configure(**held)
            wait_for(lambda: provider_double.in_flight >= 1, 120, process)
            process.send_signal(how)
            wait_for(announced, 120, process, "the sweep did not announce its drain")
            provider_double.configure(latency=0.0, judge_latency=None)  # the replies come back
            process.wait(timeout=300)
        finally:
            stop(process)
        out, err = out_path.read_text(), err_path.read_text()
        assert process.returncode == 128 + how, f"{out}\n{err}"
        kept = len(scored(logs))
        note = "" if how == signal.SIGINT else " (SIGTERM)"
        command = shlex.join(["bedside-bench", "sweep", *args])
        last = (out + err).strip().splitlines()[-1]
        assert last == (
            f"bedside-bench sweep: interrupted{note}: {kept} of 40 cases kept, {40 - kept} to "
            f"go; run the same command again to resume: {command}"
        )
        assert "completed all tasks" not in (out + err).lower()
        assert "successfully" not in (out + err).lower()
        # what finished is in the logs the signal left (cancelled, not "started"); a log this
        # round wrote is one whose file is new or changed since it started
        statuses = {log.status for log in read_logs(logs)}
        assert "started" not in statuses
        mine = [log for log in read_logs(logs) if last_written(log) != before.get(log.location)]
        assert "cancelled" in {log.status for log in mine}, [log.location for log in mine]

    provider_double.configure(latency=0.0, judge_latency=None)
    result = run_sweep_cli(args, env, tmp_path)
    assert result.returncode == 0, output(result)
    assert_bought_once(provider_double, cases, TWO_MODELS)
    expected = expected_scores(release, TWO_MODELS, BENCHMARKS)
    assert_scored_once(read_logs(logs), expected, cases=2 * CASES)


def last_written(log: EvalLog) -> int:
    """When the log's file was last written (ns)."""
    return local_path(log.location).stat().st_mtime_ns


def judged_since_count(double: ProviderDouble, count: int) -> Callable[[], bool]:
    """The double has answered `count` judge calls in all."""
    return lambda: len(ok(double.requests(kind="judge"))) >= count
