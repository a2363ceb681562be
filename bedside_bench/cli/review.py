"""`bedside-bench review export | score`: the physician review loop's two commands."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from bedside_bench.core.arguments import Subcommands, positive_int
from bedside_bench.review.inputs import PROG, score_inputs

if TYPE_CHECKING:
    pass

EXIT_OK = 0
EXIT_ERROR = 1
PAGE_FILE = "review.html"
ITEMS_FILE = "review_items.json"
SCORE_FILE = "review.json"


def run_export(args: argparse.Namespace) -> int:
    from bedside_bench.review.logs import read_source
    from bedside_bench.review.page import page_data, render_page
    from bedside_bench.review.select import select_items

    source = read_source(args.log_paths)
    for location, reason in source.skipped:
        print(f"{PROG}: skipped {location}: {reason}", file=sys.stderr)
    selection = select_items(source, args.items, args.seed)
    data = page_data(source, selection.items, args.title)
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    write_text(out / PAGE_FILE, render_page(data))
    manifest = {
        "review_id": data.review_id,
        "seed": args.seed,
        "items_requested": args.items,
        "disagreements": selection.disagreements,
        "items": [
            {"answer_model": k[0], "case_id": k[1], "epoch": k[2], "item_id": k[3]}
            for k in selection.items
        ],
    }
    write_text(out / ITEMS_FILE, json.dumps(manifest, indent=2) + "\n")
    print(
        f"{len(selection.items)} items of {len(data.cases)} answers "
        f"({selection.disagreements} where judges or passes disagree) -> {out / PAGE_FILE}"
    )
    return EXIT_OK


def run_score(args: argparse.Namespace) -> int:
    from bedside_bench.report.render import to_html, to_markdown
    from bedside_bench.report.review_section import review_blocks

    document = score_inputs(args.inputs, args.resamples, args.seed)
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    written = document.model_dump(mode="json")
    write_text(out / SCORE_FILE, json.dumps(written, indent=2, allow_nan=False) + "\n")
    blocks = review_blocks(document)
    write_text(out / "review.md", to_markdown(blocks))
    write_text(out / "review_section.html", to_html(blocks, title="Judge vs physicians"))
    for judge, entry in document.judges.items():
        acc = "n/a" if entry.accuracy is None else f"{entry.accuracy:.3f}"
        print(f"{judge}: accuracy {acc} on {entry.n} items ({entry.cases} answers)")
    print(f"-> {out / SCORE_FILE}")
    return EXIT_OK


def write_text(path: Path, text: str) -> None:
    """Written beside, then renamed: a reader never sees half a file."""
    from bedside_bench.core.owned_output import replace_file

    replace_file(path, text.encode("utf-8"))


def configure_export(parser: argparse.ArgumentParser) -> None:
    """Pick rubric items for physicians to review from scored logs, and write a self-contained
    review page (review.html) that keeps its marks in the browser and downloads labels.json."""
    from bedside_bench.review.select import DEFAULT_ITEMS, DEFAULT_SEED

    parser.add_argument("log_paths", nargs="+", metavar="LOG_PATH")
    parser.add_argument("-o", "--output", required=True, metavar="DIR")
    parser.add_argument(
        "--items",
        type=positive_int,
        default=DEFAULT_ITEMS,
        help=f"items to review (default {DEFAULT_ITEMS}): every item where judges or passes "
        "disagree first, then a random sample stratified by benchmark and point value",
    )
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--title", default="BedsideBench physician review")
    parser.set_defaults(handler=guarded(run_export))


def configure_score(parser: argparse.ArgumentParser) -> None:
    """Each judge's accuracy against reviewers' labels (review.json, review.md)."""
    from bedside_bench.core.protocol import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED

    parser.add_argument(
        "inputs",
        nargs="+",
        metavar="LABELS_OR_LOG",
        help="labels.json files (one per reviewer) and the logs they were exported from",
    )
    parser.add_argument("-o", "--output", required=True, metavar="DIR")
    parser.add_argument("--resamples", type=positive_int, default=BOOTSTRAP_RESAMPLES)
    parser.add_argument("--seed", type=int, default=BOOTSTRAP_SEED)
    parser.set_defaults(handler=guarded(run_score))


def guarded(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        from bedside_bench.review.logs import ReviewInputError

        try:
            return handler(args)
        except (ReviewInputError, OSError) as ex:
            print(f"{PROG}: error: {ex}", file=sys.stderr)
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
