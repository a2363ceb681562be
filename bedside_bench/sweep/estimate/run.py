"""`bedside-bench sweep ... --estimate`: the estimate on the terminal (or as JSON on stdout),
kept in `LOG_DIR/estimate-<created_at>.json` for the report to set beside what the run spent
(a file of its own each: a later estimate never replaces the one a run started from).

No provider call, no log, no lock: a sweep running in the same directory is not disturbed
(`estimate-*.json` is not an Inspect log name, so neither eval_set nor the report reads it as
one).
`sweep/command.py` imports this module, so the estimate itself (which builds the sweep's tasks)
is imported only when asked for.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from bedside_bench import sweep
from bedside_bench.core.owned_output import create_new_file
from bedside_bench.core.ranges import MAX_ESTIMATED_USD, MAX_PLANNED_CALLS
from bedside_bench.documents.estimate import CostRange, EstimateDocument, estimate_files
from bedside_bench.sweep.options import SweepError

if TYPE_CHECKING:
    from bedside_bench.sweep.options import SweepOptions


def usd(cost: CostRange | None) -> str:
    if cost is None:
        return "n/a (no price)"
    return f"${cost.expected:,.2f} (${cost.low:,.2f}-${cost.high:,.2f})"


def render_table(document: EstimateDocument) -> str:
    """The estimate as a plain table, one row per answer model and a total."""
    header = (
        "model",
        "runs",
        "cases",
        "answer calls",
        "judge calls",
        "answer tokens (fresh input / output)",
        "judge tokens (fresh input / output)",
        "cost USD (low-high)",
    )
    rows = [header]
    for model, m in document.models.items():
        rows.append(
            (
                model,
                str(m.runs),
                str(m.cases),
                f"{m.answer_calls:,}",
                f"{m.judge_calls:,}",
                f"{m.answer_input_tokens:,} / {m.answer_output_tokens:,}",
                f"{m.judge_input_tokens:,} / {m.judge_output_tokens:,}",
                usd(m.cost_usd),
            )
        )
    rows.append(("total", "", "", "", "", "", "", usd(document.cost_usd)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)) for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    lines.append("")
    lines.append(
        f"judge {document.judge} ({document.judge_passes} pass(es), {document.grading}), "
        f"{document.epochs} epoch(s){', batch rates' if document.batch else ''}; no provider "
        "was called"
    )
    for model, m in document.models.items():
        done = f", {m.cases_done} (case, epoch) already done and left out" if m.cases_done else ""
        lines.append(
            f"{model}: input counted with {m.tokenizer.name}"
            f"{' (approximate)' if m.tokenizer.approximate else ''}; answer output "
            f"{_basis(m.answer_output.source, m.answer_output.samples)}{done}"
        )
        if m.price_sources:
            priced = "; ".join(f"{name}: {source}" for name, source in m.price_sources.items())
            lines.append(f"  prices from {priced}")
        lines += [f"  {note}" for note in m.cost_notes]
    if document.price_data:
        lines.append(f"price data: {document.price_data}")
    lines += [f"note: {note}" for note in document.notes]
    return "\n".join(lines)


def _basis(source: str, samples: int) -> str:
    return f"from {samples} earlier answer(s) in the log dir" if source == "logs" else "a prior"


def write_estimate(document: EstimateDocument, log_dir: str) -> Path | None:
    """`LOG_DIR/estimate-<created_at>.json`, a new file beside the earlier estimates, written
    whole (a reader never sees half of it); a remote log directory keeps none."""
    if "://" in log_dir:
        return None
    directory = Path(log_dir)
    directory.mkdir(parents=True, exist_ok=True)
    names = estimate_files(directory, document.created_at)
    return create_new_file(names, document.model_dump_json(indent=2).encode())


def absurd_plan(document: EstimateDocument) -> str | None:
    """Why the plan is past a ceiling no benchmark sweep needs (core/ranges.py), or None: such
    a figure comes from a mistake the sweep would go on to pay for, so it is refused rather
    than printed as an estimate and kept for the report."""
    calls = sum(m.answer_calls + m.judge_calls for m in document.models.values())
    cost = document.cost_usd.expected if document.cost_usd is not None else 0.0
    if calls <= MAX_PLANNED_CALLS and cost <= MAX_ESTIMATED_USD:
        return None
    return (
        f"the plan is {calls:,} calls, ${cost:,.2f} expected: above the ceiling of "
        f"{MAX_PLANNED_CALLS:,} calls or ${MAX_ESTIMATED_USD:,.0f} for one sweep "
        "(docs/inputs.md); check -T judge_passes, the models and benchmarks, and the prices "
        "file (USD per million tokens); nothing was run or kept"
    )


def run_estimate(options: SweepOptions, as_json: bool) -> int:
    """Print the estimate of `options` and keep it in the log directory; exit status 0."""

    prices = sweep.load_prices(Path(options.prices)) if options.prices else None
    try:
        document = sweep.estimate_sweep(options, prices)
    except sweep.PrerequisiteError as ex:  # a task option out of range
        raise SweepError(" ".join(str(getattr(ex, "message", None) or ex).split())) from None
    absurd = absurd_plan(document)
    if absurd is not None:
        raise SweepError(absurd)
    print(document.model_dump_json(indent=2) if as_json else render_table(document), flush=True)
    try:
        write_estimate(document, options.log_dir)
    except OSError as ex:  # the estimate is printed all the same; only keeping it failed
        print(
            f"sweep: estimate not kept in {options.log_dir} ({ex.strerror or ex}); the "
            "report will show no estimate beside the actual figures",
            file=sys.stderr,
        )
    return 0


def add_estimate_arguments(parser: argparse.ArgumentParser) -> None:
    """The sweep's `--estimate` and `--json` flags."""
    parser.add_argument(
        "--estimate",
        action="store_true",
        help="print the calls, tokens and cost (priced as the report prices) the sweep would "
        "spend, without a provider call, and keep it in LOG_DIR for the report "
        "(docs/estimate.md)",
    )
    parser.add_argument("--json", action="store_true", help="with --estimate: print it as JSON")


def estimate_if_asked(args: argparse.Namespace, options: SweepOptions) -> int | None:
    """The estimate's exit status when `--estimate` was given, else None (run the sweep)."""

    if getattr(args, "json", False) and not getattr(args, "estimate", False):
        raise SweepError("--json goes with --estimate (the sweep's own output is its logs)")
    if not getattr(args, "estimate", False):
        return None
    return run_estimate(options, as_json=bool(args.json))
