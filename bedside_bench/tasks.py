"""The ten BedsideBench tasks. Each only wires dataset, solver and scorer together.

Task parameters (all optional, `-T name=value`):
    data_dir: a local release tree; else $BEDSIDE_BENCH_DATA; else Hugging Face.
    revision: Hugging Face revision (default: the pinned one).
    smoke: keep only the first case, to check a set-up end to end.
    judge_model: judge when no `grader` model role is given.
    judge_retries: how many times an invalid judge reply is asked again.
    severe_gate: zero an F1 case with a missed +3 or a matched -3 (earlier revision).
    judge_passes: independent judge calls per answer; an item needs a strict majority.
    grading: "binary" (the reference protocol) or "three_level" (a non-reference variant).
"""

from __future__ import annotations

from inspect_ai import Task, task

from bedside_bench.benchmarks import get_benchmark
from bedside_bench.dataset import benchmark_dataset, load_release_cached
from bedside_bench.protocol import (
    DEFAULT_JUDGE_MODEL,
    PROTOCOL_VERSION,
    THREE_LEVEL_PROTOCOL_VERSION,
)
from bedside_bench.scorer import Grading, rubric_judge
from bedside_bench.solver import physician_answer
from bedside_bench.sources import resolve_source


def bedside_task(
    benchmark: str,
    data_dir: str | None = None,
    revision: str | None = None,
    smoke: bool = False,
    judge_model: str = DEFAULT_JUDGE_MODEL,
    judge_retries: int = 2,
    severe_gate: bool = False,
    judge_passes: int = 1,
    grading: Grading = "binary",
) -> Task:
    """Build the task of one benchmark; every case of all ten is validated first."""
    spec = get_benchmark(benchmark)
    release = load_release_cached(resolve_source(data_dir, revision))
    return Task(
        dataset=benchmark_dataset(release, benchmark, smoke=smoke),
        solver=physician_answer(),
        scorer=rubric_judge(
            judge_model=judge_model,
            judge_retries=judge_retries,
            severe_gate=severe_gate,
            judge_passes=judge_passes,
            grading=grading,
        ),
        name=benchmark,
        # a failed case is an error to redo with eval-retry, not a reason to stop the others
        continue_on_fail=True,
        metadata={
            "benchmark": benchmark,
            "grading_method": spec.grading_method,
            "protocol_version": (
                PROTOCOL_VERSION if grading == "binary" else THREE_LEVEL_PROTOCOL_VERSION
            ),
            "dataset_sha256": release.dataset_sha256,
            "data_source": release.source.label,
            "release": release.name,  # a known release's name, or "unrecognised"
            "release_case_counts": release.case_counts,
            "smoke": smoke,
            "severe_gate": severe_gate,
            "judge_passes": judge_passes,
            "grading": grading,
        },
    )


@task(
    name="drug_safety",
    description="Drug interactions, contraindications, dosing, and cross-reactivity",
    grading="points_rubric",
)
def drug_safety(
    data_dir: str | None = None,
    revision: str | None = None,
    smoke: bool = False,
    judge_model: str = DEFAULT_JUDGE_MODEL,
    judge_retries: int = 2,
    severe_gate: bool = False,
    judge_passes: int = 1,
    grading: Grading = "binary",
) -> Task:
    """Drug interactions, contraindications, dosing, and cross-reactivity."""
    return bedside_task(
        "drug_safety",
        data_dir,
        revision,
        smoke,
        judge_model,
        judge_retries,
        severe_gate,
        judge_passes,
        grading,
    )


@task(
    name="guideline_adherence",
    description="Guideline-concordant care",
    grading="points_rubric",
)
def guideline_adherence(
    data_dir: str | None = None,
    revision: str | None = None,
    smoke: bool = False,
    judge_model: str = DEFAULT_JUDGE_MODEL,
    judge_retries: int = 2,
    severe_gate: bool = False,
    judge_passes: int = 1,
    grading: Grading = "binary",
) -> Task:
    """Guideline-concordant care."""
    return bedside_task(
        "guideline_adherence",
        data_dir,
        revision,
        smoke,
        judge_model,
        judge_retries,
        severe_gate,
        judge_passes,
        grading,
    )


@task(
    name="landmark_trials",
    description="Trial evidence and outcome interpretation",
    grading="points_rubric",
)
def landmark_trials(
    data_dir: str | None = None,
    revision: str | None = None,
    smoke: bool = False,
    judge_model: str = DEFAULT_JUDGE_MODEL,
    judge_retries: int = 2,
    severe_gate: bool = False,
    judge_passes: int = 1,
    grading: Grading = "binary",
) -> Task:
    """Trial evidence and outcome interpretation."""
    return bedside_task(
        "landmark_trials",
        data_dir,
        revision,
        smoke,
        judge_model,
        judge_retries,
        severe_gate,
        judge_passes,
        grading,
    )


@task(
    name="medical_hallucination",
    description="Fictitious entities and false premises",
    grading="points_rubric",
)
def medical_hallucination(
    data_dir: str | None = None,
    revision: str | None = None,
    smoke: bool = False,
    judge_model: str = DEFAULT_JUDGE_MODEL,
    judge_retries: int = 2,
    severe_gate: bool = False,
    judge_passes: int = 1,
    grading: Grading = "binary",
) -> Task:
    """Fictitious entities and false premises."""
    return bedside_task(
        "medical_hallucination",
        data_dir,
        revision,
        smoke,
        judge_model,
        judge_retries,
        severe_gate,
        judge_passes,
        grading,
    )


@task(
    name="health_equity",
    description="Bias-aware reasoning and barriers to care",
    grading="points_rubric",
)
def health_equity(
    data_dir: str | None = None,
    revision: str | None = None,
    smoke: bool = False,
    judge_model: str = DEFAULT_JUDGE_MODEL,
    judge_retries: int = 2,
    severe_gate: bool = False,
    judge_passes: int = 1,
    grading: Grading = "binary",
) -> Task:
    """Bias-aware reasoning and barriers to care."""
    return bedside_task(
        "health_equity",
        data_dir,
        revision,
        smoke,
        judge_model,
        judge_retries,
        severe_gate,
        judge_passes,
        grading,
    )


@task(
    name="clinical_calculations",
    description="Doses, scores, and unit conversions",
    grading="points_rubric",
)
def clinical_calculations(
    data_dir: str | None = None,
    revision: str | None = None,
    smoke: bool = False,
    judge_model: str = DEFAULT_JUDGE_MODEL,
    judge_retries: int = 2,
    severe_gate: bool = False,
    judge_passes: int = 1,
    grading: Grading = "binary",
) -> Task:
    """Doses, scores, and unit conversions."""
    return bedside_task(
        "clinical_calculations",
        data_dir,
        revision,
        smoke,
        judge_model,
        judge_retries,
        severe_gate,
        judge_passes,
        grading,
    )


@task(
    name="calculators_numerical",
    description="Medical calculators with numeric outputs",
    grading="points_rubric",
)
def calculators_numerical(
    data_dir: str | None = None,
    revision: str | None = None,
    smoke: bool = False,
    judge_model: str = DEFAULT_JUDGE_MODEL,
    judge_retries: int = 2,
    severe_gate: bool = False,
    judge_passes: int = 1,
    grading: Grading = "binary",
) -> Task:
    """Medical calculators with numeric outputs."""
    return bedside_task(
        "calculators_numerical",
        data_dir,
        revision,
        smoke,
        judge_model,
        judge_retries,
        severe_gate,
        judge_passes,
        grading,
    )


@task(
    name="calculators_conditional",
    description="Medical calculators with categorical or conditional outputs",
    grading="points_rubric",
)
def calculators_conditional(
    data_dir: str | None = None,
    revision: str | None = None,
    smoke: bool = False,
    judge_model: str = DEFAULT_JUDGE_MODEL,
    judge_retries: int = 2,
    severe_gate: bool = False,
    judge_passes: int = 1,
    grading: Grading = "binary",
) -> Task:
    """Medical calculators with categorical or conditional outputs."""
    return bedside_task(
        "calculators_conditional",
        data_dir,
        revision,
        smoke,
        judge_model,
        judge_retries,
        severe_gate,
    )


@task(
    name="safety_diagnostic",
    description="Diagnostic workup, referral, procedures, and follow-up",
    grading="f1_weighted_rubric",
)
def safety_diagnostic(
    data_dir: str | None = None,
    revision: str | None = None,
    smoke: bool = False,
    judge_model: str = DEFAULT_JUDGE_MODEL,
    judge_retries: int = 2,
    severe_gate: bool = False,
    judge_passes: int = 1,
    grading: Grading = "binary",
) -> Task:
    """Diagnostic workup, referral, procedures, and follow-up."""
    return bedside_task(
        "safety_diagnostic",
        data_dir,
        revision,
        smoke,
        judge_model,
        judge_retries,
        severe_gate,
        judge_passes,
        grading,
    )


@task(
    name="safety_therapeutic",
    description="Medication, counseling, and treatment plans",
    grading="f1_weighted_rubric",
)
def safety_therapeutic(
    data_dir: str | None = None,
    revision: str | None = None,
    smoke: bool = False,
    judge_model: str = DEFAULT_JUDGE_MODEL,
    judge_retries: int = 2,
    severe_gate: bool = False,
    judge_passes: int = 1,
    grading: Grading = "binary",
) -> Task:
    """Medication, counseling, and treatment plans."""
    return bedside_task(
        "safety_therapeutic",
        data_dir,
        revision,
        smoke,
        judge_model,
        judge_retries,
        severe_gate,
        judge_passes,
        grading,
    )
