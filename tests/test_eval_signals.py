"""`inspect eval` of a task of ours stopped by a first Ctrl-C or SIGTERM while judge calls are on
the wire: no new call starts, the calls already sent come back and are kept, the eval ends 130
/ 143, and `inspect eval-retry` of its log buys nothing twice. A process of its own (the signal
is the point), against the provider double, which bills a request its client abandons as a
provider does: a call cancelled in flight would be bought again by the retry."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.doubles import ProviderDouble
from tests.e2e_helpers import (
    ANSWER_MODEL,
    BIN,
    JUDGE_MODEL,
    assert_bought_once,
    eval_args,
    ok,
    output,
    run_cli,
    stop,
    sweep_env,
    wait_for,
)
from tests.release_factory import write_release

pytestmark = pytest.mark.slow  # a subprocess, Inspect evals and a provider double

BENCHMARK = BENCHMARK_NAMES[0]
# what a first signal logs when it starts a drain (short: a display wraps long lines)
DRAIN_LINE = "no new call is started"


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM])
def test_a_first_signal_keeps_the_calls_in_flight_and_eval_retry_buys_each_once(
    tmp_path: Path, provider_double: ProviderDouble, how: signal.Signals
) -> None:
    release = tmp_path / "release"
    cases = write_release(release, per_benchmark=8)[BENCHMARK]  # the task runs one benchmark
    logs = tmp_path / "logs"
    args = eval_args(BENCHMARK, logs, "--max-connections", "2", task_args=[f"data_dir={release}"])
    env = sweep_env(provider_double, tmp_path)
    provider_double.configure(latency=0.05, bill_abandoned=True)
    out_path, err_path = tmp_path / "stdout", tmp_path / "stderr"
    with out_path.open("w") as out_file, err_path.open("w") as err_file:
        process = subprocess.Popen(
            [str(BIN / "inspect"), *args],
            env=env,
            cwd=tmp_path,
            text=True,
            stdout=out_file,
            stderr=err_file,
        )
    try:
        wait_for(lambda: len(ok(provider_double.requests(kind="judge"))) >= 2, 180, process)
        provider_double.configure(judge_latency=3600)  # the judge's replies held
        wait_for(lambda: provider_double.in_flight >= 1, 120, process)
        process.send_signal(how)
        wait_for(
            lambda: any(DRAIN_LINE in p.read_text() for p in (out_path, err_path)),
            120,
            process,
            "the eval did not announce its drain",
        )
        provider_double.configure(judge_latency=None)  # the held replies come back
        process.wait(timeout=300)
    finally:
        stop(process)
    out, err = out_path.read_text(), err_path.read_text()
    assert process.returncode == 128 + how, f"{out}\n{err}"
    (log,) = list_eval_logs(str(logs))

    provider_double.configure(latency=0.0)
    result = run_cli(["eval-retry", log.name, "--display", "plain"], cwd=tmp_path, env=env)
    assert result.returncode == 0, output(result)
    assert_bought_once(provider_double, cases, [ANSWER_MODEL], judge=JUDGE_MODEL)
