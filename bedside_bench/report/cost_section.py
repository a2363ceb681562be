"""Cost where a reader looks: beside the headline (per model, answers and judge apart, and
scaled to a full run of the release), and, when `sweep --estimate` kept an estimate in the log
directory, the estimate beside what the run spent (pure functions).

Cost is `n/a`, never $0, when a price is unknown."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from bedside_bench.documents.estimate import EstimateDocument, ModelEstimate, OutputBasis
from bedside_bench.documents.summary import BatchUse, CostSummary, RunSummary
from bedside_bench.logs.records import LogRecord, TokenUsage, parse_time
from bedside_bench.report.document import Block, Paragraph, ReportContext, Table, usd
from bedside_bench.report.groups import RunGroup
from bedside_bench.report.usage import Prices, chain_heads, cost_json, group_usage


def _full_run(cost: CostSummary) -> str:
    full = cost.per_full_run
    if full is None:
        return "n/a"
    return f"{usd(full.total)} ({full.cases} cases)"


def cost_headline(context: ReportContext) -> list[Block]:
    """One row per model: answers, judge, total, and the total scaled to a full run."""
    summaries, labels = context.summaries, context.labels
    if all(s.cost is None for s in summaries):
        return [Paragraph("Cost: not computed (run with `--prices PRICES_JSON`).")]
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
                _full_run(cost),
            )
        )
    return [
        Table(
            ("model", "answers (USD)", "judge (USD)", "total (USD)", "per full run (USD)"),
            tuple(rows),
        )
    ]


def _between(log: LogRecord, since: datetime, until: datetime | None) -> bool:
    start = parse_time(log.started_at)
    return start is not None and start >= since and (until is None or start < until)


def _input(usage: TokenUsage | None) -> float | None:
    if usage is None:
        return None
    return float(
        usage.input_tokens + usage.input_tokens_cache_read + usage.input_tokens_cache_write
    )


def cost_lines(summaries: Sequence[RunSummary], labels: Sequence[str]) -> list[str]:
    """The cost for the terminal, one line per model priced (none without --prices)."""
    lines = []
    for label, s in zip(labels, summaries, strict=True):
        cost = s.cost
        if cost is not None:
            lines.append(
                f"cost {label}: answers {usd(cost.answer)} + judge {usd(cost.judge)} = "
                f"{usd(cost.total)}; a full run: {_full_run(cost)}"
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
    task (`usage.chain_heads`). Input tokens include cache reads and writes (the estimate
    counts every input token); {} when there is no such log."""
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
            "answer input tokens": _input(usage.answer),
            "answer output tokens": float(usage.answer.output_tokens),
            "judge input tokens": _input(usage.judge),
            "judge output tokens": None if usage.judge is None else usage.judge.output_tokens,
            "cost (USD)": None if cost is None else cost.total,
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
        "answer input tokens": f"case files ({tokenizer})",
        "answer output tokens": answer,
        "judge input tokens": f"case files ({judge_counted}); answer length: {answer}",
        "judge output tokens": judge,
        "cost (USD)": "the figures above: output from "
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
    unfollowed: list[EstimateDocument] = []
    for i, (since, estimate) in enumerate(timed):
        until = timed[i + 1][0] if i + 1 < len(timed) else None
        rows, hints = [], []
        for model, m in estimate.models.items():
            actual = actual_figures(groups, model, since, prices, until)
            if not actual:
                continue
            estimated: dict[str, float | None] = {
                "answer input tokens": m.answer_input_tokens,
                "answer output tokens": m.answer_output_tokens,
                "judge input tokens": m.judge_input_tokens,
                "judge output tokens": m.judge_output_tokens,
                "cost (USD)": m.cost_usd.expected if m.cost_usd else None,
            }
            source = estimated_from(estimate, m)
            for figure, value in estimated.items():
                money = figure.startswith("cost")
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
            if (hint := prior_hint(model, m, actual["answer output tokens"])) is not None:
                hints.append(hint)
        if not rows:
            unfollowed.append(estimate)
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
    if unfollowed:
        made = ", ".join(
            f"{e.created_at} ({sum(m.cases for m in e.models.values()):,} case(s) to do)"
            for e in unfollowed
        )
        blocks.append(
            Paragraph(
                f"No run in these logs started after the estimate(s) made at {made}, so "
                "nothing is set beside them."
            )
        )
    return blocks
