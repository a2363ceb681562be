"""The report's section on judge dependence, rendered from `judges.json` (pure functions)."""

from __future__ import annotations

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.documents.judges import (
    Coverage,
    Effect,
    FleissAgreement,
    FleissStatistic,
    JudgeComparison,
    JudgesDocument,
    ModelJudges,
    PairAgreement,
    PairStatistic,
    Ranking,
    Score,
)
from bedside_bench.report.document import Block, Bullets, Heading, Paragraph, Table, interval, num
from bedside_bench.report.judges import JUDGES_FILE


def _cell(entry: Score | None) -> str:
    if entry is None or entry.mean is None:
        return "n/a"
    return f"{num(entry.mean)} {interval(entry.ci95)} (n={entry.n})"


def _effect_cell(entry: Effect | None) -> str:
    if entry is None or entry.b_minus_a is None:
        return "n/a"
    mark = " *" if entry.excludes_zero else ""
    return f"{num(entry.b_minus_a, signed=True)} {interval(entry.ci95)}{mark}"


def _agree_cell(entry: PairStatistic | FleissStatistic | None) -> str:
    if entry is None or not entry.n_items:
        return "n/a"
    where = f"{entry.n_items} items, {entry.n_cases} cases"
    return f"{num(entry.share)} agree, kappa {num(entry.kappa)} ({where})"


def coverage_line(label: str, coverage: Coverage) -> str:
    """What one agreement column covers; a shortfall is named, never left to the reader."""
    covered = (
        f"{label}: {coverage.items} of {coverage.rubric_items} rubric items of the "
        f"{coverage.cases} cases every judge completed"
    )
    if coverage.complete:
        return covered + " (every item)"
    return covered + ". SHORTFALL: " + "; ".join(coverage.shortfall)


def model_blocks(judges: list[str], model: ModelJudges) -> list[Block]:
    """One answer model's scores under each judge and the judge effects."""
    present = [j for j in judges if j in model.judges]
    header = ("benchmark", *present, *(f"{e.b} minus {e.a}" for e in model.effects))
    rows = []
    for name in [*BENCHMARK_NAMES, "overall"]:
        cells = [
            _cell(
                model.judges[j].overall
                if name == "overall"
                else model.judges[j].benchmarks.get(name)
            )
            for j in present
        ]
        if name != "overall" and all(c == "n/a" for c in cells):
            continue
        effects = [
            _effect_cell(e.overall if name == "overall" else e.benchmarks.get(name))
            for e in model.effects
        ]
        rows.append((name, *cells, *effects))
    return [Heading(3, f"{model.answer_model}: scores by judge"), Table(header, tuple(rows))]


def agreement_blocks(comp: JudgeComparison) -> list[Block]:
    """Item agreement per pair of judges (and of all, with three or more), and its coverage."""
    entries: list[tuple[str, PairAgreement | FleissAgreement]] = [
        (f"{p.a} vs {p.b}", p) for p in comp.agreement.pairs
    ]
    if comp.agreement.fleiss:
        entries.append(("all judges (Fleiss)", comp.agreement.fleiss))
    first = entries[0][1]
    keys = ["overall", *first.benchmarks, *(f"items {p}" for p in first.points)]
    rows = []
    for key in keys:
        cells = []
        for _, e in entries:
            entry: PairStatistic | FleissStatistic | None
            if key == "overall":
                entry = e.overall
            elif key.startswith("items "):
                entry = e.points.get(key[6:])
            else:
                entry = e.benchmarks.get(key)
            cells.append(_agree_cell(entry))
        rows.append((key, *cells))
    return [
        Heading(3, "Item agreement between judges"),
        Table(("items", *(label for label, _ in entries)), tuple(rows)),
        Bullets(tuple(coverage_line(label, e.coverage) for label, e in entries)),
    ]


def ranking_blocks(ranking: Ranking | None) -> list[Block]:
    """The ranking of answer models under each judge, and whether it changes."""
    if ranking is None:
        return []
    lines = [f"{j}: {' > '.join(order)}" for j, order in ranking.order.items()]
    for p in ranking.pairs:
        swapped = "; ".join(f"{x} / {y}" for x, y in p.swapped) or "none"
        lines.append(
            f"{p.a} vs {p.b}: Kendall's tau {num(p.kendall_tau)}, swapped pairs: {swapped}"
        )
    return [
        Heading(3, "Ranking of answer models by judge"),
        Paragraph(
            f"Ranked by {ranking.basis}. The ranking "
            + ("CHANGES with the judge." if ranking.changes else "is the same under every judge.")
        ),
        Bullets(tuple(lines)),
    ]


def judges_section(document: JudgesDocument | None) -> list[Block]:
    """The report's section on judge dependence (empty without a judge comparison)."""
    if document is None:
        return []
    blocks: list[Block] = [
        Heading(2, "Judge dependence"),
        Paragraph(
            "The same answers judged by different judges. Means are over the cases every judge "
            "completed; the judge effect is B minus A over the same answers with the paired "
            "bootstrap (overall: stratified over benchmarks; * the interval excludes 0). "
            f"Agreement is item-level; written to {JUDGES_FILE}."
        ),
    ]
    for comp in document.comparisons:
        for model in comp.models:
            blocks += model_blocks(comp.judges, model)
        blocks += agreement_blocks(comp)
        blocks += ranking_blocks(comp.ranking)
    if document.excluded:
        blocks += [
            Heading(3, "Left out of the judge comparison"),
            Bullets(tuple(f"{e.group}: {e.reason}" for e in document.excluded)),
        ]
    return blocks
