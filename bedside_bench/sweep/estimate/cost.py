"""The cost of an estimate's tokens: low, expected and high, priced as the report prices a
run (`report/prices.py`): the prices file, the sweep's Inspect cost config, the genai-prices
database at today's rates, with their batch rates for a `--batch` sweep.

Every input token is priced as fresh input (a provider's prompt cache only makes it cheaper).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bedside_bench.documents.estimate import CostRange, OutputBasis
from bedside_bench.logs.records import TokenUsage
from bedside_bench.report.prices import SOURCE_INSPECT, Pricing
from bedside_bench.report.usage import batch_rates, usage_cost

# the low and high ends of the cost: output tokens from a prior can be half or twice the
# truth, from logs a quarter either way; an approximate tokenizer's input count 15% either way
PRIOR_RANGE = (0.5, 2.0)
LOGS_RANGE = (0.8, 1.25)
APPROXIMATE_INPUT_RANGE = (0.85, 1.15)


@dataclass(frozen=True)
class Totals:
    answer_input: int
    answer_output: int
    judge_input: int
    judge_output: int


def price_totals(
    totals: Totals,
    answer: tuple[str, OutputBasis, bool],
    judge: tuple[str, OutputBasis, bool],
    pricing: Pricing,
    batch: bool,
) -> tuple[CostRange | None, list[str], dict[str, str]]:
    """Low, expected and high cost of one model's part, and where each model's price is from;
    None (with a note) when a price is unknown. Every input token is priced as fresh input
    (the estimate assumes no cache)."""
    rates: list[Mapping[str, float]] = []
    notes = []
    batch_notes: list[str] = []
    sources: dict[str, str] = {}
    for model, _, _ in (answer, judge):
        found = pricing.find(model)
        # Inspect records a batch call's cost at its config's own rates, and the report takes
        # that figure: the estimate does the same
        inspect = found is not None and found.source == SOURCE_INSPECT
        rate = (
            None
            if found is None
            else (batch_rates(found.rates) if batch and not inspect else found.rates)
        )
        if found is None:
            notes.append(f"{pricing.unknown(model)}: cost is null")
        elif rate is None:
            notes.append(f"no batch price for {model} in the {found.source}: cost is null")
        else:
            rates.append(rate)
            sources[model] = found.source
            if batch and inspect:
                batch_notes.append(
                    f"{model}: Inspect's cost config has no batch rates; its standard rates "
                    "are used, as the run's log will record them"
                )
    if notes:
        return None, notes, sources

    def cost(end: int) -> tuple[float, float]:
        parts = []
        for (_, basis, approximate), rate, (inp, out) in zip(
            (answer, judge),
            rates,
            (
                (totals.answer_input, totals.answer_output),
                (totals.judge_input, totals.judge_output),
            ),
            strict=True,
        ):
            in_factor = (1.0, *APPROXIMATE_INPUT_RANGE)[end] if approximate else 1.0
            spread = LOGS_RANGE if basis.source == "logs" else PRIOR_RANGE
            out_factor = (1.0, *spread)[end]
            usage = TokenUsage(
                input_tokens=round(inp * in_factor), output_tokens=round(out * out_factor)
            )
            parts.append(usage_cost(usage, rate))
        return parts[0], parts[1]

    expected = cost(0)
    return (
        CostRange(
            low=sum(cost(1)),
            expected=sum(expected),
            high=sum(cost(2)),
            answer=expected[0],
            judge=expected[1],
            batch=batch,
        ),
        batch_notes,
        sources,
    )


def sum_costs(costs: Sequence[CostRange | None], batch: bool) -> CostRange | None:
    if not costs or any(c is None for c in costs):
        return None
    known = [c for c in costs if c is not None]
    return CostRange(
        low=sum(c.low for c in known),
        expected=sum(c.expected for c in known),
        high=sum(c.high for c in known),
        answer=sum(c.answer for c in known),
        judge=sum(c.judge for c in known),
        batch=batch,
    )
