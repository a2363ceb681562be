"""Cost the Inspect way, end to end against the provider double: a run given Inspect's cost
config (`model_cost_config`) is priced from the `total_cost` its log records; a run with none
is priced from the genai-prices database, with no prices file at all (the double answers any
model name: here the well-known openai/gpt-4.1-mini and openai/gpt-4.1); a cost limit stops
cases, which the report names; the sweep passes both options to Inspect.

Every expected figure is the log's own token counts times the per-MTok rates (the config's,
or the database's as it publishes them), computed here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import genai_prices
import pytest
from genai_prices import Usage, calc_price
from inspect_ai.log import EvalLog
from inspect_ai.model import ModelUsage
from inspect_ai.model._model_info import clear_model_info_cache

from bedside_bench.doubles import ProviderDouble
from bedside_bench.task import tasks as bedside_tasks
from tests.e2e_helpers import (
    ANSWER_MODEL,
    JUDGE_MODEL,
    eval_against,
    output,
    read_logs,
    run_sweep_cli,
    run_tool,
    summaries,
    sweep_args,
    sweep_env,
)
from tests.release_factory import write_release

pytestmark = pytest.mark.slow  # Inspect evals, the report and a provider double

BENCHMARK = "drug_safety"
CASES = 2
# Inspect's cost config: USD per million tokens, unlike the database's rates for these models
CONFIG = {
    ANSWER_MODEL: {"input": 0.5, "output": 2.5, "input_cache_write": 0.5, "input_cache_read": 0.05},
    JUDGE_MODEL: {"input": 3.0, "output": 12.0, "input_cache_write": 3.0, "input_cache_read": 0.75},
}


@pytest.fixture(scope="module")
def double() -> Iterator[ProviderDouble]:
    with ProviderDouble() as server:
        yield server


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("release")
    write_release(root, per_benchmark=CASES)
    return root


def eval_here(
    double: ProviderDouble, release: Path, log_dir: Path, **options: Any
) -> list[EvalLog]:
    """drug_safety through Inspect's `eval()` in this process, `options` as its arguments."""
    task = bedside_tasks.drug_safety(data_dir=str(release))
    try:
        eval_against(double, task, log_dir, model=ANSWER_MODEL, grader=JUDGE_MODEL, **options)
    finally:
        clear_model_info_cache()  # Inspect keeps a cost config's prices for the process
    return read_logs(log_dir)


def report(log_dir: Path) -> dict[str, Any]:
    out = log_dir.parent / "report"
    result = run_tool("bedside-bench", "report", str(log_dir), "-o", str(out))
    assert result.returncode == 0, output(result)
    (summary,) = summaries(out).values()
    summary["report_md"] = (out / "report.md").read_text()
    return summary


def by_hand(usage: ModelUsage, rates: dict[str, float]) -> float:
    return (
        usage.input_tokens * rates["input"]
        + (usage.input_tokens_cache_read or 0) * rates["input_cache_read"]
        + (usage.input_tokens_cache_write or 0) * rates["input_cache_write"]
        + usage.output_tokens * rates["output"]
    ) / 1e6


def database_by_hand(usage: ModelUsage, model: str, started_at: str) -> float:
    """The tokens at the database's published per-MTok rates, multiplied here."""
    price = calc_price(
        Usage(input_tokens=0),
        model.split("/", 1)[1],
        provider_id="openai",
        genai_request_timestamp=datetime.fromisoformat(started_at),
    ).model_price
    rates = (price.input_mtok, price.cache_read_mtok, price.output_mtok)
    assert all(isinstance(r, Decimal) for r in rates)
    cost = (
        usage.input_tokens * Decimal(str(price.input_mtok))
        + (usage.input_tokens_cache_read or 0) * Decimal(str(price.cache_read_mtok))
        + usage.output_tokens * Decimal(str(price.output_mtok))
    ) / 1_000_000
    return float(cost)


@pytest.fixture(scope="module")
def config_run(
    double: ProviderDouble, release: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[EvalLog, dict[str, Any]]:
    root = tmp_path_factory.mktemp("config")
    config = root / "costs.json"
    config.write_text(json.dumps(CONFIG))
    (log,) = eval_here(double, release, root / "logs", model_cost_config=str(config))
    return log, report(root / "logs")


@pytest.fixture(scope="module")
def database_run(
    double: ProviderDouble, release: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[EvalLog, dict[str, Any]]:
    root = tmp_path_factory.mktemp("database")
    (log,) = eval_here(double, release, root / "logs")
    return log, report(root / "logs")


def test_a_run_given_inspect_cost_config_is_priced_from_its_log(
    config_run: tuple[EvalLog, dict[str, Any]],
) -> None:
    log, summary = config_run
    answer = log.stats.model_usage[ANSWER_MODEL]
    judge = log.stats.role_usage["grader"]
    # Inspect recorded the cost at the config's rates
    assert answer.total_cost == pytest.approx(by_hand(answer, CONFIG[ANSWER_MODEL]), rel=1e-9)
    assert judge.total_cost == pytest.approx(by_hand(judge, CONFIG[JUDGE_MODEL]), rel=1e-9)
    cost = summary["cost"]
    assert cost["answer"] == pytest.approx(by_hand(answer, CONFIG[ANSWER_MODEL]), rel=1e-9)
    assert cost["judge"] == pytest.approx(by_hand(judge, CONFIG[JUDGE_MODEL]), rel=1e-9)
    assert cost["sources"] == {"answer": "Inspect cost config", "judge": "Inspect cost config"}
    assert cost["price_data"] is None and cost["prices"] == {}
    assert (
        f"Prices from: {ANSWER_MODEL}: Inspect cost config; {JUDGE_MODEL}: Inspect cost config."
        in summary["report_md"]
    )


def test_a_well_known_model_is_priced_with_no_price_file_at_all(
    database_run: tuple[EvalLog, dict[str, Any]],
) -> None:
    log, summary = database_run
    answer = log.stats.model_usage[ANSWER_MODEL]
    judge = log.stats.role_usage["grader"]
    assert answer.total_cost is None and judge.total_cost is None  # no cost config
    started = log.stats.started_at
    cost = summary["cost"]
    assert cost["answer"] == pytest.approx(
        database_by_hand(answer, ANSWER_MODEL, started), rel=1e-9
    )
    assert cost["judge"] == pytest.approx(database_by_hand(judge, JUDGE_MODEL, started), rel=1e-9)
    assert cost["answer"] > 0 and cost["judge"] > 0
    source = f"genai-prices {genai_prices.__version__}"
    assert cost["sources"] == {"answer": source, "judge": source}
    assert cost["price_data"] == f"{source} (bundled data)"
    assert f"Price data: {source} (bundled data)" in summary["report_md"]


def test_the_two_runs_side_by_side(
    config_run: tuple[EvalLog, dict[str, Any]], database_run: tuple[EvalLog, dict[str, Any]]
) -> None:
    """The same cases, answers and judge decisions cost what each source says (printed with
    `-s`): the double bills the same tokens to both runs."""
    (config_log, config), (database_log, database) = config_run, database_run
    assert config_log.stats.model_usage[ANSWER_MODEL].output_tokens == (
        database_log.stats.model_usage[ANSWER_MODEL].output_tokens
    )
    for part in ("answer", "judge", "total"):
        print(
            f"{part}: Inspect cost config ${config['cost'][part]:.6f}, "
            f"genai-prices ${database['cost'][part]:.6f}"
        )
    assert config["cost"]["total"] != database["cost"]["total"]


def test_a_cost_limit_stops_cases_and_the_report_names_them(
    double: ProviderDouble, release: Path, tmp_path: Path
) -> None:
    config = tmp_path / "costs.yaml"
    config.write_text(json.dumps(CONFIG))
    (log,) = eval_here(
        double, release, tmp_path / "logs", model_cost_config=str(config), cost_limit=1e-9
    )
    assert log.samples is not None
    stopped = sorted(str(s.id) for s in log.samples if s.limit and s.limit.type == "cost")
    assert len(stopped) == CASES
    summary = report(tmp_path / "logs")
    assert summary["cases_failed"] == CASES
    assert (
        f"{CASES} failed case(s) were stopped by the cost limit ($1e-09 per case, --cost-limit) "
        f"before they were scored: {BENCHMARK}: {', '.join(stopped)}; rerun them with a larger "
        "limit"
    ) in summary["notes"]


def test_the_sweep_passes_the_cost_options_to_inspect(
    double: ProviderDouble, release: Path, tmp_path: Path
) -> None:
    config = tmp_path / "costs.yaml"
    config.write_text(json.dumps(CONFIG))
    log_dir = tmp_path / "sweep"
    args = sweep_args(
        [ANSWER_MODEL],
        log_dir,
        "--judge",
        JUDGE_MODEL,
        "--benchmarks",
        BENCHMARK,
        "--model-cost-config",
        str(config),
        "--cost-limit",
        "1e-9",
        data_dir=release,
    )
    result = run_sweep_cli(args, sweep_env(double, tmp_path), tmp_path)
    assert result.returncode == 3, output(result)  # failed cases left
    (log,) = read_logs(log_dir)
    assert log.eval.config.cost_limit == 1e-9
    assert log.stats.model_usage[ANSWER_MODEL].total_cost is not None
    (summary,) = summaries(log_dir / "report").values()
    assert summary["cases_failed"] == CASES
    assert any("stopped by the cost limit ($1e-09 per case" in n for n in summary["notes"])
    # a model Inspect does not know is refused before any call, naming the file and model
    bad = tmp_path / "bad.yaml"
    bad.write_text(json.dumps({"openai/no-such-model-x": CONFIG[ANSWER_MODEL]}))
    args[args.index(str(config))] = str(bad)
    result = run_sweep_cli(args, sweep_env(double, tmp_path), tmp_path)
    assert result.returncode != 0
    assert f"model cost config {bad}: Inspect's model database has no" in result.stderr
