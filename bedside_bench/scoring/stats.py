"""Bootstrap intervals for BedsideBench (grading protocol section 4); agreement statistics are
in `bedside_bench.scoring.agreement`.

One module past 300 lines because the bootstrap functions and the index cache they share
implement one reproducibility contract (the exact draws below), best read and changed together.

Everything here is a pure function of its inputs: plain arrays or lists in, floats and frozen
dataclasses out, no I/O. The bootstrap algorithms are specified exactly, including the random
draws, so that anyone with the same numpy version can reproduce every reported number bit for
bit:

* one benchmark (``percentile_bootstrap``): ``rng = numpy.random.default_rng(seed)``;
  ``idx = rng.integers(0, n, size=(resamples, n))``; ``means = scores[idx].mean(axis=1)``;
  ``lo, hi = numpy.percentile(means, [2.5, 97.5])``.
* overall (``stratified_bootstrap``): ONE ``default_rng(seed)``; for each stratum in the given
  order ``idx_b = rng.integers(0, n_b, size=(resamples, n_b))`` and
  ``means_b = strata[b][idx_b].mean(axis=1)``; the resampled overall score is
  ``numpy.mean(numpy.stack([means_0, means_1, ...]), axis=0)`` (the macro-average), and the
  interval is its 2.5th and 97.5th percentile.

Order is part of that contract: the order of the strata (callers pass benchmarks in registry
order) and the order of cases inside each array both decide which case each drawn index picks.

Numpy's ``Generator`` streams are not promised to be identical across numpy releases, so record
the numpy version next to published intervals.
"""

from __future__ import annotations

import operator
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bedside_bench.core.protocol import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED

__all__ = [
    "Interval",
    "PairedResult",
    "case_indices",
    "clear_resample_cache",
    "macro_mean",
    "paired_bootstrap",
    "paired_bootstrap_single",
    "percentile_bootstrap",
    "percentile_interval",
    "stratified_bootstrap",
]

_PERCENTILES = (2.5, 97.5)


@dataclass(frozen=True)
class Interval:
    """A percentile 95% bootstrap interval; ``lo <= hi`` always."""

    lo: float
    hi: float

    def as_tuple(self) -> tuple[float, float]:
        """``(lo, hi)``, for callers that serialise or unpack intervals."""
        return (self.lo, self.hi)

    def excludes(self, value: float) -> bool:
        """True when ``value`` lies strictly outside the closed interval."""
        return value < self.lo or value > self.hi


@dataclass(frozen=True)
class PairedResult:
    """A paired comparison of model A against model B (A minus B).

    ``estimate`` is the observed mean difference (macro-averaged over strata when stratified);
    ``excludes_zero`` says whether the interval lies entirely on one side of zero, the usual
    reading of "A and B differ beyond case-sampling noise".
    """

    estimate: float
    interval: Interval
    excludes_zero: bool


# --------------------------------------------------------------------------------------------
# Input validation


def _as_scores(values: ArrayLike, what: str) -> NDArray[np.float64]:
    """A 1-D, non-empty, finite float64 array; failing loudly beats a silent NaN interval."""
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 1:
        raise ValueError(f"{what} must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{what} is empty: a bootstrap needs at least one case score")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{what} contains NaN or infinite values; drop incomplete cases first")
    return arr


def _as_strata(strata: Sequence[ArrayLike], what: str) -> list[NDArray[np.float64]]:
    if isinstance(strata, np.ndarray) and strata.ndim == 1:
        raise ValueError(
            f"{what} must be a sequence of 1-D arrays (one per stratum), not one array"
        )
    if len(strata) == 0:
        raise ValueError(f"{what} is empty: need at least one stratum")
    return [_as_scores(s, f"{what}[{b}] (stratum {b})") for b, s in enumerate(strata)]


def _check_params(resamples: int, seed: int) -> tuple[int, int]:
    if isinstance(resamples, bool) or isinstance(seed, bool):
        raise TypeError("resamples and seed must be integers, not booleans")
    resamples = operator.index(resamples)
    seed = operator.index(seed)
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    if seed < 0:
        raise ValueError(f"seed must be non-negative, got {seed}")
    return resamples, seed


# --------------------------------------------------------------------------------------------
# Resample indices
#
# The drawn indices depend only on (seed, resamples, stratum sizes so far), never on the scores,
# so every model (and every model pair) with complete benchmarks uses the very same index
# arrays. Drawing them is about two thirds of the cost of an interval, so they are memoised;
# the cached values are exactly what a fresh generator would draw, so results do not change.

_Key = tuple[int, int, tuple[int, ...]]
_CACHE_BUDGET_BYTES = 64 * 1024 * 1024  # 16 arrays of (10_000, 50) int64


class _IndexCache:
    """LRU of index arrays plus the generator state after each draw, bounded in bytes.

    The arrays stay private (never returned to callers) and writable: ``np.take`` copies
    read-only index arrays, which would cost more than the cache saves.
    """

    def __init__(self, budget_bytes: int) -> None:
        self._budget = budget_bytes
        self._bytes = 0
        self._entries: OrderedDict[_Key, tuple[NDArray[np.int64], Mapping[str, Any]]] = (
            OrderedDict()
        )
        self._lock = threading.Lock()

    def get(self, key: _Key) -> tuple[NDArray[np.int64], Mapping[str, Any]] | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
            return entry

    def put(self, key: _Key, idx: NDArray[np.int64], state: Mapping[str, Any]) -> None:
        if idx.nbytes > self._budget:
            return
        with self._lock:
            if key in self._entries:
                return
            self._entries[key] = (idx, state)
            self._bytes += idx.nbytes
            while self._bytes > self._budget:
                _, (old, _) = self._entries.popitem(last=False)
                self._bytes -= old.nbytes

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0


_INDEX_CACHE = _IndexCache(_CACHE_BUDGET_BYTES)


def clear_resample_cache() -> None:
    """Forget memoised resample indices (for cold-start timing; results never depend on it)."""
    _INDEX_CACHE.clear()


def _stratum_indices(
    sizes: tuple[int, ...], resamples: int, seed: int
) -> Iterator[NDArray[np.int64]]:
    """Yield each ``idx_b`` exactly as one ``default_rng(seed)`` drawing in stratum order would.

    A cache entry for the prefix ``sizes[:b + 1]`` holds ``idx_b`` and the generator state after
    drawing it, so a miss part-way resumes the stream from the previous entry's state.
    """
    rng: np.random.Generator | None = None
    state: Mapping[str, Any] | None = None
    for b, n_b in enumerate(sizes):
        key: _Key = (seed, resamples, sizes[: b + 1])
        hit = _INDEX_CACHE.get(key)
        if hit is not None:
            idx, state = hit
            rng = None  # resume from ``state`` if a later stratum misses
            yield idx
            continue
        if rng is None:
            rng = np.random.default_rng(seed)
            if state is not None:
                rng.bit_generator.state = state
        idx = rng.integers(0, n_b, size=(resamples, n_b))
        _INDEX_CACHE.put(key, idx, rng.bit_generator.state)
        yield idx


def case_indices(sizes: Sequence[int], resamples: int, seed: int) -> list[NDArray[np.int64]]:
    """The protocol's case draws for strata of these sizes, in order: exactly the ``idx_b`` the
    intervals here use. The joint intervals (``scoring.joint``) resample these same cases and
    differ from the protocol's only by what they draw within a case. The arrays are the
    memoised ones: read them, never write to them."""
    resamples, seed = _check_params(resamples, seed)
    return list(_stratum_indices(tuple(operator.index(n) for n in sizes), resamples, seed))


def _resample_means(scores: NDArray[np.float64], idx: NDArray[np.int64]) -> NDArray[np.float64]:
    # ``np.take`` picks exactly the values ``scores[idx]`` does, somewhat faster.
    means: NDArray[np.float64] = np.take(scores, idx).mean(axis=1)
    return means


def _percentile_interval(means: NDArray[np.float64]) -> Interval:
    lo, hi = np.percentile(means, _PERCENTILES)
    return Interval(float(lo), float(hi))


def percentile_interval(means: ArrayLike) -> Interval:
    """The 2.5th and 97.5th percentiles of resampled means (numpy's default interpolation)."""
    return _percentile_interval(np.asarray(means, dtype=np.float64))


def _stratified_resample_means(
    strata: list[NDArray[np.float64]], resamples: int, seed: int
) -> NDArray[np.float64]:
    """Macro-averaged resample means, shape ``(resamples,)``.

    Strata are processed one at a time, so only one stratum's ``(resamples, n_b)`` arrays exist at
    once; the ``(n_strata, resamples)`` table of stratum means is kept (800 kB for 10 x 10,000)
    and averaged with ``mean(axis=0)`` so the result is bit-identical to the stack-then-mean
    definition. A running sum agrees for resamples >= 2 but not always for resamples == 1,
    where numpy switches that reduction to pairwise summation.
    """
    sizes = tuple(int(s.size) for s in strata)
    per_stratum = np.empty((len(strata), resamples), dtype=np.float64)
    for b, idx in enumerate(_stratum_indices(sizes, resamples, seed)):
        per_stratum[b] = _resample_means(strata[b], idx)
    overall: NDArray[np.float64] = per_stratum.mean(axis=0)
    return overall


# --------------------------------------------------------------------------------------------
# Public bootstrap API


def percentile_bootstrap(
    scores: ArrayLike, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED
) -> Interval:
    """Percentile 95% interval for the mean of one benchmark's case scores.

    Resamples cases with replacement using a fresh ``default_rng(seed)`` per call, so each
    benchmark's interval is reproducible on its own. One case gives a zero-width interval.
    """
    arr = _as_scores(scores, "scores")
    resamples, seed = _check_params(resamples, seed)
    (idx,) = _stratum_indices((int(arr.size),), resamples, seed)
    return _percentile_interval(_resample_means(arr, idx))


def macro_mean(strata: Sequence[ArrayLike]) -> float:
    """Point estimate for the overall score: the mean of the per-stratum (benchmark) means.

    Every benchmark weighs the same whatever its number of completed cases, which is why this
    can differ from the pooled mean of all cases when strata differ in size.
    """
    arrays = _as_strata(strata, "strata")
    stratum_means = np.array([a.mean() for a in arrays], dtype=np.float64)
    return float(stratum_means.mean())


def stratified_bootstrap(
    strata: Sequence[ArrayLike], resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED
) -> Interval:
    """Percentile 95% interval for the macro-averaged score across strata (benchmarks).

    Cases are resampled independently within each stratum, mirroring how the benchmark was
    built (a fixed number of cases per benchmark), then the stratum means are macro-averaged.
    Pass strata in registry order: one generator is shared, so order changes the draws.
    """
    arrays = _as_strata(strata, "strata")
    resamples, seed = _check_params(resamples, seed)
    return _percentile_interval(_stratified_resample_means(arrays, resamples, seed))


def _paired(estimate: float, interval: Interval) -> PairedResult:
    return PairedResult(estimate=estimate, interval=interval, excludes_zero=interval.excludes(0.0))


def paired_bootstrap(
    differences_by_stratum: Sequence[ArrayLike],
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> PairedResult:
    """Stratified paired comparison from per-case differences (A score minus B score).

    Each array holds one stratum's differences on the cases both models completed, in case
    order. Resampling the differences (rather than each model separately) keeps the pairing,
    so case difficulty shared by both models cancels out of the interval.
    """
    arrays = _as_strata(differences_by_stratum, "differences_by_stratum")
    resamples, seed = _check_params(resamples, seed)
    interval = _percentile_interval(_stratified_resample_means(arrays, resamples, seed))
    return _paired(macro_mean(arrays), interval)


def paired_bootstrap_single(
    differences: ArrayLike, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED
) -> PairedResult:
    """Paired comparison on one benchmark: ``percentile_bootstrap`` of the per-case differences."""
    arr = _as_scores(differences, "differences")
    return _paired(float(arr.mean()), percentile_bootstrap(arr, resamples, seed))
