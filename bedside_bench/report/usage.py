"""Token usage, wall time and cost of a run group (pure functions). Past 300 lines: the cost
(prices, batch rates, the full-run scaling) is priced from these usage records, and its names
are imported from here.

Inspect's `eval-retry` (and `eval_set`'s retries) start the new log's usage from the previous
log's totals (`inspect_ai/_eval/loader.py`, `resolve_previous_task`), and the new log keeps the
Inspect task id. Summing every log would count the first attempt twice, so usage is taken from
the newest log of each task id and summed over task ids.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime

from bedside_bench.documents.summary import (
    BatchUse,
    CostSummary,
    EpochTokens,
    FullRunCost,
    PriceSources,
    TokenCounts,
    UsageSummary,
    WallTime,
)
from bedside_bench.logs.records import (
    LogRecord,
    TokenUsage,
    newest_first,
    parse_time,
    start_key,
)
from bedside_bench.report.prices import (
    SOURCE_FILE,
    SOURCE_INSPECT,
    FoundPrice,
    Pricing,
    database_label,
    file_price,
)
from bedside_bench.report.prices import Prices as Prices  # re-exported: its old home

PER_MILLION = 1_000_000
RATE_KEYS = ("input", "output", "cached_input", "cache_write")
# batch rates: each `batch_<rate>` given, else the standard rate less `batch_discount` (a
# fraction, 0.5 = half price); a batch run of a model with neither has no price (null)
BATCH_DISCOUNT = "batch_discount"
PRICE_KEYS = (*RATE_KEYS, *(f"batch_{k}" for k in RATE_KEYS), BATCH_DISCOUNT)
# the cases of one full run of the public release (all ten benchmarks)
FULL_RUN_CASES = 250
# no model has cost this much per million tokens: a bigger figure is a unit slip (per billion?)
MAX_PRICE = 10_000.0
EpochUsage = tuple[tuple[int, TokenUsage, TokenUsage | None], ...]


def chain_heads(logs: Sequence[LogRecord]) -> list[LogRecord]:
    """The newest log of each Inspect task id: the one whose usage includes its retries'."""
    heads: dict[str, LogRecord] = {}
    for log in newest_first(logs):
        heads.setdefault(log.task_id or log.location, log)
    return sorted(heads.values(), key=start_key)


@dataclass(frozen=True)
class GroupUsage:
    answer: TokenUsage
    judge: TokenUsage | None
    wall_time_sum: float | None
    wall_time_span: float | None
    counted_logs: tuple[str, ...]
    notes: tuple[str, ...] = field(default=())
    # (epoch, answer, judge) over the samples of the counted logs
    by_epoch: EpochUsage = field(default=())
    # the part of `answer` / `judge` spent by runs that used the batch API (priced apart)
    answer_batch: TokenUsage = field(default_factory=TokenUsage)
    judge_batch: TokenUsage | None = field(default_factory=TokenUsage)
    # USD Inspect recorded (its cost config) over the counted logs, when every one of them
    # recorded it; and how many of them did
    answer_cost: float | None = None
    judge_cost: float | None = None
    answer_cost_logs: int = 0
    judge_cost_logs: int = 0
    # the newest counted log's start: the time the database's rates are taken at
    priced_at: datetime | None = None


def epoch_usage(heads: Sequence[LogRecord]) -> EpochUsage:
    """Per epoch, the tokens the samples of the counted logs record (a retried attempt's calls
    are in the log totals but no longer in any sample, so these can add up to less)."""
    totals: dict[int, tuple[TokenUsage, TokenUsage | None]] = {}
    for head in heads:
        for epoch, answer, judge in head.usage_by_epoch:
            old_answer, old_judge = totals.get(epoch, (TokenUsage(), TokenUsage()))
            totals[epoch] = (
                old_answer + answer,
                None if old_judge is None or judge is None else old_judge + judge,
            )
    return tuple((e, *totals[e]) for e in sorted(totals))


def group_usage(logs: Sequence[LogRecord]) -> GroupUsage:
    heads = chain_heads(logs)
    answer = sum((h.answer_usage for h in heads), TokenUsage())
    judge: TokenUsage | None = TokenUsage()
    notes: list[str] = []
    for h in heads:
        judge = None if h.judge_usage is None or judge is None else judge + h.judge_usage
    answer_batch = sum((h.answer_usage for h in heads if h.answer_batch), TokenUsage())
    judge_batch: TokenUsage | None = TokenUsage()
    for h in heads:
        if h.judge_batch:
            judge_batch = (
                None
                if h.judge_usage is None or judge_batch is None
                else judge_batch + h.judge_usage
            )
    if judge is None:
        notes.append(
            "judge tokens could not be separated from the answer model's (same model, no "
            "grader role usage in the log): usage.answer includes them"
        )
    durations: list[float] = []
    starts: list[datetime] = []
    ends: list[datetime] = []
    for log in logs:
        start, end = parse_time(log.started_at), parse_time(log.completed_at)
        if start is not None:
            starts.append(start)
        if end is not None:
            ends.append(end)
        if start is not None and end is not None:
            durations.append((end - start).total_seconds())
    unfinished = [log.location for log in logs if parse_time(log.completed_at) is None]
    if unfinished:
        notes.append(f"{len(unfinished)} log(s) have no completion time; wall time leaves them out")
    span = (max(ends) - min(starts)).total_seconds() if starts and ends else None
    answer_costs = [h.answer_cost for h in heads if h.answer_cost is not None]
    judge_costs = [h.judge_cost for h in heads if h.judge_cost is not None]
    head_starts = [t for t in (parse_time(h.started_at) for h in heads) if t is not None]
    return GroupUsage(
        answer=answer,
        judge=judge,
        wall_time_sum=sum(durations) if durations else None,
        wall_time_span=span,
        counted_logs=tuple(h.location for h in heads),
        notes=tuple(notes),
        by_epoch=epoch_usage(heads),
        answer_batch=answer_batch,
        judge_batch=judge_batch,
        answer_cost=sum(answer_costs) if heads and len(answer_costs) == len(heads) else None,
        judge_cost=sum(judge_costs) if heads and len(judge_costs) == len(heads) else None,
        answer_cost_logs=len(answer_costs),
        judge_cost_logs=len(judge_costs),
        priced_at=max(head_starts) if head_starts else None,
    )


def token_counts(usage: TokenUsage) -> TokenCounts:
    return TokenCounts(**asdict(usage))


def usage_json(usage: GroupUsage) -> UsageSummary:
    """The summary's `usage`."""
    return UsageSummary(
        answer=token_counts(usage.answer),
        judge=token_counts(usage.judge) if usage.judge is not None else None,
        wall_time_seconds=WallTime(
            sum_over_logs=usage.wall_time_sum, first_start_to_last_finish=usage.wall_time_span
        ),
        counted_logs=list(usage.counted_logs),
        by_epoch=[
            EpochTokens(
                epoch=epoch,
                answer=token_counts(answer),
                judge=token_counts(judge) if judge is not None else None,
            )
            for epoch, answer, judge in usage.by_epoch
        ],
    )


# --------------------------------------------------------------------------------------------
# cost


def check_prices(raw: object) -> dict[str, dict[str, float]]:
    """Validate a prices file: {model: {"input": usd, "output": usd, "cached_input"?: usd,
    "cache_write"?: usd, "batch_input"?: usd, ..., "batch_discount"?: fraction}}."""
    if not isinstance(raw, dict):
        raise ValueError("prices file must hold a JSON object keyed by model name")
    prices: dict[str, dict[str, float]] = {}
    for model, entry in raw.items():
        if not isinstance(entry, dict):
            raise ValueError(f"prices[{model!r}] must be an object")
        unknown = set(entry) - set(PRICE_KEYS)
        if unknown:
            raise ValueError(f"prices[{model!r}] has unknown keys {sorted(unknown)}")
        for key in ("input", "output"):
            if key not in entry:
                raise ValueError(f"prices[{model!r}] needs {key!r} (USD per million tokens)")
        for key, value in entry.items():
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"prices[{model!r}][{key!r}] must be a non-negative number")
            if (isinstance(value, float) and not math.isfinite(value)) or value < 0:
                raise ValueError(
                    f"prices[{model!r}][{key!r}] is {value!r}: must be a finite, non-negative "
                    "number (USD per million tokens)"
                )
            if key == BATCH_DISCOUNT and value >= 1:
                raise ValueError(
                    f"prices[{model!r}][{key!r}] is {value!r}: a fraction of the price taken "
                    "off for batch runs, below 1 (0.5 is half price)"
                )
            if value > MAX_PRICE:
                raise ValueError(
                    f"prices[{model!r}][{key!r}] is {value!r} USD per million tokens, above "
                    f"{MAX_PRICE:,.0f}: not a real price (prices are per million tokens)"
                )
        prices[str(model)] = {k: float(v) for k, v in entry.items()}
    return prices


def find_price(model: str, prices: Prices) -> tuple[str, Mapping[str, float]] | None:
    """The entry for `model`: its full Inspect name first, then the name without provider."""
    found = file_price(model, prices)
    return None if found is None else (found.key, found.rates)


def usage_cost(usage: TokenUsage, price: Mapping[str, float]) -> float:
    """USD: fresh input, cache reads and cache writes, and output (reasoning is billed as
    output and is already inside Inspect's output_tokens)."""
    cached = price.get("cached_input", price["input"])
    write = price.get("cache_write", price["input"])
    return (
        usage.input_tokens * price["input"]
        + usage.input_tokens_cache_read * cached
        + usage.input_tokens_cache_write * write
        + usage.output_tokens * price["output"]
    ) / PER_MILLION


def batch_rates(price: Mapping[str, float]) -> dict[str, float] | None:
    """The rates of a batch run: each `batch_<rate>` given, else the standard rate less the
    `batch_discount`; None when the input or output rate is neither (no batch price)."""
    discount = price.get(BATCH_DISCOUNT)
    rates: dict[str, float] = {}
    for key in RATE_KEYS:
        explicit = price.get(f"batch_{key}")
        if explicit is not None:
            rates[key] = explicit
        elif discount is not None and key in price:
            rates[key] = price[key] * (1 - discount)
    return rates if "input" in rates and "output" in rates else None


def part_cost(
    tokens: TokenUsage, batch_tokens: TokenUsage, price: Mapping[str, float]
) -> float | None:
    """USD of one part (answers or judging): its batch runs' tokens at the batch rates, the
    rest at the standard ones; None when batch tokens have no batch price."""
    standard = usage_cost(tokens - batch_tokens, price)
    if batch_tokens == TokenUsage():
        return standard
    rates = batch_rates(price)
    return None if rates is None else standard + usage_cost(batch_tokens, rates)


@dataclass(frozen=True)
class _Part:
    name: str  # "answer" or "judge"
    model: str
    tokens: TokenUsage | None
    batch_tokens: TokenUsage | None
    inspect_cost: float | None
    inspect_logs: int


def _part_cost(
    part: _Part, pricing: Pricing, usage: GroupUsage, notes: list[str]
) -> tuple[float | None, str | None, FoundPrice | None]:
    """(USD, source, rates used) of one part, from the first source that prices it: the prices
    file, Inspect's recorded cost, the database; (None, None, None) with a note when none."""
    logs = len(usage.counted_logs)
    found = pricing.file(part.model)
    if found is None and part.inspect_cost is not None and part.tokens is not None:
        if part.batch_tokens is None or part.batch_tokens != TokenUsage():
            notes.append(
                f"cost.{part.name}: Inspect's cost config priced {part.model}'s batch calls at "
                "its own rates (Inspect applies no batch discount)"
            )
        return part.inspect_cost, SOURCE_INSPECT, None
    if found is None and 0 < part.inspect_logs < logs:
        notes.append(
            f"Inspect recorded a cost for {part.model} in {part.inspect_logs} of the {logs} "
            f"counted logs only: cost.{part.name} is priced from other prices"
        )
    if found is None:
        found = pricing.find(part.model, usage.priced_at)
    if found is None:
        notes.append(
            f"{pricing.unknown(part.model)}, and the logs record no Inspect cost for it "
            f"(--model-cost-config at run time): cost.{part.name} is null"
        )
        return None, None, None
    if part.tokens is None or part.batch_tokens is None:
        notes.append(f"judge tokens are not separable: cost.{part.name} is null")
        return None, None, None
    value = part_cost(part.tokens, part.batch_tokens, found.rates)
    if value is None:
        notes.append(
            f"{part.model} ran with the batch API and the {found.source} gives it no batch "
            f"price (batch_input and batch_output, or batch_discount): cost.{part.name} is null"
        )
        return None, None, None
    return value, found.source, found


def cost_json(
    answer_model: str, judge_model: str, usage: GroupUsage, prices: Prices | None
) -> tuple[CostSummary | None, list[str]]:
    """The `cost` object and notes on what could not be priced; None when no part has a
    price. Each part is priced from the prices file (`prices`) if it lists the model, else
    from the cost Inspect recorded, else from the genai-prices database (`report/prices.py`)."""
    pricing = Pricing(prices_file=prices)
    notes: list[str] = []
    used: dict[str, dict[str, float]] = {}
    parts: dict[str, float | None] = {}
    sources: dict[str, str | None] = {}
    batch: dict[str, bool] = {}
    database = False
    for part in (
        _Part(
            "answer",
            answer_model,
            usage.answer,
            usage.answer_batch,
            usage.answer_cost,
            usage.answer_cost_logs,
        ),
        _Part(
            "judge",
            judge_model,
            usage.judge,
            usage.judge_batch,
            usage.judge_cost,
            usage.judge_cost_logs,
        ),
    ):
        batch[part.name] = part.batch_tokens is None or part.batch_tokens != TokenUsage()
        value, source, found = _part_cost(part, pricing, usage, notes)
        parts[part.name], sources[part.name] = value, source
        if found is not None:
            used[found.key] = dict(found.rates)
            database = database or found.source != SOURCE_FILE
    answer, judge = parts["answer"], parts["judge"]
    if answer is None and judge is None:
        return None, notes
    total = answer + judge if answer is not None and judge is not None else None
    return CostSummary(
        answer=answer,
        judge=judge,
        total=total,
        prices=used,
        batch=BatchUse(answer=batch["answer"], judge=batch["judge"]),
        sources=PriceSources(answer=sources["answer"], judge=sources["judge"]),
        price_data=database_label() if database else None,
    ), notes


def full_run_cost(cost: CostSummary | None, cases_run: int, full_cases: int) -> FullRunCost | None:
    """The cost scaled to a full run of the release (`full_cases` cases, at the same epochs and
    passes): each part times full_cases / cases_run; None without a cost or a case run."""
    if cost is None or cases_run <= 0:
        return None
    scale = full_cases / cases_run

    def scaled(value: float | None) -> float | None:
        return None if value is None else value * scale

    return FullRunCost(
        cases=full_cases,
        answer=scaled(cost.answer),
        judge=scaled(cost.judge),
        total=scaled(cost.total),
    )


def with_full_run(
    cost: CostSummary | None, cases_run: int, counts: Mapping[str, int] | None
) -> CostSummary | None:
    """`cost` with its `per_full_run`: a full run is the release's cases (`counts`, as the
    logs record them), else the public release's 250."""
    if cost is None:
        return None
    full = sum(counts.values()) if counts else FULL_RUN_CASES
    return cost.model_copy(update={"per_full_run": full_run_cost(cost, cases_run, full)})
