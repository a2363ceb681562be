"""`python -m bedside_bench.report LOG_PATH...`: the same as `bedside-bench report`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from bedside_bench.core.arguments import load_dotenv_as_inspect
from bedside_bench.core.entry import entry_point
from bedside_bench.report.command import configure_report_parser, run_report_command


@entry_point
def main(argv: Sequence[str] | None = None) -> int:
    load_dotenv_as_inspect()  # as `bedside-bench report` and `inspect` do
    parser = argparse.ArgumentParser(
        prog="python -m bedside_bench.report", description=configure_report_parser.__doc__
    )
    configure_report_parser(parser)
    return run_report_command(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
