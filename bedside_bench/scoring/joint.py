"""Intervals over cases and what varies within a case: judge passes, epochs (pure functions).

The protocol's intervals (`stats`) resample cases and take each case's score as it is. When a
run judged every answer more than once (`judge_passes`) or answered every case more than once
(`--epochs`), a case holds several draws of the same thing, and these intervals resample them
too: a two-stage bootstrap. Stage one is the protocol's own case draws (`stats.case_indices`,
the very indices of the protocol's interval); stage two, for every drawn case, draws its passes
(or its epochs) with replacement from a second generator. So when a case's passes all agree,
the second stage changes nothing and the interval is the protocol's, bit for bit.

The draws, exactly (docs/statistics.md says the same in words):

* ``rng_w = numpy.random.default_rng([seed, 1])``: one generator for the within-case draws,
  fresh per interval, shared across strata in stratum order (as the protocol's one generator
  is for the overall interval).
* for each stratum, with ``idx`` its protocol draws ``(resamples, n)``, in blocks of 1,000
  resamples in order, and in each block for each source in order (one model; for a paired
  difference, A then B), with ``Y = epoch_scores[idx]`` ``(r, n, E)``:
  - if the source has K > 1 passes: ``u = rng_w.integers(0, K**K, size=(r, n, E))``, one
    ordered draw of K passes with replacement per drawn case and epoch (the base-K digits of
    ``u``, most significant first, are the passes drawn), and ``V = Y + m(drawn) - m(all)``,
    ``m`` the mean of pass scores added left to right; else ``V = Y``;
  - over epochs: ``e = rng_w.integers(0, E, size=(r, n, E))`` and ``V = V[e]`` (the drawn
    epochs);
  - the case's shift is ``m(V) - m(Y)`` (one epoch: ``V - Y``), added with the source's sign
    (+1 for a model or A, -1 for B). Over the judge, a source without passes draws nothing.
* each resample's mean is ``(scores[idx] + shift).mean(axis=1)``; strata are macro-averaged as
  the protocol does; a mean score lies in [0, 1] (a difference in [-1, 1]), so each resampled
  mean is kept there (``clip``); the interval is the 2.5th and 97.5th percentile.

A drawn case moves by how far its drawn passes' mean lies from its passes' mean: a shift of mean
zero, so the interval stays on the reported score (which combines passes by majority, not by
their mean). A case moved below 0 or above 1 is left there (clipping it would push the interval
off the reported score near the bounds); only the resampled means are kept in their range.
What it is not: under independent judge calls each case score already carries its own judge
noise, so the protocol's interval already covers the expected score under this judge; this
one resamples that noise a second time and is wider than it needs to be (docs/statistics.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bedside_bench.core.protocol import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED
from bedside_bench.scoring.stats import Interval, case_indices, percentile_interval

__all__ = [
    "BLOCK",
    "Over",
    "WithinCase",
    "joint_bootstrap",
    "joint_paired_bootstrap",
    "joint_paired_bootstrap_single",
    "joint_stratified_bootstrap",
]

# what the second stage resamples: each case's judge passes (in every epoch), or its epochs
# (and, where it has several passes, each drawn epoch's passes: everything the run measured)
Over = Literal["judge", "epochs"]
OVER: tuple[Over, ...] = ("judge", "epochs")

# resamples drawn at once: bounds memory at (BLOCK, n, epochs, passes) whatever `resamples`
BLOCK = 1_000
# the within-case generator is default_rng([seed, WITHIN_STREAM]), never the cases' stream
WITHIN_STREAM = 1
# where a mean score lies, and a difference of two
SCORE_RANGE = (0.0, 1.0)
DIFFERENCE_RANGE = (-1.0, 1.0)
# the most judge passes a draw can be coded for: K**K must be an int64 (15**15 < 2**63)
MAX_PASSES = 15
# (case, epoch) rows times K**K draws up to which every draw's value is tabulated once
TABLE_ENTRIES = 1 << 20


def _finite(values: ArrayLike, ndim: int, what: str) -> NDArray[np.float64]:
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != ndim:
        raise ValueError(f"{what} must have {ndim} dimensions, got shape {arr.shape}")
    if 0 in arr.shape:
        raise ValueError(f"{what} is empty (shape {arr.shape})")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{what} contains NaN or infinite values")
    return arr


def _case_scores(values: ArrayLike, ndim: int, what: str) -> NDArray[np.float64]:
    """Case scores lie in [0, 1] (protocol section 3): the moved ones are kept there too."""
    arr = _finite(values, ndim, what)
    if np.any(arr < 0) or np.any(arr > 1):
        raise ValueError(f"{what} must lie within [0, 1] (they are case scores)")
    return arr


@dataclass(frozen=True)
class WithinCase:
    """What each case of one model holds within it, in case order: its score in every epoch,
    shape ``(n, E)`` (one epoch: ``(n, 1)``), and with several judge passes every epoch's
    per-pass scores, shape ``(n, E, K)`` (None: one pass, or none recorded)."""

    epoch_scores: NDArray[np.float64]
    pass_scores: NDArray[np.float64] | None = None

    @classmethod
    def of(cls, epoch_scores: ArrayLike, pass_scores: ArrayLike | None = None) -> WithinCase:
        """Checked arrays: finite, non-empty, and pass scores shaped as the epochs are."""
        epochs = _case_scores(epoch_scores, 2, "epoch_scores")
        passes = None if pass_scores is None else _case_scores(pass_scores, 3, "pass_scores")
        if passes is not None and passes.shape[:2] != epochs.shape:
            raise ValueError(
                f"pass_scores shape {passes.shape} does not match epoch_scores {epochs.shape}"
            )
        if passes is not None and passes.shape[-1] > MAX_PASSES:
            raise ValueError(f"at most {MAX_PASSES} judge passes, got {passes.shape[-1]}")
        return cls(epochs, passes)

    @property
    def n(self) -> int:
        return int(self.epoch_scores.shape[0])


def _mean_last(values: NDArray[np.float64]) -> NDArray[np.float64]:
    """The mean over the last axis, added left to right: one order for the drawn passes and for
    all of them, so equal passes give exactly equal means (and a shift of exactly 0)."""
    total = values[..., 0].copy()
    for k in range(1, values.shape[-1]):
        total += values[..., k]
    result: NDArray[np.float64] = total / values.shape[-1]
    return result


def _digits(codes: NDArray[np.int64], passes: int) -> list[NDArray[np.int64]]:
    """The passes an ordered draw picks: the base-K digits of its code, most significant first."""
    return [(codes // passes ** (passes - 1 - k)) % passes for k in range(passes)]


def _drawn_minus_all(
    pass_scores: NDArray[np.float64], at: NDArray[np.int64], codes: NDArray[np.int64]
) -> NDArray[np.float64]:
    """Mean of the drawn passes minus mean of all passes, for (case, epoch) rows ``at`` of
    ``pass_scores`` reshaped to ``(n * E, K)`` and their draws ``codes``.

    With few draws possible the value of every (row, code) is tabulated once and looked up;
    otherwise the digits are taken per draw. Both add the same numbers in the same order, so
    they agree to the last bit."""
    rows = pass_scores.reshape(-1, pass_scores.shape[-1])
    passes = rows.shape[-1]
    everything = _mean_last(rows)
    if rows.shape[0] * passes**passes <= TABLE_ENTRIES:
        all_codes = np.arange(passes**passes, dtype=np.int64)
        drawn = np.stack([rows[:, d] for d in _digits(all_codes, passes)], axis=-1)
        table = _mean_last(drawn) - everything[:, None]  # (n * E, K**K)
        found: NDArray[np.float64] = np.take(table, at * passes**passes + codes)
        return found
    drawn = np.stack([np.take(rows, at * passes + d) for d in _digits(codes, passes)], axis=-1)
    moved: NDArray[np.float64] = _mean_last(drawn) - np.take(everything, at)
    return moved


def _shift(
    source: WithinCase,
    cases: NDArray[np.int64],
    over: Over,
    rng: np.random.Generator,
) -> NDArray[np.float64]:
    """How far the second stage moves each drawn case, shape ``cases.shape``."""
    y = source.epoch_scores[cases]  # (r, n, E)
    v = y
    if source.pass_scores is not None:
        n, epochs, passes = source.pass_scores.shape
        codes = rng.integers(0, passes**passes, size=y.shape)
        at = cases[..., None] * epochs + np.arange(epochs, dtype=np.int64)
        v = y + _drawn_minus_all(source.pass_scores, at, codes)
    if over == "epochs":
        e = rng.integers(0, y.shape[-1], size=y.shape)
        v = np.take_along_axis(v, e, axis=-1)
    if y.shape[-1] == 1:  # one epoch: the mean of one value is that value
        one: NDArray[np.float64] = v[..., 0] - y[..., 0]
        return one
    shift: NDArray[np.float64] = _mean_last(v) - _mean_last(y)
    return shift


def _check_sources(
    scores: NDArray[np.float64], sources: Sequence[tuple[float, WithinCase]], over: Over, b: int
) -> None:
    if over not in OVER:
        raise ValueError(f"over must be one of {', '.join(OVER)}, got {over!r}")
    for _, source in sources:
        if source.n != scores.size:
            raise ValueError(
                f"stratum {b}: {source.n} cases within, {scores.size} case scores: they must "
                "be the same cases in the same order"
            )


def _joint_means(
    strata: Sequence[NDArray[np.float64]],
    sources: Sequence[Sequence[tuple[float, WithinCase]]],
    over: Over,
    resamples: int,
    seed: int,
    bounds: tuple[float, float] = SCORE_RANGE,
) -> NDArray[np.float64]:
    """Macro-averaged resample means, shape ``(resamples,)``, as the module docstring says."""
    indices = case_indices([s.size for s in strata], resamples, seed)
    rng = np.random.default_rng([seed, WITHIN_STREAM])
    per_stratum = np.empty((len(strata), resamples), dtype=np.float64)
    for b, (scores, idx) in enumerate(zip(strata, indices, strict=True)):
        _check_sources(scores, sources[b], over, b)
        # `over="judge"` with no source holding passes leaves every case as it is
        moved = np.zeros(idx.shape, dtype=np.float64)
        for start in range(0, resamples, BLOCK):
            cases = idx[start : start + BLOCK]
            for sign, source in sources[b]:
                if over == "judge" and source.pass_scores is None:
                    continue
                moved[start : start + BLOCK] += sign * _shift(source, cases, over, rng)
        per_stratum[b] = (np.take(scores, idx) + moved).mean(axis=1)
    means: NDArray[np.float64] = np.clip(per_stratum.mean(axis=0), *bounds)
    return means


def _scores(values: ArrayLike, what: str) -> NDArray[np.float64]:
    return _finite(values, 1, what)


def joint_bootstrap(
    scores: ArrayLike,
    within: WithinCase,
    over: Over,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> Interval:
    """One benchmark's interval over its cases and, within each drawn case, its judge passes
    or epochs (`over`); the protocol's `percentile_bootstrap` when nothing varies within."""
    arr = _scores(scores, "scores")
    return percentile_interval(_joint_means([arr], [[(1.0, within)]], over, resamples, seed))


def joint_stratified_bootstrap(
    strata: Sequence[ArrayLike],
    within: Sequence[WithinCase],
    over: Over,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> Interval:
    """The overall (macro-average) interval, stratified as the protocol's; strata and their
    `within` in registry order."""
    arrays = [_scores(s, f"strata[{b}]") for b, s in enumerate(strata)]
    if len(within) != len(arrays) or not arrays:
        raise ValueError("need one WithinCase per stratum, and at least one stratum")
    sources = [[(1.0, w)] for w in within]
    return percentile_interval(_joint_means(arrays, sources, over, resamples, seed))


def joint_paired_bootstrap_single(
    differences: ArrayLike,
    within_a: WithinCase,
    within_b: WithinCase,
    over: Over,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> Interval:
    """A minus B on one benchmark: the paired cases drawn once, then A's and B's passes (or
    epochs) each drawn on their own: the two models were judged by separate calls."""
    arr = _scores(differences, "differences")
    sources = [[(1.0, within_a), (-1.0, within_b)]]
    means = _joint_means([arr], sources, over, resamples, seed, DIFFERENCE_RANGE)
    return percentile_interval(means)


def joint_paired_bootstrap(
    differences_by_stratum: Sequence[ArrayLike],
    within_a: Sequence[WithinCase],
    within_b: Sequence[WithinCase],
    over: Over,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> Interval:
    """A minus B overall, stratified as the protocol's paired interval."""
    arrays = [
        _scores(s, f"differences_by_stratum[{b}]") for b, s in enumerate(differences_by_stratum)
    ]
    if not (len(within_a) == len(within_b) == len(arrays)) or not arrays:
        raise ValueError("need one WithinCase per stratum for each model, and a stratum")
    sources = [[(1.0, a), (-1.0, b)] for a, b in zip(within_a, within_b, strict=True)]
    means = _joint_means(arrays, sources, over, resamples, seed, DIFFERENCE_RANGE)
    return percentile_interval(means)
