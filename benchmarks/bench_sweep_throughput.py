"""Time `bedside-bench sweep` over all ten benchmarks against the provider double.

Workload: the public release (250 cases), one answer model, the default judge, every provider
call taking `--latency` seconds (5 s: a typical model answer), `--max-connections 50`. The
whole command is timed as a user meets it (a new process, Inspect's eval_set, the report).

    bound       = ceil(cases / connections) x 2 x latency   (each case: answer, then judge)
    efficiency  = bound / actual wall time of the command          target >= 0.9
    start-up    = command start -> first request at the double
    report      = the report step, as the sweep measures it        start-up + report < 5 s
    sequential  = 2 x cases x latency   (the reference runner: one case at a time)
    speed-up    = sequential / actual

The double runs as its own process (`python -m tests.doubles`) and records every request, so
start-up and the end of the last call are read from what the double saw.

    python3 benchmarks/bench_sweep_throughput.py [--latency 5] [--max-connections 50]
        [--data-dir ../shared/bedside-bench] [--model openai/gpt-5.4-mini]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
TARGET_EFFICIENCY = 0.9
TARGET_FIXED_SECONDS = 5.0


@dataclass(frozen=True)
class Figures:
    cases: int
    requests: int
    actual: float
    bound: float
    startup: float
    report: float
    tail: float
    sequential: float

    @property
    def efficiency(self) -> float:
        return self.bound / self.actual

    @property
    def speedup(self) -> float:
        return self.sequential / self.actual


def bound_seconds(cases: int, latency: float, connections: int) -> float:
    """`connections` cases at a time, each an answer call then a judge call."""
    return math.ceil(cases / connections) * 2 * latency


def sequential_seconds(cases: int, latency: float) -> float:
    """The reference runner: one case at a time, answer then judge."""
    return 2 * cases * latency


def sweep_command() -> list[str]:
    """`bedside-bench sweep` once cli.py registers it, else the module itself."""
    script = Path(sys.executable).parent / "bedside-bench"
    if script.exists():
        probe = subprocess.run([str(script), "sweep", "--help"], capture_output=True, text=True)
        if probe.returncode == 0:
            return [str(script), "sweep"]
    return [sys.executable, "-m", "bedside_bench.sweep"]


def start_double(latency: float, record: Path) -> tuple[subprocess.Popen[str], dict[str, str]]:
    """The double in its own process (so it never competes with the sweep for the GIL)."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.doubles",
            "--port",
            "0",
            "--latency",
            str(latency),
            "--record",
            str(record),
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    port = int(process.stdout.readline())
    url = f"http://127.0.0.1:{port}"
    env = {
        "OPENAI_BASE_URL": f"{url}/v1",
        "OPENAI_API_KEY": "sk-test-double",
        "ANTHROPIC_BASE_URL": url,
        "ANTHROPIC_API_KEY": "sk-ant-test-double",
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }
    return process, env


def read_records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def run(args: argparse.Namespace) -> Figures:
    work = Path(tempfile.mkdtemp(prefix="bench-sweep-"))
    record = work / "requests.jsonl"
    double, double_env = start_double(args.latency, record)
    try:
        env = {**os.environ, **double_env, "XDG_DATA_HOME": str(work / "data-home")}
        command = [
            *sweep_command(),
            "--model",
            args.model,
            "--data-dir",
            args.data_dir,
            "--max-connections",
            str(args.max_connections),
            "--log-dir",
            str(work / "logs"),
            "--display",
            "none",
        ]
        started = time.time()
        result = subprocess.run(command, env=env, capture_output=True, text=True, cwd=work)
        finished = time.time()
        if result.returncode != 0:
            sys.exit(f"sweep failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    finally:
        double.terminate()
        double.wait(10)
    records = read_records(record)
    answers = {r["seq"] for r in records if r["kind"] == "answer" and r["status"] == 200}
    timing = re.search(r"report (\d+(?:\.\d+)?) s\)", result.stdout)
    last_end = max(r["time"] + (r["duration"] or 0.0) for r in records)
    figures = Figures(
        cases=len(answers),
        requests=len(records),
        actual=finished - started,
        bound=bound_seconds(len(answers), args.latency, args.max_connections),
        startup=min(r["time"] for r in records) - started,
        report=float(timing.group(1)) if timing else float("nan"),
        tail=finished - last_end,
        sequential=sequential_seconds(len(answers), args.latency),
    )
    if args.keep:
        print(f"logs and requests kept in {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=5.0, help="seconds per provider call")
    parser.add_argument("--max-connections", type=int, default=50)
    parser.add_argument("--model", default="openai/gpt-5.4-mini")
    parser.add_argument(
        "--data-dir",
        default=os.environ.get("BEDSIDE_BENCH_DATA", str(REPO.parent / "shared" / "bedside-bench")),
        help="the public release (default $BEDSIDE_BENCH_DATA, else ../shared/bedside-bench)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the logs and request record")
    args = parser.parse_args(argv)
    f = run(args)
    fixed = f.startup + f.report
    rows = [
        ("cases", f"{f.cases} ({f.requests} requests at the double, probes included)"),
        ("latency per call", f"{args.latency:g} s, max connections {args.max_connections}"),
        ("actual wall time", f"{f.actual:.1f} s (whole command)"),
        (
            "bound",
            f"{f.bound:.1f} s = ceil({f.cases}/{args.max_connections}) x 2 x {args.latency:g} s",
        ),
        ("efficiency", f"{f.efficiency:.2f} (bound / actual; target >= {TARGET_EFFICIENCY})"),
        ("start-up", f"{f.startup:.2f} s (command start -> first request)"),
        ("report", f"{f.report:.2f} s (last call -> exit: {f.tail:.2f} s)"),
        ("start-up + report", f"{fixed:.2f} s (target < {TARGET_FIXED_SECONDS:g} s)"),
        ("sequential reference", f"{f.sequential:.0f} s = 2 x {f.cases} x {args.latency:g} s"),
        ("speed-up", f"{f.speedup:.1f}x"),
    ]
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    ok = f.efficiency >= TARGET_EFFICIENCY and fixed < TARGET_FIXED_SECONDS
    print("targets met" if ok else "TARGETS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
