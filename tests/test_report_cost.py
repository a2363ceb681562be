"""Batch prices, cost per full run and the headline cost cells (`report/usage.py`,
`report/cost_section.py`), with every figure computed by hand."""

from __future__ import annotations

from typing import Any

import pytest

from bedside_bench.documents.estimate import (
    CostRange,
    EstimateDocument,
    ModelEstimate,
    OutputBasis,
    Tokenizer,
)
from bedside_bench.documents.summary import CostSummary, RunSummary
from bedside_bench.logs.records import TokenUsage
from bedside_bench.report.cost_section import cost_headline, cost_lines, estimate_section
from bedside_bench.report.document import Heading, Paragraph, ReportContext, Table
from bedside_bench.report.groups import group_records
from bedside_bench.report.usage import (
    batch_rates,
    check_prices,
    cost_json,
    full_run_cost,
    group_usage,
)
from tests.report_helpers import log_record, run_summary

T1, T2 = "2026-01-01T10:00:00+00:00", "2026-01-01T11:00:00+00:00"
# answers: 1,000,000 fresh input, 200,000 cache reads, 100,000 output
A = TokenUsage(input_tokens=1_000_000, input_tokens_cache_read=200_000, output_tokens=100_000)
# judging: 2,000,000 input, 50,000 output
J = TokenUsage(input_tokens=2_000_000, output_tokens=50_000)
PRICES = {
    # answers: $2 in, $0.5 cached, $8 out; batch: half of each
    "openai/gpt-x": {"input": 2.0, "cached_input": 0.5, "output": 8.0, "batch_discount": 0.5},
    # judge: $1 in, $4 out; batch rates given outright
    "judge-y": {"input": 1.0, "output": 4.0, "batch_input": 0.4, "batch_output": 1.5},
    # no batch price at all
    "anthropic/z": {"input": 3.0, "output": 15.0},
}


def usage_of(*logs: tuple[str, bool, bool]) -> Any:
    """Group usage of logs (start time, answer batch, judge batch), each spending A and J."""
    return group_usage(
        [
            log_record(
                {"c": 0.5},
                started_at=start,
                task_id=f"task-{start}",
                answer_model="openai/gpt-x",
                judge_model="judge-y",
                answer_usage=A,
                judge_usage=J,
                answer_batch=answer_batch,
                judge_batch=judge_batch,
            )
            for start, answer_batch, judge_batch in logs
        ]
    )


def test_a_standard_run_is_priced_at_the_standard_rates() -> None:
    cost, notes = cost_json("openai/gpt-x", "judge-y", usage_of((T1, False, False)), PRICES)
    assert notes == [] and cost is not None
    # 1.0 M x $2 + 0.2 M x $0.5 + 0.1 M x $8 = 2 + 0.1 + 0.8
    assert cost.answer == pytest.approx(2.9)
    # 2 M x $1 + 0.05 M x $4
    assert cost.judge == pytest.approx(2.2)
    assert cost.total == pytest.approx(5.1)
    assert cost.model_dump()["batch"] == {"answer": False, "judge": False}


def test_a_batch_run_is_priced_at_the_batch_rates() -> None:
    cost, notes = cost_json("openai/gpt-x", "judge-y", usage_of((T1, True, True)), PRICES)
    assert notes == [] and cost is not None
    assert cost.answer == pytest.approx(1.45)  # the discount halves every rate
    # 2 M x $0.4 + 0.05 M x $1.5
    assert cost.judge == pytest.approx(0.875)
    assert cost.total == pytest.approx(2.325)
    assert cost.model_dump()["batch"] == {"answer": True, "judge": True}


def test_a_group_of_batch_and_standard_logs_prices_each_at_its_rate() -> None:
    usage = usage_of((T1, True, False), (T2, False, False))
    cost, _ = cost_json("openai/gpt-x", "judge-y", usage, PRICES)
    assert cost is not None
    assert cost.answer == pytest.approx(1.45 + 2.9)
    assert cost.judge == pytest.approx(2 * 2.2)


def test_a_batch_run_without_a_batch_price_costs_null_never_zero() -> None:
    usage = group_usage(
        [
            log_record(
                {"c": 0.5},
                answer_model="anthropic/z",
                judge_model="judge-y",
                answer_usage=A,
                judge_usage=J,
                answer_batch=True,
            )
        ]
    )
    cost, notes = cost_json("anthropic/z", "judge-y", usage, PRICES)
    assert cost is not None
    assert cost.answer is None and cost.total is None
    assert cost.judge == pytest.approx(2.2)
    assert len(notes) == 1 and "anthropic/z ran with the batch API" in notes[0]


def test_batch_rates_explicit_over_discount_and_none_without_either() -> None:
    assert batch_rates(PRICES["openai/gpt-x"]) == {
        "input": 1.0,
        "output": 4.0,
        "cached_input": 0.25,
    }
    assert batch_rates(
        {"input": 1.0, "output": 2.0, "batch_input": 0.1, "batch_discount": 0.5}
    ) == {
        "input": 0.1,
        "output": 1.0,
    }
    assert batch_rates(PRICES["anthropic/z"]) is None
    assert batch_rates({"input": 1.0, "output": 2.0, "batch_input": 0.5}) is None


@pytest.mark.parametrize(
    "bad",
    [
        {"m": {"input": 1, "output": 1, "batch_discount": 1}},
        {"m": {"input": 1, "output": 1, "batch_discount": -0.1}},
        {"m": {"input": 1, "output": 1, "batch_output": "half"}},
        {"m": {"input": 1, "output": 1, "batch_bogus": 1}},
    ],
)
def test_bad_batch_prices_are_rejected(bad: Any) -> None:
    with pytest.raises(ValueError):
        check_prices(bad)


def test_cost_per_full_run_scales_by_cases() -> None:
    cost = CostSummary(answer=2.9, judge=None, total=None, prices={})
    scaled = full_run_cost(cost, 10, 250)
    assert scaled is not None and scaled.model_dump() == {
        "cases": 250,
        "answer": pytest.approx(72.5),
        "judge": None,
        "total": None,
    }
    assert full_run_cost(cost, 0, 250) is None
    assert full_run_cost(None, 10, 250) is None


def summary(model: str, cost: dict[str, Any] | None) -> RunSummary:
    """A group's summary with the given answer model and cost document."""
    return run_summary(
        answer_model=model, cost=None if cost is None else CostSummary.model_validate(cost)
    )


def test_the_headline_shows_cost_per_model_and_per_full_run() -> None:
    cost = {
        "answer": 1.5,
        "judge": 0.25,
        "total": 1.75,
        "prices": {},
        "batch": {"answer": True, "judge": False},
        "per_full_run": {"cases": 250, "answer": 37.5, "judge": 6.25, "total": 43.75},
        "sources": {"answer": "Inspect cost config", "judge": "genai-prices 0.2.3"},
        "price_data": "genai-prices 0.2.3 (bundled data)",
    }
    context = ReportContext(
        summaries=[summary("a", cost), summary("b", None)], labels=["a", "b"], files=[]
    )
    [heading, table, sources] = cost_headline(context)
    assert heading == Heading(2, "Cost")  # its own heading, not under the verdict's
    assert isinstance(table, Table)
    assert table.rows == (
        ("a (batch: answer)", "$1.5000", "$0.2500", "$1.7500", "$43.7500 (250 cases)"),
        ("b", "n/a", "n/a", "n/a", "n/a"),
    )
    # each model named with the source that priced it, and the price data's version
    assert isinstance(sources, Paragraph)
    answer_model, judge_model = context.summaries[0].answer_model, context.summaries[0].judge_model
    assert sources.text.startswith(
        f"Prices from: {answer_model}: Inspect cost config; {judge_model}: genai-prices 0.2.3. "
        "Price data: genai-prices 0.2.3 (bundled data), at the rates in force when each run "
        "started"
    )
    assert cost_lines(context.summaries, context.labels) == [
        "cost a: answers $1.5000 + judge $0.2500 = $1.7500; a full run: $43.7500 (250 cases) "
        "(answers: Inspect cost config, judge: genai-prices 0.2.3)"
    ]
    none = ReportContext(summaries=[summary("a", None)], labels=["a"], files=[])
    [heading, line] = cost_headline(none)
    assert heading == Heading(2, "Cost")
    assert isinstance(line, Paragraph)
    assert "--model-cost-config" in line.text and "--prices" in line.text


def test_the_estimate_stands_beside_what_the_logs_after_it_spent() -> None:
    basis = OutputBasis(source="prior", per_call=10.0)
    model = ModelEstimate(
        runs=1,
        cases=1,
        cases_done=0,
        answer_calls=1,
        judge_calls=1,
        answer_input_tokens=132,
        answer_output_tokens=10,
        judge_input_tokens=900,
        judge_output_tokens=12,
        tokenizer=Tokenizer(name="cl100k_base", approximate=False),
        answer_output=basis,
        judge_output=basis,
        cost_usd=CostRange(low=1, expected=2, high=3, answer=1.5, judge=0.5, batch=False),
    )
    estimate = EstimateDocument(
        created_at="2026-01-01T10:30:00+00:00",  # between T1 and T2
        log_dir="logs",
        judge="test/judge",
        judge_tokenizer=Tokenizer(name="cl100k_base", approximate=False),
        judge_passes=1,
        epochs=1,
        grading="binary",
        batch=False,
        call_overhead_tokens=9,
        models={"a": model},
        cost_usd=None,
    )
    answer = TokenUsage(input_tokens=100, input_tokens_cache_read=20, output_tokens=10)
    judge = TokenUsage(input_tokens=1000, input_tokens_cache_read=20, output_tokens=10)
    logs = [
        # before the estimate: not what it estimated
        log_record(
            {"c": 0.5},
            benchmark="safety_diagnostic",
            started_at=T1,
            answer_model="a",
            answer_usage=TokenUsage(input_tokens=10**6, output_tokens=10**6),
            judge_usage=judge,
        ),
        log_record(
            {"d": 0.5}, started_at=T2, answer_model="a", answer_usage=answer, judge_usage=judge
        ),
    ]
    groups = group_records(logs)
    prices = {
        "a": {"input": 1000.0, "output": 2000.0},
        "test/judge": {"input": 500.0, "output": 1000.0},
    }
    blocks = estimate_section([estimate], groups, prices)
    table = blocks[-1]
    assert isinstance(table, Table)
    # answers: (100 x 1000 + 20 x 1000 + 10 x 2000) / 1e6 = 0.14
    # judge: (1000 x 500 + 20 x 500 + 10 x 1000) / 1e6 = 0.52
    prior = "prior (10 tokens per answer)"
    assert table.rows == (
        # input: fresh plus cached (100 + 20, 1000 + 20), as the estimate counts it
        (
            "a",
            "answer input tokens (fresh + cached)",
            "132",
            "120",
            "+10.0%",
            "case files (cl100k_base)",
        ),
        ("a", "answer output tokens (reasoning included)", "10", "10", "+0.0%", prior),
        (
            "a",
            "judge input tokens (fresh + cached)",
            "900",
            "1,020",
            "-11.8%",
            f"case files (cl100k_base); answer length: {prior}",
        ),
        (
            "a",
            "judge output tokens (reasoning included)",
            "12",
            "10",
            "+20.0%",
            "prior (10 tokens per rubric item)",
        ),
        (
            "a",
            "cost (USD)",
            "$2.0000",
            "$0.6600",
            "+203.0%",
            "the figures above: output from prior",
        ),
    )
    # without prices the actual cost is n/a, never $0
    assert estimate_section([estimate], groups, None)[-1].rows[-1][:5] == (  # type: ignore[union-attr]
        "a",
        "cost (USD)",
        "$2.0000",
        "n/a",
        "n/a",
    )
    assert estimate_section([], groups, prices) == []
    # an estimate made after every log: nothing to set it beside, and the report says so
    later = estimate.model_copy(update={"created_at": "2026-01-02T00:00:00+00:00"})
    assert estimate_section([later], groups, prices) == [
        Paragraph(
            "No run in these logs started after the estimate made at "
            "2026-01-02T00:00:00+00:00 (1 case(s) to do), so nothing is set beside it."
        )
    ]
    # two estimates before the run: the run is set beside the later; the earlier is named as
    # followed by another, not as one no run followed
    earlier = estimate.model_copy(update={"created_at": "2026-01-01T10:15:00+00:00"})
    sections = estimate_section([earlier, estimate], groups, prices)
    assert sections[-1] == Paragraph(
        "The estimate(s) made at 2026-01-01T10:15:00+00:00 (1 case(s) to do) were followed by "
        "another estimate before any run in these logs started: a run is set beside the "
        "estimate made last before it."
    )
    assert sections[:-1] == estimate_section([estimate], groups, prices)


def model_estimate(output: int, basis: OutputBasis, cases: int = 1) -> ModelEstimate:
    return ModelEstimate(
        runs=cases,
        cases=cases,
        cases_done=1 - cases,
        answer_calls=cases,
        judge_calls=cases,
        answer_input_tokens=100 * cases,
        answer_output_tokens=output * cases,
        judge_input_tokens=700 * cases,
        judge_output_tokens=14 * cases,
        tokenizer=Tokenizer(name="cl100k_base", approximate=True),
        answer_output=basis,
        judge_output=OutputBasis(source="prior", per_call=14.0),
        cost_usd=None,
    )


def estimate_at(created_at: str, model: ModelEstimate) -> EstimateDocument:
    return EstimateDocument(
        created_at=created_at,
        log_dir="logs",
        judge="test/judge",
        judge_tokenizer=Tokenizer(name="cl100k_base", approximate=False),
        judge_passes=1,
        epochs=1,
        grading="binary",
        batch=False,
        call_overhead_tokens=9,
        models={"a": model},
        cost_usd=None,
    )


def test_each_run_is_set_beside_the_estimate_made_before_it() -> None:
    """Estimate, run, estimate, run, then an estimate of nothing left: the first run beside the
    first estimate (its output from the prior, with why it is off), the second beside the
    second (from the first run's logs), and the last one named, not taking their place."""
    first = estimate_at(
        "2026-01-01T09:30:00+00:00", model_estimate(600, OutputBasis(source="prior", per_call=600))
    )
    second = estimate_at(
        "2026-01-01T10:30:00+00:00",
        model_estimate(20, OutputBasis(source="logs", samples=1, per_call=20)),
    )
    after = estimate_at(
        "2026-01-01T12:00:00+00:00",
        model_estimate(20, OutputBasis(source="logs", samples=2, per_call=20), cases=0),
    )
    answer = TokenUsage(input_tokens=100, output_tokens=20)
    judge = TokenUsage(input_tokens=700, output_tokens=14)
    logs = [
        log_record(
            {"c": 0.5},
            benchmark="safety_diagnostic",
            started_at=T1,
            answer_model="a",
            answer_usage=answer,
            judge_usage=judge,
        ),
        log_record(
            {"d": 0.5}, started_at=T2, answer_model="a", answer_usage=answer, judge_usage=judge
        ),
    ]
    blocks = estimate_section([after, first, second], group_records(logs), None)
    intro1, table1, hint, intro2, table2, unfollowed = blocks
    assert isinstance(intro1, Paragraph) and isinstance(intro2, Paragraph)
    assert intro1.text.startswith(
        "Estimate made by `sweep --estimate` at 2026-01-01T09:30:00+00:00 (no provider call), "
        "beside what the logs started after it and before the next estimate "
        "(2026-01-01T10:30:00+00:00) spent"
    )
    assert "before the next estimate (2026-01-01T12:00:00+00:00)" in intro2.text
    assert isinstance(table1, Table) and isinstance(table2, Table)
    assert table1.rows[1] == (
        "a",
        "answer output tokens (reasoning included)",
        "600",
        "20",
        "+2,900.0%",
        "prior (600 tokens per answer)",
    )
    assert table1.rows[0][-1] == "case files (cl100k_base, approximate)"
    assert table2.rows[1] == (
        "a",
        "answer output tokens (reasoning included)",
        "20",
        "20",
        "+0.0%",
        "earlier logs (1 answers)",
    )
    assert table2.rows[4][-1] == "the figures above: output from logs and prior"
    assert isinstance(hint, Paragraph)
    assert hint.text.startswith(
        "a: its answer output was estimated from the prior of 600 tokens per answer"
    )
    assert "its answers averaged 20:" in hint.text
    assert unfollowed == Paragraph(
        "No run in these logs started after the estimate made at "
        "2026-01-01T12:00:00+00:00 (0 case(s) to do), so nothing is set beside it."
    )


def header(answer_batch: Any, role: Any) -> Any:
    """The parts of a log header the batch flags are read from."""
    from types import SimpleNamespace

    from inspect_ai.model import GenerateConfig

    roles = None if role is None else {"grader": role}
    return SimpleNamespace(
        eval=SimpleNamespace(
            model_generate_config=GenerateConfig(batch=answer_batch), model_roles=roles
        )
    )


@pytest.mark.parametrize(
    ("answer_batch", "role_batch", "expected"),
    [
        (None, None, (False, False)),
        (True, True, (True, True)),
        (100, None, (True, False)),  # a batch size; the judge role without batch: standard
        (False, 50, (False, True)),
        (True, "no role", (True, True)),  # a judge named by -T judge_model shares the eval's
    ],
)
def test_a_run_is_batch_when_its_log_config_says_so(
    answer_batch: Any, role_batch: Any, expected: tuple[bool, bool]
) -> None:
    from inspect_ai.model import GenerateConfig, ModelConfig

    from bedside_bench.logs.read import judge_uses_batch, uses_batch

    role = (
        None
        if role_batch == "no role"
        else ModelConfig(model="openai/j", config=GenerateConfig(batch=role_batch))
    )
    log = header(answer_batch, role)
    assert (uses_batch(log.eval.model_generate_config), judge_uses_batch(log)) == expected


def test_a_full_run_says_the_epochs_and_passes_it_was_scaled_at() -> None:
    """Scaled at the run's epochs and judge passes: a full run at one epoch costs less."""
    cost = CostSummary.model_validate(
        {
            "answer": 1.0,
            "judge": 1.0,
            "total": 2.0,
            "prices": {},
            "per_full_run": {"cases": 250, "answer": 25.0, "judge": 25.0, "total": 50.0},
        }
    )
    two = run_summary(answer_model="a", cost=cost).model_copy(
        update={"epochs": 2, "judge_passes_per_answer": 3}
    )
    (line,) = cost_lines([two], ["a"])
    assert "a full run: $50.0000 (250 cases, 2 epochs, 3 judge passes)" in line
