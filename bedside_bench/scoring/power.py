"""How many paired cases a difference needs to be detected (pure functions).

The normal approximation to the protocol's paired interval: a difference D whose estimate has
standard error SE is detected (its 95% interval excludes 0) with 80% power when
``|D| = (z_0.975 + z_0.80) * SE``. With the overall score stratified as the protocol's interval
is, ``SE**2 = sum_b(s_b**2 / n_b) / B**2`` (``s_b`` the sample standard deviation of stratum
b's paired differences, ``n_b`` its paired cases, ``B`` the strata): a release ``f`` times as
large, every benchmark in the same proportion, has ``SE**2 / f``, so it needs
``f = (z_0.975 + z_0.80)**2 * SE**2 / D**2`` times the cases. One stratum is the textbook
``n = (z_0.975 + z_0.80)**2 * s**2 / D**2``.

It reads the observed difference as if it were the true one, so it says how many cases a
difference of that size needs, not that the true difference is that size. A difference within
1.96 standard errors of 0 (``|D| < 1.96 SE``) needs at least ``(2.80 / 1.96)**2``, about 2.04,
times its cases; the verdict reads the percentile interval instead, which on strongly skewed
differences can contain 0 beyond that (docs/statistics.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["POWER", "LEVEL", "cases_for_power", "z_sum"]

POWER = 0.80
LEVEL = 0.05  # two-sided
# a variance needs two cases: no stratum is ever asked for fewer
MIN_PER_STRATUM = 2
# a difference this close to 0 is 0: case scores are fractions (2/3, 3/7) whose float sums
# round, so two equal means can differ by ~1e-17, and dividing by its square would ask for
# some 10**33 cases
ZERO_DIFFERENCE = 1e-12


def z_sum(power: float = POWER, level: float = LEVEL) -> float:
    """``z_(1 - level/2) + z_power``: 1.960 + 0.842 = 2.802 for 80% power at the 5% level."""
    normal = NormalDist()
    return normal.inv_cdf(1 - level / 2) + normal.inv_cdf(power)


def cases_for_power(
    differences_by_stratum: Sequence[ArrayLike], power: float = POWER, level: float = LEVEL
) -> int | None:
    """Paired cases (all strata together) that detect the observed macro-averaged difference
    with `power` at the two-sided `level`, strata grown in proportion; at least two per
    stratum. None when it is not defined: a stratum with fewer than two paired cases (no
    variance), or a difference of 0 within rounding (`ZERO_DIFFERENCE`: no number of cases
    detects it)."""
    arrays = [np.asarray(s, dtype=np.float64) for s in differences_by_stratum]
    if not arrays or any(a.ndim != 1 or a.size < 2 for a in arrays):
        return None
    if not all(np.all(np.isfinite(a)) for a in arrays):
        raise ValueError("differences contain NaN or infinite values")
    difference = math.fsum(math.fsum(a.tolist()) / a.size for a in arrays) / len(arrays)
    if abs(difference) <= ZERO_DIFFERENCE:
        return None
    strata = len(arrays)
    variance = sum(float(a.var(ddof=1)) / a.size for a in arrays) / strata**2
    paired = sum(a.size for a in arrays)
    factor = z_sum(power, level) ** 2 * variance / difference**2
    return max(math.ceil(factor * paired), MIN_PER_STRATUM * strata)
