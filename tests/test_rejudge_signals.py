"""A re-judge stopped by SIGTERM or Ctrl-C (SIGINT) keeps every case judged before the signal,
and the same command again pays only for the rest: through the CLI against the provider double,
counting the judge calls the double received. No temporary file survives, and the new logs get
the mode Inspect gives its own."""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.core.signals import GRACE_ENV
from bedside_bench.doubles import ProviderDouble, RecordedRequest
from tests.e2e_helpers import (
    BEDSIDE_BENCH,
    eval_one,
    expected_scores,
    local_path,
    ok,
    output,
    run_tool,
    start_tool,
    stop,
    sweep_env,
    wait_for,
)
from tests.release_factory import write_release

pytestmark = pytest.mark.slow  # subprocesses, an Inspect eval and a provider double

BENCHMARK = BENCHMARK_NAMES[0]
CASES = 25
ANSWER_MODEL = "openai/gpt-4.1-mini"
NEW_JUDGE = "openai/gpt-4o"
CHECKPOINT = "5"


@dataclass(frozen=True)
class Source:
    release: Path
    log: Path
    double: ProviderDouble
    env: dict[str, str]


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Source]:
    """One 25-case log judged by openai/gpt-4.1, for every test here to re-judge."""
    root = tmp_path_factory.mktemp("source")
    release = root / "release"
    write_release(release, per_benchmark=CASES)
    with ProviderDouble() as double:
        env = sweep_env(double, root)
        log = eval_one(
            BENCHMARK,
            root / "logs",
            env=env,
            cwd=root,
            model=ANSWER_MODEL,
            task_args=[f"data_dir={release}"],
        )
        assert log.status == "success" and len(log.samples or []) == CASES
        yield Source(release, local_path(log.location), double, env)


def judge_calls(double: ProviderDouble, since: int) -> list[RecordedRequest]:
    """The new judge's calls the double received after request `since` (ledger of this test:
    one per (case, call); swap for a shared per-(model, case, kind) ledger when there is one)."""
    return [r for r in double.requests(kind="judge", model="gpt-4o") if r.seq > since]


def last_seq(double: ProviderDouble) -> int:
    return max((r.seq for r in double.requests()), default=0)


def rejudge_args(logs: Path, out: Path) -> list[str]:
    return [str(logs), "--judge", NEW_JUDGE, "--checkpoint", CHECKPOINT, "--output-dir", str(out)]


def judged_prompts(log_dir: Path) -> set[str]:
    """The cases the re-judge's log holds as judged by the new judge."""
    found = set()
    for info in list_eval_logs(str(log_dir)):
        for sample in read_eval_log(info).samples or []:
            score = (sample.scores or {}).get("rubric_judge")
            if sample.error is None and score and score.metadata["judge_model"] == NEW_JUDGE:
                found.add(str(sample.id))
    return found


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if not p.name.endswith(".eval"))


def test_interrupted_rejudge_keeps_every_judged_case_and_resumes(
    tmp_path: Path, source: Source, how: signal.Signals = signal.SIGTERM
) -> None:
    """Ten judge calls in (two checkpoints of five: the second one's first four answered, its
    fifth held by the double), the signal; then the same command: 25 + 1 judge calls in all.
    SIGTERM here; SIGINT, the same stop, in the drain test below, which also resumes."""
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(source.log, logs)
    out = tmp_path / "rejudged"
    double = source.double
    since = last_seq(double)
    double.configure(latency=0.5, stall_seconds=3600)
    # the stalled call never comes back: the drain ends at its grace
    env = {**source.env, GRACE_ENV: "3"}
    process = start_tool(
        "bedside-bench", "rejudge", *rejudge_args(logs, out), env=env, cwd=tmp_path
    )
    try:
        # the first checkpoint's five answered: the next judge answer to go out stalls
        wait_for(lambda: len(ok(judge_calls(double, since))) >= 5, 120, process)
        double.inject("stall", kind="judge")
        wait_for(lambda: len(ok(judge_calls(double, since))) >= 9, 120, process)
        # the four answers reach the scorer (a reply still on the wire at the signal is a
        # call in flight, which the drain waits for too); the stalled one never comes
        time.sleep(0.5)
        first = judge_calls(double, since)
        assert len(first) == 10 and len(ok(first)) == 9
        before = sorted(p.name for p in out.iterdir())
        out_, err = stop(process, how, timeout=60)
    finally:
        stop(process)
        double.configure(latency=0.0)
    assert process.returncode == 128 + how, f"{out_}\n{err}"
    assert f"interrupted ({how.name})" in err and "run the same command again" in err
    command = shlex.join(["bedside-bench", "rejudge", *rejudge_args(logs, out)])
    assert err.strip().splitlines()[-1].endswith(f"to judge the rest: {command}")
    assert "Traceback" not in err
    assert judge_calls(double, since) == first  # nothing more was asked after the signal
    # every answered case is in the log (the last checkpoint held only five)
    assert len(judged_prompts(out)) == 9
    assert leftovers(out) == [] and len(before) == 1

    resumed_since = last_seq(double)
    again = run_tool("bedside-bench", "rejudge", *rejudge_args(logs, out), env=source.env)
    assert again.returncode == 0, output(again)
    assert "judged 16, already judged 9" in again.stdout
    second = judge_calls(double, resumed_since)
    total = len(first) + len(second)
    in_flight = len(first) - len(ok(first))
    print(f"{how.name}: {len(first)} + {len(second)} judge calls ({in_flight} in flight)")
    assert (total, in_flight) == (CASES + 1, 1)
    assert {r.request.judge.prompt for r in ok(first)}.isdisjoint(
        r.request.judge.prompt for r in second
    )

    (final,) = (read_eval_log(info) for info in list_eval_logs(str(out)))
    expected = expected_scores(source.release, [ANSWER_MODEL], [BENCHMARK])
    assert len(final.samples or []) == CASES and final.status == "success"
    for sample in final.samples or []:
        score = (sample.scores or {})["rubric_judge"]
        assert score.metadata and score.metadata["judge_model"] == NEW_JUDGE
        assert score.value == pytest.approx(expected[(ANSWER_MODEL, str(sample.id))], abs=1e-12)
    assert leftovers(out) == []
    umask = os.umask(0)
    os.umask(umask)
    mode = local_path(final.location).stat().st_mode & 0o777
    assert mode == source.log.stat().st_mode & 0o777 == 0o666 & ~umask


def test_a_killed_rejudge_leaves_nothing_the_next_run_does_not_tidy(
    tmp_path: Path, source: Source
) -> None:
    """SIGKILL gives no chance to tidy: what it leaves (a temporary log named after its dead
    writer) is never read as a log, and the next run removes it; a live writer's is kept."""
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(source.log, logs)
    out = tmp_path / "rejudged"
    out.mkdir()
    gone = subprocess.Popen(["true"])  # a pid that is gone
    gone.wait()
    stale = out / f".{source.log.name}.rejudge-{gone.pid}-0a1b2c3d.tmp"
    live = out / f".{source.log.name}.rejudge-{os.getpid()}-0a1b2c3d.tmp"
    stale.write_bytes(b"")
    live.write_bytes(b"")
    assert list_eval_logs(str(out)) == []  # not taken for logs meanwhile

    result = run_tool("bedside-bench", "rejudge", *rejudge_args(logs, out), env=source.env)
    assert result.returncode == 0, output(result)
    assert not stale.exists() and live.exists()
    assert leftovers(out) == [live.name]


def test_a_rejudge_killed_between_checkpoints_buys_no_judge_call_twice(
    tmp_path: Path, source: Source
) -> None:
    """SIGKILL writes nothing: the four cases judged since the last checkpoint are not in the
    log, but their judge calls were paid. They are kept for the same command (kept_calls), so
    the rerun reads them back: 9 + 16 judge calls, each case's once, nothing kept after."""
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(source.log, logs)
    out = tmp_path / "rejudged"
    env = {**source.env, "INSPECT_CACHE_DIR": str(tmp_path / "cache")}
    double = source.double
    since = last_seq(double)
    double.configure(latency=0.5, stall_seconds=3600)
    process = start_tool(
        "bedside-bench", "rejudge", *rejudge_args(logs, out), env=env, cwd=tmp_path
    )
    try:
        # the first checkpoint's five answered; of the next five, one stalls (its chunk is
        # never written) and four are paid: then hold everything and kill
        wait_for(lambda: len(ok(judge_calls(double, since))) >= 5, 120, process)
        double.inject("stall", kind="judge")
        wait_for(lambda: len(ok(judge_calls(double, since))) >= 9, 120, process)
        double.configure(latency=3600)
        time.sleep(0.5)  # a reply already on the wire reaches the client
        stop(process, signal.SIGKILL)
    finally:
        stop(process)
        double.configure(latency=0.0)
    first = ok(judge_calls(double, since))
    assert len(first) == 9
    assert len(judged_prompts(out)) == 5  # only the first checkpoint reached the log

    resumed_since = last_seq(double)
    again = run_tool("bedside-bench", "rejudge", *rejudge_args(logs, out), env=env)
    assert again.returncode == 0, output(again)
    assert "judged 20, already judged 5" in again.stdout
    second = ok(judge_calls(double, resumed_since))
    print(f"SIGKILL: {len(first)} + {len(second)} judge calls")
    assert len(first) + len(second) == CASES
    assert {r.request.judge.prompt for r in first}.isdisjoint(
        r.request.judge.prompt for r in second
    )
    (final,) = (read_eval_log(info) for info in list_eval_logs(str(out)))
    expected = expected_scores(source.release, [ANSWER_MODEL], [BENCHMARK])
    assert len(final.samples or []) == CASES and final.status == "success"
    for sample in final.samples or []:
        score = (sample.scores or {})["rubric_judge"]
        assert score.value == pytest.approx(expected[(ANSWER_MODEL, str(sample.id))], abs=1e-12)
    assert [p for p in (tmp_path / "cache").rglob("*") if p.is_file()] == []


# what a first signal logs when it starts a drain (short: a display wraps long lines)
DRAIN_LINE = "no new call is started"


def test_a_first_signal_lets_the_judge_calls_in_flight_come_back_and_keeps_them(
    tmp_path: Path, source: Source
) -> None:
    """Five judge calls answered, then every reply held; Ctrl-C while they are held: the
    re-judge starts no new call, and once it says it drains the held replies go. The double
    bills a call its client abandons, as a provider does, so a call cancelled in flight would
    be bought again by the same command run after: here each case's judge call is bought
    once over both runs."""
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(source.log, logs)
    out = tmp_path / "rejudged"
    env = {**source.env, "INSPECT_CACHE_DIR": str(tmp_path / "cache")}
    double = source.double
    since = last_seq(double)
    out_path, err_path = tmp_path / "stdout", tmp_path / "stderr"
    double.configure(latency=0.2, bill_abandoned=True)
    try:
        with out_path.open("w") as out_file, err_path.open("w") as err_file:
            process = subprocess.Popen(
                [str(BEDSIDE_BENCH), "rejudge", *rejudge_args(logs, out)],
                env=env,
                cwd=tmp_path,
                text=True,
                stdout=out_file,
                stderr=err_file,
            )
        try:
            wait_for(lambda: len(ok(judge_calls(double, since))) >= 5, 120, process)
            double.configure(latency=3600)
            wait_for(lambda: double.in_flight >= 1, 120, process)
            process.send_signal(signal.SIGINT)
            wait_for(
                lambda: any(DRAIN_LINE in p.read_text() for p in (out_path, err_path)),
                120,
                process,
                "the re-judge did not announce its drain",
            )
            double.configure(latency=0.0)  # the held replies come back
            process.wait(timeout=120)
        finally:
            stop(process)
        err = err_path.read_text()
        assert process.returncode == 130, f"{out_path.read_text()}\n{err}"
        command = shlex.join(["bedside-bench", "rejudge", *rejudge_args(logs, out)])
        assert err.strip().splitlines()[-1].endswith(f"to judge the rest: {command}")

        again = run_tool("bedside-bench", "rejudge", *rejudge_args(logs, out), env=env)
        assert again.returncode == 0, output(again)
        bought = Counter(r.request.judge.prompt for r in ok(judge_calls(double, since)))
        assert len(bought) == CASES and set(bought.values()) == {1}, bought
    finally:
        double.configure(latency=0.0, bill_abandoned=False)
