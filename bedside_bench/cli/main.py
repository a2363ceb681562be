"""The `bedside-bench` command.

Only the subcommand asked for is imported: `bedside-bench --help`, `list`, `data path` and a
mistyped command line answer without importing Inspect (several seconds), which only the
subcommands that run evals, read logs or load a release need, inside their handlers. To add a
subcommand, give it a line in `COMMANDS` (its one-line help and the function that registers
its parser) and keep its module's top-level imports light; `tests/test_cli.py` checks that
`--help` and `list` import no Inspect.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from importlib import metadata
from typing import NoReturn

from bedside_bench.core.arguments import Subcommands, SuggestingParser, load_dotenv_as_inspect
from bedside_bench.core.benchmarks import BENCHMARKS
from bedside_bench.core.entry import entry_point, exit_process
from bedside_bench.core.listing import task_version

# name -> (help in the command list, "module:function" that registers its full parser)
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": (
        "the whole job on this machine without a key: scripted answers, a real report",
        "bedside_bench.demo.command:register",
    ),
    "list": ("the tasks, with grading method and scope", "bedside_bench.cli.main:add_list_command"),
    "report": (
        "summarise Inspect logs of the ten tasks",
        "bedside_bench.report.command:add_report_command",
    ),
    "sweep": (
        "several models, all benchmarks, one resumable eval set, then the report",
        "bedside_bench.sweep.command:register",
    ),
    "data": (
        "check, pull and locate the release; export results",
        "bedside_bench.cli.data:register",
    ),
    "rejudge": (
        "judge stored answers again with another judge (no answer calls)",
        "bedside_bench.rejudge.command:register",
    ),
    "review": (
        "physician review of the judge's decisions (export a page, score the labels)",
        "bedside_bench.cli.review:register",
    ),
    "doubles": (
        "local stand-ins of the OpenAI and Anthropic APIs (scripted answers), for tests and CI",
        "bedside_bench.doubles.command:register",
    ),
}


# --------------------------------------------------------------------------------------------
# list


def run_list_command(args: argparse.Namespace) -> int:
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
        help=COMMANDS["list"][0],
        description="The Inspect tasks this package registers (run them with `inspect eval`).",
    )
    parser.set_defaults(handler=run_list_command)


# --------------------------------------------------------------------------------------------
# entry point


def registrar(name: str) -> Callable[[Subcommands], None]:
    module, function = COMMANDS[name][1].split(":")
    register: Callable[[Subcommands], None] = getattr(importlib.import_module(module), function)
    return register


def chosen_command(argv: Sequence[str]) -> str | None:
    """The subcommand the command line names (its first word that is not an option)."""
    first = next((a for a in argv if not a.startswith("-")), None)
    return first if first in COMMANDS else None


def package_version() -> str:
    """The installed package's version, and the tasks' (what a score means: CHANGELOG.md)."""
    try:
        installed = metadata.version("bedside-bench")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        installed = "(not installed)"
    return f"{installed} (tasks {task_version().full})"


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser: the full one of `only` (every subcommand's when None), the others listed by
    name and help alone, so their modules are not imported."""
    parser = SuggestingParser(
        prog="bedside-bench", description="BedsideBench clinical QA benchmark tools."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    subcommands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (help_text, _) in COMMANDS.items():
        if only is None or name == only:
            registrar(name)(subcommands)
        else:
            subcommands.add_parser(name, help=help_text)
    return parser


@entry_point  # a reader that stops reading (`| head`): exit 141, no traceback
def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    # `.env` as `inspect` reads it, before any default is taken from the environment
    load_dotenv_as_inspect()
    chosen = chosen_command(words)
    # no subcommand named (--help, a typo): the list of names needs no subcommand's module
    args = build_parser(chosen or "").parse_args(words)
    # the command is the process (console script, reading sys.argv); given an argv it was
    # called from Python, which goes on after it
    args.owns_process = argv is None
    args.command_line = ["bedside-bench", *words]  # what resumes a stopped command
    handler: Callable[[argparse.Namespace], int] = args.handler
    return handler(args)


def console() -> NoReturn:
    """The console script: `main`, then the process ends with its code, never held by a thread
    a library left running (`exit_process`)."""
    exit_process(main())


if __name__ == "__main__":
    console()
