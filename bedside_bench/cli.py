"""The `bedside-bench` command. Each subcommand registers itself with one `add_*` function.

To add a subcommand, write `add_<name>_command(subcommands)` and list it in `COMMANDS`; keep
heavy imports inside the handler so `bedside-bench --help` stays fast.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from bedside_bench.arguments import Subcommands
from bedside_bench.data_cli import register as add_data_command
from bedside_bench.rejudge import register as add_rejudge_command
from bedside_bench.report_cli import add_report_command
from bedside_bench.review import register as add_review_command

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
    add_review_command,
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
