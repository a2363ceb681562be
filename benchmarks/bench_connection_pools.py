"""How the connection pools fill: answer and judge calls in flight at the provider double at
once, against the limits asked for, and what a judge pool of its own buys, side by side in
one run.

Three runs of one answer model over one benchmark against the double, the judge 10x slower
than the answers (2 s against 0.2 s a call):

- `own pool`: `bedside-bench sweep --max-connections 1 --judge-max-connections 4`;
- `shared`: the same with `--judge-max-connections 1`, the judge held to the answers' limit;
- `plain inspect eval`: the documented recipe without the sweep (docs/sweep.md): the limits
  in `--model-spec` (1) and `--model-role grader=...` (3), `--max-samples 4`.

Each prints the most answer and judge calls the double was answering at one moment (the
double's clock stops after it sent a response, when the client may already have sent the
next request, so a little slack is taken off each end), the cases answered before the first
judge call ended, and the request phase (the double's first request to its last response:
the command's start, which a loaded machine stretches, left out); then the shared run's
request phase over the own pool's.

    python3 benchmarks/bench_connection_pools.py [--cases 8]

Targets: each pool's peak equals its limit; before the first judge call ends exactly
2 x answer limit + judge limit cases are answered (the sweep lets that many in: each pool
busy, as many again waiting for an answer connection; Inspect's default would let in 1); the
shared run's request phase over the own pool's at least 0.8 of the ideal (the slow judge
bounds both: N judge calls in a row against ceil(N / 4) rounds, each after the first answer;
8 cases: 2.9).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bedside_bench.doubles import ProviderDouble, RecordedRequest  # noqa: E402
from tests.e2e_helpers import (  # noqa: E402
    ok,
    output,
    run_console_script,
    sweep_args,
    sweep_env,
)
from tests.release_factory import write_release  # noqa: E402

MODEL, JUDGE = "openai/gpt-4.1-mini", "openai/gpt-4.1"
ANSWER_LATENCY, JUDGE_LATENCY = 0.2, 2.0
ANSWER_POOL, JUDGE_POOL = 1, 4
PLAIN_ANSWER_POOL, PLAIN_JUDGE_POOL = 1, 3


def most_in_flight(requests: Iterable[RecordedRequest], slack: float) -> int:
    """The largest number of these requests the double was answering at one moment, `slack`
    seconds taken off each end so a hand-over is not an overlap."""
    edges = sorted(
        edge
        for r in requests
        if r.duration is not None
        for edge in ((r.time, 1), (r.time + max(0.0, r.duration - slack), -1))
    )
    level = peak = 0
    for _, step in edges:
        level += step
        peak = max(peak, level)
    return peak


def answered_before_first_judged(
    answers: list[RecordedRequest], judges: list[RecordedRequest]
) -> int:
    first_judged = min(r.time + (r.duration or 0.0) for r in judges)
    return sum(1 for r in answers if r.time < first_judged)


def run(
    name: str, root: Path, args: list[str], answer_latency: float, judge_latency: float
) -> dict[str, float]:
    folder = root / name.replace(" ", "-")
    folder.mkdir()
    with ProviderDouble(latency=answer_latency, judge_latency=judge_latency) as double:
        env = sweep_env(double, folder)
        started = time.monotonic()
        done = run_console_script(*args, env=env, cwd=folder)
        seconds = time.monotonic() - started
        if done.returncode != 0:
            raise SystemExit(f"{name}: {output(done)}")
        answers, judges = ok(double.requests(kind="answer")), ok(double.requests(kind="judge"))
    ends = [r.time + (r.duration or 0.0) for r in answers + judges]
    return {
        "phase": max(ends) - min(r.time for r in answers + judges),
        "answers": len(answers),
        "judges": len(judges),
        "answers_in_flight": most_in_flight(answers, slack=answer_latency / 2),
        "judges_in_flight": most_in_flight(judges, slack=judge_latency / 4),
        "answered_before_first_judged": answered_before_first_judged(answers, judges),
        "seconds": seconds,
    }


def sweep_command(release: Path, logs: Path, judge_pool: int) -> list[str]:
    return [
        "bedside-bench",
        "sweep",
        *sweep_args(
            [MODEL],
            logs,
            "--judge",
            JUDGE,
            "--benchmarks",
            "drug_safety",
            "--max-connections",
            str(ANSWER_POOL),
            "--judge-max-connections",
            str(judge_pool),
            "--no-report",
            data_dir=release,
        ),
    ]


def plain_command(release: Path, logs: Path) -> list[str]:
    return [
        "inspect",
        "eval",
        "bedside_bench/drug_safety",
        "-T",
        f"data_dir={release}",
        "--model-spec",
        f"{{model: {MODEL}, max_connections: {PLAIN_ANSWER_POOL}}}",
        "--model-role",
        f"grader={{model: {JUDGE}, max_connections: {PLAIN_JUDGE_POOL}}}",
        "--max-samples",
        str(PLAIN_ANSWER_POOL + PLAIN_JUDGE_POOL),
        "--log-dir",
        str(logs),
        "--display",
        "plain",
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--cases", type=int, default=8, help="cases of the benchmark (more than both pools)"
    )
    cases = parser.parse_args().cases
    root = Path(tempfile.mkdtemp(prefix="connection-pools-"))
    try:
        release = root / "release"
        write_release(release, per_benchmark=cases)
        own = run(
            "own pool",
            root,
            sweep_command(release, root / "own-logs", JUDGE_POOL),
            ANSWER_LATENCY,
            JUDGE_LATENCY,
        )
        shared = run(
            "shared",
            root,
            sweep_command(release, root / "shared-logs", 1),
            ANSWER_LATENCY,
            JUDGE_LATENCY,
        )
        plain = run(
            "plain inspect eval",
            root,
            plain_command(release, root / "plain-logs"),
            ANSWER_LATENCY,
            JUDGE_LATENCY,
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    limits = {
        "own pool": (ANSWER_POOL, JUDGE_POOL),
        "shared": (ANSWER_POOL, 1),
        "plain inspect eval": (PLAIN_ANSWER_POOL, PLAIN_JUDGE_POOL),
    }
    print(
        f"{'run':<20} {'answers in flight':>18} {'judges in flight':>17} "
        f"{'answered first':>15} {'requests s':>11} {'wall s':>7}"
    )
    met = True
    for name, figures in (("own pool", own), ("shared", shared), ("plain inspect eval", plain)):
        answer_limit, judge_limit = limits[name]
        print(
            f"{name:<20} {figures['answers_in_flight']:>10} (max {answer_limit}) "
            f"{figures['judges_in_flight']:>9} (max {judge_limit}) "
            f"{figures['answered_before_first_judged']:>15} {figures['phase']:>11.1f} "
            f"{figures['seconds']:>7.1f}"
        )
        met &= (figures["answers_in_flight"], figures["judges_in_flight"]) == limits[name]
    let_in = 2 * ANSWER_POOL + JUDGE_POOL
    met &= own["answered_before_first_judged"] == let_in
    ratio = shared["phase"] / own["phase"]
    rounds = -(-cases // JUDGE_POOL)
    ideal = (cases * JUDGE_LATENCY + ANSWER_LATENCY) / (rounds * JUDGE_LATENCY + ANSWER_LATENCY)
    met &= ratio >= 0.8 * ideal
    print(
        f"shared / own pool request phase: {ratio:.2f}, ideal {ideal:.2f} "
        f"(judge pool {JUDGE_POOL} against 1)"
    )
    print(
        f"cases answered before the first judge call ended (own pool): "
        f"{own['answered_before_first_judged']:g}, expected {let_in}"
    )
    print("targets (peaks at the limits, the cases let in, the ratio):", "met" if met else "missed")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
