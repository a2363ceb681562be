"""Render report blocks as Markdown or self-contained HTML, and the terminal table.

The HTML has inline CSS and the plot as a `data:` URI, so it opens offline with no CDN.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Mapping, Sequence
from typing import Any

from bedside_bench.report.document import (
    Block,
    Bullets,
    Figure,
    Heading,
    Paragraph,
    Table,
    benchmark_names,
    num,
    score_cell,
)

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto;
       max-width: 72em; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 0.8em 0 1.4em; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td { font-variant-numeric: tabular-nums; }
img { max-width: 100%; }
code { background: #f3f3f3; padding: 0 0.2em; }
"""


# --------------------------------------------------------------------------------------------
# Markdown


def _md_cell(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split()) or " "


def _md_table(table: Table) -> str:
    lines = [
        "| " + " | ".join(_md_cell(h) for h in table.header) + " |",
        "|" + "---|" * len(table.header),
    ]
    lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in table.rows]
    return "\n".join(lines)


def to_markdown(blocks: Sequence[Block]) -> str:
    parts = []
    for block in blocks:
        if isinstance(block, Heading):
            parts.append("#" * block.level + " " + block.text)
        elif isinstance(block, Paragraph):
            parts.append(block.text)
        elif isinstance(block, Bullets):
            parts.append("\n".join(f"- {item}" for item in block.items))
        elif isinstance(block, Table):
            parts.append(_md_table(block))
        else:
            parts.append(f"![{block.alt}]({block.path})")
    return "\n\n".join(parts) + "\n"


# --------------------------------------------------------------------------------------------
# HTML


def _inline(text: str) -> str:
    """Escape, then show `backticked` spans as code (the only markup the blocks use)."""
    pieces = html.escape(text).split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(pieces))


def _html_table(table: Table) -> str:
    head = "".join(f"<th>{_inline(h)}</th>" for h in table.header)
    body = "".join(
        "<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in row) + "</tr>" for row in table.rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _html_figure(figure: Figure) -> str:
    data = base64.b64encode(figure.png or b"").decode("ascii")
    alt = html.escape(figure.alt, quote=True)
    return f'<figure><img alt="{alt}" src="data:image/png;base64,{data}"></figure>'


def to_html(blocks: Sequence[Block], title: str = "BedsideBench report") -> str:
    parts = []
    for block in blocks:
        if isinstance(block, Heading):
            parts.append(f"<h{block.level}>{_inline(block.text)}</h{block.level}>")
        elif isinstance(block, Paragraph):
            parts.append(f"<p>{_inline(block.text)}</p>")
        elif isinstance(block, Bullets):
            parts.append("<ul>" + "".join(f"<li>{_inline(i)}</li>" for i in block.items) + "</ul>")
        elif isinstance(block, Table):
            parts.append(_html_table(block))
        else:
            parts.append(_html_figure(block))
    body = "\n".join(parts)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(title)}</title>\n<style>{CSS}</style>\n</head>\n"
        f"<body>\n{body}\n</body>\n</html>\n"
    )


# --------------------------------------------------------------------------------------------
# terminal


def run_lines(summaries: Sequence[Mapping[str, Any]], labels: Sequence[str]) -> list[str]:
    """What the scores depend on besides the model: once if shared, else per group."""

    def describe(s: Mapping[str, Any]) -> str:
        passes = s["judge_passes_per_answer"]
        return (
            f"judge {s['judge_model']}, {s['protocol_version']}, dataset "
            f"{s['dataset_sha256'][:12]}, {passes} judge pass{'es' if passes > 1 else ''}"
        )

    described = [describe(s) for s in summaries]
    if len(set(described)) == 1:
        return [described[0]]
    return [f"{label}: {d}" for label, d in zip(labels, described, strict=True)]


def terminal_table(summaries: Sequence[Mapping[str, Any]], labels: Sequence[str]) -> str:
    """benchmark x model: mean [lo, hi] (n, failed), plus the overall row."""
    rows: list[list[str]] = [["benchmark", *labels]]
    for name in benchmark_names(summaries):
        rows.append([name, *(score_cell(s["benchmarks"].get(name)) for s in summaries)])
    rows.append(
        [
            "overall",
            *(
                f"{num(s['overall']['mean'])} [{s['overall']['ci95'][0]:.3f}, "
                f"{s['overall']['ci95'][1]:.3f}] "
                f"(n={s['overall']['n']}, failed={s['cases_failed']})"
                if s["overall"]
                else "n/a (benchmark missing)"
                for s in summaries
            ),
        ]
    )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip() for r in rows
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join([*run_lines(summaries, labels), "", *lines])
