"""`bedside-bench report`: logs in, summaries, comparison and human report out, in stages.

`compute` (logs -> records -> groups -> documents: `ReportDocuments`, nothing written),
`render` (the blocks of every section in `sections.SECTIONS`, then Markdown, HTML and the
terminal text) and `write` (the files, through `owned_output`) are separate functions;
`build_report` runs them in that order. The only module that writes files; every number it
writes comes from the pure modules. The report owns its output folder: it is written beside
it and swapped in whole (`owned_output`), so the folder holds this report or the previous
one, never a mix. Past 300 lines: the three stages, one function each, with the command's
options, result and error types beside them.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from bedside_bench.core import exit_codes
from bedside_bench.core.owned_output import OutputError, check_owned, replacing_folder, write_file
from bedside_bench.core.safe_text import UNSHOWABLE_IN_LINES, printable
from bedside_bench.core.small_files import SmallFileError, read_small_text, unique_keys
from bedside_bench.documents.comparison import Comparison
from bedside_bench.documents.estimate import read_estimates
from bedside_bench.documents.summary import RunSummary
from bedside_bench.logs.read import read_records
from bedside_bench.logs.records import LogRecord
from bedside_bench.report.comparison import (
    ComparisonRefused,
    compare,
    find_mismatches,
    ranked_verdicts,
)
from bedside_bench.report.cost_section import cost_lines
from bedside_bench.report.document import PLOT_FILE, Block, ReportContext, report_title
from bedside_bench.report.groups import RunGroup, group_labels, group_records, group_slugs
from bedside_bench.report.judges import (
    JUDGES_FILE,
    cross_judge,
    left_out_of_judge_sets,
    reference_groups,
)
from bedside_bench.report.plot import forest_png
from bedside_bench.report.render import shown_line, terminal_table, to_html, to_markdown
from bedside_bench.report.review_section import coverage_sentence
from bedside_bench.report.sections import report_blocks
from bedside_bench.report.standing import (
    Standing,
    rankable,
    renumbered,
    report_order,
    standing,
)
from bedside_bench.report.summary import BootstrapOptions, summarise
from bedside_bench.report.usage import Prices, check_prices
from bedside_bench.review.inputs import (
    LabelInputs,
    read_label_inputs,
    score_label_inputs,
)
from bedside_bench.review.inputs import split_labels_option as split_labels
from bedside_bench.review.logs import ReviewInputError

if TYPE_CHECKING:
    from bedside_bench.documents.estimate import EstimateDocument
    from bedside_bench.documents.judges import JudgesDocument
    from bedside_bench.documents.review import ReviewDocument

COMPARISON_FILE = "comparison.json"
REVIEW_FILE = "review.json"
MARKDOWN_FILE = "report.md"
HTML_FILE = "report.html"
SUMMARY_SUFFIX = ".summary.json"
REPORT_FILES = frozenset(
    {COMPARISON_FILE, JUDGES_FILE, PLOT_FILE, MARKDOWN_FILE, HTML_FILE, REVIEW_FILE}
)
EXIT_OK = exit_codes.OK
EXIT_REFUSED = exit_codes.REFUSED


class ReportError(RuntimeError):
    """A problem with the inputs (no logs, a bad prices file): message for the user."""


@dataclass(frozen=True)
class ReportOptions:
    log_paths: Sequence[str]
    out_dir: Path = Path("reports")
    bootstrap: BootstrapOptions = BootstrapOptions()
    force: bool = False
    prices_file: Path | None = None
    # reviewers' labels files (`bedside-bench review`): adds "Judge vs physicians"
    labels_files: Sequence[str] = ()


@dataclass
class ReportResult:
    summaries: list[RunSummary]
    labels: list[str]
    files: list[Path]
    comparison: Comparison | None
    refused: str | None
    table: str
    skipped: list[tuple[str, str]] = field(default_factory=list)
    standing: Standing | None = None  # which groups the headline ranks

    @property
    def exit_code(self) -> int:
        return EXIT_REFUSED if self.refused else EXIT_OK


def load_prices(path: Path) -> dict[str, dict[str, float]]:
    shown = printable(str(path), 300)
    try:
        text = read_small_text(path)
    except SmallFileError as ex:  # a FIFO would block the command; a huge file fill memory
        raise ReportError(f"cannot use prices file {shown}: it {ex}") from None
    try:
        return check_prices(json.loads(text, object_pairs_hook=unique_keys))
    except (json.JSONDecodeError, ValueError, RecursionError) as ex:  # nested too deep
        raise ReportError(f"cannot use prices file {shown}: {printable(str(ex), 500)}") from ex


def json_bytes(document: Mapping[str, object]) -> bytes:
    """The document as UTF-8 JSON. The values a log gave (a model or judge name, a note) are
    kept exactly, but the characters no file should hold raw are written as JSON escapes
    (`\\u001b`, `\\u202e`; `json.dumps` leaves DEL, C1, bidi controls and lone surrogates raw
    outside ASCII, and a lone surrogate would make the encoding fail): what is shown of the
    file holds none, and what a JSON reader reads back is the same value."""
    text = json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False)
    # outside strings json.dumps writes only ASCII, and inside them it escapes every C0
    # control: each character found here is in a string, where its escape means the same
    text = UNSHOWABLE_IN_LINES.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return (text + "\n").encode("utf-8")


def report_file(name: str) -> bool:
    """A file name the report writes: what its folder may hold (it owns that folder)."""
    return name.endswith(SUMMARY_SUFFIX) or name in REPORT_FILES


@dataclass(frozen=True)
class Analysis:
    """The models' side of the report: groups and their labels, summary file names and
    summaries, the comparison (or why it was refused) and the ranking."""

    groups: list[RunGroup]
    labels: list[str]
    files: list[str]
    summaries: list[RunSummary]
    comparison: Comparison | None
    refused: str | None
    standing: Standing


def analyse(
    records: Sequence[LogRecord],
    bootstrap: BootstrapOptions,
    prices: Prices | None = None,
    skipped: Sequence[tuple[str, str]] = (),
    force: bool = False,
) -> Analysis:
    """Group the records, summarise each group, rank, and compare like with like.

    The comparison takes the reference judge's groups; of those, the full runs when there are
    any (a smoke or partial run is never compared with a full run), else all of them, whose
    verdicts are then withheld; `force` compares every group. Only full runs are ranked, and
    they get a verdict per pair (`comparison.verdicts`).

    Everything comes out in the report's order (`standing.report_order`: the ranked best
    first, then the rest as the report lists them): groups, labels, summaries, the
    comparison's models and pairs. So every table lists models in that order and every
    difference is the earlier minus the later, computed once in that orientation."""
    groups = group_records(records)
    labels = group_labels(groups)
    files = [f"{s}.summary.json" for s in group_slugs(groups)]
    summaries = [summarise(g, bootstrap, prices, skipped) for g in groups]

    # groups that differ only in the judge: the reference judge's (the rest is in judges.json)
    pool = list(range(len(groups))) if force else reference_groups(groups)
    full = [i for i in pool if rankable(summaries[i])]
    picked = pool if force else (full or pool)
    refused: str | None = None
    if len(picked) > 1 and not force:
        mismatches = find_mismatches([groups[i] for i in picked], [labels[i] for i in picked])
        refused = str(ComparisonRefused(mismatches)) if mismatches else None
    left_out = {i: r for i, r in left_out_of_judge_sets(groups).items() if i not in pool}
    ranking = standing(summaries, labels, pool, refused is not None and bool(full), left_out)

    order = report_order(ranking)
    groups = [groups[i] for i in order]
    labels = [labels[i] for i in order]
    files = [files[i] for i in order]
    summaries = [summaries[i] for i in order]
    place = {old: new for new, old in enumerate(order)}
    ranking = renumbered(ranking, order)
    picked = sorted(place[i] for i in picked)

    comparison: Comparison | None = None
    if len(picked) > 1 and refused is None:
        comparison = compare(
            [groups[i] for i in picked],
            [labels[i] for i in picked],
            [summaries[i] for i in picked],
            [files[i] for i in picked],
            bootstrap,
            force,
        )
        verdicts = ranked_verdicts(comparison, [labels[i] for i in ranking.ranked])
        comparison = comparison.model_copy(update={"verdicts": verdicts})
    return Analysis(groups, labels, files, summaries, comparison, refused, ranking)


def split_labels_option(paths: Sequence[str]) -> tuple[list[str], list[str]]:
    """`--labels`' paths as (labels files, log paths typed after them): `review.inputs`."""
    try:
        labels, logs = split_labels(paths)
    except ReviewInputError as ex:
        raise ReportError(f"--labels: {ex}") from ex
    if paths and not labels:
        named = ", ".join(printable(p, 200) for p in paths)
        raise ReportError(
            f"--labels: no labels file given: {named} is a log folder or log, not the labels "
            "file the review page downloads"
        )
    return labels, logs


def read_review_labels(options: ReportOptions) -> LabelInputs | None:
    """With `--labels`: the reviewers' labels, read and checked before any log is, so a bad
    labels file fails the command at once rather than after the logs were read."""
    if not options.labels_files:
        return None
    try:
        return read_label_inputs(options.labels_files)
    except ReviewInputError as ex:
        raise ReportError(f"--labels: {ex}") from ex


def review_document(options: ReportOptions, labels: LabelInputs | None) -> ReviewDocument | None:
    """With `--labels`: each judge against the reviewers' labels (`bedside-bench review`)."""
    if labels is None:
        return None
    try:
        return score_label_inputs(
            labels, options.log_paths, options.bootstrap.resamples, options.bootstrap.seed
        )
    except ReviewInputError as ex:
        raise ReportError(f"--labels: {ex}") from ex


@dataclass(frozen=True)
class ReportDocuments:
    """Every document the report computed from the logs, before anything is rendered or
    written: the analysis (groups, summaries, comparison, ranking), the judge comparison, the
    review against physicians' labels, the estimate kept in the log directory, the plot."""

    analysis: Analysis
    judges: JudgesDocument | None
    review: ReviewDocument | None
    estimates: list[EstimateDocument]
    png: bytes | None
    skipped: list[tuple[str, str]]
    prices: Prices | None

    def context(self) -> ReportContext:
        """What every section reads."""
        a = self.analysis
        return ReportContext(
            summaries=a.summaries,
            labels=a.labels,
            files=a.files,
            comparison=a.comparison,
            refused=a.refused,
            png=self.png,
            skipped=self.skipped,
            groups=a.groups,
            standing=a.standing,
            judges=self.judges,
            review=self.review,
            estimates=self.estimates,
            prices=self.prices,
        )


def compute(options: ReportOptions, err: TextIO) -> ReportDocuments:
    """Logs -> records -> groups -> documents. Raises ReportError on unusable inputs."""
    prices = load_prices(options.prices_file) if options.prices_file else None
    labels = read_review_labels(options)
    read = read_records(options.log_paths, progress_stream=err)
    # a log's location and what it says: each one line, shown as it may be
    for location, reason in read.skipped:
        print(f"report: skipped {shown_line(location)}: {shown_line(reason)}", file=err)
    for line in read.refused_values():
        print(
            f"report: failed {shown_line(line)} (the case counts as failed; `inspect score` "
            "on the log re-scores it with honest values)",
            file=err,
        )
    if not read.records:
        raise ReportError(f"no BedsideBench logs in {', '.join(options.log_paths)}")

    analysis = analyse(read.records, options.bootstrap, prices, read.skipped, options.force)
    review = review_document(options, labels)
    if review is not None:
        note = f"physician review: {coverage_sentence(review)}"
        analysis = dataclasses.replace(
            analysis, summaries=[s.with_note(note) for s in analysis.summaries]
        )
    # every estimate kept, oldest first: each run is set beside the one made before it
    estimates = sorted(
        (e for p in options.log_paths for e in read_estimates(p)), key=lambda e: e.created_at
    )
    return ReportDocuments(
        analysis=analysis,
        judges=cross_judge(analysis.groups, options.bootstrap),
        review=review,
        estimates=estimates,
        png=forest_png(analysis.summaries, analysis.labels),
        skipped=read.skipped,
        prices=prices,
    )


@dataclass(frozen=True)
class Rendered:
    """The report in words: Markdown, HTML and what the terminal shows."""

    markdown: str
    html: str
    table: str  # the terminal table (`render.terminal_table`)
    lines: tuple[str, ...]  # the terminal's lines after the table: cost, incomplete groups


def render(documents: ReportDocuments) -> Rendered:
    """Every section's blocks, rendered as Markdown and HTML, and the terminal text."""
    context = documents.context()
    blocks: list[Block] = report_blocks(context)
    a = documents.analysis
    lines = list(cost_lines(a.summaries, a.labels))
    for label, summary in zip(a.labels, a.summaries, strict=True):
        if not summary.complete:
            lines.append(
                f"{label}: INCOMPLETE ({summary.cases_failed} failed, missing: "
                f"{', '.join(summary.missing_benchmarks) or 'none'}; "
                f"{summary.scope.description})"
            )
    return Rendered(
        markdown=to_markdown(blocks),
        html=to_html(blocks, title=report_title(a.summaries)),
        table=terminal_table(a.summaries, a.labels, documents.skipped, context),
        lines=tuple(shown_line(line) for line in lines),  # they name models from logs
    )


def report_outputs(documents: ReportDocuments, rendered: Rendered) -> dict[str, bytes]:
    """Every file of the report by name, in memory (pure)."""
    a = documents.analysis
    outputs: dict[str, bytes] = {
        name: json_bytes(s.as_json()) for name, s in zip(a.files, a.summaries, strict=True)
    }
    for name, document in (
        (COMPARISON_FILE, a.comparison),
        (JUDGES_FILE, documents.judges),
        (REVIEW_FILE, documents.review),
    ):
        if document is not None:
            outputs[name] = json_bytes(document.model_dump(mode="json"))
    if documents.png is not None:
        outputs[PLOT_FILE] = documents.png
    outputs[MARKDOWN_FILE] = rendered.markdown.encode("utf-8")
    outputs[HTML_FILE] = rendered.html.encode("utf-8")
    return outputs


def write(out_dir: Path, outputs: Mapping[str, bytes]) -> list[Path]:
    """Every file at once, then one swap: the folder holds this report or the last."""
    try:
        with replacing_folder(out_dir, "report", report_file) as stage:
            for name, data in outputs.items():
                write_file(stage / name, data)
    except OutputError as ex:
        raise ReportError(str(ex)) from None
    return [out_dir / name for name in outputs]


def build_report(
    options: ReportOptions, out: TextIO | None = None, err: TextIO | None = None
) -> ReportResult:
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    try:  # before any log is read: a folder the report cannot own is refused at once
        check_owned(Path(os.path.abspath(options.out_dir)), "report", report_file)
    except OutputError as ex:
        raise ReportError(str(ex)) from None
    documents = compute(options, err)
    rendered = render(documents)
    written = write(options.out_dir, report_outputs(documents, rendered))

    print(rendered.table, file=out)
    for line in rendered.lines:
        print(line, file=out)
    a = documents.analysis
    if a.refused:
        print(f"report: {shown_line(a.refused)}", file=err)
    print(f"wrote {len(written)} files to {shown_line(str(options.out_dir))}", file=out)
    return ReportResult(
        a.summaries,
        a.labels,
        written,
        a.comparison,
        a.refused,
        rendered.table,
        documents.skipped,
        a.standing,
    )
