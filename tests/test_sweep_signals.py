"""A sweep stops on SIGINT even when started with SIGINT ignored (a background job of a shell
script), and on SIGTERM, while its requests are held; nothing it finished is asked again by
the next run. Through the CLI against the provider double: the signalled sweeps are processes
of their own, the last run is in this process. How fast it stops:
benchmarks/bench_sweep_sigint.py (`--signal SIGTERM` for SIGTERM)."""

from __future__ import annotations

import random
import shlex
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from bedside_bench.core.signals import GRACE_ENV
from bedside_bench.doubles import ProviderDouble, Script
from tests.e2e_helpers import (
    BEDSIDE_BENCH,
    asked_again,
    assert_bought_once,
    assert_scored_once,
    expected_scores,
    holding_at_judge_replies,
    judged_cases,
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

MODELS = ["openai/gpt-4.1-mini"]
IN_TRANSIT = 0.5  # seconds for a reply already sent to reach a loaded client
# two benchmarks (one of each grading method), ten cases each: the cases of a sweep with
# two evals a model instead of ten
BENCHMARKS = ("drug_safety", "safety_diagnostic")
PER_BENCHMARK = 10
CASES = len(BENCHMARKS) * PER_BENCHMARK


def judged_since(double: ProviderDouble, seen: int, count: int) -> Callable[[], bool]:
    """This run has had `count` judge calls answered (the double's earlier ones not counted)."""
    return lambda: len(ok(r for r in double.requests()[seen:] if r.kind == "judge")) >= count


def ignoring_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.slow
def test_signals_stop_a_sweep_promptly_and_keep_what_it_finished(
    tmp_path: Path, provider_double: ProviderDouble
) -> None:
    release = tmp_path / "release"
    write_release(release, per_benchmark=PER_BENCHMARK)  # 20 cases in the benchmarks swept
    logs = tmp_path / "logs"
    args = sweep_args(
        MODELS,
        logs,
        "--judge",
        "openai/gpt-4.1",
        "--benchmarks",
        ",".join(BENCHMARKS),
        "--no-report",
        data_dir=release,
    )
    # the held requests never come back: the drain of the first signal ends at its grace
    env = {**sweep_env(provider_double, tmp_path), GRACE_ENV: "2"}
    done: set[tuple[str, str]] = set()
    for how in (signal.SIGINT, signal.SIGTERM):
        seen = provider_double.count()
        # SIGINT comes after 4 cases were judged, the double holding everything from that
        # moment; SIGTERM while the first requests are held (answers kept from the first run
        # make the second quick: it could end before a late hold took effect)
        if how == signal.SIGINT:
            provider_double.configure(
                latency=0.25, script=holding_at_judge_replies(provider_double, 4)
            )
        else:
            provider_double.configure(latency=3600, script=Script())
        process = subprocess.Popen(
            [str(BEDSIDE_BENCH), "sweep", *args],
            env=env,
            cwd=tmp_path,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=ignoring_sigint if how == signal.SIGINT else None,
        )
        try:
            if how == signal.SIGINT:
                wait_for(judged_since(provider_double, seen, 4), 120, process)
                assert provider_double.latency == 3600  # held since the 4th judge reply
                # no wait for the log: a case judged but not yet written keeps its answer
                # and judge reply for the next run (kept_calls); only a reply already on the
                # wire is given time to arrive (lost in transit, any client pays it again)
                time.sleep(IN_TRANSIT)
            else:
                wait_for(lambda start=seen: provider_double.count() > start, 120, process)
            out, err = stop(process, how, timeout=300)  # generous: a loaded machine
        finally:
            stop(process)
        assert process.returncode == 128 + how, f"{out}\n{err}"
        assert f"interrupted{'' if how == signal.SIGINT else ' (SIGTERM)'}: " in err
        assert "; run the same command again to resume: bedside-bench sweep --model" in err
        assert asked_again(provider_double.requests()[seen:], done) == []
        done = judged_cases(provider_double.requests())
        # what finished is in the logs the signal left (cancelled, not "started")
        statuses = {log.status for log in read_logs(logs)}
        assert "started" not in statuses
        assert "cancelled" in statuses
    assert len(done) == 4  # the held requests were never answered

    seen = provider_double.count()
    provider_double.configure(latency=0.0)
    result = run_sweep_cli(args, env, tmp_path)
    assert result.returncode == 0, output(result)
    rerun = provider_double.requests()[seen:]
    assert asked_again(rerun, done) == []
    # every answer bought once across the three runs: the held requests were never answered,
    # and an answer that came back before a signal is kept for the next run
    answers = [
        (r.model, r.request.user) for r in ok(provider_double.requests()) if r.kind == "answer"
    ]
    assert len(answers) == len(set(answers)) == CASES
    expected = expected_scores(release, MODELS, BENCHMARKS)
    assert_scored_once(read_logs(logs), expected, cases=CASES)


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
    judge's replies held, then every reply held): the first SIGINT, then a SIGTERM. The double
    bills a request its client abandons, as a provider does, so a call cancelled in flight
    would be bought twice; here the held replies are let go once the sweep says it drains,
    and over both stops and the same command run again every answer and judge call is bought
    once. Each stopped run ends 130 / 143 with one last line: the cases kept, the cases to
    go, the command that resumes; nothing it printed says the tasks completed."""
    release = tmp_path / "release"
    written = write_release(release, per_benchmark=PER_BENCHMARK)  # 20 cases per model swept
    cases = {benchmark: written[benchmark] for benchmark in BENCHMARKS}
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
        out_path, err_path = tmp_path / f"{how.name}.out", tmp_path / f"{how.name}.err"
        with out_path.open("w") as out_file, err_path.open("w") as err_file:
            # streams to files, read while it runs: the drain is announced in its log
            process = subprocess.Popen(
                [str(BEDSIDE_BENCH), "sweep", *args],
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

    provider_double.configure(latency=0.0, judge_latency=None)
    result = run_sweep_cli(args, env, tmp_path)
    assert result.returncode == 0, output(result)
    assert_bought_once(provider_double, cases, TWO_MODELS)
    expected = expected_scores(release, TWO_MODELS, BENCHMARKS)
    assert_scored_once(read_logs(logs), expected, cases=2 * CASES)


def judged_since_count(double: ProviderDouble, count: int) -> Callable[[], bool]:
    """The double has answered `count` judge calls in all."""
    return lambda: len(ok(double.requests(kind="judge"))) >= count
