"""The sweep survives what real APIs do: faulty responses, and a user killing the command.

Faults go through Inspect's real provider clients: the SDKs retry HTTP 500, 429 (honouring
Retry-After) and dropped connections themselves; a stalled response is cut by
`--attempt-timeout` and retried by Inspect. A killed sweep is started again with the same
command; the double's request record shows that no completed case is asked again.
"""

from __future__ import annotations

import os
import signal
import time
from collections import Counter
from pathlib import Path

import pytest

from bedside_bench import sweep
from bedside_bench.core.signals import GRACE_ENV
from bedside_bench.doubles import FAULTS, ProviderDouble, Script, invalid_judge_always
from tests.e2e_helpers import (
    asked_again,
    assert_bought_once,
    assert_scored_once,
    expected_scores,
    judged_at_least,
    judged_cases,
    local_path,
    ok,
    output,
    read_logs,
    run_sweep_cli,
    start_sweep,
    stop,
    summaries,
    sweep_args,
    sweep_env,
    wait_for,
    wire_name,
)
from tests.release_factory import write_release

pytestmark = pytest.mark.slow  # subprocesses, Inspect evals and provider doubles

MODELS = ["openai/gpt-4.1-mini", "anthropic/claude-sonnet-4-6"]
IN_TRANSIT = 0.5  # seconds for a reply already sent to reach a loaded client


@pytest.mark.slow
def test_faults_are_retried_and_every_case_is_scored_exactly_once(
    tmp_path: Path, provider_double: ProviderDouble
) -> None:
    """One of each fault (HTTP 500, 429 with Retry-After, a stall past the attempt timeout, a
    dropped connection) forced on answers and on judging, and 20% of all requests failing
    at random with the quick ones. A stall costs the attempt timeout and Inspect's back-off
    (10 s and 3-6 s here): random stalls, which can fall on the retry of a stall, would only
    add waiting, not another path."""
    release = tmp_path / "release"
    cases = write_release(release, per_benchmark=1)
    models = ["openai/gpt-5.4-mini", "anthropic/claude-sonnet-4-6"]
    quick = [fault for fault in FAULTS if fault != "stall"]
    provider_double.configure(fault_rate=0.2, faults=quick, seed=7, stall_seconds=12)
    for kind in ("answer", "judge"):
        provider_double.inject(*FAULTS, kind=kind)
    logs = tmp_path / "logs"
    # stalls (12 s) outlast the attempt timeout; an ordinary call on a loaded machine must not
    # (at 2 s and at 4 s, with three test processes on two cores, some did: each was paid,
    # then asked again)
    args = sweep_args(models, logs, "--attempt-timeout", "10", data_dir=release)
    result = run_sweep_cli(args, sweep_env(provider_double, tmp_path), tmp_path)
    assert result.returncode == 0, output(result)

    faults = Counter(r.fault for r in provider_double.requests() if r.fault)
    assert set(faults) == set(FAULTS) and sum(faults.values()) >= 10, faults
    print(f"faults survived: {dict(faults)} in {provider_double.count()} requests")
    assert_scored_once(read_logs(logs), expected_scores(release, models), cases=20)
    # one answer and one judging paid per (model, case): nothing bought twice behind the scenes
    assert_bought_once(provider_double, cases, models)
    for summary in summaries(logs / "report").values():
        assert (summary["cases_completed"], summary["cases_failed"]) == (10, 0)
        assert summary["complete"] is True


@pytest.mark.slow
def test_killed_sweep_resumes_without_losing_or_reasking_a_case(
    tmp_path: Path, provider_double: ProviderDouble
) -> None:
    """Interrupted as by Ctrl-C (SIGINT) a quarter of the way, the same command again, that
    one killed outright (SIGKILL) half-way, then the same command once more: no run asks a
    case completed before it again, and the last completes every case exactly once."""
    release = tmp_path / "release"
    cases = write_release(release, per_benchmark=2)  # 20 cases per model
    latency = 0.25
    logs = tmp_path / "logs"
    args = sweep_args(
        MODELS, logs, "--judge", "openai/gpt-4.1", "--max-connections", "4", data_dir=release
    )
    # the held requests never come back: the drain of the SIGINT ends at its grace
    env = {**sweep_env(provider_double, tmp_path), GRACE_ENV: "2"}
    done: set[tuple[str, str]] = set()  # (model, case) judged before the run being started
    for how, judged in ((signal.SIGINT, 10), (signal.SIGKILL, 20)):
        seen = provider_double.count()
        provider_double.configure(latency=latency)
        process = start_sweep(args, env, tmp_path)
        try:
            wait_for(judged_at_least(provider_double, judged), 120, process)
            # hold every request and stop without waiting for the log: a case judged but not
            # yet in the log (Inspect writes samples in batches) keeps its answer and judge
            # replies for the next run (kept_calls). The pause lets a reply already on the
            # wire reach the client: one lost in transit is paid and bought again by any
            # client, so it is not what this test is about
            provider_double.configure(latency=3600)
            time.sleep(IN_TRANSIT)
            out, err = stop(process, how)
        finally:
            stop(process)
        if how == signal.SIGINT:
            assert process.returncode == 130, f"{out}\n{err}"
            assert "run the same command again to resume" in err
        else:
            assert process.returncode == -signal.SIGKILL
        assert asked_again(provider_double.requests()[seen:], done) == []
        done = judged_cases(provider_double.requests())
        assert judged <= len(done) < 40
        print(f"{how.name}: {len(done)}/40 cases complete")

    seen = provider_double.count()
    provider_double.configure(latency=0.02)
    result = run_sweep_cli(args, env, tmp_path)
    assert result.returncode == 0, output(result)

    rerun = provider_double.requests()[seen:]
    print(
        f"rerun made {len(rerun)} requests ({len(ok(r for r in rerun if r.kind == 'answer'))} "
        "answers)"
    )
    assert asked_again(rerun, done) == []
    # over the three runs every case was answered and judged once: an answer bought before
    # a kill is read back, not bought again
    assert_bought_once(provider_double, cases, MODELS)
    final = read_logs(logs)
    assert_scored_once(final, expected_scores(release, MODELS), cases=40)
    # one finished log per (benchmark, model): cancelled logs were resumed into their
    # successors, and a killed run's "started" logs removed once superseded
    assert len(final) == 20 and {log.status for log in final} == {"success"}
    for model, summary in summaries(logs / "report").items():
        assert wire_name(model) in {wire_name(m) for m in MODELS}
        assert (summary["cases_completed"], summary["cases_failed"]) == (20, 0)


@pytest.mark.slow
def test_the_log_a_retry_finished_is_kept_whatever_the_clock_says_of_the_one_it_replaces(
    tmp_path: Path, provider_double: ProviderDouble
) -> None:
    """A run that failed a case, then the same command again once the cause is gone: the store
    keeps the log that finished the run and drops the failed one, even when the failed one
    looks newer. An object store gives whole seconds (a retry that finishes within the second
    its failed attempt was written ties with it), and a store written from two machines has
    their two clocks: eval_set's own tidying keeps each run's newest log by that time and
    deletes the others, which here deleted the finished log and kept the failed one, and the
    sweep still said every run was complete."""
    release = tmp_path / "release"
    cases = write_release(release, per_benchmark=2)
    fine, broken = cases["drug_safety"]
    logs = tmp_path / "logs"
    model = "openai/gpt-4.1-mini"
    args = sweep_args(
        [model],
        logs,
        "--judge",
        "openai/gpt-4.1",
        "--benchmarks",
        "drug_safety",
        "--judge-retries",
        "0",
        "--retry-attempts",
        "0",
        data_dir=release,
    )
    env = sweep_env(provider_double, tmp_path)
    provider_double.configure(script=Script(judge=invalid_judge_always(broken["prompt"])))
    first = run_sweep_cli(args, env, tmp_path)
    assert first.returncode == sweep.EXIT_INCOMPLETE, output(first)
    (failed,) = read_logs(logs)
    assert failed.status == "error"
    # the failed log's time an hour ahead: as if written after the run that will finish it
    ahead = time.time() + 3600
    os.utime(local_path(failed.location), (ahead, ahead))

    provider_double.configure(script=Script())
    again = run_sweep_cli(args, env, tmp_path)
    assert again.returncode == 0, output(again)
    final = read_logs(logs)
    assert [log.status for log in final] == ["success"], [log.location for log in final]
    assert final[0].location != failed.location
    assert_scored_once(final, expected_scores(release, [model], ["drug_safety"]), cases=2)
    # the failed case was judged once more, from its stored answer; nothing else was bought
    assert_bought_once(
        provider_double, {"drug_safety": [fine, broken]}, [model], {broken["case_id"]: 2, "*": 1}
    )
    summary = summaries(logs / "report")[model]
    assert (summary["cases_completed"], summary["cases_failed"]) == (2, 0)
