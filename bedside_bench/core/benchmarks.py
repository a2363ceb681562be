"""The ten BedsideBench benchmarks: the one place that names them, in registry order."""

from __future__ import annotations

from dataclasses import dataclass

from bedside_bench.core.contracts import GradingMethod


@dataclass(frozen=True)
class Benchmark:
    name: str
    grading_method: GradingMethod
    scope: str


BENCHMARKS: tuple[Benchmark, ...] = (
    Benchmark(
        "drug_safety",
        "points_rubric",
        "Drug interactions, contraindications, dosing, and cross-reactivity",
    ),
    Benchmark("guideline_adherence", "points_rubric", "Guideline-concordant care"),
    Benchmark("landmark_trials", "points_rubric", "Trial evidence and outcome interpretation"),
    Benchmark("medical_hallucination", "points_rubric", "Fictitious entities and false premises"),
    Benchmark("health_equity", "points_rubric", "Bias-aware reasoning and barriers to care"),
    Benchmark("clinical_calculations", "points_rubric", "Doses, scores, and unit conversions"),
    Benchmark("calculators_numerical", "points_rubric", "Medical calculators with numeric outputs"),
    Benchmark(
        "calculators_conditional",
        "points_rubric",
        "Medical calculators with categorical or conditional outputs",
    ),
    Benchmark(
        "safety_diagnostic",
        "f1_weighted_rubric",
        "Diagnostic workup, referral, procedures, and follow-up",
    ),
    Benchmark(
        "safety_therapeutic",
        "f1_weighted_rubric",
        "Medication, counseling, and treatment plans",
    ),
)

BENCHMARK_NAMES: tuple[str, ...] = tuple(b.name for b in BENCHMARKS)
BENCHMARKS_BY_NAME: dict[str, Benchmark] = {b.name: b for b in BENCHMARKS}


def get_benchmark(name: str) -> Benchmark:
    try:
        return BENCHMARKS_BY_NAME[name]
    except KeyError:
        raise ValueError(
            f"unknown benchmark {name!r}; expected one of: {', '.join(BENCHMARK_NAMES)}"
        ) from None
