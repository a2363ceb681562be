"""The `bedside-bench` command. Each subcommand registers itself with one `add_*` function.

To add a subcommand, write `add_<name>_command(subcommands)` and list it in `COMMANDS`; keep
heavy imports inside the handler so `bedside-bench --help` stays fast.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from bedside_bench.arguments import Subcommands, add_command, non_negative_int, positive_int
from bedside_bench.data_cli import register as add_data_command
from bedside_bench.protocol import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED
from bedside_bench.rejudge import register as add_rejudge_command

EXIT_USAGE = 1


# --------------------------------------------------------------------------------------------
# report


def configure_report_parser(parser: argparse.ArgumentParser) -> None:
    """Summaries, comparison and report (Markdown, HTML, forest plot) from Inspect logs."""
    parser.add_argument(
        "log_paths",
        nargs="+",
        metavar="LOG_PATH",
        help="an Inspect log directory or log file (local, s3://, or any location Inspect reads)",
    )
    parser.add_argument(
        "-o",
        "--out-dir",
        type=Path,
        default=Path("reports"),
        help="where to write the files (default: ./reports)",
    )
    parser.add_argument(
        "--resamples",
        type=positive_int,
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


def run_report_command(args: argparse.Namespace) -> int:
    from bedside_bench.report import BootstrapOptions, ReportError, ReportOptions, build_report

    options = ReportOptions(
        log_paths=args.log_paths,
        out_dir=args.out_dir,
        bootstrap=BootstrapOptions(resamples=args.resamples, seed=args.seed),
        force=args.force,
        prices_file=args.prices,
    )
    try:
        return build_report(options).exit_code
    except (ReportError, FileNotFoundError) as ex:
        print(f"bedside-bench report: error: {ex}", file=sys.stderr)
        return EXIT_USAGE


def add_report_command(subcommands: Subcommands) -> None:
    add_command(
        subcommands,
        "report",
        "summarise Inspect logs of the ten tasks",
        configure_report_parser,
        run_report_command,
    )


# --------------------------------------------------------------------------------------------
# list


def run_list_command(args: argparse.Namespace) -> int:
    from bedside_bench.benchmarks import BENCHMARKS

    width = max(len(b.name) for b in BENCHMARKS)
    for b in BENCHMARKS:
        print(f"bedside_bench/{b.name:<{width}}  {b.grading_method:<18}  {b.scope}")
    print(
        f"bedside_bench/{'judge_check':<{width}}  {'judge_check':<18}  "
        "How well a judge model agrees with gold rubric decisions"
    )
    return 0


def add_list_command(subcommands: Subcommands) -> None:
    parser = subcommands.add_parser(
        "list",
        help="the tasks, with grading method and scope",
        description="The Inspect tasks this package registers (run them with `inspect eval`).",
    )
    parser.set_defaults(handler=run_list_command)


def add_sweep_command(subcommands: Subcommands) -> None:
    from bedside_bench.sweep import register

    register(subcommands)


# --------------------------------------------------------------------------------------------
# entry point

COMMANDS: tuple[Callable[[Subcommands], None], ...] = (
    add_list_command,
    add_report_command,
    add_sweep_command,
    add_data_command,
    add_rejudge_command,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bedside-bench", description="BedsideBench clinical QA benchmark tools."
    )
    subcommands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for add in COMMANDS:
        add(subcommands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.handler
    return handler(args)


if __name__ == "__main__":
    sys.exit(main())
