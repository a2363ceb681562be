"""Cost where a reader looks: beside the headline (per model, answers and judge apart, and
scaled to a full run of the release), and, when `sweep --estimate` kept an estimate in the log
directory, the estimate beside what the run spent (pure functions).

Cost is `n/a`, never $0, when a price is unknown."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from bedside_bench.documents.estimate import EstimateDocument, ModelEstimate, OutputBasis
from bedside_bench.documents.summary import BatchUse, RunSummary
from bedside_bench.logs.records import LogRecord, parse_time
from bedside_bench.report.document import (
    Block,
    Heading,
    Paragraph,
    ReportContext,
    Table,
    Tokens,
    all_input,
    in_report_order,
    usd,
)
from bedside_bench.report.groups import RunGroup
from bedside_bench.report.prices import database_source
from bedside_bench.report.usage import Prices, chain_heads, cost_json, group_usage


def _full_run(summary: RunSummary) -> str:
    """The cost scaled to a full run, saying what it was scaled at: the run's epochs and judge
    passes (`usage.full_run_cost`), which a full run at other settings would not cost."""
    full = summary.cost.per_full_run if summary.cost is not None else None
    if full is None:
        return "n/a"
    at = [f"{summary.epochs} epochs"] if summary.epochs > 1 else []
    passes = summary.judge_passes_per_answer
    at += [f"{passes} judge passes"] if passes > 1 else []
    return f"{usd(full.total)} ({full.cases} cases{''.join(', ' + a for a in at)})"


def cost_headline(context: ReportContext) -> list[Block]:
    """One row per model: answers, judge, total, and the total scaled to a full run."""
    summaries, labels = in_report_order(context)
    heading = Heading(2, "Cost")
    if all(s.cost is None for s in summaries):
        return [
            heading,
            Paragraph(
                f"Not computed: no model here has a price in {database_source()} (see the "
                "notes); give Inspect's `--model-cost-config` when running, or "
                "`--prices PRICES_JSON` to the report."
            ),
        ]
    rows = []
    for label, s in zip(labels, summaries, strict=True):
        cost = s.cost
        if cost is None:
            rows.append((label, "n/a", "n/a", "n/a", "n/a"))
            continue
        batch = [part for part, used in (cost.batch or BatchUse(answer=False, judge=False)) if used]
        tag = f" (batch: {', '.join(batch)})" if batch else ""
        rows.append(
            (
                label + tag,
                usd(cost.answer),
                usd(cost.judge),
                usd(cost.total),
                _full_run(s),
            )
        )
    return [
        heading,
        Table(
            ("model", "answers (USD)", "judge (USD)", "total (USD)", "per full run (USD)"),
            tuple(rows),
        ),
        Paragraph(price_sources(summaries)),
    ]


def price_sources(summaries: Sequence[RunSummary]) -> str:
    """Which source priced each model (its answers or its judging), and the price data's
    version when the database priced any."""
    by_model: dict[str, list[str]] = {}
    data: list[str] = []
    for s in summaries:
        cost = s.cost
        if cost is None or cost.sources is None:
            continue
        for model, source in (
            (s.answer_model, cost.sources.answer),
            (s.judge_model, cost.sources.judge),
        ):
            if source is not None and source not in by_model.setdefault(model, []):
                by_model[model].append(source)
        if cost.price_data and cost.price_data not in data:
            data.append(cost.price_data)
    listed = "; ".join(f"{model}: {' and '.join(sources)}" for model, sources in by_model.items())
    text = f"Prices from: {listed}." if listed else "Prices from: not recorded."
    if data:
        text += (
            f" Price data: {', '.join(data)}, at the rates in force when each run started "
            "(`--prices` overrides it for the models it lists)."
        )
    return text


def _between(log: LogRecord, since: datetime, until: datetime | None) -> bool:
    start = parse_time(log.started_at)
    return start is not None and start >= since and (until is None or start < until)


def _input(usage: Tokens | None) -> float | None:
    """All input, fresh and cached: the estimate counts every input token."""
    return None if usage is None else float(all_input(usage))


# the figures beside the estimate, named in the report's one token vocabulary (TOKEN_COLUMNS)
ANSWER_INPUT = "answer input tokens (fresh + cached)"
ANSWER_OUTPUT = "answer output tokens (reasoning included)"
JUDGE_INPUT = "judge input tokens (fresh + cached)"
JUDGE_OUTPUT = "judge output tokens (reasoning included)"
COST = "cost (USD)"


def cost_lines(summaries: Sequence[RunSummary], labels: Sequence[str]) -> list[str]:
    """The cost for the terminal, one line per model priced, with where its prices are from."""
    lines = []
    for label, s in zip(labels, summaries, strict=True):
        cost = s.cost
        if cost is not None:
            sources = cost.sources
            priced = (
                f" (answers: {sources.answer or 'no price'}, judge: {sources.judge or 'no price'})"
                if sources is not None
                else ""
            )
            lines.append(
                f"cost {label}: answers {usd(cost.answer)} + judge {usd(cost.judge)} = "
                f"{usd(cost.total)}; a full run: {_full_run(s)}{priced}"
            )
    return lines


def actual_figures(
    groups: Sequence[RunGroup],
    model: str,
    since: datetime,
    prices: Prices | None,
    until: datetime | None = None,
) -> dict[str, float | None]:
    """What one answer model's logs that started after `since` (the estimate) and before
    `until` (the next estimate, if any) spent, over its run groups: the newest log of each
    task (`usage.chain_heads`). Input tokens include cache reads and writes, fresh plus cached
    (the estimate counts every input token); {} when there is no such log."""
    figures: dict[str, float | None] = {}
    for group in groups:
        if group.key.answer_model != model:
            continue
        heads = [log for log in chain_heads(group.logs) if _between(log, since, until)]
        if not heads:
            continue
        usage = group_usage(heads)
        cost, _ = cost_json(model, group.key.judge_model, usage, prices)
        part: dict[str, float | None] = {
            ANSWER_INPUT: _input(usage.answer),
            ANSWER_OUTPUT: float(usage.answer.output_tokens),
            JUDGE_INPUT: _input(usage.judge),
            JUDGE_OUTPUT: None if usage.judge is None else usage.judge.output_tokens,
            COST: None if cost is None else cost.total,
        }
        for figure, value in part.items():
            if figure in figures:
                old = figures[figure]
                figures[figure] = None if old is None or value is None else old + value
            else:
                figures[figure] = value
    return figures


def _value(value: float | None, money: bool) -> str:
    if value is None:
        return "n/a"
    return f"${value:,.4f}" if money else f"{value:,.0f}"


def _error(estimate: float | None, actual: float | None) -> str:
    if estimate is None or actual is None or actual == 0:
        return "n/a"
    return f"{(estimate - actual) / actual:+,.1%}"


# an error past this, on a figure estimated from a prior, gets a line saying why
PRIOR_ERROR_HINTED = 1.0


def _basis(basis: OutputBasis, unit: str) -> str:
    if basis.source == "logs":
        return f"earlier logs ({basis.samples:,} {unit}s)"
    return f"prior ({basis.per_call:,.0f} tokens per {unit})"


def estimated_from(estimate: EstimateDocument, m: ModelEstimate) -> dict[str, str]:
    """Where each figure of one model's estimate came from: the case files counted with a
    tokenizer, or output lengths from a prior or from earlier logs in the directory."""
    tokenizer = f"{m.tokenizer.name}{', approximate' if m.tokenizer.approximate else ''}"
    judge_tokenizer = estimate.judge_tokenizer
    judge_counted = (
        f"{judge_tokenizer.name}{', approximate' if judge_tokenizer.approximate else ''}"
    )
    answer = _basis(m.answer_output, "answer")
    judge = _basis(m.judge_output, "rubric item")
    sources = {m.answer_output.source, m.judge_output.source}
    return {
        ANSWER_INPUT: f"case files ({tokenizer})",
        ANSWER_OUTPUT: answer,
        JUDGE_INPUT: f"case files ({judge_counted}); answer length: {answer}",
        JUDGE_OUTPUT: judge,
        COST: "the figures above: output from "
        + (" and ".join(sorted(sources)) if len(sources) > 1 else next(iter(sources))),
    }


def prior_hint(model: str, m: ModelEstimate, actual: float | None) -> str | None:
    """Why an answer-output figure from the prior is far off: the prior is a typical clinical
    answer's length, and a model that answers in a line (as the provider doubles do) is far
    below it; the logs replace the prior in the next estimate."""
    if m.answer_output.source != "prior" or not actual or m.answer_calls == 0:
        return None
    if abs(m.answer_output_tokens - actual) / actual <= PRIOR_ERROR_HINTED:
        return None
    mean = actual / m.answer_calls
    return (
        f"{model}: its answer output was estimated from the prior of "
        f"{m.answer_output.per_call:,.0f} tokens per answer (a clinical answer of several "
        f"hundred tokens; no earlier answers of the model were in the log directory), and its "
        f"answers averaged {mean:,.0f}: a prior cannot know how long a model answers (scripted "
        "one-line answers, as the provider doubles give, are far below it), and the judge "
        "input, which holds the answer, is off with it. An estimate made in this log "
        "directory now reads the answers' length from these logs."
    )


def estimate_section(
    estimates: Sequence[EstimateDocument], groups: Sequence[RunGroup], prices: Prices | None
) -> list[Block]:
    """Each estimate `sweep --estimate` kept, beside what the logs started after it (and
    before the next estimate) spent: every run is compared with the estimate made before it,
    so a later estimate (one made after the run, which finds nothing left to do) never takes
    the place of the one the run started from. An estimate no run followed is named, not
    dropped without a word."""
    timed = sorted(
        ((t, e) for e in estimates if (t := parse_time(e.created_at)) is not None),
        key=lambda te: te[0],
    )
    blocks: list[Block] = []
    # an estimate no run followed: another estimate came first, or none came at all
    superseded: list[EstimateDocument] = []
    unfollowed: list[EstimateDocument] = []
    for i, (since, estimate) in enumerate(timed):
        until = timed[i + 1][0] if i + 1 < len(timed) else None
        rows, hints = [], []
        for model, m in estimate.models.items():
            actual = actual_figures(groups, model, since, prices, until)
            if not actual:
                continue
            estimated: dict[str, float | None] = {
                ANSWER_INPUT: m.answer_input_tokens,
                ANSWER_OUTPUT: m.answer_output_tokens,
                JUDGE_INPUT: m.judge_input_tokens,
                JUDGE_OUTPUT: m.judge_output_tokens,
                COST: m.cost_usd.expected if m.cost_usd else None,
            }
            source = estimated_from(estimate, m)
            for figure, value in estimated.items():
                money = figure == COST
                rows.append(
                    (
                        model,
                        figure,
                        _value(value, money),
                        _value(actual[figure], money),
                        _error(value, actual[figure]),
                        source[figure],
                    )
                )
            if (hint := prior_hint(model, m, actual[ANSWER_OUTPUT])) is not None:
                hints.append(hint)
        if not rows:
            (superseded if until is not None else unfollowed).append(estimate)
            continue
        blocks += [
            Paragraph(
                f"Estimate made by `sweep --estimate` at {estimate.created_at} (no provider "
                "call), beside what the logs started after it"
                + (f" and before the next estimate ({timed[i + 1][1].created_at})" if until else "")
                + " spent (re-asked judge replies and retried calls included). The estimate "
                "covers the cases still to do when it was made (docs/estimate.md)."
            ),
            Table(
                ("model", "figure", "estimated", "actual", "error", "estimated from"),
                tuple(rows),
            ),
            *(Paragraph(hint) for hint in hints),
        ]
    if superseded:
        blocks.append(
            Paragraph(
                f"The estimate(s) made at {_made(superseded)} were followed by another "
                "estimate before any run in these logs started: a run is set beside the "
                "estimate made last before it."
            )
        )
    if unfollowed:
        blocks.append(
            Paragraph(
                f"No run in these logs started after the estimate made at "
                f"{_made(unfollowed)}, so nothing is set beside it."
            )
        )
    return blocks


def _made(estimates: Sequence[EstimateDocument]) -> str:
    return ", ".join(
        f"{e.created_at} ({sum(m.cases for m in e.models.values()):,} case(s) to do)"
        for e in estimates
    )
