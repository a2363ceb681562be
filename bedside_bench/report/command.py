"""`bedside-bench report`: its options and handler, shared with `python -m bedside_bench.report`.

The report package is imported only when the command runs, so `bedside-bench --help` stays fast.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bedside_bench import report
from bedside_bench.core import exit_codes
from bedside_bench.core.arguments import (
    Subcommands,
    add_command,
    inspect_log_dir,
    non_negative_int,
    output_path,
)
from bedside_bench.core.protocol import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED
from bedside_bench.core.ranges import RESAMPLES, ranged
from bedside_bench.core.safe_text import printable


def configure_report_parser(parser: argparse.ArgumentParser) -> None:
    """Summaries, comparison and report (Markdown, HTML, forest plot) from Inspect logs."""
    parser.add_argument(
        "log_paths",
        nargs="*",
        metavar="LOG_PATH",
        help="an Inspect log directory or log file (local, s3://, or any location Inspect "
        "reads); default $INSPECT_LOG_DIR, else ./logs",
    )
    parser.add_argument(
        "-o",
        "--out-dir",
        type=output_path,
        default=Path("reports"),
        help="where to write the files (default: ./reports)",
    )
    parser.add_argument(
        "--resamples",
        type=ranged(RESAMPLES),
        default=BOOTSTRAP_RESAMPLES,
        help=f"bootstrap resamples (protocol: {BOOTSTRAP_RESAMPLES})",
    )
    parser.add_argument(
        "--seed",
        type=non_negative_int,
        default=BOOTSTRAP_SEED,
        help=f"bootstrap seed (protocol: {BOOTSTRAP_SEED})",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="compare groups that differ in judge, digest, protocol or grading "
        "options (labelled not like for like)",
    )
    parser.add_argument(
        "--prices",
        type=Path,
        metavar="PRICES_JSON",
        help='USD per million tokens: {"provider/model": {"input": 0.25, '
        '"output": 2.0, "cached_input": 0.025}}',
    )
    parser.add_argument(
        "--labels",
        nargs="+",
        action="extend",  # `--labels A --labels B` is A and B, not B
        metavar="LABELS_JSON",
        help="reviewers' labels files (bedside-bench review): adds each judge's accuracy "
        "against physicians (review.json, a 'Judge vs physicians' section)",
    )


def run_report_command(args: argparse.Namespace) -> int:
    try:
        # log paths typed after `--labels` land in it (it takes one or more)
        labels, swallowed = report.split_labels_option(args.labels or ())
        options = report.ReportOptions(
            log_paths=[*swallowed, *(args.log_paths or [])] or [inspect_log_dir()],
            out_dir=args.out_dir,
            bootstrap=report.BootstrapOptions(resamples=args.resamples, seed=args.seed),
            force=args.force,
            prices_file=args.prices,
            labels_files=labels,
        )
        return report.build_report(options).exit_code
    except (report.ReportError, FileNotFoundError) as ex:
        # a path typed or a text read from a file: one printable, bounded line
        print(f"bedside-bench report: error: {printable(str(ex))}", file=sys.stderr)
        return exit_codes.ERROR


def add_report_command(subcommands: Subcommands) -> None:
    add_command(
        subcommands,
        "report",
        "summarise Inspect logs of the ten tasks",
        configure_report_parser,
        run_report_command,
    )
