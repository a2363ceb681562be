"""How fast `bedside-bench` answers the commands that need no Inspect, against the floor
they used to pay: `python -c "import inspect_ai"`, measured side by side in one run.

Target (issue: commands that start in a blink): each under a quarter of Inspect's import.
Prints the median of N whole-process runs of each, and the ratio to the import.

    python benchmarks/bench_cli_start.py [--runs 7]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

BIN = Path(sys.executable).parent
COMMANDS: dict[str, list[str]] = {
    'python -c "import inspect_ai"': [sys.executable, "-c", "import inspect_ai"],
    "bedside-bench --help": [str(BIN / "bedside-bench"), "--help"],
    "bedside-bench list": [str(BIN / "bedside-bench"), "list"],
    "bedside-bench data path": [str(BIN / "bedside-bench"), "data", "path"],
    "bedside-bench sweep --no-such-flag": [str(BIN / "bedside-bench"), "sweep", "--no-such-flag"],
    "bedside-bench report --no-such-flag": [
        str(BIN / "bedside-bench"),
        "report",
        "--no-such-flag",
    ],
}


# what each command must exit with: 0, or 2 for an argument error; any other code means it
# failed at start-up, and a fast failure is no measurement
EXPECTED_EXIT = {name: 2 if "--no-such-flag" in name else 0 for name in COMMANDS}


def seconds(name: str, command: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, check=False, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != EXPECTED_EXIT[name]:
        raise SystemExit(
            f"{name}: exit {done.returncode}, expected {EXPECTED_EXIT[name]}\n{done.stderr[-2000:]}"
        )
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(runs):  # interleaved, so load changes touch every command alike
        for name, command in COMMANDS.items():
            times[name].append(seconds(name, command))
    floor = statistics.median(times['python -c "import inspect_ai"'])
    print(f"{'command':<40} {'median s':>9} {'min s':>7} {'/ import':>9}")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:<40} {median:>9.3f} {min(values):>7.3f} {median / floor:>9.2f}")
    slow = [
        n for n in COMMANDS if n.startswith("bedside") and statistics.median(times[n]) > floor / 4
    ]
    print("target (each under a quarter of the import):", "met" if not slow else f"missed: {slow}")


if __name__ == "__main__":
    main()
