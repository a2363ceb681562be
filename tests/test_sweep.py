"""`bedside-bench sweep`: one command, several providers, one Inspect eval_set, then the report.

Every sweep here runs as a user types it (the console script's own main, in this process;
Inspect's real OpenAI and Anthropic clients) against the provider double, and what the double
received is compared with what the logs and summaries say. Expected scores are computed
independently (tests/independent.py from the case files, plus the double's scripted answers
and decisions).

The helpers are in tests/e2e_helpers.py.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import genai_prices
import pytest
from inspect_ai.log import EvalLog
from inspect_ai.model import GenerateConfig

from bedside_bench import sweep
from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.core.schema_files import validator
from bedside_bench.doubles import (
    ProviderDouble,
    RecordedRequest,
    Script,
    invalid_judge_always,
    invalid_judge_first,
)
from tests.conftest import REAL_RELEASE, SYNTHETIC_RELEASE
from tests.e2e_helpers import (
    ANTHROPIC_SECRET,
    OPENAI_SECRET,
    SCORER,
    Result,
    answered_model,
    assert_bought_once,
    assert_scored_once,
    credential_sent,
    expected_scores,
    file_texts,
    leaks,
    ok,
    output,
    read_logs,
    run_cli,
    run_sweep_cli,
    run_tool,
    summaries,
    sweep_args,
    sweep_env,
    wire_name,
)
from tests.independent import read_cases
from tests.release_factory import write_release
from tests.report_helpers import expected_cases, expected_paired, expected_summary_numbers

# --------------------------------------------------------------------------------------------
# units


def test_options_parse_to_stable_task_arguments(tmp_path: Path, monkeypatch: Any) -> None:
    parser = argparse.ArgumentParser()
    sweep.configure_parser(parser)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("INSPECT_LOG_DIR")  # the default log directory, not Inspect's variable
    args = parser.parse_args(
        [
            "--model",
            "openai/a,anthropic/b",
            "--model",
            "openai/a",
            "--benchmarks",
            "safety_therapeutic,drug_safety",
            "--data-dir",
            "rel",
            "-T",
            "severe_gate=true",
            "--judge-retries",
            "1",
            "--max-connections",
            "7",
            "--batch",
        ]
    )
    options = sweep.options_from_args(args)
    assert list(options.models) == ["openai/a", "anthropic/b"]
    assert sweep.check_benchmarks(options.benchmarks) == ["drug_safety", "safety_therapeutic"]
    # eval_set pairs tasks with logs by these: the same command gives the same arguments
    assert sweep.task_arguments(options) == {
        "smoke": False,
        "data_dir": str(tmp_path / "rel"),
        "judge_retries": 1,
        "severe_gate": True,
    }
    assert sweep.generate_config_args(options) == {"max_connections": 7, "batch": True}
    assert options.report_out_dir == Path(sweep.DEFAULT_LOG_DIR) / "report"
    with pytest.raises(sweep.SweepError, match="unknown benchmark"):
        sweep.check_benchmarks(["drug_safety", "dermatology"])
    with pytest.raises(sweep.SweepError, match="not an Inspect model name"):
        sweep.check_model_name("gpt-5.4-mini", "model")


def test_operational_options_reach_the_judge_role(monkeypatch: Any) -> None:
    """A role model inherits only some of the eval's options; the sweep gives it the rest."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-double")
    options = sweep.SweepOptions(
        models=["openai/gpt-4.1-mini"], judge="openai/gpt-4.1", attempt_timeout=30, batch=True
    )
    judge = sweep.judge_role(options)
    assert str(judge) == "openai/gpt-4.1"
    assert (judge.config.attempt_timeout, judge.config.batch) == (30, True)
    assert sweep.judge_role(sweep.SweepOptions(models=["openai/a"])) == "openai/gpt-5.6-sol"


def test_judge_gets_connections_of_its_own(monkeypatch: Any) -> None:
    """Every answer model's cases share the one judge pool, each answer judged
    `judge_passes` times: the default keeps a judge as fast as the models from throttling,
    with as much again to spare for judge calls that leave late."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-double")
    two = ["openai/gpt-4.1-mini", "openai/gpt-4.1-nano"]
    assert sweep.judge_connections(sweep.SweepOptions(models=two)) is None  # Inspect adaptive
    # 2 x 5 connections x 1 pass x 2 models
    assert sweep.judge_connections(sweep.SweepOptions(models=two, max_connections=5)) == 20
    passes = sweep.SweepOptions(models=two, max_connections=5, task_args={"judge_passes": 3})
    assert sweep.judge_connections(passes) == 60
    # 2 x 5 answering or waiting to + 60 being judged
    assert sweep.max_samples(passes) == 70
    given = sweep.SweepOptions(models=two, max_connections=5, judge_max_connections=7)
    assert sweep.judge_connections(given) == 7
    judge = sweep.judge_role(given)
    assert judge.config.max_connections == 7
    # a task alone keeps both pools busy: 5 answering, 7 being judged, 5 waiting to answer
    assert sweep.max_samples(given) == 17
    assert sweep.max_samples(sweep.SweepOptions(models=two)) is None
    # the answer models keep their own limit
    assert sweep.generate_config_args(given)["max_connections"] == 5
    only_judge = sweep.SweepOptions(models=two, judge_max_connections=4)
    assert sweep.judge_role(only_judge).config.max_connections == 4
    assert "max_connections" not in sweep.generate_config_args(only_judge)


def test_the_eval_runs_with_full_collector_passes_rarer_and_the_heap_frozen() -> None:
    """Inside, what existed before is frozen and a full pass waits for 100 middle-generation
    passes instead of Python's 10; afterwards Python's own settings are back."""
    import gc

    from bedside_bench.sweep.run import long_lived_objects_frozen

    before = gc.get_threshold()
    assert gc.get_freeze_count() == 0
    with long_lived_objects_frozen():
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == (before[0], before[1], 100)
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


POOL_CASES = 8  # more than both pools and the cases waiting for an answer connection hold
ANSWER_POOL, JUDGE_POOL = 1, 4


@dataclass(frozen=True)
class Pools:
    answers: list[RecordedRequest]
    judges: list[RecordedRequest]
    log: EvalLog


@pytest.fixture(scope="module")
def pools(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pools]:
    """One answer model's sweep (no report) of one benchmark with --max-connections 1 and
    --judge-max-connections 4; the answer and judge requests that succeeded, and its log.
    How the pools fill in time: benchmarks/bench_connection_pools.py."""
    tmp = tmp_path_factory.mktemp("pools")
    release = tmp / "release"
    write_release(release, per_benchmark=POOL_CASES)
    with ProviderDouble() as double:
        args = sweep_args(
            ["openai/gpt-4.1-mini"],
            tmp / "logs",
            "--judge",
            "openai/gpt-4.1",
            "--benchmarks",
            "drug_safety",
            "--max-connections",
            str(ANSWER_POOL),
            "--judge-max-connections",
            str(JUDGE_POOL),
            "--no-report",
            data_dir=release,
        )
        result = run_sweep_cli(args, sweep_env(double, tmp), tmp)
        assert result.returncode == 0, output(result)
        (log,) = read_logs(tmp / "logs")
        yield Pools(ok(double.requests(kind="answer")), ok(double.requests(kind="judge")), log)


def grader_config(log: EvalLog) -> GenerateConfig:
    roles = log.eval.model_roles or {}
    grader = roles["grader"]
    assert not isinstance(grader, list)
    return grader.config


@pytest.mark.slow
def test_judge_max_connections_sizes_the_judge_pool_apart_from_the_answers(
    pools: Pools,
) -> None:
    """The judge's pool is sized by --judge-max-connections, the answer model's by
    --max-connections: the limits the run was given, as its log records them."""
    assert len(pools.answers) == len(pools.judges) == POOL_CASES
    assert pools.log.eval.model_generate_config.max_connections == ANSWER_POOL
    assert grader_config(pools.log).max_connections == JUDGE_POOL


@pytest.mark.slow
def test_cases_wait_on_the_answer_pool_beyond_both_pools(pools: Pools) -> None:
    """A task with more cases than both pools hold keeps --max-connections more of them set
    up and waiting for an answer connection, so a freed one is taken at once: 2 x 1 answer
    connection + 4 judge connections let 6 cases in (Inspect's default would let in 1)."""
    let_in = 2 * ANSWER_POOL + JUDGE_POOL
    assert let_in < POOL_CASES
    assert pools.log.eval.config.max_samples == let_in


@pytest.mark.slow
def test_plain_inspect_eval_gives_the_grader_role_its_own_connections(
    tmp_path: Path, provider_double: ProviderDouble
) -> None:
    """The documented plain-Inspect way (docs/sweep.md): the limits in `--model-spec` and
    `--model-role`, not an eval-wide `--max-connections` (which a role inherits over its own).
    How the pools fill in time: benchmarks/bench_connection_pools.py."""
    release = tmp_path / "release"
    write_release(release, per_benchmark=6)
    env = sweep_env(provider_double, tmp_path)
    result = run_cli(
        [
            "eval",
            "bedside_bench/drug_safety",
            "-T",
            f"data_dir={release}",
            "--model-spec",
            "{model: openai/gpt-4.1-mini, max_connections: 1}",
            "--model-role",
            "grader={model: openai/gpt-4.1, max_connections: 3}",
            "--max-samples",
            "4",  # 1 answering + 3 being judged
            "--log-dir",
            str(tmp_path / "logs"),
            "--display",
            "plain",
        ],
        cwd=tmp_path,
        env=env,
    )
    assert result.returncode == 0, output(result)
    answers = ok(provider_double.requests(kind="answer"))
    judges = ok(provider_double.requests(kind="judge"))
    assert len(answers) == len(judges) == 6
    (log,) = read_logs(tmp_path / "logs")
    assert log.eval.model_generate_config.max_connections == 1
    assert grader_config(log).max_connections == 3


def test_register_adds_the_sweep_subcommand() -> None:
    parser = argparse.ArgumentParser(prog="bedside-bench")
    subcommands = parser.add_subparsers(dest="command", required=True)
    sweep.register(subcommands)
    args = parser.parse_args(["sweep", "--model", "openai/gpt-5.4-mini", "--smoke"])
    assert args.handler is sweep.sweep_and_exit
    assert sweep.options_from_args(args).smoke is True


# --------------------------------------------------------------------------------------------
# credentials, end to end


@pytest.mark.slow
def test_missing_credential_fails_before_any_call(
    tmp_path: Path, provider_double: ProviderDouble
) -> None:
    release = tmp_path / "release"
    write_release(release, per_benchmark=1)
    logs = tmp_path / "logs"
    models = ["openai/gpt-5.4-mini", "anthropic/claude-sonnet-4-6"]
    env = sweep_env(provider_double, tmp_path, openai_key=OPENAI_SECRET, anthropic_key=None)
    result = run_sweep_cli(sweep_args(models, logs, data_dir=release), env, tmp_path)
    assert result.returncode == sweep.EXIT_ERROR, output(result)
    lines = result.stderr.strip().splitlines()
    assert lines == [
        "bedside-bench sweep: error: missing API credentials: set ANTHROPIC_API_KEY for "
        "anthropic/claude-sonnet-4-6"
    ], output(result)
    assert OPENAI_SECRET not in result.stdout + result.stderr

    env = sweep_env(provider_double, tmp_path, openai_key=None, anthropic_key=ANTHROPIC_SECRET)
    result = run_sweep_cli(sweep_args(models, logs, data_dir=release), env, tmp_path)
    assert result.returncode == sweep.EXIT_ERROR, output(result)
    assert "OPENAI_API_KEY (or OPENAI_ACCESS_TOKEN)" in result.stderr
    assert "openai/gpt-5.6-sol (judge)" in result.stderr
    assert "Traceback" not in result.stderr and ANTHROPIC_SECRET not in result.stderr

    assert provider_double.count() == 0
    assert not list(logs.glob("*.eval"))


# --------------------------------------------------------------------------------------------
# the two-provider sweep: every case of the release (the public one when BEDSIDE_BENCH_DATA
# names it, else the synthetic one), OpenAI through the OPENAI_ACCESS_TOKEN alias and
# Anthropic, judged by the default judge; then the same command again. One run serves every
# test of this section.

DATA = Path(REAL_RELEASE) if REAL_RELEASE else SYNTHETIC_RELEASE
TWO_PROVIDERS = ["openai/gpt-5.4-mini", "anthropic/claude-sonnet-4-6"]


@dataclass
class TwoProviders:
    first: Result
    second: Result
    double: ProviderDouble  # stopped; its records stay readable
    calls_after_first: int
    calls_after_second: int
    root: Path
    logs: Path
    cases: list[dict[str, Any]]


@pytest.fixture(scope="module")
def two_providers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TwoProviders]:
    root = tmp_path_factory.mktemp("two-providers")
    logs = root / "logs"
    with ProviderDouble() as double:
        env = sweep_env(
            double,
            root,
            openai_key=None,
            openai_access_token=OPENAI_SECRET,
            anthropic_key=ANTHROPIC_SECRET,
        )
        # the public release through BEDSIDE_BENCH_DATA (as CI runs it), else --data-dir
        data = [] if REAL_RELEASE else ["--data-dir", str(DATA)]
        args = sweep_args(
            TWO_PROVIDERS, logs, "--max-connections", "100", "--display", "none", *data
        )
        first = run_sweep_cli(args, env, root)
        assert first.returncode == 0, output(first)
        print(first.stdout.strip().splitlines()[-3:])
        after_first = double.count()
        second = run_sweep_cli(args, env, root)
        assert second.returncode == 0, output(second)
        cases = [c for b in BENCHMARK_NAMES for c in read_cases(DATA, b)]
        yield TwoProviders(first, second, double, after_first, double.count(), root, logs, cases)


@pytest.mark.slow
def test_two_provider_sweep_scores_every_case_once_and_a_rerun_asks_nothing(
    two_providers: TwoProviders,
) -> None:
    run = two_providers
    cases = len(run.cases)
    if REAL_RELEASE:
        assert cases == 250
    final = read_logs(run.logs)
    assert len(final) == 20 and all(log.status == "success" for log in final)
    expected = expected_scores(DATA, TWO_PROVIDERS)
    assert_scored_once(final, expected, 2 * cases)
    assert "sweep: 20/20 benchmark runs complete" in run.first.stdout
    # the same command again: everything is complete, nothing is asked again
    assert run.calls_after_second == run.calls_after_first
    assert "sweep: 20/20 benchmark runs complete" in run.second.stdout
    assert_bought_once(run.double, run.cases, TWO_PROVIDERS)


@pytest.mark.slow
def test_two_provider_sweep_sends_each_providers_credential_from_its_variable(
    two_providers: TwoProviders,
) -> None:
    """The credentials reached the provider, from the alias for OpenAI."""
    openai_requests = two_providers.double.requests(api="responses")
    assert {credential_sent(r) for r in openai_requests} == {OPENAI_SECRET}
    anthropic_requests = two_providers.double.requests(api="anthropic")
    assert {credential_sent(r) for r in anthropic_requests} == {ANTHROPIC_SECRET}


@pytest.mark.slow
def test_two_provider_sweep_records_the_temperatures_the_provider_received(
    two_providers: TwoProviders,
) -> None:
    """Temperatures: what the provider received, as the logs and summaries record it."""
    double = two_providers.double
    answers = ok(double.requests(kind="answer"))
    judges = ok(double.requests(kind="judge"))
    assert len(answers) == len(judges) == 2 * len(two_providers.cases)
    sent_answer = {(r.model, r.request.user): r.temperature for r in answers}
    sent_judge = {(answered_model(r), r.request.judge.prompt): r.temperature for r in judges}
    assert {(r.model, r.temperature) for r in answers} == {
        ("gpt-5.4-mini", 1.0),  # Responses API, gpt-5.1..5.4: Inspect sends it
        ("claude-sonnet-4-6", None),  # Inspect drops temperature for Anthropic models
    }
    assert {r.temperature_present for r in judges} == {False}  # gpt-5.6 reasons: dropped
    for log in read_logs(two_providers.logs):
        for sample in log.samples or []:
            meta = sample.scores[SCORER].metadata or {}  # type: ignore[index]
            key = (wire_name(log.eval.model), str(sample.input))
            assert meta["answer_temperature"] == sent_answer[key]
            assert meta["judge_temperature"] == sent_judge[key]
            assert meta["judge_model"] == "openai/gpt-5.6-sol"
    by_model = summaries(two_providers.logs / "report")
    assert by_model["openai/gpt-5.4-mini"]["answer_temperature"] == 1.0
    assert by_model["anthropic/claude-sonnet-4-6"]["answer_temperature"] is None
    for summary in by_model.values():
        assert summary["judge_temperature"] is None


@pytest.mark.slow
def test_two_provider_sweep_reports_and_compares_the_two_models(
    two_providers: TwoProviders,
) -> None:
    report_dir = two_providers.logs / "report"
    cases = len(two_providers.cases)
    by_model = summaries(report_dir)
    assert set(by_model) == set(TWO_PROVIDERS)
    for summary in by_model.values():
        assert summary["cases_completed"] == cases and summary["cases_failed"] == 0
        assert summary["overall"]["n"] == cases
        assert summary["data_source"] == str(DATA)
        if REAL_RELEASE:  # the whole public release: a complete (publishable) run
            assert summary["complete"] is True and summary["scope"]["full"] is True
        assert summary["judge_model"] == "openai/gpt-5.6-sol"
        # no prices file: both models priced from the genai-prices database, each part its
        # tokens at the rates the summary lists
        cost, source = summary["cost"], f"genai-prices {genai_prices.__version__}"
        assert cost["sources"] == {"answer": source, "judge": source}
        assert cost["price_data"] == f"{source} (bundled data)"
        for part, model in (("answer", summary["answer_model"]), ("judge", "openai/gpt-5.6-sol")):
            rates, tokens = cost["prices"][model], summary["usage"][part]
            expected = (
                tokens["input_tokens"] * rates["input"]
                + tokens["input_tokens_cache_read"] * rates.get("cached_input", rates["input"])
                + tokens["input_tokens_cache_write"] * rates.get("cache_write", rates["input"])
                + tokens["output_tokens"] * rates["output"]
            ) / 1e6
            assert cost[part] == pytest.approx(expected, rel=1e-12) and expected > 0
        assert summary["usage"]["answer"]["input_tokens"] > 0
    comparison = json.loads((report_dir / "comparison.json").read_text())
    assert comparison["like_for_like"] is True
    assert {m["answer_model"] for m in comparison["models"]} == set(TWO_PROVIDERS)
    assert comparison["overall"] is not None
    assert (report_dir / "report.md").exists() and (report_dir / "report.html").exists()


@pytest.mark.slow
def test_report_of_the_sweep_equals_a_recomputation_from_its_logs(
    two_providers: TwoProviders,
) -> None:
    """`bedside-bench report` and `python -m bedside_bench.report` over the sweep's logs (the
    whole public release in CI): the same files, and every figure equal to a recomputation
    from the logs; token usage equal to what the double reported."""
    run, logs = two_providers, two_providers.logs
    out, again = run.root / "cli", run.root / "reports"
    other_seed = {**os.environ, "PYTHONHASHSEED": "12345"}
    cli = run_tool("bedside-bench", "report", str(logs), "-o", str(out), cwd=run.root)
    assert cli.returncode == 0, output(cli)
    module = subprocess.run(  # default OUT_DIR: reports/ under the current directory
        # a process with another hash seed: the two reports equal by design, not by a shared seed
        [sys.executable, "-m", "bedside_bench.report", str(logs)],
        env=other_seed,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=run.root,
    )
    assert module.returncode == 0, module.stderr
    assert cli.stdout.splitlines()[:15] == module.stdout.splitlines()[:15]
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(p.name for p in again.iterdir())
    files = [f"{m.replace('/', '_')}.summary.json" for m in TWO_PROVIDERS]
    assert set(names) == {*files, "comparison.json", "forest.png", "report.html", "report.md"}
    for name in (*files, "comparison.json", "report.md"):
        assert (out / name).read_bytes() == (again / name).read_bytes(), name

    cases = len(run.cases)
    # each model's cases read from its logs once, for its summary and for the pair
    recomputed = {model: expected_cases(logs, model) for model in TWO_PROVIDERS}
    for model, name in zip(TWO_PROVIDERS, files, strict=True):
        summary = json.loads((out / name).read_text())
        validator("summary.schema.json").validate(summary)
        expected = expected_summary_numbers(logs, model, cases=recomputed[model])
        assert (summary["cases_completed"], summary["cases_failed"]) == (cases, 0)
        for benchmark in BENCHMARK_NAMES:
            entry = summary["benchmarks"][benchmark]
            assert {k: entry[k] for k in ("n", "failed", "mean", "ci95")} == expected["benchmarks"][
                benchmark
            ], benchmark
        assert summary["overall"] == expected["overall"]
        if REAL_RELEASE:
            assert summary["notes"][0] == (
                "public split: n = 25 per benchmark; not comparable with 50-case results"
            )
        answers = [r for r in ok(run.double.requests(kind="answer")) if r.model == wire_name(model)]
        judged = [
            r
            for r in ok(run.double.requests(kind="judge"))
            if answered_model(r) == wire_name(model)
        ]
        assert summary["usage"]["answer"]["output_tokens"] == sum(
            r.usage.output_tokens for r in answers if r.usage is not None
        )
        assert summary["usage"]["judge"]["output_tokens"] == sum(
            r.usage.output_tokens for r in judged if r.usage is not None
        )

    comparison = json.loads((out / "comparison.json").read_text())
    (pair,) = comparison["overall"]["pairs"]
    expected_pairs = expected_paired(logs, pair["a"], pair["b"], cases=recomputed)
    for benchmark in BENCHMARK_NAMES:
        assert comparison["benchmarks"][benchmark]["pairs"] == [
            {"a": pair["a"], "b": pair["b"], **expected_pairs[benchmark]}
        ]
    assert pair == {"a": pair["a"], "b": pair["b"], **expected_pairs["overall"]}
    assert pair["n"] == cases
    page = (out / "report.html").read_text()
    assert "data:image/png;base64," in page
    if REAL_RELEASE:
        assert "public split: n = 25" in page


@pytest.mark.slow
def test_two_provider_sweep_never_writes_a_secret(two_providers: TwoProviders) -> None:
    """No key anywhere: logs (inside the .eval zips), report, Inspect's data folder, terminal."""
    root = two_providers.root
    secrets = [OPENAI_SECRET, ANTHROPIC_SECRET]
    written = list(file_texts(root / "logs")) + list(file_texts(root / "data-home"))
    assert len(written) > 40
    terminal = [
        (f"run {n} {stream}", text.encode())
        for n, run in enumerate((two_providers.first, two_providers.second))
        for stream, text in (("stdout", run.stdout), ("stderr", run.stderr))
    ]
    assert leaks(secrets, written + terminal) == []
    assert leaks(["Bearer ", "x-api-key"], written) == []


@pytest.mark.slow
def test_temperature_sent_or_null_and_prices_give_a_cost(
    tmp_path: Path, provider_double: ProviderDouble
) -> None:
    """Chat Completions models take temperature 1 (answers) and 0 (judge); a provider that
    refuses it is asked again without it and the logs and summary say null. A smoke sweep
    (one case of each benchmark) with prices: an overall score and a cost, never complete."""
    release = tmp_path / "release"
    written = write_release(release, per_benchmark=2)
    provider_double.configure(refuse_temperature_for={"gpt-4o-mini"})
    logs = tmp_path / "logs"
    models = ["openai/gpt-4.1-mini", "openai/gpt-4o-mini"]
    prices = tmp_path / "prices.json"
    prices.write_text(
        json.dumps({m: {"input": 0.4, "output": 1.6} for m in [*models, "openai/gpt-4.1"]})
    )
    args = sweep_args(
        models,
        logs,
        "--judge",
        "openai/gpt-4.1",
        "--prices",
        str(prices),
        "--smoke",
        data_dir=release,
    )
    result = run_sweep_cli(args, sweep_env(provider_double, tmp_path), tmp_path)
    assert result.returncode == 0, output(result)
    assert "sweep: 20/20 benchmark runs complete" in result.stdout

    final = read_logs(logs)
    assert sorted((log.eval.task.split("/")[-1], log.eval.model) for log in final) == sorted(
        (b, m) for b in BENCHMARK_NAMES for m in models
    )
    # one case of each benchmark, scored as the protocol says
    smoke_cases = {(log.eval.model, str(s.id)) for log in final for s in log.samples or []}
    expected = expected_scores(release, models)
    assert_scored_once(final, {k: expected[k] for k in smoke_cases}, cases=20)
    smoke_ids = {case_id for _, case_id in smoke_cases}
    ran = [c for cases in written.values() for c in cases if c["case_id"] in smoke_ids]
    assert len(ran) == 10
    assert_bought_once(provider_double, ran, models)

    answers = provider_double.requests(kind="answer")
    assert Counter((r.model, r.status, r.temperature) for r in answers) == {
        ("gpt-4.1-mini", 200, 1.0): 10,
        ("gpt-4o-mini", 200, None): 10,  # asked again without it
        ("gpt-4o-mini", 400, 1.0): 10,  # refused
    }
    assert {(r.status, r.temperature) for r in provider_double.requests(kind="judge")} == {
        (200, 0.0)
    }
    for log in final:
        for sample in log.samples or []:
            meta = sample.scores[SCORER].metadata or {}  # type: ignore[index]
            assert meta["judge_temperature"] == 0.0
            assert meta["answer_temperature"] == (1.0 if "4.1" in log.eval.model else None)

    by_model = summaries(logs / "report")
    assert by_model["openai/gpt-4.1-mini"]["answer_temperature"] == 1.0
    assert by_model["openai/gpt-4o-mini"]["answer_temperature"] is None
    for summary in by_model.values():
        assert summary["judge_temperature"] == 0.0
        assert summary["cost"] is not None and summary["cost"]["total"] > 0
        # a smoke run has an overall score but is never a complete (publishable) run
        assert summary["cases_completed"] == 10 and summary["cases_failed"] == 0
        assert summary["complete"] is False and summary["overall"] is not None
        assert summary["scope"]["full"] is False and summary["scope"]["reasons"] == ["smoke"]


@pytest.mark.slow
def test_invalid_judge_reply_is_asked_again_and_an_always_invalid_one_fails_the_case(
    tmp_path: Path, provider_double: ProviderDouble
) -> None:
    release = tmp_path / "release"
    cases = write_release(release, per_benchmark=2)["drug_safety"]
    flaky, broken = cases[0]["prompt"], cases[1]["prompt"]
    provider_double.configure(
        script=Script(judge=invalid_judge_always(broken, then=invalid_judge_first(1, flaky)))
    )
    logs = tmp_path / "logs"
    args = sweep_args(
        ["openai/gpt-4.1-mini"],
        logs,
        "--judge",
        "openai/gpt-4.1",
        "--benchmarks",
        "drug_safety",
        "--judge-retries",
        "1",
        "--retry-attempts",
        "1",
        data_dir=release,
    )
    env = sweep_env(provider_double, tmp_path)
    result = run_sweep_cli(args, env, tmp_path)
    assert result.returncode == sweep.EXIT_INCOMPLETE, output(result)
    assert "incomplete" in result.stdout

    # invalid once: asked again in the same sample, which is then scored; always invalid:
    # 2 judge calls (1 + --judge-retries) of its one answer, then the task retry
    # (--retry-attempts) asks neither again; the completed case is not asked again either
    ids = [case["case_id"] for case in cases]
    assert_bought_once(provider_double, cases, ["openai/gpt-4.1-mini"], {ids[0]: 2, ids[1]: 2})

    (log,) = read_logs(logs)
    by_id = {s.input: s for s in log.samples or []}
    attempts = by_id[flaky].scores[SCORER].metadata["judge_attempts"]  # type: ignore[index]
    assert [a["error"] is None for a in attempts] == [False, True]
    assert by_id[broken].error is not None and not by_id[broken].scores
    summary = summaries(logs / "report")["openai/gpt-4.1-mini"]
    assert (summary["cases_completed"], summary["cases_failed"]) == (1, 1)
    assert summary["benchmarks"]["drug_safety"]["failed"] == 1
    assert summary["complete"] is False

    # the judge is fixed: the same command redoes only the failed case
    provider_double.configure(script=Script())
    provider_double.reset()
    again = run_sweep_cli(args, env, tmp_path)
    assert again.returncode == 0, output(again)
    # the stored answer is judged again, not bought again
    assert_bought_once(
        provider_double, cases, ["openai/gpt-4.1-mini"], {ids[1]: 1}, answers_per_case=0
    )
    summary = summaries(logs / "report")["openai/gpt-4.1-mini"]
    assert (summary["cases_completed"], summary["cases_failed"]) == (2, 0)
