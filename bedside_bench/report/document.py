"""What the human report says, as format-neutral blocks (pure functions).

Markdown and HTML are rendered from the same blocks (`render.py`), so the two files can never
disagree about a number. Long because the report has many sections: one short function each,
`ReportContext -> list[Block]`, listed in order in `sections.SECTIONS`, which is where a new
section goes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.documents.comparison import Comparison, Pair, Verdict, oriented
from bedside_bench.documents.summary import (
    F1_FIELDS,
    BenchmarkSummary,
    OverallScore,
    RunSummary,
    Temperature,
)
from bedside_bench.logs.generation import settings_text
from bedside_bench.release.known import UNRECOGNISED
from bedside_bench.report.answers import ANSWERED_AGAIN, REJUDGED
from bedside_bench.report.reducers import reducer_warnings
from bedside_bench.report.scope import scope_cell
from bedside_bench.report.standing import Standing, by_score, rankable, report_order, standing
from bedside_bench.report.summary import DEMO_NOTE
from bedside_bench.scoring.power import ZERO_DIFFERENCE

if TYPE_CHECKING:
    from bedside_bench.documents.estimate import EstimateDocument
    from bedside_bench.documents.judges import JudgesDocument
    from bedside_bench.documents.review import ReviewDocument
    from bedside_bench.report.groups import RunGroup
    from bedside_bench.report.usage import Prices

PLOT_FILE = "forest.png"
INSTALL_PLOT = (
    "The forest plot needs matplotlib, the `report` extra: `pip install -e '.[report]'` "
    "(or `pip install 'bedside-bench[report]'`), then run `bedside-bench report` again."
)


@dataclass(frozen=True)
class Heading:
    level: int
    text: str


@dataclass(frozen=True)
class Paragraph:
    text: str


@dataclass(frozen=True)
class Bullets:
    items: tuple[str, ...]
    warning: bool = False  # shown as a caveat the reader must not miss


@dataclass(frozen=True)
class Table:
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    long_values: bool = False  # digests, ids, paths: may break anywhere to fit the page


@dataclass(frozen=True)
class Figure:
    """The forest plot: `png` is embedded in HTML, `path` is linked from Markdown."""

    path: str
    alt: str
    png: bytes | None = field(default=None, repr=False)


Block = Heading | Paragraph | Bullets | Table | Figure


# --------------------------------------------------------------------------------------------
# formatting


def num(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "n/a"
    return f"{value:+.3f}" if signed else f"{value:.3f}"


def interval(ci: Sequence[float] | None) -> str:
    return f"[{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "n/a"


# the intervals besides the protocol's, by document key: what each resamples besides cases
JOINT_KEYS: tuple[tuple[str, str, str], ...] = (
    ("ci95_cases_and_judge", "judge passes", "n/a (one judge pass)"),
    ("ci95_cases_and_epochs", "epochs", "n/a (one epoch)"),
)


def width_added(ci: Sequence[float], joint: Sequence[float]) -> float:
    """The share of the joint interval's width that resampling within cases adds to the
    protocol's; 0 or less when it is no wider (a few cases, values at 0 or 1)."""
    wide = joint[1] - joint[0]
    return 1 - (ci[1] - ci[0]) / wide if wide > 0 else 0.0


def joint_cell(ci: Sequence[float] | None, joint: Sequence[float] | None) -> str:
    """`[lo, hi] (adds X% of the width)`, `[lo, hi] (no wider)`, or n/a."""
    if not joint:
        return "n/a (not recorded)"
    share = width_added(ci, joint) if ci else 0.0
    added = f"adds {share:.0%} of the width" if round(share, 2) > 0 else "no wider"
    return f"{interval(joint)} ({added})"


def about(cases: int) -> str:
    """A number of cases rounded for reading: two significant figures from 100 on."""
    if cases < 100:
        return str(cases)
    step = 10 ** (len(str(cases)) - 2)
    return f"{(cases + step // 2) // step * step:,}"


def score_cell(entry: BenchmarkSummary | OverallScore | None) -> str:
    """`mean [lo, hi]` plus n (completed) and, for a benchmark, failed."""
    if entry is None:
        return "missing"
    failed = entry.failed if isinstance(entry, BenchmarkSummary) else None
    tail = f"n={entry.n}" + (f", failed={failed}" if failed is not None else "")
    return f"{num(entry.mean)} {interval(entry.ci95)} ({tail})"


def temperature(value: Temperature) -> str:
    if isinstance(value, list):
        return ", ".join(
            "null" if v is None else v if isinstance(v, str) else f"{v:g}" for v in value
        )
    if value is None:
        return "null (provider default)"
    if isinstance(value, str):
        return f"{value} (the log keeps no record of the request)"
    return f"{value:g}"


# One token vocabulary in every table (docs/numbers.md), read the same way for every provider:
# Inspect (>= 0.3.285, the version required) reports `input_tokens` without the tokens read from
# or written to the provider's prompt cache, for OpenAI as for Anthropic. Fresh input is what the
# provider read in full (cache writes included: they are read in full, then kept); cached input
# is what it read from its cache (`input_tokens_cache_read`, billed at the cached rate); output
# includes reasoning, which is given apart as the part of output it is.
TOKEN_COLUMNS = ("fresh input", "cached input", "output", "reasoning (in output)")
TOKEN_NOTE = (
    "Tokens: fresh input is what the provider read in full (writes to its prompt cache "
    "included), cached input what it read from its prompt cache (billed at the cached rate), "
    "output what it wrote, reasoning the part of output spent reasoning; all input is fresh "
    "plus cached (docs/numbers.md)."
)


class Tokens(Protocol):
    """Inspect's counts, as a summary (`TokenCounts`) or a log record (`TokenUsage`) holds them."""

    @property
    def input_tokens(self) -> int: ...
    @property
    def input_tokens_cache_read(self) -> int: ...
    @property
    def input_tokens_cache_write(self) -> int: ...
    @property
    def output_tokens(self) -> int: ...
    @property
    def reasoning_tokens(self) -> int: ...


def fresh_input(part: Tokens) -> int:
    """Input the provider read in full: Inspect's input_tokens plus its cache writes."""
    return part.input_tokens + part.input_tokens_cache_write


def all_input(part: Tokens) -> int:
    """Every input token, fresh and cached."""
    return fresh_input(part) + part.input_tokens_cache_read


def token_cells(part: Tokens | None) -> tuple[str, str, str, str]:
    """A part's tokens in `TOKEN_COLUMNS` order."""
    if part is None:
        return ("n/a", "n/a", "n/a", "n/a")
    return (
        f"{fresh_input(part):,}",
        f"{part.input_tokens_cache_read:,}",
        f"{part.output_tokens:,}",
        f"{part.reasoning_tokens:,}",
    )


def usd(value: float | None) -> str:
    return "n/a" if value is None else f"${value:,.4f}"


def seconds(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.0f} s"


# --------------------------------------------------------------------------------------------
# sections


@dataclass(frozen=True)
class ReportContext:
    """Everything a section may show: every document the report computed. `groups` are the run
    groups behind the summaries (same order), for sections that need more than the summaries
    hold."""

    summaries: Sequence[RunSummary]
    labels: Sequence[str]
    files: Sequence[str]
    comparison: Comparison | None = None
    refused: str | None = None
    png: bytes | None = None
    skipped: Sequence[tuple[str, str]] = ()
    groups: Sequence[RunGroup] = ()
    # which groups are ranked (full runs, like for like); None: every full run, unless refused
    standing: Standing | None = None
    # the judge comparison (`judges.json`) and the review against physicians' labels
    judges: JudgesDocument | None = None
    review: ReviewDocument | None = None
    # the estimates `sweep --estimate` kept in the log directory (oldest first), and the
    # prices (`--prices`)
    estimates: Sequence[EstimateDocument] = ()
    prices: Prices | None = None


Section = Callable[[ReportContext], list[Block]]


def in_report_order(context: ReportContext) -> tuple[list[RunSummary], list[str]]:
    """The summaries and labels in the report's order (`standing.report_order`: the ranked best
    first, then the rest as the report lists them): the order of every table, plot and list
    of models. `run.analyse` already puts them so; a context built otherwise is ordered here."""
    order = report_order(context_standing(context))
    return [context.summaries[i] for i in order], [context.labels[i] for i in order]


def benchmark_names(summaries: Sequence[RunSummary]) -> list[str]:
    present = {name for s in summaries for name in s.benchmarks}
    return [name for name in BENCHMARK_NAMES if name in present]


def runs_section(context: ReportContext) -> list[Block]:
    """The protocol's section 6 checklist, one column per run group."""
    summaries, labels = in_report_order(context)
    order = report_order(context_standing(context))
    files = [context.files[i] for i in order] if context.files else []

    def row(title: str, values: Sequence[str]) -> tuple[str, ...]:
        return (title, *values)

    rows = [
        row("answer model", [s.answer_model for s in summaries]),
        row("judge model", [s.judge_model for s in summaries]),
        row("protocol version", [s.protocol_version for s in summaries]),
        row("dataset digest (sha256)", [s.dataset_sha256 for s in summaries]),
        row("data source", [s.data_source or "n/a" for s in summaries]),
        row(
            "cases completed / failed",
            [f"{s.cases_completed} / {s.cases_failed}" for s in summaries],
        ),
        row("complete", ["yes" if s.complete else "NO" for s in summaries]),
        row("missing benchmarks", [", ".join(s.missing_benchmarks) or "none" for s in summaries]),
        row("scope", [s.scope.description for s in summaries]),
        row("epochs per case", [str(s.epochs) for s in summaries]),
        row("release", [release_text(s) for s in summaries]),
        row("judge passes per answer", [str(s.judge_passes_per_answer) for s in summaries]),
        row("answer temperature", [temperature(s.answer_temperature) for s in summaries]),
        row(
            "answer generation settings",
            [settings_text(s.generation_settings) for s in summaries],
        ),
        row("judge temperature", [temperature(s.judge_temperature) for s in summaries]),
        row(
            "runs (first start, last finish)",
            [f"{s.started_at or 'n/a'} to {s.finished_at or 'n/a'}" for s in summaries],
        ),
        row("logs", [str(len(s.logs)) for s in summaries]),
        row("summary file", list(files)),
    ]
    return [Heading(2, "Runs"), Table(("", *labels), tuple(rows), long_values=True)]


def release_text(summary: RunSummary) -> str:
    release = summary.release
    if release is None:
        return "unknown (not recorded in the logs)"
    if release == UNRECOGNISED:
        counts = summary.release_case_counts
        found = ", ".join(f"{name} {n}" for name, n in counts.items()) if counts else "not recorded"
        return f"unrecognised (cases found: {found})"
    return str(release)


def scores_section(context: ReportContext) -> list[Block]:
    summaries, labels = in_report_order(context)
    rows = [
        (name, *(score_cell(s.benchmarks.get(name)) for s in summaries))
        for name in benchmark_names(summaries)
    ]
    rows.append(
        (
            "overall (macro-average)",
            *(score_cell(s.overall) if s.overall else "n/a (benchmark missing)" for s in summaries),
        )
    )
    blocks: list[Block] = [
        Heading(2, "Benchmark scores"),
        Paragraph(
            "Mean case score with its 95% percentile bootstrap interval; n is the number of "
            "completed cases the mean is over, failed the cases without a successful score "
            "(left out, never counted as 0). The overall interval is a stratified bootstrap "
            "over the ten benchmarks (docs/statistics.md)."
        ),
        Table(("benchmark", *labels), tuple(rows)),
    ]
    size_notes = sorted(
        {n for s in summaries for n in s.notes if n.startswith(("public split", "n per bench"))}
    )
    if size_notes:
        blocks.append(Bullets(tuple(size_notes)))
    return blocks + joint_blocks(context)


JOINT_INTRO = (
    "How sure, from every source the runs measured. The protocol's 95% interval (above, the "
    "headline) resamples cases. With several judge passes the interval over cases and judge "
    "passes also resamples, within each drawn case, its passes; with several epochs the "
    "interval over cases and epochs its epochs (two-stage bootstrap, same cases drawn, same "
    "seed; docs/statistics.md). Beside each: the share of its width that resampling within "
    "cases adds. Each case score already carries its own judge and answer noise, so the "
    "protocol's interval already covers them when they are independent between cases; the "
    "second interval counts that noise again and is the cautious reading, and the share says "
    "how large the noise is."
)


def joint_blocks(context: ReportContext) -> list[Block]:
    """The intervals over cases and judge passes or epochs beside the protocol's, per
    benchmark and overall, for the groups that have them."""
    summaries, labels = in_report_order(context)
    keys = [
        (key, what, none)
        for key, what, none in JOINT_KEYS
        if any(key in e.model_fields_set for s in summaries for e in entries(s))
    ]
    if not keys:
        return []
    rows = []
    for label, s in zip(labels, summaries, strict=True):
        if not any(key in e.model_fields_set for e in entries(s) for key, _, _ in keys):
            continue
        named: list[tuple[str, BenchmarkSummary | OverallScore]] = [
            *s.benchmarks.items(),
            *([("overall", s.overall)] if s.overall else []),
        ]
        for name, entry in named:
            cells = [
                joint_cell(entry.ci95, getattr(entry, key))
                if key in entry.model_fields_set
                else none
                for key, _, none in keys
            ]
            rows.append((name, label, interval(entry.ci95), *cells))
    header = (
        "benchmark",
        "model",
        "95% CI over cases (protocol)",
        *(f"95% CI over cases and {what}" for _, what, _ in keys),
    )
    return [
        Heading(3, "Intervals over cases and judge passes or epochs"),
        Paragraph(JOINT_INTRO),
        Table(header, tuple(rows)),
    ]


def entries(summary: RunSummary) -> list[BenchmarkSummary | OverallScore]:
    """A summary's benchmark entries and its overall entry, if any."""
    found: list[BenchmarkSummary | OverallScore] = list(summary.benchmarks.values())
    return found + ([summary.overall] if summary.overall else [])


def f1_section(context: ReportContext) -> list[Block]:
    summaries, labels = in_report_order(context)
    rows = []
    for name in benchmark_names(summaries):
        entries = [s.benchmarks.get(name) for s in summaries]
        if not any(e and e.has_f1 for e in entries):
            continue
        for key in F1_FIELDS:
            rows.append(
                (f"{name} {key}", *(num(getattr(e, key)) if e else "missing" for e in entries))
            )
    if not rows:
        return []
    return [Heading(3, "F1 diagnostics"), Table(("", *labels), tuple(rows))]


def agreement_section(context: ReportContext) -> list[Block]:
    summaries, labels = in_report_order(context)
    if all(s.judge_passes_per_answer == 1 for s in summaries):
        return []
    rows = []
    for name in benchmark_names(summaries):
        entries = [s.benchmarks.get(name) for s in summaries]
        rows.append(
            (
                name,
                *(
                    f"agreement {num(e.judge_agreement)}, kappa {num(e.judge_kappa)}"
                    if e and e.has_agreement
                    else "n/a"
                    for e in entries
                ),
            )
        )
    return [Heading(3, "Judge agreement across passes"), Table(("benchmark", *labels), tuple(rows))]


def differences_section(context: ReportContext) -> list[Block]:
    comparison, refused, n_groups = context.comparison, context.refused, len(context.summaries)
    blocks: list[Block] = [Heading(2, "Pairwise differences")]
    if refused:
        return [*blocks, Paragraph(refused)]
    if comparison is None:
        return [
            *blocks,
            Paragraph(
                "Only one run group: nothing to compare." if n_groups < 2 else "No comparison."
            ),
        ]
    if not comparison.like_for_like:
        fields = ", ".join(m.field for m in comparison.mismatches)
        blocks.append(
            Paragraph(
                f"NOT LIKE FOR LIKE (forced with --force): the groups differ in {fields}. "
                "Differences below mix model and set-up effects."
            )
        )
    sections = [
        *((name, b.pairs) for name, b in comparison.benchmarks.items()),
        ("overall", comparison.overall.pairs),
    ]
    every = [pair for _, pairs in sections for pair in pairs]
    keys = [
        (key, what)
        for key, what, _ in JOINT_KEYS
        if any(getattr(pair, key) is not None for pair in every)
    ]
    blocks.append(Paragraph(DIFFERENCES_INTRO + (DIFFERENCES_JOINT if keys else "")))
    for first in report_pairs(context, comparison.overall.pairs):
        rows = []
        for name, pairs in sections:
            pair = oriented(pairs, first.a, first.b)
            rows.append(
                (
                    name,
                    str(pair.n),
                    num(pair.difference, signed=True),
                    signed_interval(pair.ci95),
                    *(signed_interval(getattr(pair, key)) for key, _ in keys),
                    verdict(pair),
                    cases_needed(pair.cases_needed_for_80_power),
                )
            )
        blocks.append(Heading(3, f"{first.a} minus {first.b}"))
        header = (
            "benchmark",
            "n paired",
            "difference",
            "95% CI",
            *(f"95% CI over cases and {what}" for _, what in keys),
            "excludes 0",
            "paired cases for 80% power",
        )
        blocks.append(Table(header, tuple(rows)))
    return blocks


def report_pairs(context: ReportContext, pairs: Sequence[Pair]) -> list[Pair]:
    """`pairs` each as the earlier in the report's order minus the later (higher-ranked minus
    lower-ranked), in that order: by the first model's place, then the second's."""
    place = {label: n for n, label in enumerate(in_report_order(context)[1])}
    shown = [pair.reversed() if place[pair.a] > place[pair.b] else pair for pair in pairs]
    return sorted(shown, key=lambda pair: (place[pair.a], place[pair.b]))


DIFFERENCES_INTRO = (
    "Higher-ranked minus lower-ranked, as in the Verdict (models not ranked: the one listed "
    "first minus the one after it), on the cases both completed; 95% paired bootstrap interval "
    "(per benchmark: "
    "percentile bootstrap of the differences; overall: stratified over benchmarks). Paired "
    "cases for 80% power: how many paired cases would detect a difference of the observed "
    "size 80% of the time at the two-sided 5% level (normal approximation from the observed "
    "spread of the differences, every benchmark grown in proportion; docs/statistics.md)."
)
DIFFERENCES_JOINT = (
    " The intervals over cases and judge passes or epochs also resample, within each drawn "
    "case, each model's passes or epochs (see Intervals over cases and judge passes or epochs)."
)


def cases_needed(value: int | None) -> str:
    return "n/a" if value is None else f"{value:,}"


def verdict(pair: Pair) -> str:
    withheld = pair.verdict_withheld
    if withheld:
        return f"no verdict: {withheld}"
    excludes = pair.excludes_zero
    return "n/a" if excludes is None else ("yes" if excludes else "no")


def plot_section(context: ReportContext) -> list[Block]:
    png = context.png
    blocks: list[Block] = [Heading(2, "Forest plot")]
    if png is None:
        return [*blocks, Paragraph(INSTALL_PLOT)]
    return [
        *blocks,
        Figure(PLOT_FILE, "Benchmark means with 95% intervals, one colour per model", png),
    ]


def usage_section(context: ReportContext) -> list[Block]:
    """Tokens per model and part (answers, judge) in the one vocabulary (`TOKEN_COLUMNS`),
    then wall time and cost per model."""
    summaries, labels = in_report_order(context)
    token_rows = []
    time_rows = []
    for label, s in zip(labels, summaries, strict=True):
        usage, cost = s.usage, s.cost
        wall = usage.wall_time_seconds
        token_rows.append((label, "answers", *token_cells(usage.answer)))
        token_rows.append((label, "judge", *token_cells(usage.judge)))
        time_rows.append(
            (
                label,
                seconds(wall.sum_over_logs),
                seconds(wall.first_start_to_last_finish),
                usd(cost.total) if cost else "no --prices",
            )
        )
    return [
        Heading(2, "Usage and cost"),
        Paragraph(TOKEN_NOTE),
        Table(("model", "calls", *TOKEN_COLUMNS), tuple(token_rows)),
        Table(
            (
                "model",
                "wall time (sum over logs)",
                "wall time (first start to last finish)",
                "cost (USD)",
            ),
            tuple(time_rows),
        ),
    ]


def notes_section(context: ReportContext) -> list[Block]:
    summaries, labels = in_report_order(context)
    blocks: list[Block] = [Heading(2, "Notes")]
    for label, s in zip(labels, summaries, strict=True):
        blocks += [Heading(3, label), Bullets(tuple(s.notes) or ("none",))]
    return blocks


# --------------------------------------------------------------------------------------------
# the report: the answer first, run metadata last


def ranked(summaries: Sequence[RunSummary], labels: Sequence[str]) -> list[int]:
    """Group indices by overall score, best first; groups without one last, by label."""
    return by_score(summaries, labels, range(len(summaries)))


def context_standing(context: ReportContext) -> Standing:
    if context.standing is not None:
        return context.standing
    return standing(context.summaries, context.labels, refused=context.refused is not None)


def cases_cell(summary: RunSummary) -> str:
    return f"{summary.cases_completed} / {summary.cases_failed}"


def overall_cell(summary: RunSummary) -> str:
    overall = summary.overall
    if overall is None:
        return "n/a (a benchmark is missing or has no completed case)"
    return f"{num(overall.mean)} {interval(overall.ci95)}"


HEADLINE_HEADER = ("rank", "model", "overall (95% CI)", "completed / failed", "scope")
UNRANKED_HEADER = ("model", "overall (95% CI)", "completed / failed", "scope", "why not ranked")
NO_FULL_RUN = "No full run to rank: smoke and partial runs are listed unranked below."


def headline_rows(context: ReportContext) -> tuple[tuple[str, ...], ...]:
    """One row per ranked model (full runs, like for like), best overall first."""
    summaries, labels = context.summaries, context.labels
    return tuple(
        (
            str(rank + 1),
            labels[i],
            overall_cell(summaries[i]),
            cases_cell(summaries[i]),
            scope_cell(summaries[i].scope),
        )
        for rank, i in enumerate(context_standing(context).ranked)
    )


def unranked_rows(context: ReportContext) -> tuple[tuple[str, ...], ...]:
    """One row per group the headline does not rank (smoke, partial, another judge's, ...)."""
    summaries, labels = context.summaries, context.labels
    return tuple(
        (
            labels[i],
            overall_cell(summaries[i]),
            cases_cell(summaries[i]),
            scope_cell(summaries[i].scope),
            why,
        )
        for i, why in context_standing(context).unranked
    )


def headline_section(context: ReportContext) -> list[Block]:
    """One row per ranked model, best overall first: the answer, with its scope beside it."""
    rows = headline_rows(context)
    if not rows:
        return [Paragraph(NO_FULL_RUN)]
    return [Table(HEADLINE_HEADER, rows)]


def unranked_section(context: ReportContext) -> list[Block]:
    """The groups not ranked, after the ranking and its verdict, each with its scope."""
    rows = unranked_rows(context)
    if not rows:
        return []
    return [
        Paragraph(
            "Not ranked: smoke and partial runs score other and fewer cases than a full run, "
            "so they are never ranked with full runs and carry no verdict."
        ),
        Table(UNRANKED_HEADER, rows),
    ]


def verdict_line(entry: Verdict) -> str:
    """One pair, higher-ranked minus lower-ranked: difference, paired interval, verdict."""
    higher, lower, n, word = entry.higher, entry.lower, entry.n, entry.verdict
    joint = "".join(
        f" (over cases and {what} {signed_interval(getattr(entry, key))})"
        for key, what, _ in JOINT_KEYS
        if getattr(entry, key) is not None
    )
    numbers = (
        f": {num(entry.difference, signed=True)} {signed_interval(entry.ci95)}{joint}"
        if entry.difference is not None
        else ""
    )
    # the number of cases once: in the verdict when it is "not distinguishable on these N"
    cases = f" on {n} paired cases" if n and word != "not distinguishable" else ""
    head = f"{higher} minus {lower}{numbers}{cases}"
    if word is None:
        return f"{head}: no verdict ({entry.verdict_withheld or 'no interval'})"
    if word == "ahead":
        return f"{head}: {higher} is ahead"
    if word == "behind":
        return f"{head}: {higher} is behind on the cases both completed"
    return f"{head}: not distinguishable on these {n} cases{needed_text(entry)}"


def needed_text(entry: Verdict) -> str:
    """How many paired cases a difference of the observed size needs (80% power)."""
    needed = entry.cases_needed_for_80_power
    if not entry.n:
        return ""
    if needed is None:
        if entry.difference is not None and abs(entry.difference) <= ZERO_DIFFERENCE:
            return "; they score the same on them, a difference no number of cases detects"
        return ""
    return (
        f"; about {about(needed)} paired cases would be needed to detect a difference of "
        f"this size (80% power), {needed / entry.n:,.1f}x these"
    )


def signed_interval(ci: Sequence[float] | None) -> str:
    return f"[{ci[0]:+.3f}, {ci[1]:+.3f}]" if ci else "n/a"


def tied_line(context: ReportContext) -> str | None:
    """With more than two ranked models: which are statistically tied with the leader."""
    ranked_ = context_standing(context).ranked
    verdicts = context.comparison.verdicts if context.comparison else []
    if len(ranked_) < 3 or not verdicts:
        return None
    leader = context.labels[ranked_[0]]
    against = [v for v in verdicts if v.higher == leader]
    tied = [v.lower for v in against if v.verdict == "not distinguishable"]
    open_ = [v.lower for v in against if v.verdict is None]
    line = (
        f"statistically tied with the leader {leader}: {', '.join(tied)}"
        if tied
        else f"no model is statistically tied with the leader {leader}"
    )
    return line + (f" (no verdict for {', '.join(open_)})" if open_ else "")


def verdict_lines(context: ReportContext) -> list[str]:
    """The verdict in lines: one per pair of ranked full runs, then the ties with the leader;
    or why there is none."""
    ranked_ = context_standing(context).ranked
    comparison = context.comparison
    verdicts = comparison.verdicts if comparison else []
    if len(ranked_) < 2:
        if not any(rankable(s) for s in context.summaries):
            return ["no verdict: no full run (smoke and partial runs carry none)"]
        if context.refused:
            return ["no verdict: the runs are not like for like (see Pairwise differences)"]
        return ["no verdict: one full run, nothing to compare it with"]
    if not verdicts:
        return ["no verdict: no comparison was made"]
    lines = [verdict_line(v) for v in verdicts]
    if comparison is not None and not comparison.like_for_like:
        lines.insert(0, "NOT LIKE FOR LIKE (--force): these differences mix model and set-up")
    tied = tied_line(context)
    return [*lines, *([tied] if tied else [])]


VERDICT_INTRO = (
    "Higher-ranked minus lower-ranked overall score on the cases both completed, with its 95% "
    "paired bootstrap interval (stratified over the ten benchmarks, docs/statistics.md): "
    "ahead when the interval lies above 0, behind when below (the cases both completed can "
    "disagree with the ranking when failed cases differ), else not distinguishable, with the "
    "paired cases a difference of the observed size would need to be detected 80% of the "
    "time. With several judge passes or epochs the interval that also resamples them is given "
    "in brackets; the verdict reads the protocol's. Per-benchmark differences are under "
    "Pairwise differences."
)


def verdict_section(context: ReportContext) -> list[Block]:
    """Which model is better, by how much and how sure: right after the ranking."""
    lines = verdict_lines(context)
    blocks: list[Block] = [Heading(2, "Verdict")]
    if len(context_standing(context).ranked) > 1 and context.comparison is not None:
        blocks.append(Paragraph(VERDICT_INTRO))
    return [*blocks, Bullets(tuple(lines))]


def group_warnings(summary: RunSummary) -> list[str]:
    found = [DEMO_NOTE] if DEMO_NOTE in summary.notes else []
    found += [
        f"{n.split(':', 1)[0]}: its scores are from `bedside-bench rejudge` of an earlier run's "
        "answers (the notes say which)."
        for n in summary.notes
        if n.startswith(REJUDGED)
    ]
    if not summary.scope.full:
        found.append(f"NOT A FULL RUN, {summary.scope.description}.")
    if summary.cases_failed:
        found.append(
            f"{summary.cases_failed} case(s) failed and are left out of the means (never scored 0)."
        )
    if summary.epochs > 1:
        found.append(
            f"{summary.epochs} epochs per case; a case's score is the mean over its "
            "epochs; the protocol's intervals resample cases, the second interval their "
            "epochs too."
        )
    if summary.release is None or summary.release == UNRECOGNISED:
        found.append(f"release: {release_text(summary)}.")
    found += answer_condition_warnings(summary)
    found += without_text_warnings(summary)
    found += reducer_warnings(summary)
    pooled = [n.split(":", 1)[0] for n in summary.notes if ANSWERED_AGAIN in n]
    if pooled:
        found.append(
            f"answers of more than one run pooled ({', '.join(pooled)}): each case counts "
            "once, with its newest answer (the notes say which runs)."
        )
    return found


def answer_condition_warnings(summary: RunSummary) -> list[str]:
    """Answers judged as they came although they did not end on their own, per benchmark."""
    found = []
    for name, entry in summary.benchmarks.items():
        counts = entry.answer_conditions.model_dump()
        shown = ", ".join(f"{n} {c}" for c, n in counts.items() if n and c != "not_recorded")
        if shown:
            found.append(f"{name}: answers judged as they came, not ended on their own: {shown}.")
    return found


def without_text_warnings(summary: RunSummary) -> list[str]:
    """Answers the model returned without text, per benchmark and by how they ended: in the
    mean, scored as stating nothing, never judged."""
    found = []
    for name, entry in summary.benchmarks.items():
        empty = entry.answers_without_text
        if not empty.total:
            continue
        how = ", ".join(f"{n} {c}" for c, n in empty.model_dump().items() if n and c != "total")
        spent = "; truncated: the budget spent before any text" if empty.truncated else ""
        found.append(
            f"{name}: {empty.total} answer(s) had no text ({how}{spent}): scored as answers "
            "that state nothing (no item matched), in the mean, no judge asked."
        )
    return found


def warnings_section(context: ReportContext) -> list[Block]:
    """What the reader must know before reading any number: in words, at the top. A warning
    that holds for every one of several models is said once."""
    summaries, labels = in_report_order(context)
    per_group = [group_warnings(s) for s in summaries]
    shared = (
        [w for w in per_group[0] if all(w in ws for ws in per_group)] if len(per_group) > 1 else []
    )
    items = [f"every model: {w}" for w in shared]
    for label, warnings in zip(labels, per_group, strict=True):
        items += [f"{label}: {w}" for w in warnings if w not in shared]
    if context.skipped:
        items.append(
            f"{len(context.skipped)} log(s) found were not used (unreadable or not "
            "BedsideBench's); they are listed under Skipped logs."
        )
    return [Bullets(tuple(items), warning=True)] if items else []


def report_title(summaries: Sequence[RunSummary]) -> str:
    """The report's heading, and its page's title: a browser's tab says a demo too."""
    demo = any(DEMO_NOTE in s.notes for s in summaries)
    return "BedsideBench report" + (" (DEMO: scripted answers)" if demo else "")


def intro_section(context: ReportContext) -> list[Block]:
    return [
        Heading(1, report_title(context.summaries)),
        Paragraph(
            "Written by `bedside-bench report` from Inspect logs. The headline intervals are "
            "the protocol's: they resample cases. Runs that judged each answer more than once "
            "or answered each case more than once also get an interval that resamples those "
            "passes or epochs within each case (Intervals over cases and judge passes or "
            "epochs). No interval covers later provider changes to a model (docs/numbers.md, "
            "docs/statistics.md)."
        ),
    ]


def skipped_section(context: ReportContext) -> list[Block]:
    if not context.skipped:
        return []
    return [
        Heading(2, "Skipped logs"),
        Bullets(tuple(f"{location}: {reason}" for location, reason in context.skipped)),
    ]
