"""`bedside-bench review export | score`: the physician review loop's two commands.

Each owns its output folder as the report does (`core/owned_output.py`): every file is made in
memory, written into a folder beside the target and swapped in whole, so a failure leaves the
previous page or scores as they were, never a new `review.json` beside an old `review.md`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import unicodedata
from collections.abc import Callable, Mapping
from pathlib import Path

from bedside_bench import report, review
from bedside_bench.core.arguments import Subcommands, non_negative_int, output_path, positive_int
from bedside_bench.core.owned_output import OutputError, check_owned, replacing_folder, write_file
from bedside_bench.core.protocol import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED
from bedside_bench.core.ranges import RESAMPLES, ranged
from bedside_bench.core.safe_text import encodable, printable
from bedside_bench.review.select import DEFAULT_ITEMS, DEFAULT_PER_ANSWER, DEFAULT_SEED

EXIT_OK = 0
EXIT_ERROR = 1
PAGE_FILE = "review.html"
ITEMS_FILE = "review_items.json"
SCORE_FILE = "review.json"
SCORE_FILES = (SCORE_FILE, "review.md", "review_section.html")
EXPORT_FILES = (PAGE_FILE, ITEMS_FILE)
# the bootstrap holds resamples x answers draws in memory; ten times the protocol's 10,000
MESSAGE_CHARS = 2_000


def run_export(args: argparse.Namespace) -> int:

    out = owned(args.output, "review page", EXPORT_FILES)
    source = review.read_source(args.log_paths)
    for location, reason in source.skipped:
        print(
            f"{review.PROG}: skipped {printable(location, 300)}: {printable(reason, 500)}",
            file=sys.stderr,
        )
    selection = review.select_items(source, args.items, args.seed, args.per_answer)
    data = review.page_data(source, selection.items, args.title)
    manifest = {
        "review_id": data.review_id,
        "seed": args.seed,
        "items_requested": args.items,
        "per_answer_requested": args.per_answer,
        "disagreements": selection.disagreements,
        "items": [
            {"answer_model": k[0], "case_id": k[1], "epoch": k[2], "item_id": k[3]}
            for k in selection.items
        ],
    }
    write_owned(
        out,
        "review page",
        EXPORT_FILES,
        {PAGE_FILE: review.render_page(data), ITEMS_FILE: json.dumps(manifest, indent=2) + "\n"},
    )
    print(
        f"{len(selection.items)} items of {selection.answers} "
        f"{'answer' if selection.answers == 1 else 'answers'} "
        f"({selection.per_answer:.1f} items per answer; {selection.disagreements} where judges "
        f"or passes disagree) -> {printable(str(out / PAGE_FILE), 300)}"
    )
    return EXIT_OK


def run_score(args: argparse.Namespace) -> int:

    out = owned(args.output, "review score", SCORE_FILES)
    document = review.score_inputs(args.inputs, args.resamples, args.seed)
    blocks = report.review_blocks(document)
    write_owned(
        out,
        "review score",
        SCORE_FILES,
        {
            SCORE_FILE: json.dumps(document.model_dump(mode="json"), indent=2, allow_nan=False)
            + "\n",
            "review.md": report.to_markdown(blocks),
            "review_section.html": report.to_html(blocks, title="Judge vs physicians"),
        },
    )
    for judge, entry in document.judges.items():
        acc = "n/a" if entry.accuracy is None else f"{entry.accuracy:.3f}"
        print(
            f"{printable(judge, 200)}: accuracy {acc} on {counted(entry.n, 'item')} "
            f"({counted(entry.cases, 'answer')})"
        )
    print(f"-> {printable(str(out / SCORE_FILE), 300)}")
    return EXIT_OK


def owned(output: str, what: str, names: tuple[str, ...]) -> Path:
    """The output folder, checked before any log is read: missing, empty, or holding only
    what this command writes (it replaces the folder whole)."""

    out = Path(os.path.abspath(output))
    check_owned(out, what, names.__contains__)
    return out


def write_owned(out: Path, what: str, names: tuple[str, ...], texts: Mapping[str, str]) -> None:
    """Every file at once, then one swap. A text that cannot be encoded (a lone surrogate a
    log held) is written with that character escaped rather than losing the output."""

    data = {name: encodable(text).encode("utf-8") for name, text in texts.items()}
    with replacing_folder(out, what, names.__contains__) as stage:
        for name, content in data.items():
            write_file(stage / name, content)


def counted(n: int, noun: str) -> str:
    """`n` and its noun, singular for one ("1 answer", "2 answers")."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def page_title(text: str) -> str:
    """A title the page can show as typed: text, with no control or invisible character
    (a byte the locale cannot decode arrives as a lone surrogate)."""
    for char in text:
        if unicodedata.category(char) in {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}:
            raise argparse.ArgumentTypeError(
                f"holds {ascii(char)[1:-1]}, a control, invisible or undecodable character; "
                "give a title of plain text"
            )
    return text


resamples = ranged(RESAMPLES)


def configure_export(parser: argparse.ArgumentParser) -> None:
    """Pick rubric items for physicians to review from scored logs, and write a self-contained
    review page (review.html) that keeps its marks in the browser and downloads the
    reviewer's labels."""

    parser.add_argument("log_paths", nargs="+", metavar="LOG_PATH")
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        type=output_path,
        metavar="DIR",
        help="the folder for review.html and review_items.json (missing, empty or an earlier "
        "export: it is replaced whole)",
    )
    parser.add_argument(
        "--items",
        type=positive_int,
        default=DEFAULT_ITEMS,
        help=f"items to review (default {DEFAULT_ITEMS}): answers where judges or passes "
        "disagree first, then a sample of answers stratified by benchmark",
    )
    parser.add_argument(
        "--per-answer",
        type=positive_int,
        default=DEFAULT_PER_ANSWER,
        help=f"items to review per answer read (default {DEFAULT_PER_ANSWER}; an answer "
        "with more disagreements gives all of them)",
    )
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--title", type=page_title, default="BedsideBench physician review")
    parser.set_defaults(handler=guarded(run_export))


def configure_score(parser: argparse.ArgumentParser) -> None:
    """Each judge's accuracy against reviewers' labels (review.json, review.md)."""

    parser.add_argument(
        "inputs",
        nargs="+",
        metavar="LABELS_OR_LOG",
        help="labels files from the review page (one or more per reviewer) and the logs they "
        "were exported from; with the export's review_items.json, labels of items that page "
        "never showed are refused",
    )
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        type=output_path,
        metavar="DIR",
        help="the folder for review.json, review.md and review_section.html (missing, empty "
        "or an earlier score: it is replaced whole)",
    )
    parser.add_argument("--resamples", type=resamples, default=BOOTSTRAP_RESAMPLES)
    parser.add_argument("--seed", type=non_negative_int, default=BOOTSTRAP_SEED)
    parser.set_defaults(handler=guarded(run_score))


def guarded(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """A refusal or an unwritable output ends the command in one printable line."""

    def run(args: argparse.Namespace) -> int:

        try:
            return handler(args)
        except (review.ReviewInputError, OutputError, OSError) as ex:
            print(f"{review.PROG}: error: {printable(str(ex), MESSAGE_CHARS)}", file=sys.stderr)
            return EXIT_ERROR

    return run


def register(subcommands: Subcommands) -> None:
    parser = subcommands.add_parser(
        "review",
        help="physician review of the judge's decisions (export a page, score the labels)",
        description="Put judge decisions in front of clinicians and measure each judge "
        "against their labels.",
    )
    commands = parser.add_subparsers(dest="review_command", metavar="COMMAND", required=True)
    export = commands.add_parser(
        "export", help="write review.html", description=configure_export.__doc__
    )
    configure_export(export)
    score = commands.add_parser(
        "score", help="judge accuracy against labels", description=configure_score.__doc__
    )
    configure_score(score)
