"""Render report blocks as Markdown or self-contained HTML, and the terminal table.

The HTML has inline CSS and the plot as a `data:` URI, so it opens offline with no CDN.

The blocks quote what logs say (model and judge names, notes, errors), and a log can be
written by anyone: every text is shown through `printable_lines` before it is escaped for its
format, so no control character (a terminal escape, a forged line), bidi override or lone
surrogate reaches the terminal, the Markdown or the page; each is written as its escape.
Past 300 lines: the three renderers stay in one module so that they show text the same way.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Sequence

from bedside_bench.core.safe_text import printable_lines
from bedside_bench.documents.summary import BenchmarkSummary, OverallScore, RunSummary
from bedside_bench.report.document import (
    HEADLINE_HEADER,
    JOINT_KEYS,
    NO_FULL_RUN,
    UNRANKED_HEADER,
    Block,
    Bullets,
    Figure,
    Heading,
    Paragraph,
    ReportContext,
    Table,
    benchmark_names,
    entries,
    headline_rows,
    in_report_order,
    interval,
    joint_cell,
    num,
    release_text,
    score_cell,
    unranked_rows,
    verdict_lines,
    warnings_section,
)

# long digests, ids and locations wrap inside their cell rather than widen the page; a table
# with many models scrolls inside its own box, never the page
CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto;
       max-width: 84em; padding: 0 1em; color: #222; overflow-wrap: break-word; }
.table { max-width: 100%; overflow-x: auto; margin: 0.8em 0 1.4em; }
table { border-collapse: collapse; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: left; vertical-align: top;
         overflow-wrap: break-word; }
.anywhere td { overflow-wrap: anywhere; min-width: 6em; }
th { background: #f3f3f3; overflow-wrap: anywhere; }
td { font-variant-numeric: tabular-nums; }
ul.warnings li { color: #8a1c00; font-weight: 600; }
img { max-width: 100%; height: auto; }
code { background: #f3f3f3; padding: 0 0.2em; overflow-wrap: anywhere; }
"""


# --------------------------------------------------------------------------------------------
# Markdown


# characters that are Markdown (or raw HTML) anywhere in a line; backslash-escaping ASCII
# punctuation is always literal in CommonMark. A bracket makes a link only as `](`, `][` or a
# `]:` definition (and an image as `![`), so only those are escaped: `[0.470, 0.553]` stays
# readable. An underscore inside a word is never emphasis, so `judge_model` stays as it is.
_MD_SPECIAL = re.compile(r"([\\`*<>&|~]|\](?=[(\[:])|!(?=\[)|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")
# block markers at the start of a paragraph or list item: heading, quote, list, rule
_MD_LINE_START = re.compile(r"^(\s*)([#+\-=]|\d{1,9}(?=[.)](?:\s|$)))")


def md_text(text: str) -> str:
    """Text as Markdown that shows exactly that text: `backticked` spans become code spans
    (their content is literal there), everything else has every Markdown and HTML character
    escaped, so a model name or a note from a log can never become markup or a link."""
    pieces = printable_lines(" ".join(text.split())).split("`")
    if len(pieces) % 2 == 0:  # an unpaired backtick is text, not the start of a span
        pieces[-2:] = [pieces[-2] + "`" + pieces[-1]]
    out = []
    for i, piece in enumerate(pieces):
        if i % 2:
            code = piece.strip() and "|" not in piece  # a pipe would split a table cell
            out.append(f"`{piece}`" if code else _MD_SPECIAL.sub(r"\\\1", f"`{piece}`"))
        else:
            out.append(_MD_SPECIAL.sub(r"\\\1", piece))
    text = "".join(out)
    match = _MD_LINE_START.match(text)
    if match is None:
        return text
    if match.group(2)[0].isdigit():  # "1. x" is a list: escape the dot, "1\\. x"
        end = match.end()
        return f"{text[:end]}\\{text[end:]}"
    return f"{match.group(1)}\\{text[len(match.group(1)) :]}"


def _md_cell(text: str) -> str:
    return md_text(text) or " "


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
            parts.append("#" * block.level + " " + md_text(block.text))
        elif isinstance(block, Paragraph):
            parts.append(md_text(block.text))
        elif isinstance(block, Bullets):
            parts.append("\n".join(f"- {md_text(item)}" for item in block.items))
        elif isinstance(block, Table):
            parts.append(_md_table(block))
        else:
            parts.append(f"![{md_text(block.alt)}]({printable_lines(block.path)})")
    return "\n\n".join(parts) + "\n"


# --------------------------------------------------------------------------------------------
# HTML


def _inline(text: str) -> str:
    """Escape, then show `backticked` spans as code (the only markup the blocks use)."""
    pieces = html.escape(printable_lines(text)).split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(pieces))


def _html_table(table: Table) -> str:
    head = "".join(f"<th>{_inline(h)}</th>" for h in table.header)
    body = "".join(
        "<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in row) + "</tr>" for row in table.rows
    )
    kind = "table anywhere" if table.long_values else "table"
    return (
        f'<div class="{kind}"><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
    )


def _html_figure(figure: Figure) -> str:
    data = base64.b64encode(figure.png or b"").decode("ascii")
    alt = html.escape(printable_lines(figure.alt), quote=True)
    return f'<figure><img alt="{alt}" src="data:image/png;base64,{data}"></figure>'


def to_html(blocks: Sequence[Block], title: str = "BedsideBench report") -> str:
    parts = []
    for block in blocks:
        if isinstance(block, Heading):
            parts.append(f"<h{block.level}>{_inline(block.text)}</h{block.level}>")
        elif isinstance(block, Paragraph):
            parts.append(f"<p>{_inline(block.text)}</p>")
        elif isinstance(block, Bullets):
            opening = '<ul class="warnings">' if block.warning else "<ul>"
            items = "".join(f"<li>{_inline(i)}</li>" for i in block.items)
            parts.append(f"{opening}{items}</ul>")
        elif isinstance(block, Table):
            parts.append(_html_table(block))
        else:
            parts.append(_html_figure(block))
    body = "\n".join(parts)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(printable_lines(title))}</title>\n<style>{CSS}</style>\n</head>\n"
        f"<body>\n{body}\n</body>\n</html>\n"
    )


# --------------------------------------------------------------------------------------------
# terminal


def run_lines(summaries: Sequence[RunSummary], labels: Sequence[str]) -> list[str]:
    """What the scores depend on besides the model: once if shared, else per group."""

    def describe(s: RunSummary) -> str:
        passes = s.judge_passes_per_answer
        epochs = s.epochs
        return (
            f"judge {s.judge_model}, {s.protocol_version}, dataset "
            f"{s.dataset_sha256[:12]}, {passes} judge pass{'es' if passes > 1 else ''}, "
            f"{epochs} epoch{'s' if epochs > 1 else ''}, release {release_text(s)}"
        )

    described = [describe(s) for s in summaries]
    if len(set(described)) == 1:
        return [described[0]]
    return [f"{label}: {d}" for label, d in zip(labels, described, strict=True)]


def shown_line(text: str) -> str:
    """`text` as one terminal line: `printable_lines`, and a line break written `\\n` (a
    name or note from a log must not start a line of its own)."""
    return printable_lines(text).replace("\n", "\\n")


def _columns(rows: Sequence[Sequence[str]]) -> list[str]:
    """Left-aligned columns, the first row as header with a rule under it; each cell as it
    is shown (`shown_line`), so the widths are the shown ones."""
    rows = [[shown_line(cell) for cell in row] for row in rows]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip() for r in rows
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return lines


def terminal_table(
    summaries: Sequence[RunSummary],
    labels: Sequence[str],
    skipped: Sequence[tuple[str, str]] = (),
    context: ReportContext | None = None,
) -> str:
    """What the run depends on, the warnings in words, the ranked headline (overall score,
    cases and scope per full run), the verdict on each pair of ranked models, the groups not
    ranked (smoke, partial), then benchmark x model: mean [lo, hi] (n, failed).

    `context` (the report's, with its comparison and standing) gives the verdict; without it
    the table is built from the summaries alone. The headline's scope is the short cell; the
    warnings above it give the whole sentence."""
    if context is None:
        context = ReportContext(summaries=summaries, labels=labels, files=(), skipped=skipped)
    summaries, labels = in_report_order(context)
    blocks = warnings_section(context)
    warnings = [item for b in blocks if isinstance(b, Bullets) for item in b.items]
    ranked_rows = headline_rows(context)
    headline = _columns([HEADLINE_HEADER, *ranked_rows]) if ranked_rows else [NO_FULL_RUN]
    verdict = ["verdict (higher-ranked minus lower-ranked, overall, paired 95% CI):"]
    verdict += [f"  {shown_line(line)}" for line in verdict_lines(context)]
    others = unranked_rows(context)
    unranked = (
        ["", "not ranked (smoke and partial runs are never ranked with full runs):"]
        + _columns([UNRANKED_HEADER, *others])
        if others
        else []
    )
    rows: list[list[str]] = [["benchmark", *labels]]
    for name in benchmark_names(summaries):
        rows.append([name, *(score_cell(s.benchmarks.get(name)) for s in summaries)])
    rows.append(
        [
            "overall",
            *(
                f"{num(s.overall.mean)} {interval(s.overall.ci95)} "
                f"(n={s.overall.n}, failed={s.cases_failed})"
                if s.overall
                else "n/a (benchmark missing)"
                for s in summaries
            ),
        ]
    )
    # names, notes and warnings quoted from logs: each one line, shown as it may be
    top = [shown_line(line) for line in run_lines(summaries, labels)]
    top += [f"! {shown_line(w)}" for w in warnings]
    return "\n".join(
        [
            *top,
            "",
            *headline,
            "",
            *verdict,
            *unranked,
            "",
            *_columns(rows),
            *joint_tables(summaries, labels),
        ]
    )


def joint_tables(summaries: Sequence[RunSummary], labels: Sequence[str]) -> list[str]:
    """Benchmark x model: the interval over cases and judge passes (or epochs), for the
    groups that have it, each with the share of its width resampling within cases adds."""
    lines: list[str] = []
    for key, what, none in JOINT_KEYS:
        if not any(key in e.model_fields_set for s in summaries for e in entries(s)):
            continue
        lines += [
            "",
            f"95% CI over cases and {what} (resampled within each case as well; the protocol's "
            "above resamples cases):",
        ]
        rows: list[list[str]] = [["benchmark", *labels]]
        for name in benchmark_names(summaries):
            found = [s.benchmarks.get(name) for s in summaries]
            rows.append([name, *(_joint(e, key, none) for e in found)])
        rows.append(["overall", *(_joint(s.overall, key, none) for s in summaries)])
        lines += _columns(rows)
    return lines


def _joint(entry: BenchmarkSummary | OverallScore | None, key: str, none: str) -> str:
    if entry is None:
        return "n/a"
    if key not in entry.model_fields_set:
        return none
    return joint_cell(entry.ci95, getattr(entry, key))
