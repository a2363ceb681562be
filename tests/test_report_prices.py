"""Where a part's price comes from (`report/prices.py`, `usage.cost_json`): the prices file,
the cost Inspect recorded, pydantic's genai-prices database; each cost computed by hand from
the token counts and the database's published per-MTok rates (read from the database, the
products computed here)."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import genai_prices
import pytest
from genai_prices import Usage, calc_price
from genai_prices.types import ModelPrice

from bedside_bench.logs.records import TokenUsage, split_cost
from bedside_bench.report.prices import database_label, database_price
from bedside_bench.report.usage import GroupUsage, cost_json, group_usage
from tests.report_helpers import log_record

VERSION = genai_prices.__version__
DATABASE = f"genai-prices {VERSION}"
ANSWER, JUDGE = "openai/gpt-4.1-mini", "openai/gpt-4.1"
# before and after the date genai-prices' OpenAI batch variants start (2026-10-14)
EARLY, LATE = "2026-01-01T10:00:00+00:00", "2026-11-02T10:00:00+00:00"
# answers: 12,345 fresh input, 2,000 cache reads, 6,789 output; judging: 54,321 in, 987 out
A = TokenUsage(input_tokens=12_345, input_tokens_cache_read=2_000, output_tokens=6_789)
J = TokenUsage(input_tokens=54_321, output_tokens=987)


def published(model: str, when: str, batch: bool = False) -> ModelPrice:
    """The database's per-MTok rates of an OpenAI model at `when` (what its site publishes)."""
    context = {"processing": "batch"} if batch else None
    return calc_price(
        Usage(input_tokens=0),
        model,
        provider_id="openai",
        genai_request_timestamp=datetime.fromisoformat(when),
        price_context=context,
    ).model_price


def mtok(value: object) -> Decimal:
    assert isinstance(value, Decimal)
    return value


def by_hand(tokens: TokenUsage, price: ModelPrice) -> Decimal:
    """Fresh input, cache reads and output at their rates, in exact decimals."""
    return (
        tokens.input_tokens * mtok(price.input_mtok)
        + tokens.input_tokens_cache_read * mtok(price.cache_read_mtok)
        + tokens.output_tokens * mtok(price.output_mtok)
    ) / 1_000_000


def usage(started_at: str = EARLY, batch: bool = False, **fields: object) -> GroupUsage:
    return group_usage(
        [
            log_record(
                {"c": 0.5},
                started_at=started_at,
                answer_model=ANSWER,
                judge_model=JUDGE,
                answer_usage=A,
                judge_usage=J,
                answer_batch=batch,
                judge_batch=batch,
                **fields,
            )
        ]
    )


def test_a_well_known_model_is_priced_from_the_database_without_a_prices_file() -> None:
    answer_price, judge_price = published("gpt-4.1-mini", EARLY), published("gpt-4.1", EARLY)
    # the rates themselves, as the database publishes them (USD per million tokens)
    assert (answer_price.input_mtok, answer_price.output_mtok) == (Decimal("0.4"), Decimal("1.6"))
    assert answer_price.cache_read_mtok == Decimal("0.1")
    cost, notes = cost_json(ANSWER, JUDGE, usage(), None)
    assert notes == [] and cost is not None
    # 12,345 x 0.4 + 2,000 x 0.1 + 6,789 x 1.6 = 4938 + 200 + 10862.4 = 16000.4 -> $0.0160004
    assert by_hand(A, answer_price) == Decimal("0.0160004")
    assert cost.answer == pytest.approx(0.0160004, rel=1e-12)
    # 54,321 x 2 + 987 x 8 = 108642 + 7896 = 116538 -> $0.116538
    assert by_hand(J, judge_price) == Decimal("0.116538")
    assert cost.judge == pytest.approx(0.116538, rel=1e-12)
    assert cost.total == pytest.approx(0.1325384, rel=1e-12)
    # an independent path: genai-prices' own calculation, its input being the whole prompt
    own = calc_price(
        Usage(input_tokens=14_345, cache_read_tokens=2_000, output_tokens=6_789),
        "gpt-4.1-mini",
        provider_id="openai",
        genai_request_timestamp=datetime.fromisoformat(EARLY),
    )
    assert cost.answer == pytest.approx(float(own.total_price), rel=1e-12)
    assert cost.model_dump()["sources"] == {"answer": DATABASE, "judge": DATABASE}
    assert cost.price_data == f"{DATABASE} (bundled data)" == database_label()
    assert cost.prices["openai/gpt-4.1-mini"] == {"input": 0.4, "output": 1.6, "cached_input": 0.1}


def test_batch_runs_take_the_database_batch_rates_where_it_has_them() -> None:
    batch = published("gpt-4.1-mini", LATE, batch=True)
    standard = published("gpt-4.1-mini", LATE)
    # the database's batch variant: half the input and output rates
    assert (batch.input_mtok, batch.output_mtok) == (Decimal("0.2"), Decimal("0.8"))
    assert standard.input_mtok == Decimal("0.4")
    cost, notes = cost_json(ANSWER, JUDGE, usage(LATE, batch=True), None)
    assert notes == [] and cost is not None
    # 12,345 x 0.2 + 2,000 x 0.1 + 6,789 x 0.8 = 2469 + 200 + 5431.2 = 8100.2
    assert by_hand(A, batch) == Decimal("0.0081002")
    assert cost.answer == pytest.approx(0.0081002, rel=1e-12)
    # 54,321 x 1 + 987 x 4 = 54321 + 3948 = 58269
    assert cost.judge == pytest.approx(0.058269, rel=1e-12)
    # before the database's batch rates start, a batch run has no batch price: null, a note
    early, notes = cost_json(ANSWER, JUDGE, usage(EARLY, batch=True), None)
    assert early is None
    assert notes == [
        f"{model} ran with the batch API and the {DATABASE} gives it no batch price "
        f"(batch_input and batch_output, or batch_discount): cost.{part} is null"
        for model, part in ((ANSWER, "answer"), (JUDGE, "judge"))
    ]


def test_the_prices_file_overrides_the_database_and_inspect_for_the_models_it_lists() -> None:
    prices = {"gpt-4.1-mini": {"input": 1.0, "output": 2.0}}
    cost, notes = cost_json(ANSWER, JUDGE, usage(answer_cost=9.0, judge_cost=0.5), prices)
    assert notes == [] and cost is not None
    # 14,345 input (cache reads at the input rate: the file gives no cached_input) + 6,789 x 2
    assert cost.answer == pytest.approx((14_345 * 1.0 + 6_789 * 2.0) / 1e6, rel=1e-12)
    # the judge is not in the file: Inspect's recorded cost
    assert cost.judge == 0.5
    assert cost.model_dump()["sources"] == {"answer": "prices file", "judge": "Inspect cost config"}
    assert cost.price_data is None


def test_inspect_recorded_cost_is_used_when_every_counted_log_has_it() -> None:
    cost, notes = cost_json(ANSWER, JUDGE, usage(answer_cost=0.25, judge_cost=1.5), None)
    assert notes == [] and cost is not None
    assert (cost.answer, cost.judge, cost.total) == (0.25, 1.5, 1.75)
    assert cost.prices == {}
    # two task ids, one log without Inspect's cost: the database prices the whole part
    logs = [
        log_record(
            {"c": 0.5},
            started_at=EARLY,
            task_id=task,
            answer_model=ANSWER,
            judge_model=JUDGE,
            answer_usage=A,
            judge_usage=J,
            answer_cost=answer_cost,
        )
        for task, answer_cost in (("t1", 0.25), ("t2", None))
    ]
    mixed = group_usage(logs)
    assert (mixed.answer_cost, mixed.answer_cost_logs) == (None, 1)
    cost, notes = cost_json(ANSWER, JUDGE, mixed, None)
    assert cost is not None and cost.answer == pytest.approx(2 * 0.0160004, rel=1e-12)
    assert notes == [
        f"Inspect recorded a cost for {ANSWER} in 1 of the 2 counted logs only: cost.answer "
        "is priced from other prices"
    ]


def test_inspect_cost_is_split_as_tokens_are() -> None:
    # another judge model: the grader role's cost
    assert split_cost({"m/a": 1.0, "m/j": 2.0}, {"grader": 2.0}, "m/a", "m/j", "grader") == (
        1.0,
        2.0,
    )
    # the same model answering and judging: the role's cost taken out of the model's
    assert split_cost({"m/a": 3.0}, {"grader": 1.0}, "m/a", "m/a", "grader") == (2.0, 1.0)
    # no role usage: the judge's part cannot be told apart (as its tokens)
    assert split_cost({"m/a": 3.0}, {}, "m/a", "m/a", "grader") == (3.0, None)
    # no cost config: nothing recorded
    assert split_cost({"m/a": None}, {"grader": None}, "m/a", "m/j", "grader") == (None, None)


def test_models_the_database_does_not_know_have_no_price() -> None:
    for model in ("mockllm/model", "ollama/llama3", "openai/double-model", "bbscript/judge"):
        assert database_price(model) is None
    # a tiered model: the base tier's rates (every call of the suite is far below the tier)
    found = database_price("openai/gpt-5.6-sol", datetime.fromisoformat(LATE))
    assert found is not None and found.rates["input"] == 4.0 and found.rates["output"] == 20.0
