"""Known-answer tests for bedside_bench.scoring.stats.

Expected intervals are computed independently here: explicit Python loops over the rows that a
fresh ``default_rng(seed)`` draws, hand-written percentile interpolation, and hand arithmetic for
degenerate inputs.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

import numpy as np
import pytest

from bedside_bench.scoring import stats
from bedside_bench.scoring.stats import (
    Interval,
    PairedResult,
    clear_resample_cache,
    macro_mean,
    paired_bootstrap,
    paired_bootstrap_single,
    percentile_bootstrap,
    stratified_bootstrap,
)


@pytest.fixture(autouse=True)
def _cold_cache() -> Iterator[None]:
    clear_resample_cache()
    yield
    clear_resample_cache()


# ---------------------------------------------------------------------------------------------
# Independent reference implementations


def loop_means(scores: Sequence[float], resamples: int, seed: int) -> list[float]:
    """One resample at a time: the rows a fresh generator draws, each averaged on its own."""
    arr = np.asarray(scores, dtype=np.float64)
    idx = np.random.default_rng(seed).integers(0, arr.size, size=(resamples, arr.size))
    return [float(arr[row].mean()) for row in idx]


def loop_stratified_means(
    strata: Sequence[Sequence[float]], resamples: int, seed: int
) -> list[float]:
    """One generator, strata in order; per resample, the stratum means added left to right."""
    rng = np.random.default_rng(seed)
    per_stratum: list[list[float]] = []
    for s in strata:
        arr = np.asarray(s, dtype=np.float64)
        idx = rng.integers(0, arr.size, size=(resamples, arr.size))
        per_stratum.append([float(arr[row].mean()) for row in idx])
    out = []
    for r in range(resamples):
        total = 0.0
        for means in per_stratum:
            total += means[r]
        out.append(total / len(strata))
    return out


def manual_percentile(values: Sequence[float], q: float) -> float:
    """Linear interpolation between order statistics (numpy's default 'linear' method)."""
    xs = sorted(values)
    pos = q / 100 * (len(xs) - 1)
    below = math.floor(pos)
    above = min(below + 1, len(xs) - 1)
    frac = pos - below
    return xs[below] + (xs[above] - xs[below]) * frac


def manual_interval(means: Sequence[float]) -> tuple[float, float]:
    return manual_percentile(means, 2.5), manual_percentile(means, 97.5)


def numpy_interval(means: Sequence[float]) -> Interval:
    lo, hi = np.percentile(np.asarray(means), [2.5, 97.5])
    return Interval(float(lo), float(hi))


# ---------------------------------------------------------------------------------------------
# percentile_bootstrap


def test_percentile_bootstrap_matches_the_literal_definition_at_full_size() -> None:
    scores = np.random.default_rng(7).random(50)
    rng = np.random.default_rng(42)
    idx = rng.integers(0, 50, size=(10_000, 50))
    means = scores[idx].mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    assert percentile_bootstrap(scores) == Interval(float(lo), float(hi))
    assert percentile_bootstrap(scores, resamples=10_000, seed=42) == percentile_bootstrap(scores)


@pytest.mark.parametrize(("n", "resamples", "seed"), [(2, 40, 42), (7, 300, 0), (50, 500, 2024)])
def test_percentile_bootstrap_matches_a_row_by_row_loop(n: int, resamples: int, seed: int) -> None:
    scores = np.random.default_rng(n).integers(0, 11, size=n) / 10
    means = loop_means(scores.tolist(), resamples, seed)
    got = percentile_bootstrap(scores, resamples=resamples, seed=seed)
    assert got == numpy_interval(means)  # bit for bit
    assert got.as_tuple() == pytest.approx(manual_interval(means), abs=1e-12)


def test_two_point_array_with_four_resamples_enumerated_by_hand() -> None:
    # Scores 0 and 1: each resample mean is (number of index-1 draws) / 2, i.e. 0, 0.5 or 1.
    idx = np.random.default_rng(42).integers(0, 2, size=(4, 2))
    means = sorted(float(row.sum()) / 2 for row in idx)
    # 4 resamples: the 2.5th percentile sits at position 0.075, the 97.5th at 2.925.
    lo = means[0] + 0.075 * (means[1] - means[0])
    hi = means[2] + 0.925 * (means[3] - means[2])
    got = percentile_bootstrap([0.0, 1.0], resamples=4, seed=42)
    assert got.as_tuple() == pytest.approx((lo, hi), abs=1e-15)
    assert set(means) <= {0.0, 0.5, 1.0}


def test_one_resample_gives_that_resample_mean() -> None:
    idx = np.random.default_rng(5).integers(0, 3, size=(1, 3))
    scores = [0.0, 0.5, 1.0]
    mean = sum(scores[i] for i in idx[0]) / 3
    got = percentile_bootstrap(scores, resamples=1, seed=5)
    assert got.lo == got.hi == pytest.approx(mean, abs=1e-15)


def test_constant_scores_collapse() -> None:
    assert percentile_bootstrap([0.75] * 50) == Interval(0.75, 0.75)
    assert percentile_bootstrap([1] * 8, resamples=100) == Interval(1.0, 1.0)


@pytest.mark.parametrize("value", [0.3, 0.0, 1.0, -2.5])
def test_single_case_collapses_to_its_value(value: float) -> None:
    assert percentile_bootstrap([value]) == Interval(value, value)


def test_lists_ints_and_arrays_agree() -> None:
    as_list = [1, 0, 1, 1, 0]
    assert percentile_bootstrap(as_list, 200) == percentile_bootstrap(np.array(as_list, float), 200)


def test_fresh_generator_per_call() -> None:
    scores = np.random.default_rng(3).random(20)
    first = percentile_bootstrap(scores, resamples=500)
    percentile_bootstrap(np.random.default_rng(4).random(33), resamples=500)
    assert percentile_bootstrap(scores, resamples=500) == first
    assert percentile_bootstrap(scores, resamples=500, seed=43) != first


def test_interval_helpers() -> None:
    iv = Interval(0.25, 0.5)
    assert iv.as_tuple() == (0.25, 0.5)
    assert iv.excludes(0.0) and iv.excludes(0.75)
    assert not iv.excludes(0.25) and not iv.excludes(0.5)
    with pytest.raises(AttributeError):
        iv.lo = 0.0  # type: ignore[misc]


@pytest.mark.parametrize(
    ("scores", "message"),
    [
        ([], "empty"),
        ([[0.1, 0.2]], "one-dimensional"),
        ([0.1, float("nan")], "NaN"),
        ([0.1, float("inf")], "NaN or infinite"),
    ],
)
def test_percentile_bootstrap_rejects_bad_scores(scores: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        percentile_bootstrap(scores)  # type: ignore[arg-type]


def test_bad_parameters() -> None:
    with pytest.raises(ValueError, match="resamples must be at least 1"):
        percentile_bootstrap([0.5], resamples=0)
    with pytest.raises(ValueError, match="seed must be non-negative"):
        percentile_bootstrap([0.5], seed=-1)
    with pytest.raises(TypeError):
        percentile_bootstrap([0.5], resamples=10.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        stratified_bootstrap([[0.5]], seed=True)


# ---------------------------------------------------------------------------------------------
# stratified_bootstrap and macro_mean


def test_stratified_of_one_stratum_equals_percentile_bootstrap() -> None:
    scores = np.random.default_rng(11).random(50)
    assert stratified_bootstrap([scores]) == percentile_bootstrap(scores)
    assert stratified_bootstrap([scores], 123, 9) == percentile_bootstrap(scores, 123, 9)


def test_stratified_matches_a_loop_with_strata_of_different_sizes() -> None:
    gen = np.random.default_rng(12)
    strata = [gen.random(n).round(2).tolist() for n in (5, 1, 12, 3, 50, 8, 2, 9, 4, 7)]
    means = loop_stratified_means(strata, 400, 42)
    got = stratified_bootstrap(strata, resamples=400, seed=42)
    assert got == numpy_interval(means)  # bit for bit
    assert got.as_tuple() == pytest.approx(manual_interval(means), abs=1e-12)


def test_stratified_matches_the_stack_then_mean_definition_at_full_size() -> None:
    gen = np.random.default_rng(13)
    strata = [gen.random(50) for _ in range(10)]
    rng = np.random.default_rng(42)
    per_stratum = []
    for s in strata:
        idx = rng.integers(0, s.size, size=(10_000, s.size))
        per_stratum.append(s[idx].mean(axis=1))
    overall = np.mean(np.stack(per_stratum), axis=0)
    lo, hi = np.percentile(overall, [2.5, 97.5])
    assert stratified_bootstrap(strata) == Interval(float(lo), float(hi))


@pytest.mark.parametrize("resamples", [2, 3, 10, 1000])
@pytest.mark.parametrize("n_strata", [2, 9, 10, 37])
def test_running_sum_equals_stack_then_mean(resamples: int, n_strata: int) -> None:
    # The brief asks for the running-sum accumulation to be checked against stack-then-mean.
    # They agree bit for bit whenever there are at least 2 resamples ...
    gen = np.random.default_rng(resamples * 100 + n_strata)
    for _ in range(20):
        per = [gen.random(resamples) * gen.choice([1e-3, 1.0, 1e3]) for _ in range(n_strata)]
        running = per[0].copy()
        for m in per[1:]:
            running += m
        running = running / n_strata
        assert np.array_equal(running, np.mean(np.stack(per), axis=0))


def test_single_resample_follows_stack_then_mean() -> None:
    # ... but with 1 resample numpy reduces the (n_strata, 1) stack pairwise, which can differ
    # from a running sum in the last bit; the module keeps the stack definition (checked here).
    gen = np.random.default_rng(14)
    strata = [gen.random(int(n)) for n in gen.integers(1, 20, size=12)]
    rng = np.random.default_rng(42)
    per = [s[rng.integers(0, s.size, size=(1, s.size))].mean(axis=1) for s in strata]
    expected = float(np.mean(np.stack(per), axis=0)[0])
    assert stratified_bootstrap(strata, resamples=1) == Interval(expected, expected)


def test_stratified_constant_strata_collapse_to_macro_mean() -> None:
    strata = [[1.0] * 4, [0.0] * 6, [0.5] * 2, [0.25]]
    assert stratified_bootstrap(strata) == Interval(0.4375, 0.4375)
    assert macro_mean(strata) == 0.4375


def test_macro_mean_is_not_the_pooled_mean_when_sizes_differ() -> None:
    strata = [[1.0, 1.0, 1.0, 1.0], [0.0]]
    assert macro_mean(strata) == 0.5
    assert float(np.mean(np.concatenate(strata))) == 0.8
    equal = [[1.0, 0.0], [0.5, 0.5]]
    assert macro_mean(equal) == float(np.mean(np.concatenate(equal))) == 0.5


def test_macro_mean_hand_computed() -> None:
    assert macro_mean([[0.5, 1.0], [0.0, 0.0, 0.75]]) == pytest.approx((0.75 + 0.25) / 2)


def test_stratified_interval_contains_macro_mean_for_typical_data() -> None:
    gen = np.random.default_rng(15)
    strata = [gen.random(50) for _ in range(10)]
    iv = stratified_bootstrap(strata)
    assert iv.lo < macro_mean(strata) < iv.hi
    # Stratification leaves less sampling noise than any single 50-case benchmark.
    assert iv.hi - iv.lo < min(
        percentile_bootstrap(s).hi - percentile_bootstrap(s).lo for s in strata
    )


@pytest.mark.parametrize(
    ("strata", "message"),
    [
        ([], r"strata is empty: need at least one stratum"),
        ([[0.5], []], r"strata\[1\] \(stratum 1\) is empty"),
        ([[0.5], [float("nan")]], r"stratum 1\) contains NaN"),
        (np.array([0.5, 0.5]), "sequence of 1-D arrays"),
    ],
)
def test_stratified_rejects_bad_strata(strata: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        stratified_bootstrap(strata)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=message):
        macro_mean(strata)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# Memoised resample indices: never change a result


def test_warm_and_cold_cache_agree() -> None:
    gen = np.random.default_rng(16)
    strata = [gen.random(n) for n in (6, 9, 4)]
    cold = stratified_bootstrap(strata, 300)
    assert stratified_bootstrap(strata, 300) == cold
    clear_resample_cache()
    assert stratified_bootstrap(strata, 300) == cold
    assert cold == numpy_interval(loop_stratified_means([s.tolist() for s in strata], 300, 42))


@pytest.mark.parametrize("dropped", [(3,), (3, 4), (3, 4, 5)])
def test_resuming_after_an_evicted_prefix(dropped: tuple[int, ...]) -> None:
    gen = np.random.default_rng(17)
    strata = [gen.random(n) for n in (3, 4, 5, 6)]
    stratified_bootstrap(strata[:3], 200)  # caches prefixes (3,), (3, 4), (3, 4, 5)
    stats._INDEX_CACHE._entries.pop((42, 200, dropped))
    got = stratified_bootstrap(strata, 200)
    assert got == numpy_interval(loop_stratified_means([s.tolist() for s in strata], 200, 42))


def test_tiny_cache_budget_still_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    gen = np.random.default_rng(18)
    strata = [gen.random(n) for n in (5, 7, 3, 8, 2)]
    expected = numpy_interval(loop_stratified_means([s.tolist() for s in strata], 250, 42))
    # Room for about two index arrays: constant eviction, including of prefixes still needed.
    monkeypatch.setattr(stats, "_INDEX_CACHE", stats._IndexCache(2 * 250 * 8 * 8))
    for _ in range(3):
        assert stratified_bootstrap(strata, 250) == expected
        assert stratified_bootstrap(strata[2:], 250) == numpy_interval(
            loop_stratified_means([s.tolist() for s in strata[2:]], 250, 42)
        )
    monkeypatch.setattr(stats, "_INDEX_CACHE", stats._IndexCache(0))  # caches nothing
    assert stratified_bootstrap(strata, 250) == expected


# ---------------------------------------------------------------------------------------------
# Paired differences


def test_identical_models_give_zero_and_do_not_exclude_zero() -> None:
    gen = np.random.default_rng(19)
    a = [gen.random(50) for _ in range(10)]
    diffs = [s - s for s in a]
    result = paired_bootstrap(diffs)
    assert result == PairedResult(0.0, Interval(0.0, 0.0), False)
    assert paired_bootstrap_single(diffs[0]) == PairedResult(0.0, Interval(0.0, 0.0), False)


@pytest.mark.parametrize("shift", [0.25, -0.125])
def test_constant_shift_collapses_to_the_shift(shift: float) -> None:
    gen = np.random.default_rng(20)
    b = [np.round(gen.random(n) * 8) / 8 for n in (50, 30, 50)]  # exact in binary
    diffs = [(s + shift) - s for s in b]
    assert paired_bootstrap(diffs) == PairedResult(shift, Interval(shift, shift), True)
    assert paired_bootstrap_single(diffs[1]) == PairedResult(shift, Interval(shift, shift), True)


def test_non_binary_constant_shift_collapses_to_within_rounding() -> None:
    gen = np.random.default_rng(21)
    b = [gen.random(50) for _ in range(10)]
    result = paired_bootstrap([(s + 0.1) - s for s in b])
    assert result.estimate == pytest.approx(0.1, abs=1e-12)
    assert result.interval.as_tuple() == pytest.approx((0.1, 0.1), abs=1e-12)
    assert result.excludes_zero


def test_paired_is_the_stratified_algorithm_on_differences() -> None:
    gen = np.random.default_rng(22)
    a = [gen.random(n) for n in (50, 48, 50)]
    b = [gen.random(n) for n in (50, 48, 50)]
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    result = paired_bootstrap(diffs, resamples=700, seed=3)
    assert result.interval == stratified_bootstrap(diffs, resamples=700, seed=3)
    assert result.interval == numpy_interval(
        loop_stratified_means([d.tolist() for d in diffs], 700, 3)
    )
    assert result.estimate == macro_mean(diffs)
    assert result.excludes_zero == (result.interval.lo > 0 or result.interval.hi < 0)


def test_paired_single_is_percentile_bootstrap_on_differences() -> None:
    gen = np.random.default_rng(23)
    d = gen.random(50) - gen.random(50) + 0.3
    result = paired_bootstrap_single(d)
    assert result.interval == percentile_bootstrap(d)
    assert result.interval == numpy_interval(loop_means(d.tolist(), 10_000, 42))
    assert result.estimate == float(np.mean(d))
    assert result.excludes_zero  # a clear 0.3 advantage on 50 cases
    assert paired_bootstrap([d]) == result


def test_paired_rejects_empty_strata() -> None:
    with pytest.raises(ValueError, match="differences_by_stratum is empty"):
        paired_bootstrap([])
    with pytest.raises(ValueError, match=r"differences_by_stratum\[2\] \(stratum 2\) is empty"):
        paired_bootstrap([[0.1], [0.2], []])
    with pytest.raises(ValueError, match="differences is empty"):
        paired_bootstrap_single([])
