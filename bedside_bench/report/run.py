"""`bedside-bench report`: logs in, summaries, comparison and human report out.

The only module that writes files; every number it writes comes from the pure modules. The
report owns its output folder: it is written beside it and swapped in whole (`owned_output`),
so the folder holds this report or the previous one, never a mix.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from bedside_bench.owned_output import OutputError, check_owned, replacing_folder, write_file
from bedside_bench.report.comparison import ComparisonRefused, compare
from bedside_bench.report.document import (
    PLOT_FILE,
    SECTIONS,
    ReportContext,
    differences_section,
    report_blocks,
)
from bedside_bench.report.groups import group_labels, group_records, group_slugs
from bedside_bench.report.judges import JUDGES_FILE, cross_judge, reference_groups
from bedside_bench.report.judges_section import judges_section
from bedside_bench.report.logs import read_records
from bedside_bench.report.plot import forest_png
from bedside_bench.report.render import terminal_table, to_html, to_markdown
from bedside_bench.report.summary import BootstrapOptions, summarise
from bedside_bench.report.usage import check_prices
from bedside_bench.schema_files import validator

SUMMARY_SCHEMA = "summary.schema.json"
COMPARISON_SCHEMA = "comparison.schema.json"
COMPARISON_FILE = "comparison.json"
MARKDOWN_FILE = "report.md"
HTML_FILE = "report.html"
SUMMARY_SUFFIX = ".summary.json"
REPORT_FILES = frozenset({COMPARISON_FILE, JUDGES_FILE, PLOT_FILE, MARKDOWN_FILE, HTML_FILE})
EXIT_OK = 0
EXIT_REFUSED = 2


class ReportError(RuntimeError):
    """A problem with the inputs (no logs, a bad prices file): message for the user."""


@dataclass(frozen=True)
class ReportOptions:
    log_paths: Sequence[str]
    out_dir: Path = Path("reports")
    bootstrap: BootstrapOptions = BootstrapOptions()
    force: bool = False
    prices_file: Path | None = None


@dataclass
class ReportResult:
    summaries: list[dict[str, Any]]
    labels: list[str]
    files: list[Path]
    comparison: dict[str, Any] | None
    refused: str | None
    table: str
    skipped: list[tuple[str, str]] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return EXIT_REFUSED if self.refused else EXIT_OK


def load_prices(path: Path) -> dict[str, dict[str, float]]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return check_prices(raw)
    except (OSError, json.JSONDecodeError, ValueError) as ex:
        raise ReportError(f"cannot use prices file {path}: {ex}") from ex


def validate(document: Mapping[str, Any], schema: str) -> None:
    """A failed validation is a bug in this package, never in the logs: fail loudly."""
    errors = sorted(validator(schema).iter_errors(document), key=lambda e: list(e.path))
    if errors:
        where = "/".join(str(p) for p in errors[0].path)
        raise AssertionError(f"{schema} violated at {where or '<root>'}: {errors[0].message}")


def json_bytes(document: Mapping[str, Any]) -> bytes:
    text = json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False)
    return (text + "\n").encode("utf-8")


def write_json(path: Path, document: Mapping[str, Any]) -> Path:
    return write_file(path, json_bytes(document))


def report_file(name: str) -> bool:
    """A file name the report writes: what its folder may hold (it owns that folder)."""
    return name.endswith(SUMMARY_SUFFIX) or name in REPORT_FILES


def build_report(
    options: ReportOptions, out: TextIO | None = None, err: TextIO | None = None
) -> ReportResult:
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    prices = load_prices(options.prices_file) if options.prices_file else None
    try:  # before any log is read: a folder the report cannot own is refused at once
        check_owned(Path(os.path.abspath(options.out_dir)), "report", report_file)
    except OutputError as ex:
        raise ReportError(str(ex)) from None
    read = read_records(options.log_paths, progress_stream=err)
    for location, reason in read.skipped:
        print(f"report: skipped {location}: {reason}", file=err)
    if not read.records:
        raise ReportError(f"no BedsideBench logs in {', '.join(options.log_paths)}")

    groups = group_records(read.records)
    labels = group_labels(groups)
    files = [f"{s}{SUMMARY_SUFFIX}" for s in group_slugs(groups)]
    summaries = [summarise(g, options.bootstrap, prices, read.skipped) for g in groups]
    for summary in summaries:
        validate(summary, SUMMARY_SCHEMA)

    comparison: dict[str, Any] | None = None
    refused: str | None = None
    # groups that differ only in the judge: the reference judge's (the rest is in judges.json)
    picked = list(range(len(groups))) if options.force else reference_groups(groups)
    if len(picked) > 1:
        try:
            comparison = compare(
                [groups[i] for i in picked],
                [labels[i] for i in picked],
                [summaries[i] for i in picked],
                [files[i] for i in picked],
                options.bootstrap,
                options.force,
            )
            validate(comparison, COMPARISON_SCHEMA)
        except ComparisonRefused as ex:
            refused = str(ex)
    png = forest_png(summaries, labels)
    judges = cross_judge(groups, options.bootstrap)

    context = ReportContext(
        summaries=summaries,
        labels=labels,
        files=files,
        comparison=comparison,
        refused=refused,
        png=png,
        skipped=read.skipped,
        groups=groups,
    )
    judge_blocks = judges_section(judges)
    sections = list(SECTIONS)
    # how much the scores depend on the judge, right after the differences between models
    sections.insert(sections.index(differences_section) + 1, lambda _: judge_blocks)
    blocks = report_blocks(context, sections)

    outputs: dict[str, bytes] = {
        name: json_bytes(s) for name, s in zip(files, summaries, strict=True)
    }
    if comparison is not None:
        outputs[COMPARISON_FILE] = json_bytes(comparison)
    if judges is not None:
        outputs[JUDGES_FILE] = json_bytes(judges)
    if png is not None:
        outputs[PLOT_FILE] = png
    outputs[MARKDOWN_FILE] = to_markdown(blocks).encode("utf-8")
    outputs[HTML_FILE] = to_html(blocks).encode("utf-8")
    out_dir = options.out_dir
    try:
        with replacing_folder(out_dir, "report", report_file) as stage:
            for name, data in outputs.items():
                write_file(stage / name, data)
    except OutputError as ex:
        raise ReportError(str(ex)) from None
    written = [out_dir / name for name in outputs]

    table = terminal_table(summaries, labels, read.skipped)
    print(table, file=out)
    for label, summary in zip(labels, summaries, strict=True):
        if not summary["complete"]:
            print(
                f"{label}: INCOMPLETE ({summary['cases_failed']} failed, missing: "
                f"{', '.join(summary['missing_benchmarks']) or 'none'}; "
                f"{summary['scope']['description']})",
                file=out,
            )
    if refused:
        print(f"report: {refused}", file=err)
    print(f"wrote {len(written)} files to {out_dir}", file=out)
    return ReportResult(summaries, labels, written, comparison, refused, table, read.skipped)
