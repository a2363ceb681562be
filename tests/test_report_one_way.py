"""The report reads one way, whatever the runs: every table, list and heading names the models
in the report's order (the ranked full runs best first, then the rest by label), and every
difference is the earlier minus the later, with the same sign and numbers in the verdict, the
Pairwise differences tables, the terminal and `comparison.json`; a pair read the other way is
its exact mirror (`Pair.reversed`), never a second draw.

The expected order is worked out here from the summaries by the rule docs/numbers.md gives
(full runs with an overall score, higher mean first, ties by label; none ranked when the full
runs are refused as not like for like; the rest by label), never read from the package's
standing; the expected numbers of a pair that runs against label order come from the
independent helpers of `tests.report_helpers`."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.documents.comparison import Pair
from bedside_bench.logs.records import CaseRecord, LogRecord
from bedside_bench.report.document import Bullets, Heading, Table
from bedside_bench.report.groups import RunGroup
from bedside_bench.report.judges import judge_comparison
from bedside_bench.report.render import terminal_table
from bedside_bench.report.run import (
    Analysis,
    ReportDocuments,
    analyse,
    render,
    report_outputs,
)
from bedside_bench.report.sections import report_blocks
from bedside_bench.report.summary import BootstrapOptions
from tests.report_helpers import (
    JointCase,
    a_run,
    case_record,
    context_of,
    expected_cases_needed,
    expected_interval,
    expected_joint,
    expected_stratified,
    log_record,
)

OPTIONS = BootstrapOptions(resamples=40, seed=3)
MODELS = ("test/a", "test/b", "test/c", "test/d")
SCORE = st.one_of(st.sampled_from([0.0, 1.0, 0.5, 0.25]), st.floats(0.0, 1.0, allow_nan=False))
PRICE = {"input": 2.0, "output": 8.0, "cached_input": 0.5}


def one_way_case(passes: int) -> Any:
    """A case's strategy: failed one time in eight; with three judge passes, carrying them."""

    @st.composite
    def case(draw: st.DrawFn, case_id: str) -> float | None | CaseRecord:
        if draw(st.integers(0, 7)) == 0:
            return None  # a failed case
        if passes == 1:
            return draw(SCORE)
        scores = tuple(draw(SCORE) for _ in range(passes))
        return case_record(case_id, sorted(scores)[1], pass_scores=scores)

    return case


@st.composite
def reports(draw: st.DrawFn) -> Analysis:
    """Any set of runs, analysed as `bedside-bench report` does (with or without --force and
    --prices)."""
    passes = draw(st.sampled_from([1, 3]))
    models = draw(st.permutations(MODELS))[: draw(st.integers(1, len(MODELS)))]
    case = one_way_case(passes)
    records = [r for model in models for r in draw(a_run(model, case, max_cases=4, passes=passes))]
    prices = {m: PRICE for m in (*MODELS, "test/judge")} if draw(st.booleans()) else None
    return analyse(records, OPTIONS, prices, force=draw(st.booleans()))


# --------------------------------------------------------------------------------------------
# the expected order, by the documented rule


def expected_order(analysis: Analysis) -> list[str]:
    """Full runs with a finite overall mean, best first (ties by label), unless refused with
    more than one; then every other group by label."""
    means = {}
    for label, s in zip(analysis.labels, analysis.summaries, strict=True):
        if s.scope.full and s.overall is not None and math.isfinite(s.overall.mean):
            means[label] = s.overall.mean
    ranked = sorted(means, key=lambda label: (-means[label], label))
    if analysis.refused is not None and len(ranked) > 1:
        ranked = []
    return ranked + sorted(label for label in analysis.labels if label not in ranked)


def signed(value: float | None) -> str:
    return "n/a" if value is None else f"{value:+.3f}"


def signed_ci(ci: Sequence[float] | None) -> str:
    return "n/a" if ci is None else f"[{ci[0]:+.3f}, {ci[1]:+.3f}]"


# --------------------------------------------------------------------------------------------
# the checks


def check_tables(blocks: Sequence[Any], place: Mapping[str, int]) -> None:
    """Every table: the models of its header, and those its rows start with, in order."""

    def model_of(cell: str) -> str | None:
        name = cell.split(" (batch: ", 1)[0]
        return name if name in place else None

    for block in blocks:
        if not isinstance(block, Table):
            continue
        header = [place[m] for c in block.header if (m := model_of(c)) is not None]
        assert header == sorted(header) and len(set(header)) == len(header), block.header
        firsts = []
        for row in block.rows:
            in_row = [place[m] for c in row if (m := model_of(c)) is not None]
            assert in_row == sorted(in_row), row
            firsts += in_row[:1]
        assert firsts == sorted(firsts), block.rows


def check_lists(blocks: Sequence[Any], place: Mapping[str, int]) -> None:
    """Headings and bullets naming one model each (notes, warnings) in order."""
    headings = [place[b.text] for b in blocks if isinstance(b, Heading) and b.text in place]
    assert headings == sorted(headings)
    for block in blocks:
        if isinstance(block, Bullets):
            named = [
                place[i.split(": ", 1)[0]] for i in block.items if i.split(": ", 1)[0] in place
            ]
            assert named == sorted(named), block.items


def check_comparison(analysis: Analysis, place: Mapping[str, int]) -> dict[tuple[str, str], Pair]:
    """`comparison.json`: models in order, every pair the earlier minus the later, the pairs in
    order, each verdict the very numbers of its overall pair; the mirror of every pair exact."""
    comparison = analysis.comparison
    if comparison is None:
        return {}
    written = comparison.model_dump(mode="json")
    compared = [m["label"] for m in written["models"]]
    assert [place[m] for m in compared] == sorted(place[m] for m in compared)
    for part in [*written["benchmarks"].values(), written["overall"]]:
        assert list(part["models"]) == compared
        keys = [(place[p["a"]], place[p["b"]]) for p in part["pairs"]]
        assert all(a < b for a, b in keys) and keys == sorted(keys)
    overall = {(p.a, p.b): p for p in comparison.overall.pairs}
    for v in comparison.verdicts:
        assert place[v.higher] < place[v.lower]
        pair = overall[(v.higher, v.lower)]
        assert (v.n, v.difference, v.ci95, v.excludes_zero, v.verdict_withheld) == (
            pair.n,
            pair.difference,
            pair.ci95,
            pair.excludes_zero,
            pair.verdict_withheld,
        )
        assert (v.ci95_cases_and_judge, v.ci95_cases_and_epochs) == (
            pair.ci95_cases_and_judge,
            pair.ci95_cases_and_epochs,
        )
        assert v.cases_needed_for_80_power == pair.cases_needed_for_80_power
    every = [p for b in comparison.benchmarks.values() for p in b.pairs] + list(overall.values())
    for pair in every:
        mirror = pair.reversed()
        assert (mirror.a, mirror.b, mirror.n) == (pair.b, pair.a, pair.n)
        if pair.difference is not None:
            assert mirror.difference == -pair.difference
        for key in ("ci95", "ci95_cases_and_judge", "ci95_cases_and_epochs"):
            ci, flipped = getattr(pair, key), getattr(mirror, key)
            assert flipped == (None if ci is None else [-ci[1], -ci[0]])
        assert mirror.reversed() == pair
    return overall


def check_differences(
    blocks: Sequence[Any], place: Mapping[str, int], analysis: Analysis
) -> dict[tuple[str, str], tuple[str, ...]]:
    """The Pairwise differences section: one heading per pair, earlier minus later, in order;
    its rows the comparison's numbers with their sign. Returns each pair's overall row."""
    comparison = analysis.comparison
    at = next(i for i, b in enumerate(blocks) if b == Heading(2, "Pairwise differences"))
    end = next(
        i for i, b in enumerate(blocks) if i > at and isinstance(b, Heading) and b.level == 2
    )
    heads = [
        (i, tuple(b.text.split(" minus ")))
        for i, b in enumerate(blocks[at:end], at)
        if isinstance(b, Heading) and b.level == 3
    ]
    if comparison is None:
        assert heads == []
        return {}
    keys = [(place[a], place[b]) for _, (a, b) in heads]
    assert all(a < b for a, b in keys) and keys == sorted(keys)
    assert len(heads) == len(comparison.overall.pairs)
    parts = [*comparison.benchmarks.items(), ("overall", comparison.overall)]
    rows = {}
    for i, (a, b) in heads:
        table = blocks[i + 1]
        assert isinstance(table, Table)
        for row, (name, part) in zip(table.rows, parts, strict=True):
            (pair,) = [p for p in part.pairs if (p.a, p.b) == (a, b)]  # as written, not flipped
            assert row[:4] == (name, str(pair.n), signed(pair.difference), signed_ci(pair.ci95))
        rows[(a, b)] = table.rows[-1]
    return rows


def check_verdicts(
    blocks: Sequence[Any], terminal: str, analysis: Analysis, rows: Mapping[Any, Any]
) -> None:
    """Each verdict line: higher minus lower, the sign and numbers of its overall pair, in the
    report and the terminal alike, and the same as the Pairwise differences overall row."""
    verdicts = analysis.comparison.verdicts if analysis.comparison else []
    at = next(i for i, b in enumerate(blocks) if b == Heading(2, "Verdict"))
    items = next(b for b in blocks[at:] if isinstance(b, Bullets)).items
    lines = [line for line in items if " minus " in line and not line.startswith("NOT LIKE")]
    assert len(lines) == len(verdicts)
    for line, v in zip(lines, verdicts, strict=True):
        head = f"{v.higher} minus {v.lower}"
        if v.difference is not None:
            head += f": {signed(v.difference)} {signed_ci(v.ci95)}"
            overall_row = rows[(v.higher, v.lower)]
            assert overall_row[2:4] == (signed(v.difference), signed_ci(v.ci95))
        assert line.startswith(head), (line, head)
        assert f"  {line}" in terminal.splitlines()


def check_terminal(terminal: str, place: Mapping[str, int]) -> None:
    lines = terminal.splitlines()
    header = next(line for line in lines if line.startswith("benchmark "))
    named = [place[c.strip()] for c in header.split("  ") if c.strip() in place]
    assert named == sorted(named) and len(named) == len(place)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(analysis=reports())
def test_every_table_and_difference_follows_the_ranking(analysis: Analysis) -> None:
    order = expected_order(analysis)
    assert analysis.labels == order  # groups, summaries and files all come in this order
    assert [analysis.labels[i] for i in analysis.standing.ranked] == order[
        : len(analysis.standing.ranked)
    ]
    place = {label: n for n, label in enumerate(order)}
    context = context_of(analysis)
    blocks = report_blocks(context)
    terminal = terminal_table(analysis.summaries, analysis.labels, (), context)
    check_tables(blocks, place)
    check_lists(blocks, place)
    check_comparison(analysis, place)
    rows = check_differences(blocks, place, analysis)
    check_verdicts(blocks, terminal, analysis, rows)
    check_terminal(terminal, place)
    # the terminal's cost lines, and comparison.json as written, in the same order
    cost = [place[line[5:].split(":")[0]] for line in render_lines(analysis)]
    assert cost == sorted(cost)


def render_lines(analysis: Analysis) -> list[str]:
    """The terminal's cost lines, checking on the way that comparison.json is written."""
    documents = ReportDocuments(analysis, None, None, [], None, [], None)
    rendered = render(documents)
    outputs = report_outputs(documents, rendered)
    assert ("comparison.json" in outputs) == (analysis.comparison is not None)
    return [line for line in rendered.lines if line.startswith("cost ")]


# --------------------------------------------------------------------------------------------
# a ranking against label order, numbers from the independent helpers


def noisy(model: str, offset: float, passes: int = 3) -> list[LogRecord]:
    """Twelve cases a benchmark, each judged `passes` times (the case score the median)."""
    records = []
    for k, name in enumerate(BENCHMARK_NAMES):
        cases: dict[str, float | None | CaseRecord] = {}
        for i in range(12):
            base = ((i * 37 + k * 11) % 17) / 17
            scores = tuple(min(1.0, max(0.0, base + offset + d)) for d in (0.0, 0.2, -0.3))
            cases[f"{name}-{i}"] = case_record(f"{name}-{i}", sorted(scores)[1], pass_scores=scores)
        records.append(
            log_record(
                cases,
                benchmark=name,
                answer_model=model,
                task_id=f"{model}-{name}",
                judge_passes=passes,
            )
        )
    return records


def plain(records: Sequence[CaseRecord]) -> list[JointCase]:
    return [([c.score or 0.0], [list(c.pass_scores or ())]) for c in records]


def paired(higher: RunGroup, lower: RunGroup) -> tuple[list[list[float]], list[Any]]:
    """Per benchmark: higher minus lower, and the sources the joint interval resamples (the
    higher-ranked first, sign +1; then the lower, sign -1)."""
    strata, sources = [], []
    for name in BENCHMARK_NAMES:
        h, lo = higher.benchmarks[name].by_case(), lower.benchmarks[name].by_case()
        both = [i for i in higher.benchmarks[name].case_ids if i in h and i in lo]
        strata.append([(h[i].score or 0.0) - (lo[i].score or 0.0) for i in both])
        sources.append([(1.0, plain([h[i] for i in both])), (-1.0, plain([lo[i] for i in both]))])
    return strata, sources


def test_a_ranking_against_label_order_reads_higher_minus_lower_everywhere() -> None:
    """test/b ranks above test/a: the comparison, its joint intervals, the verdict and the
    tables all read test/b minus test/a, the numbers drawn once in that direction."""
    options = BootstrapOptions(resamples=300, seed=5)
    analysis = analyse([*noisy("test/a", -0.15), *noisy("test/b", 0.0)], options)
    assert analysis.labels == ["test/b", "test/a"]
    assert analysis.comparison is not None
    higher, lower = analysis.groups
    strata, sources = paired(higher, lower)
    for k, name in enumerate(BENCHMARK_NAMES):
        (pair,) = analysis.comparison.benchmarks[name].pairs
        assert (pair.a, pair.b) == ("test/b", "test/a")
        assert pair.difference == float(np.mean(strata[k]))
        assert pair.ci95 == expected_interval(strata[k], 300, 5)
        assert pair.ci95_cases_and_judge == list(
            expected_joint([strata[k]], [sources[k]], "judge", 300, 5)
        )
        assert pair.cases_needed_for_80_power == expected_cases_needed([strata[k]])
    (overall,) = analysis.comparison.overall.pairs
    assert (overall.a, overall.b) == ("test/b", "test/a")
    assert overall.difference == float(np.mean([np.mean(s) for s in strata]))
    assert overall.ci95 == expected_stratified(strata, 300, 5)
    joint = list(expected_joint(strata, sources, "judge", 300, 5))
    assert overall.ci95_cases_and_judge == joint
    (verdict,) = analysis.comparison.verdicts
    assert (verdict.higher, verdict.lower) == ("test/b", "test/a")
    assert (verdict.difference, verdict.ci95, verdict.ci95_cases_and_judge) == (
        overall.difference,
        overall.ci95,
        joint,
    )
    assert verdict.verdict == "ahead"
    # read the other way: the exact mirror, not the interval a second draw would give
    mirror = overall.reversed()
    assert mirror.ci95_cases_and_judge == [-joint[1], -joint[0]]
    drawn_again = list(
        expected_joint(
            [[-d for d in s] for s in strata],
            [[(1.0, b), (-1.0, a)] for (_, a), (_, b) in sources],
            "judge",
            300,
            5,
        )
    )
    assert drawn_again != mirror.ci95_cases_and_judge  # why a pair is drawn once
    markdown_blocks = report_blocks(context_of(analysis))
    assert Heading(3, "test/b minus test/a") in markdown_blocks
    assert Heading(3, "test/a minus test/b") not in markdown_blocks


def judged_by(model: str, judge: str, value: bool) -> list[LogRecord]:
    """Every benchmark, two cases, each with items x and y decided `value` (y: its opposite on
    the second case), judged by `judge`; answers shared between judges (one answer source)."""
    records = []
    for name in BENCHMARK_NAMES:
        cases = {}
        for n in range(2):
            decisions = {"x": value, "y": value if n == 0 else not value}
            cases[f"{name}-{n}"] = case_record(
                f"{name}-{n}",
                sum(decisions.values()) / 2,
                judge_model=judge,
                decisions=decisions,
            )
        records.append(
            log_record(
                cases,
                benchmark=name,
                answer_model=model,
                judge_model=judge,
                location=f"{model}-{judge}-{name}",
                task_id=f"T-{model}-{name}",
                answer_source=f"T-{model}-{name}",
            )
        )
    return records


def test_the_judge_section_lists_answer_models_in_the_reports_order() -> None:
    """test/z ranks first under the reference judge: its table comes first in the judge
    section too (judges.json keeps its own order)."""
    records = [
        *judged_by("test/a", "A", False),
        *judged_by("test/a", "B", True),
        *judged_by("test/z", "A", True),
        *judged_by("test/z", "B", False),
    ]
    analysis = analyse(records, OPTIONS)
    ranked = [analysis.summaries[i] for i in analysis.standing.ranked]
    assert [(s.answer_model, s.judge_model) for s in ranked] == [("test/z", "A"), ("test/a", "A")]
    judges = judge_comparison(analysis.groups, OPTIONS, {"x": 2, "y": -1})
    assert judges is not None
    assert [m.answer_model for m in judges.comparisons[0].models] == ["test/a", "test/z"]
    blocks = report_blocks(replace(context_of(analysis), judges=judges))
    tables = [b.text for b in blocks if isinstance(b, Heading) and "scores by judge" in b.text]
    assert tables == ["test/z: scores by judge", "test/a: scores by judge"]
