"""Comparing run groups: the like-for-like check and paired differences (pure functions).

Differences are paired on the cases both groups completed, so the difficulty a case adds to
both scores cancels out. The overall difference uses the same stratified bootstrap as the
overall score, applied to per-case differences. Past 300 lines because every pair is built
here, and each carries beside its interval the intervals over judge passes or epochs and the
cases it needs (`scoring/joint.py`, `scoring/power.py`), for the comparison and the verdicts
alike.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.documents.base import BootstrapSettings
from bedside_bench.documents.comparison import (
    BenchmarkComparison,
    BenchmarkScore,
    ComparedModel,
    Comparison,
    Mismatch,
    OverallComparison,
    OverallScore,
    Pair,
    Verdict,
    VerdictWord,
    oriented,
)
from bedside_bench.documents.summary import BenchmarkSummary, RunSummary
from bedside_bench.documents.summary import OverallScore as SummaryOverall
from bedside_bench.logs.group_key import COMPARABLE_FIELDS
from bedside_bench.logs.records import CaseRecord
from bedside_bench.report.groups import BenchmarkEvidence, RunGroup
from bedside_bench.report.summary import BootstrapOptions
from bedside_bench.report.within import JointIntervals, joint_entries, within_case
from bedside_bench.scoring.joint import (
    Over,
    WithinCase,
    joint_paired_bootstrap,
    joint_paired_bootstrap_single,
)
from bedside_bench.scoring.power import cases_for_power
from bedside_bench.scoring.stats import (
    Interval,
    PairedResult,
    paired_bootstrap,
    paired_bootstrap_single,
)

# fewer paired cases than this give an interval, never an "excludes 0" verdict
MIN_PAIRED = 10
# a benchmark with one paired case adds no spread to the stratified interval, which then
# narrows to look surer than the cases allow: no verdict below this many per benchmark
MIN_PAIRED_PER_BENCHMARK = 2


class ComparisonRefused(ValueError):
    """The groups differ in something other than the answer model."""

    def __init__(self, mismatches: Sequence[Mismatch]) -> None:
        self.mismatches = list(mismatches)
        reasons = "; ".join(m.describe() for m in mismatches)
        super().__init__(
            f"refusing to compare: not like for like: {reasons}. Pass --force to compare "
            "anyway (the comparison is then labelled not like for like)."
        )


def find_mismatches(groups: Sequence[RunGroup], labels: Sequence[str]) -> list[Mismatch]:
    found = []
    for name in COMPARABLE_FIELDS:
        values = {label: getattr(g.key, name) for label, g in zip(labels, groups, strict=True)}
        if len({repr(v) for v in values.values()}) > 1:
            found.append(Mismatch(field=name, values=values))
    return found


def paired_cases(
    a: BenchmarkEvidence, b: BenchmarkEvidence
) -> tuple[list[CaseRecord], list[CaseRecord]]:
    """A's and B's records of the cases both completed, in A's dataset order."""
    a_cases, b_cases = a.by_case(), b.by_case()
    both = [i for i in a.case_ids if i in a_cases and i in b_cases]
    return [a_cases[i] for i in both], [b_cases[i] for i in both]


def paired_differences(a: BenchmarkEvidence, b: BenchmarkEvidence) -> NDArray[np.float64]:
    """A minus B on the cases both completed, in A's dataset order."""
    a_cases, b_cases = paired_cases(a, b)
    diffs = [x.score - y.score for x, y in zip(a_cases, b_cases, strict=True)]  # type: ignore[operator]
    return np.array(diffs, dtype=np.float64)


@dataclass(frozen=True)
class PairedStratum:
    """One benchmark of a pair: the differences, and each side's cases as the intervals over
    judge passes or epochs read them (a reason string or None when they cannot)."""

    differences: NDArray[np.float64]
    within_a: WithinCase | str | None
    within_b: WithinCase | str | None


def paired_stratum(a: RunGroup, b: RunGroup, name: str) -> PairedStratum:
    ea, eb = a.benchmarks[name], b.benchmarks[name]
    cases_a, cases_b = paired_cases(ea, eb)
    diffs = np.array(
        [x.score - y.score for x, y in zip(cases_a, cases_b, strict=True)],  # type: ignore[operator]
        dtype=np.float64,
    )
    return PairedStratum(
        diffs,
        within_case(cases_a, a.key.epochs, a.key.judge_passes),
        within_case(cases_b, b.key.epochs, b.key.judge_passes),
    )


def joint_pair_entries(
    a: RunGroup,
    b: RunGroup,
    strata: Sequence[PairedStratum],
    options: BootstrapOptions,
) -> JointIntervals:
    """The paired intervals over cases and judge passes or epochs, each null where either
    side's cases cannot be read so; a pair gets one when either group measured it."""
    passes = max(a.key.judge_passes, b.key.judge_passes)
    epochs = max(a.key.epochs, b.key.epochs)
    within_a = [s.within_a for s in strata]
    within_b = [s.within_b for s in strata]
    usable_a = [w for w in within_a if isinstance(w, WithinCase)]
    usable_b = [w for w in within_b if isinstance(w, WithinCase)]
    diffs = [s.differences for s in strata]

    def interval(over: Over) -> Interval | None:
        if len(usable_a) != len(strata) or len(usable_b) != len(strata) or not strata:
            return None
        if len(strata) == 1:
            return joint_paired_bootstrap_single(
                diffs[0], usable_a[0], usable_b[0], over, options.resamples, options.seed
            )
        return joint_paired_bootstrap(
            diffs, usable_a, usable_b, over, options.resamples, options.seed
        )

    return joint_entries(passes, epochs, interval)


def withheld(a: RunGroup, b: RunGroup, n: int, labels: tuple[str, str]) -> str | None:
    """Why an interval must not be read as a verdict, or None when it may."""
    if n == 0:
        return "no case both completed"
    partial = [
        label for label, g in zip(labels, (a, b), strict=True) if g.key.smoke or not g.full_scope
    ]
    if partial:
        return f"not a full run: {', '.join(partial)} (smoke or partial scope)"
    if n < MIN_PAIRED:
        return f"fewer than {MIN_PAIRED} paired cases (n={n})"
    return None


def _pair(
    a: str,
    b: str,
    n: int,
    result: PairedResult | None,
    reason: str | None,
    joint: JointIntervals | None = None,
    needed: int | None = None,
) -> Pair:
    joint = joint or {}
    return Pair(
        a=a,
        b=b,
        n=n,
        difference=result.estimate if result else None,
        ci95=list(result.interval.as_tuple()) if result else None,
        ci95_cases_and_judge=joint.get("ci95_cases_and_judge"),
        ci95_cases_and_epochs=joint.get("ci95_cases_and_epochs"),
        cases_needed_for_80_power=needed,
        excludes_zero=result.excludes_zero if result and reason is None else None,
        verdict_withheld=reason,
    )


def benchmark_pair(
    a: RunGroup, b: RunGroup, name: str, labels: tuple[str, str], options: BootstrapOptions
) -> Pair:
    if name not in a.benchmarks or name not in b.benchmarks:
        return _pair(*labels, 0, None, "benchmark missing from a group")
    stratum = paired_stratum(a, b, name)
    diffs = stratum.differences
    if not diffs.size:
        return _pair(*labels, 0, None, withheld(a, b, 0, labels))
    result = paired_bootstrap_single(diffs, options.resamples, options.seed)
    n = int(diffs.size)
    return _pair(
        *labels,
        n,
        result,
        withheld(a, b, n, labels),
        joint_pair_entries(a, b, [stratum], options),
        cases_for_power([diffs]),
    )


def overall_pair(
    a: RunGroup, b: RunGroup, labels: tuple[str, str], options: BootstrapOptions
) -> Pair:
    """Stratified paired bootstrap over the ten benchmarks; null unless every benchmark has at
    least one case both completed."""
    paired = []
    for name in BENCHMARK_NAMES:
        if name not in a.benchmarks or name not in b.benchmarks:
            return _pair(*labels, 0, None, f"{name} missing from a group")
        stratum = paired_stratum(a, b, name)
        if not stratum.differences.size:
            return _pair(*labels, 0, None, f"no {name} case both completed")
        paired.append(stratum)
    strata = [s.differences for s in paired]
    result = paired_bootstrap(strata, options.resamples, options.seed)
    n = int(sum(s.size for s in strata))
    reason = withheld(a, b, n, labels)
    thin = [
        name
        for name, s in zip(BENCHMARK_NAMES, strata, strict=True)
        if s.size < MIN_PAIRED_PER_BENCHMARK
    ]
    if reason is None and thin:
        reason = (
            f"fewer than {MIN_PAIRED_PER_BENCHMARK} paired cases in {', '.join(thin)} "
            "(a one-case stratum has no spread, so the interval would look surer than it is)"
        )
    joint = joint_pair_entries(a, b, paired, options)
    return _pair(*labels, n, result, reason, joint, cases_for_power(strata))


def benchmark_score(entry: BenchmarkSummary | None) -> BenchmarkScore | None:
    """A summary's benchmark entry as the comparison shows it (these two functions are the
    comparison's only reads of a summary)."""
    if entry is None:
        return None
    ci95 = None if entry.ci95 is None else list(entry.ci95)
    return BenchmarkScore(
        mean=entry.mean,
        ci95=ci95,
        ci95_cases_and_judge=entry.ci95_cases_and_judge,
        ci95_cases_and_epochs=entry.ci95_cases_and_epochs,
        n=entry.n,
        failed=entry.failed,
    )


def overall_score(entry: SummaryOverall | None) -> OverallScore | None:
    """A summary's overall entry as the comparison shows it."""
    if entry is None:
        return None
    return OverallScore(
        mean=entry.mean,
        ci95=list(entry.ci95),
        ci95_cases_and_judge=entry.ci95_cases_and_judge,
        ci95_cases_and_epochs=entry.ci95_cases_and_epochs,
        n=entry.n,
    )


def compare(
    groups: Sequence[RunGroup],
    labels: Sequence[str],
    summaries: Sequence[RunSummary],
    summary_files: Sequence[str],
    options: BootstrapOptions,
    force: bool = False,
) -> Comparison:
    """The comparison of two or more groups, given in the report's order (`run.analyse`: the
    ranked best first): every pair is the earlier minus the later, computed once in that
    orientation. Its `verdicts` are added by the caller, which knows the ranking; raises
    ComparisonRefused unless like for like (or forced)."""
    mismatches = find_mismatches(groups, labels)
    if mismatches and not force:
        raise ComparisonRefused(mismatches)
    pairs = list(itertools.combinations(range(len(groups)), 2))
    benchmarks: dict[str, BenchmarkComparison] = {}
    for name in BENCHMARK_NAMES:
        if not any(name in g.benchmarks for g in groups):
            continue
        benchmarks[name] = BenchmarkComparison(
            models={
                label: benchmark_score(s.benchmarks.get(name))
                for label, s in zip(labels, summaries, strict=True)
            },
            pairs=[
                benchmark_pair(groups[i], groups[j], name, (labels[i], labels[j]), options)
                for i, j in pairs
            ],
        )
    return Comparison(
        like_for_like=not mismatches,
        mismatches=mismatches,
        bootstrap=BootstrapSettings.of(options.resamples, options.seed),
        models=[
            ComparedModel(
                label=label,
                answer_model=g.key.answer_model,
                summary=summary_file,
                group=g.key,
                complete=g.complete,
                full_scope=g.full_scope,
            )
            for label, g, summary_file in zip(labels, groups, summary_files, strict=True)
        ],
        benchmarks=benchmarks,
        overall=OverallComparison(
            models={
                label: overall_score(s.overall) for label, s in zip(labels, summaries, strict=True)
            },
            pairs=[
                overall_pair(groups[i], groups[j], (labels[i], labels[j]), options)
                for i, j in pairs
            ],
        ),
    )


# --------------------------------------------------------------------------------------------
# the verdict: ranked full runs, higher-ranked minus lower-ranked

# up to this many ranked models every pair gets a verdict; beyond it, the leader against each
# other model and each model against the next
EVERY_PAIR_UP_TO = 4
AHEAD: VerdictWord = "ahead"
BEHIND: VerdictWord = "behind"
TIED: VerdictWord = "not distinguishable"


def verdict_positions(k: int) -> list[tuple[int, int]]:
    """Which pairs of ranking positions (higher, lower) get a verdict line."""
    if k <= EVERY_PAIR_UP_TO:
        return list(itertools.combinations(range(k), 2))
    leader = [(0, j) for j in range(1, k)]
    return leader + [(j, j + 1) for j in range(1, k - 1)]


def verdict_word(pair: Pair) -> VerdictWord | None:
    """ahead (interval above 0), behind (below 0), not distinguishable, or None when the
    verdict is withheld (fewer than MIN_PAIRED cases, a partial run, nothing paired)."""
    if pair.verdict_withheld or pair.ci95 is None:
        return None
    lo, hi = pair.ci95
    return AHEAD if lo > 0 else BEHIND if hi < 0 else TIED


def ranked_verdicts(comparison: Comparison, ranked: Sequence[str]) -> list[Verdict]:
    """The verdict of each verdict pair of the `ranked` labels (best first): higher-ranked minus
    lower-ranked, read from the comparison's overall pairs (the protocol's stratified paired
    bootstrap, computed once), and its verdict word. Every ranked group is in the comparison
    (`run.analyse`): only full runs are ranked, and then the full runs are compared."""
    found = []
    for i, j in verdict_positions(len(ranked)):
        pair = oriented(comparison.overall.pairs, ranked[i], ranked[j])
        found.append(
            Verdict(
                higher=ranked[i],
                lower=ranked[j],
                n=pair.n,
                difference=pair.difference,
                ci95=pair.ci95,
                ci95_cases_and_judge=pair.ci95_cases_and_judge,
                ci95_cases_and_epochs=pair.ci95_cases_and_epochs,
                cases_needed_for_80_power=pair.cases_needed_for_80_power,
                excludes_zero=pair.excludes_zero,
                verdict=verdict_word(pair),
                verdict_withheld=pair.verdict_withheld,
            )
        )
    return found
