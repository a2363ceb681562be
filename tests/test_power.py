"""The paired cases a difference needs (`scoring/power.py`): hand-computed values, the formula
read back from the interval it sits beside, and by simulation: runs of that many cases detect a
true difference of that size about 80% of the time (the protocol's own paired interval decides)."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest
from numpy.typing import NDArray

from bedside_bench.scoring.power import MIN_PER_STRATUM, cases_for_power, z_sum
from bedside_bench.scoring.stats import paired_bootstrap, paired_bootstrap_single
from tests.report_helpers import expected_cases_needed


def test_z_sum_is_the_textbook_2_80() -> None:
    assert z_sum() == pytest.approx(1.959963984540054 + 0.8416212335729143, abs=1e-12)


def test_one_benchmark_by_hand() -> None:
    # mean 0.15, sample variance 0.05 / 3: n = 2.8016**2 * (0.05 / 3) / 0.15**2 = 5.81 -> 6
    diffs = [0.1, 0.3, 0.2, 0.0]
    by_hand = math.ceil(z_sum() ** 2 * (0.05 / 3) / 0.15**2)
    assert by_hand == 6
    assert cases_for_power([diffs]) == by_hand == expected_cases_needed([diffs])


def test_strata_grow_in_proportion() -> None:
    rng = np.random.default_rng(1)
    strata = [rng.normal(0.03, s, n) for s, n in ((0.1, 20), (0.3, 35), (0.2, 12))]
    got = cases_for_power(strata)
    assert got == expected_cases_needed([list(s) for s in strata])
    # the same by hand: the macro-average's variance, a release f times as large
    d = statistics.fmean(statistics.fmean(s) for s in strata)
    var = sum(statistics.variance(s) / len(s) for s in strata) / 9
    assert got == math.ceil(z_sum() ** 2 * var / d**2 * 67)


def test_undefined_and_smallest_answers() -> None:
    assert cases_for_power([[0.2, -0.2]]) is None  # a difference of exactly 0
    assert cases_for_power([[0.1, 0.3], [0.4]]) is None  # a stratum without a variance
    assert cases_for_power([]) is None
    # every difference the same: no spread, yet a variance needs two cases a stratum
    assert cases_for_power([[0.1, 0.1], [0.2, 0.2, 0.2]]) == 2 * MIN_PER_STRATUM
    with pytest.raises(ValueError, match="NaN or infinite"):
        cases_for_power([[0.1, math.nan]])


def test_equal_means_of_fractions_need_no_number_of_cases() -> None:
    """Two models with the same case scores on other cases have equal means, yet the float
    differences of these fractions sum to about -2e-17: a zero within rounding is a zero, not
    a request for some 10**33 cases."""
    a = [1 / 7, 2 / 3, 3 / 7, 6 / 7, 0.0]
    b = [3 / 7, 6 / 7, 0.0, 1 / 7, 2 / 3]
    differences = [x - y for x, y in zip(a, b, strict=True)]
    assert sum(differences) != 0.0  # the rounding the guard is for
    assert cases_for_power([differences]) is None
    assert cases_for_power([differences, [0.1, 0.3]]) is not None  # a real difference stays


def test_close_to_the_normal_approximation_from_its_own_interval() -> None:
    """Read the standard error off the protocol's paired interval (its width / 3.92): the
    cases needed from it are within 10% of the figure from the differences' variance."""
    rng = np.random.default_rng(7)
    strata = [np.clip(rng.normal(0.03, 0.25, 25), -1, 1) for _ in range(10)]
    result = paired_bootstrap(strata)
    se = (result.interval.hi - result.interval.lo) / (2 * 1.959963984540054)
    from_interval = 250 * (z_sum() * se / result.estimate) ** 2
    needed = cases_for_power(strata)
    assert needed is not None
    assert needed == pytest.approx(from_interval, rel=0.10)


# --------------------------------------------------------------------------------------------
# by simulation


def population(rng: np.random.Generator, difference: float, size: int) -> NDArray[np.float64]:
    """Paired differences of two models' case scores in [0, 1] (a model `difference` better
    on average), many of them exactly 0 as real ones are."""
    a = rng.beta(2, 2, size)
    shift = rng.choice([0.0, 2 * difference, 4 * difference], size, p=[0.5, 0.25, 0.25])
    b = np.clip(a - shift + rng.normal(0, 0.15, size) * (rng.random(size) < 0.5), 0, 1)
    return np.asarray(a - b, dtype=np.float64)


def detected(rates: list[bool]) -> float:
    return sum(rates) / len(rates)


def test_runs_of_that_size_detect_the_difference_80_percent_of_the_time() -> None:
    rng = np.random.default_rng(11)
    truth = population(rng, 0.015, 200_000)
    needed = cases_for_power([truth])  # the population's own difference and spread
    assert needed is not None and 100 < needed < 1_000
    hits = [
        paired_bootstrap_single(rng.choice(truth, needed), 500, 42).interval.lo > 0
        for _ in range(500)
    ]
    assert 0.74 <= detected(hits) <= 0.86, (needed, detected(hits))


def test_stratified_runs_of_that_size_detect_the_difference_80_percent_of_the_time() -> None:
    rng = np.random.default_rng(12)
    truths = [population(rng, d, 20_000) for d in np.linspace(-0.005, 0.02, 10)]
    needed = cases_for_power(truths)  # every benchmark in the same proportion: equal sizes
    assert needed is not None and 400 < needed < 2_000
    per_benchmark = math.ceil(needed / len(truths))
    hits = [
        paired_bootstrap([rng.choice(t, per_benchmark) for t in truths], 400, 42).interval.lo > 0
        for _ in range(500)
    ]
    assert 0.74 <= detected(hits) <= 0.86, (needed, detected(hits))


def test_a_skewed_pair_not_distinguishable_can_need_fewer_than_twice_its_cases() -> None:
    """The verdict reads the percentile interval, the count the normal approximation: on
    strongly skewed differences they part, as docs/statistics.md says with this very example."""
    differences = [0.2] * 19 + [-0.66] * 2
    interval = paired_bootstrap_single(differences).interval  # the protocol's 10,000, seed 42
    assert interval.lo < 0 < interval.hi  # not distinguishable
    assert (round(interval.lo, 3), round(interval.hi, 3)) == (-0.005, 0.2)
    se = statistics.stdev(differences) / math.sqrt(21)
    assert statistics.fmean(differences) / se > 1.96  # yet beyond 1.96 normal errors
    assert cases_for_power([differences]) == 38  # 1.8 times its 21, not more than 2.04
