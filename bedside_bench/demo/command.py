"""The `demo` command line: its flags, its first and last lines (both say the answers are
scripted), one line per outcome (never a traceback for an input problem). Inspect is imported
only by the handler, so parsing the command line imports none.
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import sys
import webbrowser
from pathlib import Path
from typing import TextIO

from bedside_bench import demo
from bedside_bench.core import exit_codes
from bedside_bench.core.arguments import Subcommands, add_command, output_path, positive_int
from bedside_bench.core.owned_output import OutputError
from bedside_bench.core.signals import stop_exit_code, stop_note, stopping_on_signals
from bedside_bench.demo.settings import (
    ANSWER_MODELS,
    DEFAULT_OUT,
    SCRIPTED,
    DemoError,
    DemoOptions,
    DemoResult,
)

PROG = "bedside-bench demo"
HELP = "the whole job on this machine without a key: scripted answers, a real report"
DISPLAYS = ("full", "rich", "plain", "log", "none")
REAL_RUN = (
    f"bedside-bench sweep --model {','.join(ANSWER_MODELS)} "
    "with OPENAI_API_KEY and ANTHROPIC_API_KEY set"
)


def configure_parser(parser: argparse.ArgumentParser) -> None:
    """What a run gives you, before any key or bill: the provider doubles (local stand-ins of
    the OpenAI and Anthropic APIs, scripted answers and judge decisions) answer a sweep of two
    models over every benchmark; then the report, its ranking and verdict, and the logs to
    browse with `inspect view`. Nothing leaves 127.0.0.1 and no key is read; the shipped
    synthetic release takes about 15 s on two cores, the public release under a minute."""
    parser.add_argument(
        "--out",
        type=output_path,
        default=Path(DEFAULT_OUT),
        metavar="DIR",
        help=f"the demo's folder: logs/, report/ (default ./{DEFAULT_OUT}; an earlier demo "
        "there is replaced)",
    )
    parser.add_argument(
        "--cases",
        type=positive_int,
        metavar="N",
        help="a quick look: the first N cases of each benchmark (default: all)",
    )
    parser.add_argument(
        "--synthetic",
        action="store_true",
        help="the synthetic release shipped with the package, even when the public release "
        "is at hand ($BEDSIDE_BENCH_DATA, the Hugging Face cache)",
    )
    parser.add_argument("--open", action="store_true", help="open the report in a browser")
    parser.add_argument(
        "--display", choices=DISPLAYS, help="Inspect's progress display (default: Inspect's)"
    )


def _say(message: str, stream: TextIO | None = None) -> None:
    print(message, file=stream or sys.stdout, flush=True)


def _path(path: Path) -> str:
    return shlex.quote(str(path))


def closing_lines(options: DemoOptions, result: DemoResult, opening: bool = False) -> list[str]:
    """Where everything is and how to open it, what the doubles answered."""
    requests = result.requests
    html = options.report_dir / "report.html"
    lines = [
        f"demo: the doubles answered {requests.answers} answer and {requests.judge} judge "
        f"calls ({requests.total} requests in all); no API key was read or sent",
        f"demo: logs in {options.logs}: browse every answer and judge decision with "
        f"`inspect view --log-dir {_path(options.logs)}`",
        f"demo: report in {html}"
        + ("" if opening else " (open it in a browser, or run the demo with --open)")
        + "; report.md and one summary per model beside it",
    ]
    if not result.complete:
        lines.append(
            f"demo: incomplete: some cases have no score (see `inspect view --log-dir "
            f"{_path(options.logs)}`); the doubles should answer every call, so this is a bug"
        )
    return lines


def open_report(path: Path) -> str:
    try:
        opened = webbrowser.open(path.resolve().as_uri())
    except webbrowser.Error:
        opened = False
    return f"demo: opened {path}" if opened else f"demo: no browser to open; open {path} yourself"


def run_demo_command(args: argparse.Namespace) -> int:
    """The handler: the first line before any work, the last after all of it."""
    _say(f"{PROG}: {SCRIPTED}; no key is used and nothing leaves 127.0.0.1")
    options = DemoOptions(
        out=args.out, cases=args.cases, synthetic=args.synthetic, display=args.display
    )
    received: list[int] = []
    try:
        with stopping_on_signals() as received:
            result = demo.run_demo(options, sys.stdout)
    except (DemoError, demo.DatasetError, OutputError, demo.ReportError) as ex:
        _say(f"{PROG}: error: {ex}", sys.stderr)
        return exit_codes.ERROR
    except (KeyboardInterrupt, asyncio.CancelledError):
        # CancelledError: in a terminal, Inspect's full-screen display takes Ctrl-C as a key
        # and cancels its worker; let out, Inspect's exception hook would exit 130 in silence
        _say(f"{PROG}: interrupted{stop_note(received)}; nothing more was run", sys.stderr)
        return stop_exit_code(received)
    for line in closing_lines(options, result, opening=args.open):
        _say(line)
    if args.open:
        _say(open_report(options.report_dir / "report.html"))
    code = exit_codes.INCOMPLETE if not result.complete else exit_codes.OK
    if result.report is not None and result.report.exit_code and code == exit_codes.OK:
        code = result.report.exit_code
    _say(
        f"{PROG}: done in {result.seconds:.0f} s; the answers and scores above are scripted "
        f"stand-ins, not model output. For real ones: {REAL_RUN}."
    )
    return code


def register(subcommands: Subcommands) -> None:
    """Add `demo` to `bedside-bench` (listed in cli/main.py's COMMANDS)."""
    add_command(subcommands, "demo", HELP, configure_parser, run_demo_command)
