"""Time BedsideBench's full statistics against a straightforward one-resample-at-a-time loop.

Workload (protocol section 4 at full size): 10 models x 10 benchmarks x 50 cases, 10,000
resamples, seed 42:

* a percentile interval for every model on every benchmark (100 intervals);
* the stratified overall interval and macro-mean for every model (10);
* the stratified paired difference for each of the 45 model pairs (45);
* the per-benchmark paired difference for each pair on each benchmark (450).

The loop version does the same work the obvious way: for every resample, ``rng.choice`` draws
the cases of one benchmark and Python averages them. It takes minutes, so by default it runs on a
measured subset (one model, one pair) and is extrapolated linearly per kind of work; pass
``--full-loop`` to run all of it.

Targets: full statistics < 1 s on this (2-core) machine, and >= 30x faster than the loop.

    python3 benchmarks/bench_stats.py [--repeats 5] [--full-loop]
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import time
import tracemalloc
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bedside_bench.scoring import stats  # noqa: E402
from bedside_bench.scoring.stats import Interval, PairedResult  # noqa: E402

N_MODELS, N_BENCHMARKS, N_CASES = 10, 10, 50
RESAMPLES, SEED = 10_000, 42
TARGET_SECONDS, TARGET_SPEEDUP = 1.0, 30.0

Scores = list[list[NDArray[np.float64]]]  # [model][benchmark] -> (N_CASES,) case scores
PAIRS = list(itertools.combinations(range(N_MODELS), 2))


def make_scores() -> Scores:
    """Synthetic case scores shaped like rubric fractions, with model and benchmark effects."""
    gen = np.random.default_rng(2024)
    skill = np.linspace(0.45, 0.75, N_MODELS)
    difficulty = gen.normal(0.0, 0.1, N_BENCHMARKS)
    out: Scores = []
    for m in range(N_MODELS):
        row = []
        for b in range(N_BENCHMARKS):
            p = np.clip(skill[m] + difficulty[b] + gen.normal(0, 0.2, N_CASES), 0, 1)
            row.append(np.round(p * 12) / 12)  # e.g. points earned out of 12
        out.append(row)
    return out


@dataclass
class Results:
    per_benchmark: dict[tuple[int, int], Interval]
    overall: dict[int, tuple[float, Interval]]
    paired_overall: dict[tuple[int, int], PairedResult]
    paired_benchmark: dict[tuple[int, int, int], PairedResult]


def full_statistics(scores: Scores) -> Results:
    res = Results({}, {}, {}, {})
    for m in range(N_MODELS):
        for b in range(N_BENCHMARKS):
            res.per_benchmark[m, b] = stats.percentile_bootstrap(scores[m][b], RESAMPLES, SEED)
        res.overall[m] = (
            stats.macro_mean(scores[m]),
            stats.stratified_bootstrap(scores[m], RESAMPLES, SEED),
        )
    for i, j in PAIRS:
        diffs = [scores[i][b] - scores[j][b] for b in range(N_BENCHMARKS)]
        res.paired_overall[i, j] = stats.paired_bootstrap(diffs, RESAMPLES, SEED)
        for b in range(N_BENCHMARKS):
            res.paired_benchmark[i, j, b] = stats.paired_bootstrap_single(diffs[b], RESAMPLES, SEED)
    return res


# --------------------------------------------------------------------------------------------
# The straightforward loop version


def _interval(means: Sequence[float]) -> tuple[float, float]:
    lo, hi = np.percentile(np.asarray(means), [2.5, 97.5])
    return float(lo), float(hi)


def loop_percentile(scores: NDArray[np.float64]) -> tuple[float, float]:
    rng = np.random.default_rng(SEED)
    n = len(scores)
    means = [float(np.mean(rng.choice(scores, size=n, replace=True))) for _ in range(RESAMPLES)]
    return _interval(means)


def loop_stratified(strata: Sequence[NDArray[np.float64]]) -> tuple[float, float]:
    rng = np.random.default_rng(SEED)
    means = []
    for _ in range(RESAMPLES):
        total = 0.0
        for s in strata:
            total += float(np.mean(rng.choice(s, size=len(s), replace=True)))
        means.append(total / len(strata))
    return _interval(means)


@dataclass
class LoopTiming:
    seconds: float  # measured or extrapolated time of the whole workload
    measured_seconds: float
    extrapolated: bool
    max_abs_gap: float  # largest |endpoint difference| from the fast version, on what ran


def loop_statistics(scores: Scores, fast: Results, full: bool) -> LoopTiming:
    """Run the loop version, per kind of work, on all of it or on one model / one pair."""
    models = list(range(N_MODELS)) if full else [0]
    pairs = PAIRS if full else PAIRS[:1]
    gaps: list[float] = []

    def gap(loop_iv: tuple[float, float], fast_iv: Interval) -> None:
        gaps.extend(abs(a - b) for a, b in zip(loop_iv, fast_iv.as_tuple(), strict=True))

    t0 = time.perf_counter()
    for m in models:
        for b in range(N_BENCHMARKS):
            gap(loop_percentile(scores[m][b]), fast.per_benchmark[m, b])
    t1 = time.perf_counter()
    for m in models:
        stats.macro_mean(scores[m])
        gap(loop_stratified(scores[m]), fast.overall[m][1])
    t2 = time.perf_counter()
    all_diffs = {
        (i, j): [scores[i][b] - scores[j][b] for b in range(N_BENCHMARKS)] for i, j in pairs
    }
    for pair in pairs:
        gap(loop_stratified(all_diffs[pair]), fast.paired_overall[pair].interval)
    t3 = time.perf_counter()
    for i, j in pairs:
        for b in range(N_BENCHMARKS):
            gap(loop_percentile(all_diffs[i, j][b]), fast.paired_benchmark[i, j, b].interval)
    t4 = time.perf_counter()

    model_scale = N_MODELS / len(models)
    pair_scale = len(PAIRS) / len(pairs)
    total = (
        (t1 - t0) * model_scale
        + (t2 - t1) * model_scale
        + (t3 - t2) * pair_scale
        + (t4 - t3) * pair_scale
    )
    return LoopTiming(total, t4 - t0, not full, max(gaps))


# --------------------------------------------------------------------------------------------


def time_fast(scores: Scores, repeats: int) -> tuple[list[float], list[float], Results]:
    """Wall and CPU seconds per run; each run starts from an empty index cache, so drawing the
    resample indices is always included. CPU time shows how much of the wall time is this
    process rather than others sharing the machine."""
    wall: list[float] = []
    cpu: list[float] = []
    result = None
    for _ in range(repeats):
        stats.clear_resample_cache()
        t0, c0 = time.perf_counter(), time.process_time()
        result = full_statistics(scores)
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    assert result is not None
    return wall, cpu, result


def peak_memory_mib(scores: Scores) -> float:
    stats.clear_resample_cache()
    tracemalloc.start()
    full_statistics(scores)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="timed runs of the fast version")
    parser.add_argument("--full-loop", action="store_true", help="run the whole loop version")
    args = parser.parse_args(argv)

    scores = make_scores()
    print(
        f"numpy {np.__version__}, python {sys.version.split()[0]}, {os.cpu_count()} CPUs, "
        f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}"
    )
    print(
        f"workload: {N_MODELS} models x {N_BENCHMARKS} benchmarks x {N_CASES} cases, "
        f"{RESAMPLES:,} resamples; {N_MODELS * N_BENCHMARKS} benchmark intervals, "
        f"{N_MODELS} overall, {len(PAIRS)} paired overall, {len(PAIRS) * N_BENCHMARKS} "
        "paired per-benchmark"
    )

    times, cpu, fast = time_fast(scores, args.repeats)
    fast_s = statistics.median(times)
    print(
        f"fast:  median {fast_s:.3f} s wall over {len(times)} cold-cache runs "
        f"(first {times[0]:.3f} s, min {min(times):.3f} s, max {max(times):.3f} s); "
        f"median CPU {statistics.median(cpu):.3f} s; load average {os.getloadavg()[0]:.2f}"
    )
    print(
        f"fast:  peak traced memory {peak_memory_mib(scores):.1f} MiB (tracemalloc, separate run)"
    )

    loop = loop_statistics(scores, fast, args.full_loop)
    if loop.extrapolated:
        print(
            f"loop:  {loop.seconds:.1f} s EXTRAPOLATED linearly from a measured subset of "
            f"{loop.measured_seconds:.1f} s (1 of {N_MODELS} models, 1 of {len(PAIRS)} pairs, "
            "each kind of work scaled by its own count); --full-loop runs it all"
        )
    else:
        print(f"loop:  {loop.seconds:.1f} s measured (full workload)")
    print(
        f"loop vs fast intervals (different random draws): largest endpoint gap "
        f"{loop.max_abs_gap:.4f}"
    )

    speedup = loop.seconds / fast_s
    ok_time = fast_s < TARGET_SECONDS
    ok_speed = speedup >= TARGET_SPEEDUP
    print(f"ratio: {speedup:.0f}x faster")
    print(
        f"{'PASS' if ok_time else 'FAIL'}: full statistics {fast_s:.3f} s "
        f"(target < {TARGET_SECONDS:g} s)"
    )
    print(
        f"{'PASS' if ok_speed else 'FAIL'}: speed-up {speedup:.0f}x (target >= {TARGET_SPEEDUP:g}x)"
    )
    return 0 if ok_time and ok_speed else 1


if __name__ == "__main__":
    raise SystemExit(main())
