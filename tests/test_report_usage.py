"""Usage and cost of a run group (`report/usage.py`) on hand-built records, by hand."""

from __future__ import annotations

from typing import Any

import genai_prices
import pytest

from bedside_bench.logs.records import TokenUsage, split_usage
from bedside_bench.report.usage import (
    GroupUsage,
    check_prices,
    cost_json,
    group_usage,
    usage_cost,
)
from tests.report_helpers import ANSWER_TOKENS, JUDGE_TOKENS, log_record

T1, T2 = "2026-01-01T10:00:00+00:00", "2026-01-01T11:00:00+00:00"


U = TokenUsage(**ANSWER_TOKENS)
J = TokenUsage(**JUDGE_TOKENS)


def test_split_usage_uses_the_grader_role() -> None:
    answer, judge = split_usage({"m/a": U, "m/j": J}, {"grader": J}, "m/a", "m/j", "grader")
    assert (answer, judge) == (U, J)
    # same model answering and judging: the role usage is taken out of the model's total
    answer, judge = split_usage({"m/a": U + J}, {"grader": J}, "m/a", "m/a", "grader")
    assert (answer, judge) == (U, J)
    # same model and no role usage: not separable
    answer, judge = split_usage({"m/a": U + J}, {}, "m/a", "m/a", "grader")
    assert (answer, judge) == (U + J, None)
    # no role usage, different models: by model name
    assert split_usage({"m/a": U, "m/j": J}, {}, "m/a", "m/j", "grader") == (U, J)


def test_retry_logs_carry_usage_forward_so_only_the_newest_per_task_counts() -> None:
    first = log_record(
        {"c": None},
        started_at=T1,
        task_id="t1",
        answer_usage=U,
        judge_usage=J,
        completed_at="2026-01-01T10:00:30+00:00",
    )
    retry = log_record(
        {"c": 0.5},
        started_at=T2,
        task_id="t1",
        answer_usage=U + U,
        judge_usage=J + J,
        completed_at="2026-01-01T11:00:10+00:00",
    )
    other = log_record(
        {"d": 0.5},
        started_at=T1,
        task_id="t2",
        benchmark="health_equity",
        answer_usage=U,
        judge_usage=J,
        completed_at="2026-01-01T10:01:00+00:00",
    )
    usage = group_usage([first, retry, other])
    assert usage.answer == U + U + U
    assert usage.judge == J + J + J
    assert usage.counted_logs == (other.location, retry.location)
    assert usage.wall_time_sum == 30 + 10 + 60
    assert usage.wall_time_span == 3600 + 10


def one_log_usage(answer_model: str) -> GroupUsage:
    """The usage of one log of `answer_model` (tokens U) judged by test/judge (tokens J)."""
    record = log_record(
        {"c": 0.5}, started_at=T1, answer_model=answer_model, answer_usage=U, judge_usage=J
    )
    return group_usage([record])


def test_cost_from_prices_per_million_tokens() -> None:
    price = {"input": 0.25, "output": 2.0, "cached_input": 0.025}
    # 100 input, 40 cached input, 20 output tokens
    assert usage_cost(U, price) == pytest.approx((100 * 0.25 + 40 * 0.025 + 20 * 2.0) / 1e6)
    assert usage_cost(U, {"input": 1.0, "output": 1.0}) == pytest.approx(160 / 1e6)
    usage = one_log_usage("openai/gpt-5.4-mini")
    prices = check_prices({"openai/gpt-5.4-mini": price, "test/judge": {"input": 1, "output": 3}})
    cost, notes = cost_json("openai/gpt-5.4-mini", "test/judge", usage, prices)
    assert cost is not None and notes == []
    assert cost.answer == usage_cost(U, price)
    assert cost.judge == pytest.approx((300 * 1 + 30 * 3) / 1e6)
    assert cost.total == cost.answer + cost.judge
    assert cost.prices == prices


def test_a_model_missing_from_prices_is_null_never_zero() -> None:
    usage = one_log_usage("test/a")
    cost, notes = cost_json(
        "test/a", "test/judge", usage, {"test/a": {"input": 1.0, "output": 1.0}}
    )
    assert cost is not None
    assert cost.judge is None and cost.total is None
    assert cost.answer == pytest.approx(160 / 1e6)
    assert notes == [
        f"no price for test/judge (not in the prices file nor in genai-prices "
        f"{genai_prices.__version__}), and the logs record no Inspect cost for it "
        "(--model-cost-config at run time): cost.judge is null"
    ]
    # without a prices file, models no source knows: no cost object, a note naming each
    version = genai_prices.__version__
    assert cost_json("test/a", "test/judge", usage, None) == (
        None,
        [
            f"no price for {model} (not in genai-prices {version}), and the logs record no "
            f"Inspect cost for it (--model-cost-config at run time): cost.{part} is null"
            for model, part in (("test/a", "answer"), ("test/judge", "judge"))
        ],
    )


def test_prices_are_matched_with_or_without_provider_prefix() -> None:
    usage = one_log_usage("openai/gpt-x")
    cost, _ = cost_json(
        "openai/gpt-x", "test/judge", usage, {"gpt-x": {"input": 1.0, "output": 1.0}}
    )
    assert cost is not None and list(cost.prices) == ["gpt-x"]


@pytest.mark.parametrize(
    "bad",
    [
        [],
        {"m": 1},
        {"m": {"input": 1}},
        {"m": {"input": 1, "output": -1}},
        {"m": {"input": 1, "output": 1, "bogus": 2}},
        {"m": {"input": True, "output": 1}},
    ],
)
def test_bad_prices_files_are_rejected(bad: Any) -> None:
    with pytest.raises(ValueError):
        check_prices(bad)
