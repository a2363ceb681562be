"""The `bedside-bench` console script as a user runs it."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bedside_bench.core.benchmarks import BENCHMARKS
from tests.e2e_helpers import run_console_script, run_tool

pytestmark = pytest.mark.slow  # starts subprocesses (the console script)


def test_list_shows_every_task_with_its_scope(tmp_path: Path) -> None:
    # a process of its own, as every test of how the console script itself starts
    result = run_console_script("bedside-bench", "list", cwd=tmp_path, timeout=60)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 11
    for line, benchmark in zip(lines, BENCHMARKS, strict=False):
        assert line.split()[0] == f"bedside_bench/{benchmark.name}"
        assert benchmark.grading_method in line and line.endswith(benchmark.scope)
    assert lines[-1].startswith("bedside_bench/judge_check")


def test_help_names_the_subcommands() -> None:
    # in this process: how the console script starts is `test_list_...`'s, and that --help
    # answers without Inspect's import is `test_commands_that_need_no_inspect_...`'s
    result = run_tool("bedside-bench", "--help")
    assert result.returncode == 0
    for command in ("list", "report", "sweep"):
        assert command in result.stdout


LIGHT_COMMANDS = (
    ("--help",),
    ("list",),
    ("data", "path"),
    ("report", "--no-such-flag"),
    ("sweep", "--no-such-flag"),
    ("rejudge", "--no-such-flag"),
    ("review", "export", "--help"),
    ("demo", "--no-such-flag"),
    ("doubles", "serve", "--no-such-flag"),
    ("no-such-command",),
)

# each command in turn in one new process (Inspect is already imported in this one), and after
# each the Inspect modules loaded so far. Modules loaded stay loaded, so a command that imports
# Inspect shows it, and so does every command after it (the first one named is the culprit)
LOADED_AFTER_EACH = """\
import contextlib, io, json, sys
from bedside_bench.cli.main import main
loaded = []
for words in json.loads(sys.argv[1]):
    quiet = contextlib.redirect_stdout(io.StringIO())
    with quiet, contextlib.redirect_stderr(io.StringIO()):
        try:
            main(words)
        except SystemExit:
            pass
    loaded.append(sorted(m for m in sys.modules if m.split(".")[0] == "inspect_ai"))
print(json.dumps(loaded))
"""


@functools.cache
def inspect_modules_after_each_light_command() -> dict[tuple[str, ...], list[str]]:
    result = subprocess.run(
        [sys.executable, "-c", LOADED_AFTER_EACH, json.dumps(LIGHT_COMMANDS)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return dict(zip(LIGHT_COMMANDS, json.loads(result.stdout), strict=True))


@pytest.mark.parametrize("words", LIGHT_COMMANDS, ids=" ".join)
def test_commands_that_need_no_inspect_do_not_import_it(words: tuple[str, ...]) -> None:
    """Help, the task list, where the data is and a mistyped command line answer without
    Inspect's import (seconds): only the subcommand named is imported, and each keeps Inspect
    inside its handlers. `benchmarks/bench_cli_start.py` times it."""
    loaded = inspect_modules_after_each_light_command()
    first = [" ".join(w) for w in LIGHT_COMMANDS if loaded[w]][:1]
    assert loaded[words] == [], f"Inspect is first imported by `bedside-bench {first}`"
