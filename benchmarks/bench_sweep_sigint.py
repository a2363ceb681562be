"""Ctrl-C under load: how long `bedside-bench sweep` takes to stop after SIGINT (or SIGTERM,
`--signal SIGTERM`) while its requests are held, with busy CPU processes beside it, over many
tries.

Each try: a fresh log directory, the sweep of two models over a small synthetic release
(40 cases each, `--max-connections 4`) against the provider double, SIGINT once it has judged
`--after` cases and every later request is held (latency 3600 s, as a provider that stops
answering). Measured: seconds from SIGINT to exit, the exit status, and how many judge answers
the double had sent were not yet recorded by the sweep (in flight in a loaded event loop, so
asked again; that nothing finished is asked again is tests/test_sweep_signals.py's check).
A try that does not stop within `--timeout` gets a `py-spy dump` of every thread (where it
hangs) and is then killed.

    python3 benchmarks/bench_sweep_sigint.py [--tries 20] [--busy 2] [--timeout 30]
        [--signal SIGTERM]

Target: exit 128 + the signal (130 for SIGINT, 143 for SIGTERM) within 10 s in every try.
"""

from __future__ import annotations

import argparse
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bedside_bench.doubles import ProviderDouble  # noqa: E402
from tests.e2e_helpers import (  # noqa: E402
    judged_at_least,
    judged_cases,
    read_logs,
    start_sweep,
    sweep_args,
    sweep_env,
)
from tests.release_factory import write_release  # noqa: E402

MODELS = ["openai/gpt-4.1-mini", "anthropic/claude-sonnet-4-6"]


def busy_processes(count: int) -> list[subprocess.Popen[bytes]]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def scored_cases(log_dir: Path) -> set[tuple[str, str, int]]:
    """(answer model, case id, epoch) of every scored case in the logs."""
    found = set()
    for log in read_logs(log_dir):
        for sample in log.samples or []:
            if sample.error is None and sample.scores and "rubric_judge" in sample.scores:
                found.add((log.eval.model, str(sample.id), sample.epoch))
    return found


def spy(pid: int) -> str:
    """Every thread's Python stack (py-spy, beside this interpreter)."""
    done = subprocess.run(
        [str(Path(sys.executable).parent / "py-spy"), "dump", "--pid", str(pid)],
        capture_output=True,
        text=True,
    )
    return done.stdout + done.stderr


def one_try(
    n: int,
    root: Path,
    double: ProviderDouble,
    after: int,
    timeout: float,
    dump_every: float = 0.0,
    task_dumps: Path | None = None,
    how: signal.Signals = signal.SIGINT,
    stop_grace: float = 0.0,
) -> dict[str, object]:
    folder = root / f"try{n}"
    folder.mkdir()
    logs = folder / "logs"
    args = sweep_args(
        MODELS,
        logs,
        "--judge",
        "openai/gpt-4.1",
        "--max-connections",
        "4",
        "--no-report",
        # every request is held: a drain could only wait out its grace (bench_ctrlc_ledger.py
        # measures the drain); what is timed here is the cancellation after it
        "--stop-grace",
        str(stop_grace),
        data_dir=root / "release",
    )
    double.reset()
    double.configure(latency=0.25)
    env = sweep_env(double, folder)
    if task_dumps is not None:  # SIGUSR1 makes the sweep write its asyncio tasks' stacks
        env["PYTHONPATH"] = str(task_dumps.parent)
        env["TASK_DUMP"] = str(folder / "tasks.txt")
    process = start_sweep(args, env, folder)
    deadline = time.monotonic() + 300
    condition = judged_at_least(double, after)
    while not condition():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            out, err = process.communicate()
            return {"try": n, "error": f"no progress ({process.returncode}): {err[-800:]}"}
        time.sleep(0.05)
    double.configure(latency=3600)
    time.sleep(random.uniform(0.25, 2.0))  # the signal lands at a different moment each try
    judged = judged_cases(double.requests())
    sent = time.monotonic()
    process.send_signal(how)
    dumps = []
    while True:
        try:
            out, err = process.communicate(timeout=dump_every or timeout)
            break
        except subprocess.TimeoutExpired:
            waited = time.monotonic() - sent
            dumps.append(f"--- {waited:.1f} s after {how.name}\n{spy(process.pid)}")
            if task_dumps is not None:
                process.send_signal(signal.SIGUSR1)
                time.sleep(1.0)
                tasks = folder / "tasks.txt"
                if tasks.exists():
                    dumps.append(tasks.read_text())
                    tasks.unlink()
            if waited >= timeout:
                process.kill()
                out, err = process.communicate()
                break
    handlers = folder / "tasks.txt.sigint"
    if task_dumps is not None and handlers.exists() and dumps:
        dumps.append(handlers.read_text())
    dump = "\n".join(dumps)
    seconds = time.monotonic() - sent
    kept = scored_cases(logs)
    return {
        "try": n,
        "seconds": round(seconds, 2),
        "exit": process.returncode,
        "judged_before": len(judged),
        "kept": len(kept),
        # judge answers the double had sent that the sweep had not yet recorded when the
        # signal came (a loaded event loop lags): in flight, not finished, so asked again
        "unrecorded": max(0, len(judged) - len(kept)),
        "dump": dump,
        "err_tail": err[-300:] if process.returncode != 128 + how else "",
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tries", type=int, default=20)
    parser.add_argument("--busy", type=int, default=2, help="busy CPU processes beside it")
    parser.add_argument("--after", type=int, default=20, help="judged cases before SIGINT")
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--signal",
        choices=["SIGINT", "SIGTERM"],
        default="SIGINT",
        help="the signal sent (SIGTERM: `kill`, a CI job cancelled, `docker stop`)",
    )
    parser.add_argument(
        "--stop-grace",
        type=float,
        default=0.0,
        help="the sweep's --stop-grace (default 0: the requests are held, a drain would wait)",
    )
    parser.add_argument(
        "--dump-every",
        type=float,
        default=0.0,
        help="also dump the stacks every this many seconds while it has not stopped",
    )
    parser.add_argument(
        "--task-dumps",
        type=Path,
        help="a sitecustomize.py that dumps the asyncio tasks on SIGUSR1 (diagnosis only)",
    )
    parser.add_argument(
        "--sigint-ignored",
        action="store_true",
        help="start the sweep with SIGINT ignored, as a background job of a shell script "
        "(`cmd &` without job control) starts it",
    )
    args = parser.parse_args()
    how = signal.Signals[args.signal]
    random.seed(args.seed)
    # what the sweep inherits: ignored stays ignored across exec, a handler becomes the
    # default (this script itself may have been started with SIGINT ignored)
    signal.signal(
        signal.SIGINT, signal.SIG_IGN if args.sigint_ignored else signal.default_int_handler
    )
    root = Path(tempfile.mkdtemp(prefix="sweep-sigint-"))
    write_release(root / "release", per_benchmark=4)
    busy = busy_processes(args.busy)
    results = []
    try:
        with ProviderDouble() as double:
            for n in range(1, args.tries + 1):
                result = one_try(
                    n,
                    root,
                    double,
                    args.after,
                    args.timeout,
                    args.dump_every,
                    args.task_dumps,
                    how,
                    args.stop_grace,
                )
                results.append(result)
                shown = {k: v for k, v in result.items() if k not in ("dump",) and v != ""}
                print(shown, flush=True)
                if result.get("dump"):
                    print(result["dump"], flush=True)
    finally:
        for process in busy:
            process.kill()
        shutil.rmtree(root, ignore_errors=True)
    times = [float(r["seconds"]) for r in results if "seconds" in r]  # type: ignore[arg-type]
    good = [
        r
        for r in results
        if r.get("exit") == 128 + how and float(r["seconds"]) <= 10  # type: ignore[arg-type]
    ]
    if times:
        print(
            f"{len(good)}/{len(results)} stopped with {128 + how} within 10 s; seconds to exit: "
            f"median {statistics.median(times):.2f}, max {max(times):.2f}; "
            f"judge answers not yet recorded at the signal: "
            f"{sum(int(r.get('unrecorded', 0)) for r in results)}"  # type: ignore[call-overload]
        )
    return 0 if len(good) == len(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
