"""The Ctrl-C ledger: what a stopped and resumed sweep buys. `bedside-bench sweep` of two models
over the public release (250 cases each) against the provider double, a signal once
`--after` judge calls are answered, then the same command to the end; the double bills a
request its client abandons (`bill_abandoned`), as a provider bills a generation it started.

Counted with the tests' ledger (tests/ledger.py): answers and judge calls bought, and how many
(model, case, kind) were bought more than once. Each try sends the signal at another point
(`--after` plus a random share of it). `--package PATH` runs the sweep from another tree of
the package (e.g. a checkout before the drain) for a before/after comparison; `--stop-grace`
is passed to the sweep only when given.

    BEDSIDE_BENCH_DATA=PATH python3 benchmarks/bench_ctrlc_ledger.py [--tries 2]
        [--after 150] [--signal SIGTERM] [--stop-grace S] [--package PATH]

Target: no purchase twice (every answer and judge call bought once) after a first signal.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bedside_bench.doubles import ProviderDouble  # noqa: E402
from tests.e2e_helpers import ok, start_sweep, sweep_args, sweep_env  # noqa: E402
from tests.ledger import ledger  # noqa: E402

MODELS = ["openai/gpt-4.1-mini", "anthropic/claude-sonnet-4-6"]


def last_line(out: str, err: str) -> str:
    lines = (out + err).strip().splitlines()
    return lines[-1][:200] if lines else ""


def run(args: list[str], env: dict[str, str], folder: Path, timeout: float) -> tuple[int, str]:
    """The same command to its end: exit status and last line."""
    process = start_sweep(args, env, folder)
    try:
        out, err = process.communicate(timeout=timeout)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    return process.returncode, last_line(out, err)


def one_try(
    n: int, root: Path, double: ProviderDouble, options: argparse.Namespace
) -> dict[str, object]:
    folder = root / f"try{n}"
    folder.mkdir()
    extra = ["--judge", "openai/gpt-4.1", "--max-connections", str(options.max_connections)]
    if options.stop_grace is not None:
        extra += ["--stop-grace", str(options.stop_grace)]
    args = sweep_args(MODELS, folder / "logs", *extra, "--no-report")
    double.reset()
    double.configure(latency=options.latency, judge_latency=options.judge_latency)
    env = sweep_env(double, folder)
    env["INSPECT_CACHE_DIR"] = str(folder / "cache")  # kept calls of this try only
    env["BEDSIDE_BENCH_DATA"] = str(Path(os.environ["BEDSIDE_BENCH_DATA"]).resolve())
    if options.package:
        env["PYTHONPATH"] = str(options.package)
    how = signal.Signals[options.signal]
    after = options.after + random.randint(0, options.after // 2)
    process = start_sweep(args, env, folder)
    deadline = time.monotonic() + 900
    while len(ok(double.requests(kind="judge"))) < after:
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            out, err = process.communicate()
            return {"try": n, "error": f"no progress ({process.returncode}): {err[-600:]}"}
        time.sleep(0.05)
    in_flight = double.in_flight
    sent = time.monotonic()
    process.send_signal(how)
    out, err = process.communicate(timeout=600)
    stopped = {
        "exit": process.returncode,
        "seconds": round(time.monotonic() - sent, 1),
        "last": last_line(out, err),
    }
    first = ledger(double)
    double.configure(latency=0.0, judge_latency=None)
    code, resumed_last = run(args, env, folder, 1800)
    paid = ledger(double)
    kinds = Counter(p.kind for p in paid.elements())
    twice = Counter(p.kind for p, count in paid.items() if count > 1 for _ in range(count - 1))
    return {
        "try": n,
        "signal": how.name,
        "after_judged": after,
        "in_flight_at_signal": in_flight,
        "stopped": stopped,
        "bought_before_signal_run_end": sum(first.values()),
        "resumed": {"exit": code, "last": resumed_last},
        "answers": kinds["answer"],
        "judge_calls": kinds["judge"],
        "bought_twice": dict(twice),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tries", type=int, default=2)
    parser.add_argument("--after", type=int, default=150, help="judge calls before the signal")
    parser.add_argument("--signal", choices=["SIGINT", "SIGTERM"], default="SIGINT")
    parser.add_argument("--stop-grace", type=float, default=None)
    parser.add_argument("--max-connections", type=int, default=10)
    parser.add_argument("--latency", type=float, default=0.5, help="seconds per answer")
    parser.add_argument("--judge-latency", type=float, default=1.5, help="seconds per judge call")
    parser.add_argument("--package", type=Path, help="run the sweep from this tree instead")
    parser.add_argument("--seed", type=int, default=29)
    options = parser.parse_args()
    if not os.environ.get("BEDSIDE_BENCH_DATA"):
        parser.error("set BEDSIDE_BENCH_DATA to the public release")
    random.seed(options.seed)
    root = Path(tempfile.mkdtemp(prefix="ctrlc-ledger-"))
    bad = 0
    try:
        with ProviderDouble(bill_abandoned=True) as double:
            for n in range(1, options.tries + 1):
                result = one_try(n, root, double, options)
                print(result, flush=True)
                bad += bool(result.get("error") or result.get("bought_twice"))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
