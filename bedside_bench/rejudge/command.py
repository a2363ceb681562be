"""The `bedside-bench rejudge` subcommand: its options, its printed outcome and exit code."""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import sys
from typing import TYPE_CHECKING

from bedside_bench import rejudge as package
from bedside_bench.core import exit_codes
from bedside_bench.core.arguments import (
    LOG_DIR_ENV,
    Subcommands,
    add_command,
    inspect_log_dir,
    output_folder,
    positive_int,
)
from bedside_bench.core.ranges import JUDGE_PASSES, ranged
from bedside_bench.core.safe_text import printable
from bedside_bench.core.signals import stop_began, stopped_by, stopping_on_signals
from bedside_bench.rejudge.options import CHECKPOINT_SAMPLES, PROG, RejudgeError, RejudgeOptions

if TYPE_CHECKING:
    from bedside_bench.rejudge.plan import LogOutcome

EXIT_OK = exit_codes.OK
EXIT_ERROR = exit_codes.ERROR
EXIT_USAGE = exit_codes.USAGE
EXIT_INCOMPLETE = exit_codes.INCOMPLETE  # some cases could not be judged; rerun to retry them


def configure_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "log_paths",
        nargs="*",
        metavar="LOG_PATH",
        help="Inspect log files or directories (default $INSPECT_LOG_DIR, when set)",
    )
    parser.add_argument("--judge", required=True, help="the judge model, e.g. openai/gpt-5.6-sol")
    parser.add_argument(
        "--judge-passes",
        type=ranged(JUDGE_PASSES),
        default=None,
        help="independent judge calls per answer (default: as the source log)",
    )
    parser.add_argument(
        "--failed-only",
        action="store_true",
        help="judge only the cases whose judge failed (their answers are reused)",
    )
    parser.add_argument(
        "-o",  # as `report`, `review` and `data export` write theirs
        "--output-dir",
        default=None,
        type=output_folder,
        help="where the new logs go (default: $INSPECT_LOG_DIR/rejudge, else logs/rejudge); "
        "the sources are never changed",
    )
    parser.add_argument(
        "--checkpoint",
        type=positive_int,
        default=CHECKPOINT_SAMPLES,
        help=f"write the new log after this many cases (default: {CHECKPOINT_SAMPLES})",
    )
    parser.add_argument(
        "--display", default="none", choices=("full", "rich", "plain", "log", "none")
    )


def rejudge(options: RejudgeOptions) -> list[LogOutcome]:
    """The re-judge itself (`run.py`), imported when first called."""
    return package.rejudge(options)


def run_command(args: argparse.Namespace) -> int:
    log_paths = args.log_paths or ([os.environ[LOG_DIR_ENV]] if os.environ.get(LOG_DIR_ENV) else [])
    if not log_paths:
        print(f"{PROG}: error: give a LOG_PATH (or set ${LOG_DIR_ENV})", file=sys.stderr)
        return EXIT_USAGE
    output_dir = args.output_dir or f"{inspect_log_dir('logs').rstrip('/')}/rejudge"
    try:  # a folder from $INSPECT_LOG_DIR is checked as one typed after -o is
        output_folder(output_dir)
    except argparse.ArgumentTypeError as ex:
        print(f"{PROG}: error: ${LOG_DIR_ENV}: {ex}", file=sys.stderr)
        return EXIT_USAGE
    options = RejudgeOptions(
        log_paths=log_paths,
        judge=args.judge,
        judge_passes=args.judge_passes,
        failed_only=args.failed_only,
        output_dir=output_dir,
        checkpoint=args.checkpoint,
        display=args.display,
    )
    received: list[int] = []
    try:
        with stopping_on_signals() as received, package.errors_said_by_caller():
            outcomes = rejudge(options)
            if stop_began():  # the work ended during the drain: still stopped, not done
                raise KeyboardInterrupt
    except (RejudgeError, FileNotFoundError) as ex:
        print(f"{PROG}: error: {printable(str(ex))}", file=sys.stderr)
        return EXIT_ERROR
    except package.TaskOptionError as ex:  # a source log's option out of range: one line, no call
        said = printable(str(ex).removeprefix("bedside-bench: "))
        print(f"{PROG}: error: {said}", file=sys.stderr)
        return EXIT_ERROR
    except (KeyboardInterrupt, asyncio.CancelledError):
        signum = stopped_by(received)
        command = shlex.join(getattr(args, "command_line", None) or ["bedside-bench", "rejudge"])
        print(
            f"{PROG}: interrupted ({signum.name}); every case judged so far is "
            f"kept in {options.output_dir}; run the same command again to judge the rest: "
            f"{command}",
            file=sys.stderr,
        )
        return 128 + signum
    failed = 0
    for o in outcomes:
        if o.skipped:
            print(
                f"{PROG}: skipped {printable(o.source, 300)}: {printable(o.skipped)}",
                file=sys.stderr,
            )
            continue
        print(
            f"{o.source}: judged {o.judged}{empty_note(o.empty)}, already judged {o.already_done}, "
            f"failed {len(o.failed)} -> {o.output}"
        )
        for line in o.failed:
            print(f"  failed: {printable(line)}", file=sys.stderr)  # a judge's text, maybe
        failed += len(o.failed)
    return EXIT_INCOMPLETE if failed else EXIT_OK


def empty_note(empty: int) -> str:
    """Answers without text are counted as judged but cost no judge call: say how many."""
    if not empty:
        return ""
    return f" ({empty} empty answer{'s' if empty != 1 else ''}, scored with no judge call)"


def register(subcommands: Subcommands) -> None:
    doc = package.__doc__
    add_command(
        subcommands,
        "rejudge",
        "judge stored answers again with another judge (no answer calls)",
        configure_parser,
        run_command,
        description=doc.split("\n\n")[0] if doc else None,
    )
