"""The report's section on judge dependence, rendered from `judges.json` (pure functions)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bedside_bench.benchmarks import BENCHMARK_NAMES
from bedside_bench.report.document import Block, Bullets, Heading, Paragraph, Table, interval, num
from bedside_bench.report.judges import JUDGES_FILE


def _cell(entry: Mapping[str, Any] | None) -> str:
    if not entry or entry.get("mean") is None:
        return "n/a"
    return f"{num(entry['mean'])} {interval(entry['ci95'])} (n={entry['n']})"


def _effect_cell(entry: Mapping[str, Any] | None) -> str:
    if not entry or entry.get("b_minus_a") is None:
        return "n/a"
    mark = " *" if entry["excludes_zero"] else ""
    return f"{num(entry['b_minus_a'], signed=True)} {interval(entry['ci95'])}{mark}"


def _agree_cell(entry: Mapping[str, Any]) -> str:
    if not entry["n_items"]:
        return "n/a"
    share = entry.get("agreement", entry.get("unanimous"))
    cases = entry.get("n_cases")
    where = f"{entry['n_items']} items" + (f", {cases} cases" if cases is not None else "")
    return f"{num(share)} agree, kappa {num(entry['kappa'])} ({where})"


def coverage_line(label: str, coverage: Mapping[str, Any]) -> str:
    """What one agreement column covers; a shortfall is named, never left to the reader."""
    covered = (
        f"{label}: {coverage['items']} of {coverage['rubric_items']} rubric items of the "
        f"{coverage['cases']} cases every judge completed"
    )
    if coverage["complete"]:
        return covered + " (every item)"
    return covered + ". SHORTFALL: " + "; ".join(coverage["shortfall"])


def judges_section(document: Mapping[str, Any] | None) -> list[Block]:
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
    for comp in document["comparisons"]:
        judges = comp["judges"]
        for model in comp["models"]:
            present = [j for j in judges if j in model["judges"]]
            header = (
                "benchmark",
                *present,
                *(f"{e['b']} minus {e['a']}" for e in model["effects"]),
            )
            rows = []
            for name in [*BENCHMARK_NAMES, "overall"]:
                cells = [
                    _cell(
                        model["judges"][j]["overall"]
                        if name == "overall"
                        else model["judges"][j]["benchmarks"].get(name)
                    )
                    for j in present
                ]
                if name != "overall" and all(c == "n/a" for c in cells):
                    continue
                effects = [
                    _effect_cell(e["overall"] if name == "overall" else e["benchmarks"].get(name))
                    for e in model["effects"]
                ]
                rows.append((name, *cells, *effects))
            blocks += [
                Heading(3, f"{model['answer_model']}: scores by judge"),
                Table(header, tuple(rows)),
            ]
        agreement = comp["agreement"]
        entries = [(f"{p['a']} vs {p['b']}", p) for p in agreement["pairs"]]
        if agreement["fleiss"]:
            entries.append(("all judges (Fleiss)", agreement["fleiss"]))
        keys = [
            "overall",
            *entries[0][1]["benchmarks"],
            *(f"items {p}" for p in entries[0][1]["points"]),
        ]
        rows = []
        for key in keys:
            cells = []
            for _, e in entries:
                if key == "overall":
                    entry = e["overall"]
                elif key.startswith("items "):
                    entry = e["points"].get(key[6:], {"n_items": 0})
                else:
                    entry = e["benchmarks"].get(key, {"n_items": 0})
                cells.append(_agree_cell(entry))
            rows.append((key, *cells))
        blocks += [
            Heading(3, "Item agreement between judges"),
            Table(("items", *(label for label, _ in entries)), tuple(rows)),
            Bullets(tuple(coverage_line(label, e["coverage"]) for label, e in entries)),
        ]
        ranking = comp["ranking"]
        if ranking is not None:
            lines = [f"{j}: {' > '.join(order)}" for j, order in ranking["order"].items()]
            for p in ranking["pairs"]:
                swapped = "; ".join(f"{x} / {y}" for x, y in p["swapped"]) or "none"
                lines.append(
                    f"{p['a']} vs {p['b']}: Kendall's tau {num(p['kendall_tau'])}, "
                    f"swapped pairs: {swapped}"
                )
            blocks += [
                Heading(3, "Ranking of answer models by judge"),
                Paragraph(
                    f"Ranked by {ranking['basis']}. The ranking "
                    + (
                        "CHANGES with the judge."
                        if ranking["changes"]
                        else "is the same under every judge."
                    )
                ),
                Bullets(tuple(lines)),
            ]
    if document["excluded"]:
        blocks += [
            Heading(3, "Left out of the judge comparison"),
            Bullets(tuple(f"{e['group']}: {e['reason']}" for e in document["excluded"])),
        ]
    return blocks
