"""Cost where a reader looks: beside the headline (per model, answers and judge apart, and
scaled to a full run of the release), and, when `sweep --estimate` kept an estimate in the log
directory, the estimate beside what the run spent (pure functions).

Cost is `n/a`, never $0, when a price is unknown."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from bedside_bench.estimate.document import EstimateDocument
from bedside_bench.report.document import Block, Paragraph, ReportContext, Table, usd


def _full_run(cost: Mapping[str, Any]) -> str:
    full = cost.get("per_full_run")
    if full is None:
        return "n/a"
    return f"{usd(full['total'])} ({full['cases']} cases)"


def cost_headline(context: ReportContext) -> list[Block]:
    """One row per model: answers, judge, total, and the total scaled to a full run."""
    summaries, labels = context.summaries, context.labels
    if all(s["cost"] is None for s in summaries):
        return [Paragraph("Cost: not computed (run with `--prices PRICES_JSON`).")]
    rows = []
    for label, s in zip(labels, summaries, strict=True):
        cost = s["cost"]
        if cost is None:
            rows.append((label, "n/a", "n/a", "n/a", "n/a"))
            continue
        batch = [part for part, used in (cost.get("batch") or {}).items() if used]
        tag = f" (batch: {', '.join(batch)})" if batch else ""
        rows.append(
            (
                label + tag,
                usd(cost["answer"]),
                usd(cost["judge"]),
                usd(cost["total"]),
                _full_run(cost),
            )
        )
    return [
        Table(
            ("model", "answers (USD)", "judge (USD)", "total (USD)", "per full run (USD)"),
            tuple(rows),
        )
    ]


def _started(summary: Mapping[str, Any]) -> datetime | None:
    try:
        return datetime.fromisoformat(str(summary.get("started_at")))
    except ValueError:
        return None


def actual_figures(
    summaries: Sequence[Mapping[str, Any]], model: str, since: datetime | None = None
) -> dict[str, float | None]:
    """What the logs say one answer model's runs spent, summed over its run groups that
    started after `since` (the estimate). Input tokens include cache reads and writes (the
    estimate counts every input token)."""
    mine = [
        s
        for s in summaries
        if s["answer_model"] == model
        and (since is None or ((start := _started(s)) is not None and start >= since))
    ]
    if not mine:
        return {}

    def tokens(part: str, key: str) -> float | None:
        total = 0
        for s in mine:
            usage = s["usage"][part]
            if usage is None:
                return None
            total += usage[key]
            if key == "input_tokens":
                total += usage["input_tokens_cache_read"] + usage["input_tokens_cache_write"]
        return float(total)

    costs = [s["cost"]["total"] if s["cost"] else None for s in mine]
    return {
        "answer input tokens": tokens("answer", "input_tokens"),
        "answer output tokens": tokens("answer", "output_tokens"),
        "judge input tokens": tokens("judge", "input_tokens"),
        "judge output tokens": tokens("judge", "output_tokens"),
        "cost (USD)": None if any(c is None for c in costs) else sum(c for c in costs if c),
    }


def _value(value: float | None, money: bool) -> str:
    if value is None:
        return "n/a"
    return f"${value:,.4f}" if money else f"{value:,.0f}"


def _error(estimate: float | None, actual: float | None) -> str:
    if estimate is None or actual is None or actual == 0:
        return "n/a"
    return f"{(estimate - actual) / actual:+.1%}"


def estimate_section(
    estimate: EstimateDocument | None, summaries: Sequence[Mapping[str, Any]]
) -> list[Block]:
    """The estimate `sweep --estimate` kept, beside what the logs say was spent."""
    if estimate is None:
        return []
    rows = []
    try:
        since: datetime | None = datetime.fromisoformat(estimate.created_at)
    except ValueError:
        since = None
    for model, m in estimate.models.items():
        actual = actual_figures(summaries, model, since)
        if not actual:
            continue
        estimated: dict[str, float | None] = {
            "answer input tokens": m.answer_input_tokens,
            "answer output tokens": m.answer_output_tokens,
            "judge input tokens": m.judge_input_tokens,
            "judge output tokens": m.judge_output_tokens,
            "cost (USD)": m.cost_usd.expected if m.cost_usd else None,
        }
        for figure, value in estimated.items():
            money = figure.startswith("cost")
            rows.append(
                (
                    model,
                    figure,
                    _value(value, money),
                    _value(actual[figure], money),
                    _error(value, actual[figure]),
                )
            )
    if not rows:
        return []
    return [
        Paragraph(
            f"Estimate made by `sweep --estimate` at {estimate.created_at} (no provider call), "
            "beside what the run groups started after it spent (re-asked judge replies and "
            "retried calls included). The estimate covers the cases still to do when it was "
            "made (docs/estimate.md)."
        ),
        Table(("model", "figure", "estimated", "actual", "error"), tuple(rows)),
    ]
