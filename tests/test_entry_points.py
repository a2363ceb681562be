"""Every entry point of the package ends quietly when its reader stops reading (`| head -1`).

The entry points are found, not listed by hand: the console scripts of pyproject.toml, every
`__main__.py` and every module with a `__main__` block. Each is run with a stdout whose reader
has gone away, buffered (as a user's shell gives it) and unbuffered (PYTHONUNBUFFERED, as CI
often sets), with a command that writes its real output: it must exit with
`exit_codes.PIPE_CLOSED` (141), no traceback, no "Exception ignored" line on stderr.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest
import tomllib

from bedside_bench.core import exit_codes
from tests.log_factory import eval_log, sample, write

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "bedside_bench"
BIN = Path(sys.executable).parent
MAIN_BLOCK = re.compile(r"^if __name__ == [\"']__main__[\"']:", re.MULTILINE)

SYNTHETIC = REPO / "data" / "synthetic"
# entry point -> the words of a command that writes its real output to stdout ({logs}: a
# folder holding one log, {out}: an empty scratch folder); no provider call in any
REAL_OUTPUT: dict[str, tuple[str, ...]] = {
    "bedside-bench": ("report", "{logs}", "--out-dir", "{out}"),
    "bedside_bench.cli.main": ("list",),
    "bedside_bench.report": ("{logs}", "--out-dir", "{out}"),
    "bedside_bench.sweep": (
        *("--model", "openai/gpt-4.1-mini", "--smoke", "--estimate"),
        *("--data-dir", str(SYNTHETIC), "--log-dir", "{out}"),
    ),
    "bedside_bench.documents.schemas": ("--write", "--dir", "{out}"),
}


def console_scripts() -> set[str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return set(project["project"]["scripts"])


def main_modules() -> set[str]:
    """`python -m` names: packages with a `__main__.py`, modules with a `__main__` block."""
    found = set()
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(REPO).with_suffix("").parts
        if path.name == "__main__.py":
            found.add(".".join(parts[:-1]))
        elif MAIN_BLOCK.search(path.read_text(encoding="utf-8")):
            found.add(".".join(parts))
    return found


def test_every_entry_point_is_checked() -> None:
    """A new console script or `__main__` is added here (and so to the pipe test below)."""
    assert console_scripts() | main_modules() == set(REAL_OUTPUT)


def command(entry: str) -> list[str]:
    """A process of its own: the pipe is the command's stdout."""
    if entry in console_scripts():
        return [str(BIN / entry)]
    return [sys.executable, "-m", entry]


def run_into_closed_pipe(
    words: list[str], env: Mapping[str, str]
) -> subprocess.CompletedProcess[str]:
    read_end, write_end = os.pipe()
    os.close(read_end)  # nobody reads: the first write (or the last flush) fails
    try:
        return subprocess.run(
            words,
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            env=dict(env),
            check=False,
        )
    finally:
        os.close(write_end)


def quarrels(stderr: str) -> list[str]:
    """The lines of stderr that speak of the closed pipe (a command's own notes may stay)."""
    words = ("Traceback", "BrokenPipe", "Exception ignored", "Broken pipe")
    return [line for line in stderr.splitlines() if any(w in line for w in words)]


def environment(unbuffered: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    return env


@pytest.mark.slow  # starts each entry point as a process
@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("entry", sorted(REAL_OUTPUT))
def test_a_reader_that_stops_reading_ends_every_entry_point_quietly(
    entry: str, unbuffered: bool, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    write(eval_log([sample("c1"), sample("c2", value=1.0)]), logs / "run.eval")
    env = environment(unbuffered)
    out = tmp_path / "out"
    out.mkdir()
    words = [w.format(logs=logs, out=out) for w in REAL_OUTPUT[entry]]
    done = run_into_closed_pipe(command(entry) + words, env)
    # 141 only comes of a failed write: the command did write its output
    assert done.returncode == exit_codes.PIPE_CLOSED, (words, done.stderr)
    assert not quarrels(done.stderr), done.stderr
    if not unbuffered:
        # --help, buffered: the help fails only at the guard's flush (unbuffered, argparse
        # itself swallows the failed write and exits 0)
        done = run_into_closed_pipe([*command(entry), "--help"], env)
        assert (done.returncode, done.stderr) == (exit_codes.PIPE_CLOSED, "")
