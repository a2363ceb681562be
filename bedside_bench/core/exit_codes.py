"""The exit codes of every `bedside-bench` command, each with one meaning (the README's table).

2 is what argparse, and Inspect's own command line, give a command line they cannot parse, so
no other outcome uses it.
"""

from __future__ import annotations

OK = 0  # done: every case scored, every file written
ERROR = 1  # stopped before (or instead of) the work: a bad input, named in one line on stderr
USAGE = 2  # the command line itself is wrong (unknown flag, missing or malformed value)
INCOMPLETE = 3  # ran, but some cases have no score; the lines above say why and what to do
REFUSED = 4  # the report is written, but refused to compare groups that are not like for like
INTERRUPTED = 130  # Ctrl-C (128 + SIGINT); completed cases are kept
PIPE_CLOSED = 141  # the reader of the output went away (`| head`: 128 + SIGPIPE), no traceback
TERMINATED = 143  # SIGTERM (128 + SIGTERM), as from a job scheduler; completed cases are kept

MEANINGS: dict[int, str] = {
    OK: "done: every case scored, every file written",
    ERROR: "stopped on a bad input (named in one line on stderr); nothing or nothing more was run",
    USAGE: "the command line is wrong (unknown flag, missing or malformed value)",
    INCOMPLETE: "ran, but some cases have no score",
    REFUSED: "the report refused to compare groups that are not like for like (see --force)",
    INTERRUPTED: "interrupted (Ctrl-C); completed cases are kept",
    PIPE_CLOSED: "the program reading the output stopped reading (`| head`); the output is cut",
    TERMINATED: "stopped by SIGTERM (a job scheduler, `kill`); completed cases are kept",
}
