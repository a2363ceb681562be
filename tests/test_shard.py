"""`bedside-bench sweep --shard K/N`: N machines, one command line, one log store.

The rule is checked against an independent statement of it (sorted models x registry-order
benchmarks, dealt round-robin); end to end, three shards run at once into one log directory
(two processes of their own, the third in this process meanwhile; the provider double holds
every call until each run of every shard is asking), between them ask every case exactly
once, and a whole sweep run afterwards on the same directory finds nothing left to do and
reports what a single-machine sweep reports. Into an `s3://` store, two shards (one process of
its own, one in this process) do the same, and a whole sweep then writes nothing new.
"""

from __future__ import annotations

import itertools
import subprocess
import threading
from collections import Counter
from pathlib import Path

import pytest

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.doubles import ProviderDouble
from bedside_bench.sweep.shard import Shard, all_runs, shard_runs
from tests.e2e_helpers import (
    ANTHROPIC_SECRET,
    OPENAI_SECRET,
    assert_scored_once,
    expected_scores,
    leaks,
    ok,
    output,
    read_logs,
    run_sweep_cli,
    run_tool,
    start_sweep,
    summaries,
    sweep_args,
    sweep_env,
)
from tests.release_factory import write_release
from tests.s3_server import SECRET_ACCESS_KEY, S3Server

MODELS = ["openai/gpt-4.1-mini", "anthropic/claude-sonnet-4-6"]


def run_shards(
    command: list[str],
    env: dict[str, str],
    cwd: Path,
    double: ProviderDouble,
    runs: int,
    shards: int = 3,
) -> list[tuple[int, str, str]]:
    """Shards 1/N to N/N of `command` at once (each run of one case): 2/N to N/N as processes
    of their own, 1/N in this process meanwhile; (exit status, out, err) of each.

    The double holds every call until `runs` are in flight: one answer a run, so no call is
    answered before all the shards are asking at the same time. A shard that fails before
    it asks would leave the others held: it lets them all go (`release_holds`, whatever is in
    flight), and its status fails the test."""
    double.configure(hold_until_in_flight=runs)
    others = range(2, shards + 1)
    processes = [start_sweep([*command, "--shard", f"{k}/{shards}"], env, cwd) for k in others]
    outputs: dict[int, tuple[str, str]] = {}

    def read(k: int, process: subprocess.Popen[str]) -> None:
        outputs[k] = process.communicate()
        if process.returncode != 0:
            double.release_holds()

    readers = [
        threading.Thread(target=read, args=(k, p), daemon=True)
        for k, p in zip(others, processes, strict=True)
    ]
    try:
        for reader in readers:
            reader.start()
        first = run_sweep_cli([*command, "--shard", f"1/{shards}"], env, cwd)
        if first.returncode != 0:
            double.release_holds()
        for reader in readers:
            reader.join(timeout=600)
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
        for reader in readers:
            reader.join(timeout=60)
    finished = [(first.returncode, first.stdout, first.stderr)]
    for k, process in zip(others, processes, strict=True):
        finished.append((process.returncode, *outputs.get(k, ("", "(no output read)"))))
    return finished


def test_shard_parse() -> None:
    assert Shard.parse("2/3") == Shard(2, 3) and str(Shard.parse(" 1 / 1 ")) == "1/1"
    for bad in ("0/3", "4/3", "3", "a/b", "1/0", "-1/2"):
        with pytest.raises(ValueError):
            Shard.parse(bad)


def test_shards_are_disjoint_cover_everything_and_are_balanced() -> None:
    models = ["openai/b", "anthropic/a", "openai/a"]
    benchmarks = ["safety_therapeutic", "drug_safety", "calculators_conditional"]
    everything = [
        (m, b)
        for m in ["anthropic/a", "openai/a", "openai/b"]
        for b in BENCHMARK_NAMES
        if b in benchmarks
    ]
    assert all_runs(models, benchmarks) == everything
    for n in range(1, 12):
        shares = [shard_runs(models, benchmarks, Shard(k, n)) for k in range(1, n + 1)]
        assert sorted(itertools.chain.from_iterable(shares)) == sorted(everything)
        assert sum(len(s) for s in shares) == len(everything)  # disjoint
        assert max(map(len, shares)) - min(map(len, shares)) <= 1
        # run i of the numbered list goes to shard (i mod n) + 1
        for i, run in enumerate(everything):
            assert run in shares[i % n]
    # the order the models were typed in does not change any share
    for k in (1, 2, 3):
        assert shard_runs(models, benchmarks, Shard(k, 3)) == shard_runs(
            list(reversed(models)), list(reversed(benchmarks)), Shard(k, 3)
        )
    # 9 runs in 3 shards, hand-checked: shard 2 gets runs 1, 4, 7
    assert shard_runs(models, benchmarks, Shard(2, 3)) == [
        everything[1],
        everything[4],
        everything[7],
    ]


# one model's ten benchmarks: ten runs (4, 3 and 3 for the shards), and an overall score
LOCAL_MODELS = MODELS[:1]


@pytest.mark.slow
def test_three_shards_at_once_do_all_of_a_sweep_once(
    tmp_path: Path, provider_double: ProviderDouble
) -> None:
    release = tmp_path / "release"
    write_release(release, per_benchmark=1)
    env = sweep_env(provider_double, tmp_path)
    store = tmp_path / "store"
    command = sweep_args(LOCAL_MODELS, store, "--judge", "openai/gpt-4.1", data_dir=release)
    runs = len(LOCAL_MODELS) * len(BENCHMARK_NAMES)
    finished = run_shards(command, env, tmp_path, provider_double, runs)
    assert provider_double.max_in_flight >= runs  # the three shards were asking at once
    for k, (code, out, err) in enumerate(finished, start=1):
        assert code == 0, f"shard {k}: {out}\n{err}"
        share = len(shard_runs(LOCAL_MODELS, BENCHMARK_NAMES, Shard(k, 3)))
        assert f"sweep: {share}/{share} benchmark runs complete (shard {k}/3)" in out, out
        assert f"run `bedside-bench report {store}`" in out
    assert not (store / "report").exists()  # shards do not report a store still filling

    # between them, every case of every model answered and judged exactly once
    answers = Counter(
        (r.model, r.request.user) for r in ok(provider_double.requests(kind="answer"))
    )
    judged = ok(provider_double.requests(kind="judge"))
    assert len(answers) == runs and set(answers.values()) == {1}
    assert len(judged) == runs
    # each shard's logs in its own folder of the store; together one log per run
    for k in (1, 2, 3):
        share = len(shard_runs(LOCAL_MODELS, BENCHMARK_NAMES, Shard(k, 3)))
        assert len(list((store / f"shard-{k}-of-3").glob("*.eval"))) == share
    final = read_logs(store)
    assert len(final) == runs and {log.status for log in final} == {"success"}
    assert_scored_once(final, expected_scores(release, LOCAL_MODELS), cases=runs)

    # the whole sweep on the same store: nothing left to ask, and the report
    before = provider_double.count()
    whole = run_sweep_cli(command, env, tmp_path)
    assert whole.returncode == 0, output(whole)
    assert provider_double.count() == before
    assert f"sweep: {runs}/{runs} benchmark runs complete" in whole.stdout

    # the same as a single machine's sweep of the same command
    single_store = tmp_path / "single"
    single = run_sweep_cli(
        sweep_args(LOCAL_MODELS, single_store, "--judge", "openai/gpt-4.1", data_dir=release),
        env,
        tmp_path,
    )
    assert single.returncode == 0, output(single)
    sharded, alone = summaries(store / "report"), summaries(single_store / "report")
    assert set(sharded) == set(alone) == set(LOCAL_MODELS)
    for model in LOCAL_MODELS:
        assert sharded[model]["overall"] is not None
        for key in ("cases_completed", "cases_failed", "complete", "benchmarks", "overall"):
            assert sharded[model][key] == alone[model][key], (model, key)


@pytest.mark.slow
def test_two_shards_at_once_into_an_s3_store(
    tmp_path: Path, provider_double: ProviderDouble, s3_server: S3Server
) -> None:
    """The multi-machine recipe on a real S3-compatible server: two shards at once (one a
    process of its own, one in the test process) into one `s3://` store ask every case once;
    a whole sweep on the store then makes no call and writes no log, and its report equals
    the report of a local copy of the store. No secret (the store's, the providers' keys)
    reaches the terminal of any shard or of the whole sweep.

    Two shards, not three: three at once (4, 3 and 3 runs) are the local-directory test's;
    here what is shown is the store, and a third shard would only be another process."""
    release = tmp_path / "release"
    write_release(release, per_benchmark=1)
    env = sweep_env(
        provider_double, tmp_path, openai_key=OPENAI_SECRET, anthropic_key=ANTHROPIC_SECRET
    )
    store = s3_server.url("team/shards")
    benchmarks = ("drug_safety", "safety_diagnostic")
    command = sweep_args(
        MODELS,
        store,  # type: ignore[arg-type]
        "--judge",
        "openai/gpt-4.1",
        "--benchmarks",
        ",".join(benchmarks),
        "--report-dir",
        str(tmp_path / "report-s3"),
        data_dir=release,
    )
    finished = run_shards(command, env, tmp_path, provider_double, runs=4, shards=2)
    assert provider_double.max_in_flight >= 4  # the two shards were asking at once
    for k, (code, out, err) in enumerate(finished, start=1):
        assert code == 0, f"shard {k}: {out}\n{err}"
        share = len(shard_runs(MODELS, benchmarks, Shard(k, 2)))
        assert share == 2
        assert f"sweep: {share}/{share} benchmark runs complete (shard {k}/2)" in out, out
        evals = [
            k_ for k_ in s3_server.keys(f"team/shards/shard-{k}-of-2/") if k_.endswith(".eval")
        ]
        assert len(evals) == share
    eval_keys = [k for k in s3_server.keys("team/shards/") if k.endswith(".eval")]
    assert len(eval_keys) == 4

    answers = Counter(
        (r.model, r.request.user) for r in ok(provider_double.requests(kind="answer"))
    )
    assert len(answers) == 4 and set(answers.values()) == {1}
    assert len(ok(provider_double.requests(kind="judge"))) == 4

    before = provider_double.count()
    whole = run_sweep_cli(command, env, tmp_path)
    assert whole.returncode == 0, output(whole)
    assert provider_double.count() == before  # the store is complete: nothing asked again
    assert [k for k in s3_server.keys("team/shards/") if k.endswith(".eval")] == eval_keys
    terminal = [
        (f"{name} {stream}", text.encode())
        for name, (_, out, err) in [
            *enumerate(finished, start=1),
            ("whole", (whole.returncode, whole.stdout, whole.stderr)),
        ]
        for stream, text in (("stdout", out), ("stderr", err))
    ]
    assert leaks([SECRET_ACCESS_KEY, OPENAI_SECRET, ANTHROPIC_SECRET], terminal) == []

    # the store's report (written by the whole sweep) equals the report of a local copy
    local = tmp_path / "copy"
    s3_server.download("team/shards/", local)
    final = read_logs(local)
    assert len(final) == 4 and {log.status for log in final} == {"success"}
    assert_scored_once(final, expected_scores(release, MODELS, benchmarks), cases=4)
    report = run_tool(
        "bedside-bench",
        "report",
        str(local),
        "-o",
        str(tmp_path / "report-copy"),
        env=env,
        cwd=tmp_path,
    )
    assert report.returncode == 0, report.stdout + report.stderr
    from_s3, from_copy = summaries(tmp_path / "report-s3"), summaries(tmp_path / "report-copy")
    assert set(from_s3) == set(from_copy) == set(MODELS)
    for model in MODELS:
        assert from_s3[model]["cases_completed"] == 2
        for key in ("cases_completed", "cases_failed", "benchmarks", "overall", "scope"):
            assert from_s3[model][key] == from_copy[model][key], (model, key)
