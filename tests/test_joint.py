"""The intervals over cases and judge passes or epochs (`scoring/joint.py`).

Against an independent implementation written from docs/statistics.md (Python loops over every
drawn case: its code's base-K digits, sums left to right), against the protocol's own interval
where nothing varies within a case (bit for bit), and by simulation: a noisy judge whose flip
rate is known, over many seeded runs.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Literal

import numpy as np
import pytest
from numpy.typing import NDArray

from bedside_bench.scoring import joint
from bedside_bench.scoring.joint import (
    BLOCK,
    MAX_PASSES,
    WithinCase,
    joint_bootstrap,
    joint_paired_bootstrap,
    joint_paired_bootstrap_single,
    joint_stratified_bootstrap,
)
from bedside_bench.scoring.stats import (
    clear_resample_cache,
    paired_bootstrap,
    paired_bootstrap_single,
    percentile_bootstrap,
    stratified_bootstrap,
)
from tests.report_helpers import JointCase, expected_joint

Over = Literal["judge", "epochs"]


@pytest.fixture(autouse=True)
def _cold_cache() -> Iterator[None]:
    clear_resample_cache()
    yield
    clear_resample_cache()


# --------------------------------------------------------------------------------------------
# an independent implementation, one drawn case at a time


def _source(within: WithinCase) -> list[JointCase]:
    passes = within.pass_scores
    return [
        (
            [float(y) for y in within.epoch_scores[c]],
            None if passes is None else [[float(s) for s in row] for row in passes[c]],
        )
        for c in range(within.n)
    ]


def loop_interval(
    strata: Sequence[Sequence[float]],
    sources: Sequence[Sequence[tuple[float, WithinCase]]],
    over: Over,
    resamples: int,
    seed: int,
) -> tuple[float, float]:
    plain = [[(sign, _source(w)) for sign, w in stratum] for stratum in sources]
    return expected_joint(strata, plain, over, resamples, seed)


# --------------------------------------------------------------------------------------------
# fixtures of cases


def cases(
    n: int, epochs: int, passes: int, seed: int, noise: float = 0.25
) -> tuple[NDArray[np.float64], WithinCase]:
    """`n` cases: each epoch's pass scores around a case level, the epoch's score their median
    (a stand-in for the majority), the case score the mean of its epochs."""
    rng = np.random.default_rng(seed)
    level = rng.random((n, 1, 1))
    pass_scores = np.clip(level + rng.normal(0, noise, (n, epochs, passes)), 0, 1)
    epoch_scores = np.median(pass_scores, axis=-1)
    within = WithinCase.of(epoch_scores, pass_scores if passes > 1 else None)
    return epoch_scores.mean(axis=1), within


def agreeing(scores: NDArray[np.float64], epochs: int = 1, passes: int = 3) -> WithinCase:
    """Every epoch and every pass of a case scored exactly the case's score."""
    epoch_scores = np.repeat(scores[:, None], epochs, axis=1)
    return WithinCase.of(epoch_scores, np.repeat(epoch_scores[..., None], passes, axis=2))


# --------------------------------------------------------------------------------------------
# the protocol's interval where nothing varies within a case


def test_passes_that_agree_give_the_protocols_interval_bit_for_bit() -> None:
    rng = np.random.default_rng(3)
    scores = rng.random(25) / 3  # thirds: sums of equal values are not always exact
    within = agreeing(scores)
    assert joint_bootstrap(scores, within, "judge") == percentile_bootstrap(scores)
    strata = [rng.random(n) for n in (12, 7, 30)]
    assert joint_stratified_bootstrap(
        strata, [agreeing(s) for s in strata], "judge"
    ) == stratified_bootstrap(strata)


def test_epochs_that_agree_give_the_protocols_interval_bit_for_bit() -> None:
    scores = np.arange(1, 21) / 21
    for passes in (1, 3):
        within = agreeing(scores, epochs=3, passes=passes)
        if passes == 1:
            within = WithinCase.of(within.epoch_scores)
        got = joint_bootstrap(scores, within, "epochs", 2_000, 11)
        assert got == percentile_bootstrap(scores, 2_000, 11)


def test_paired_passes_that_agree_give_the_protocols_paired_interval() -> None:
    rng = np.random.default_rng(4)
    a, b = rng.random((2, 10, 18))
    strata = list(a - b)
    within_a = [agreeing(s) for s in a]
    within_b = [agreeing(s) for s in b]
    expected = paired_bootstrap(strata, 3_000, 5).interval
    assert joint_paired_bootstrap(strata, within_a, within_b, "judge", 3_000, 5) == expected
    single = paired_bootstrap_single(strata[0], 3_000, 5).interval
    got = joint_paired_bootstrap_single(strata[0], within_a[0], within_b[0], "judge", 3_000, 5)
    assert got == single


def test_one_judge_pass_leaves_the_judge_interval_as_the_protocols() -> None:
    scores, within = cases(15, 1, 1, seed=8)
    assert within.pass_scores is None
    assert joint_bootstrap(scores, within, "judge", 500, 2) == percentile_bootstrap(scores, 500, 2)


# --------------------------------------------------------------------------------------------
# the independent implementation


@pytest.mark.parametrize(
    ("over", "epochs", "passes", "resamples"),
    [
        ("judge", 1, 3, 300),
        ("judge", 2, 2, 300),
        ("epochs", 3, 1, 300),
        ("epochs", 2, 3, 300),
        # more resamples than a block: the draws go on block after block
        ("judge", 1, 3, BLOCK + 350),
    ],
)
def test_one_benchmark_equals_the_loops(
    over: Over, epochs: int, passes: int, resamples: int
) -> None:
    n = 9 if resamples < BLOCK else 4
    scores, within = cases(n, epochs, passes, seed=epochs * 10 + passes)
    got = joint_bootstrap(scores, within, over, resamples, 17)
    assert got.as_tuple() == loop_interval([list(scores)], [[(1.0, within)]], over, resamples, 17)


@pytest.mark.parametrize("over", ["judge", "epochs"])
def test_overall_and_paired_equal_the_loops(over: Over) -> None:
    epochs = 2 if over == "epochs" else 1
    drawn = [cases(n, epochs, 3, seed=n) for n in (6, 9, 5)]
    strata = [s for s, _ in drawn]
    within = [w for _, w in drawn]
    got = joint_stratified_bootstrap(strata, within, over, 250, 9)
    expected = loop_interval([list(s) for s in strata], [[(1.0, w)] for w in within], over, 250, 9)
    assert got.as_tuple() == expected

    other = [cases(s.size, epochs, 3, seed=100 + s.size, noise=0.1) for s in strata]
    diffs = [s - o for s, (o, _) in zip(strata, other, strict=True)]
    within_b = [w for _, w in other]
    got = joint_paired_bootstrap(diffs, within, within_b, over, 250, 9)
    sources = [[(1.0, a), (-1.0, b)] for a, b in zip(within, within_b, strict=True)]
    assert got.as_tuple() == loop_interval([list(d) for d in diffs], sources, over, 250, 9)
    single = joint_paired_bootstrap_single(diffs[0], within[0], within_b[0], over, 250, 9)
    assert single.as_tuple() == loop_interval([list(diffs[0])], sources[:1], over, 250, 9)


def test_tabulated_and_per_draw_passes_agree_to_the_last_bit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scores, within = cases(12, 2, 4, seed=21)
    tabulated = joint_bootstrap(scores, within, "epochs", 1_500, 3)
    monkeypatch.setattr(joint, "TABLE_ENTRIES", 0)
    assert joint_bootstrap(scores, within, "epochs", 1_500, 3) == tabulated


# --------------------------------------------------------------------------------------------
# what the interval adds


def test_passes_that_disagree_widen_the_interval() -> None:
    scores, within = cases(40, 1, 3, seed=5, noise=0.3)
    case_only = percentile_bootstrap(scores, 2_000, 42)
    both = joint_bootstrap(scores, within, "judge", 2_000, 42)
    assert both.hi - both.lo > case_only.hi - case_only.lo


def test_bad_input_is_refused_in_one_line() -> None:
    with pytest.raises(ValueError, match="does not match"):
        WithinCase.of(np.zeros((3, 1)), np.zeros((3, 2, 3)))
    with pytest.raises(ValueError, match=f"at most {MAX_PASSES} judge passes"):
        WithinCase.of(np.zeros((2, 1)), np.zeros((2, 1, MAX_PASSES + 1)))
    with pytest.raises(ValueError, match="NaN or infinite"):
        WithinCase.of(np.array([[np.nan]]))
    with pytest.raises(ValueError, match="the same cases in the same order"):
        joint_bootstrap([0.1, 0.2, 0.3], WithinCase.of(np.zeros((2, 1))), "epochs")
    with pytest.raises(ValueError, match="over must be one of judge, epochs"):
        joint_bootstrap([0.1], WithinCase.of(np.zeros((1, 1))), "cases")  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# by simulation

POINTS = np.array([3, 2, 1, 1, -1, -2])  # one points rubric for every simulated case


def simulated_runs(
    flip: float, runs: int, n: int, seed: int, population: int = 400_000
) -> tuple[float, list[tuple[NDArray[np.float64], WithinCase]]]:
    """`runs` runs of `n` cases, each judged in three passes by a judge that flips every item
    decision with probability `flip`; the case score is the majority's points score. Also the
    truth: the expected case score under this judge, over `population` cases."""
    rng = np.random.default_rng(seed)
    available = POINTS[POINTS > 0].sum()

    def draw(m: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        quality = rng.beta(3, 2, size=(m, 1))
        met = rng.random((m, POINTS.size)) < np.where(POINTS > 0, quality, 1 - quality) * 0.9
        passes = met[:, None, :] ^ (rng.random((m, 3, POINTS.size)) < flip)
        majority = passes.sum(axis=1) * 2 > 3

        def score(decisions: NDArray[np.bool_]) -> NDArray[np.float64]:
            raw = (decisions * POINTS).sum(axis=-1) / available
            return np.asarray(np.clip(raw, 0, 1), dtype=np.float64)

        return score(majority), score(passes)

    truth = float(draw(population)[0].mean())
    found = []
    for _ in range(runs):
        scores, per_pass = draw(n)
        found.append((scores, WithinCase.of(scores[:, None], per_pass[:, None, :])))
    return truth, found


def coverage(
    truth: float, runs: Sequence[tuple[NDArray[np.float64], WithinCase]], resamples: int
) -> tuple[float, float, float, float]:
    """(coverage of the case interval, of the joint one, their mean widths)."""
    covered, covered_joint, width, width_joint = 0, 0, 0.0, 0.0
    for scores, within in runs:
        case_only = percentile_bootstrap(scores, resamples, 42)
        both = joint_bootstrap(scores, within, "judge", resamples, 42)
        covered += case_only.lo <= truth <= case_only.hi
        covered_joint += both.lo <= truth <= both.hi
        width += case_only.hi - case_only.lo
        width_joint += both.hi - both.lo
    k = len(runs)
    return covered / k, covered_joint / k, width / k, width_joint / k


def test_a_judge_that_never_flips_adds_nothing() -> None:
    _, runs = simulated_runs(0.0, 20, 50, seed=1, population=1)
    for scores, within in runs:
        assert joint_bootstrap(scores, within, "judge", 500, 42) == percentile_bootstrap(
            scores, 500, 42
        )


def test_a_noisy_judge_is_covered_by_both_intervals_and_the_joint_one_is_wider() -> None:
    """A judge that flips 15% of decisions, 400 runs of 50 cases, truth known: the expected
    score under this judge. Each case score carries its own judge noise, so the protocol's case
    interval already covers the truth at about its nominal rate; the joint interval resamples
    that noise again: always wider, covering at least as often (docs/statistics.md)."""
    truth, runs = simulated_runs(0.15, 400, 50, seed=2)
    case_rate, joint_rate, width, width_joint = coverage(truth, runs, 1_000)
    assert 0.91 <= case_rate <= 0.98, case_rate
    assert joint_rate >= case_rate and 0.93 <= joint_rate <= 0.995, (case_rate, joint_rate)
    assert width_joint > 1.02 * width, (width, width_joint)
