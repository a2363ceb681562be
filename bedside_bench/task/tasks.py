"""The ten BedsideBench tasks. Each only wires dataset, solver and scorer together.

Every task takes the same options, defined once in `options.TaskOptions` (names, types,
defaults, ranges, each described there) and forwarded whole, so no task can take an option
and drop it: data_dir, revision, smoke, judge_model, judge_retries, severe_gate, judge_passes,
grading (all optional, `-T name=value`). Any other name stops the run while the task is
built, naming the closest option. The functions' `**options: Unpack[TaskArgs]` is what mypy
and IDEs check a call against; Inspect reads the signature `takes_task_options` gives them.
The ten `@task` functions stay written out because `inspect list tasks` finds tasks by
reading the source.
"""

from __future__ import annotations

from inspect_ai import Epochs, Task, task
from typing_extensions import Unpack  # typing's is new in 3.11

from bedside_bench.core.benchmarks import get_benchmark
from bedside_bench.core.contracts import TaskMetadata
from bedside_bench.core.inspect_private import suite_in_use
from bedside_bench.core.listing import task_version
from bedside_bench.core.options import said_when_stopped
from bedside_bench.judging.grading import grading_strategy
from bedside_bench.release.dataset import (
    Release,
    benchmark_dataset,
    case_sha256,
    load_release_cached,
)
from bedside_bench.release.sources import resolve_source
from bedside_bench.scoring.metrics import case_mean
from bedside_bench.scoring.scorer import preflight_judge, rubric_judge
from bedside_bench.task.case_check import check_cases_at_task_end
from bedside_bench.task.signature import (  # noqa: F401  (CASE_OPTIONS, ...: API)
    CASE_OPTIONS,
    SCORER_OPTIONS,
    TASK_SIGNATURE,
    TaskArgs,
    TaskOptions,
    takes_task_options,
    task_options,
)
from bedside_bench.task.solver import physician_answer


def task_metadata(
    benchmark: str, options: TaskOptions, release: Release, judge: str | None = None
) -> TaskMetadata:
    """The log's `eval.metadata`: what this run is, for the report to group like with like;
    `judge`: the judge the run resolved (the `grader` role, else `-T judge_model`, else the
    protocol's), written only when the task is built inside the run that uses it."""
    cases = release.cases[benchmark][:1] if options.smoke else release.cases[benchmark]
    metadata: TaskMetadata = {
        "benchmark": benchmark,
        "grading_method": get_benchmark(benchmark).grading_method,
        "protocol_version": grading_strategy(options.grading).protocol_version,
        "dataset_sha256": release.dataset_sha256,
        "data_source": release.source.label,
        "release": release.name,  # a known release's name, or "unrecognised"
        "release_case_counts": release.case_counts,
        "case_sha256": {c.case_id: case_sha256(c) for c in cases},
        "smoke": options.smoke,
        "severe_gate": options.severe_gate,
        "judge_passes": options.judge_passes,
        "grading": options.grading,
    }
    if judge is not None:
        metadata["judge_model"] = judge
    return metadata


def bedside_task(benchmark: str, **options: Unpack[TaskArgs]) -> Task:
    """Build the task of one benchmark; every case of all ten is validated first.

    The judge is resolved before anything else, so a run whose judge cannot be used stops
    before any answer is bought. `-T judge_model` defaults to none: the task arguments, the
    scorer's options and the metadata name only a judge that judges (the one resolved here).
    """
    get_benchmark(benchmark)
    suite_in_use()  # what degraded when the package was imported, said now
    with said_when_stopped():  # under --display none Inspect would print none of these
        opts = task_options(options)
        check_cases_at_task_end()  # a retry's reused answers must be to the cases as they are
        judge = preflight_judge(opts.judge_model)
        scorer = rubric_judge(**opts.scorer_options().model_dump())
        release = load_release_cached(resolve_source(opts.data_dir, opts.revision))
    return Task(
        dataset=benchmark_dataset(release, benchmark, smoke=opts.smoke),
        solver=physician_answer(),
        scorer=scorer,
        name=benchmark,
        # what a score means (`listing.py`; CHANGELOG.md says what each version means)
        version=task_version().comparability,
        # a failed case is an error to redo with eval-retry, not a reason to stop the others
        continue_on_fail=True,
        # with --epochs N a case scores the mean of its epochs, diagnostics included
        epochs=Epochs(1, case_mean()),
        metadata=dict(
            task_metadata(benchmark, opts, release, str(judge) if judge is not None else None)
        ),
    )


@task(
    name="drug_safety",
    description="Drug interactions, contraindications, dosing, and cross-reactivity",
    grading="points_rubric",
)
@takes_task_options
def drug_safety(**options: Unpack[TaskArgs]) -> Task:
    """Drug interactions, contraindications, dosing, and cross-reactivity."""
    return bedside_task("drug_safety", **options)


@task(name="guideline_adherence", description="Guideline-concordant care", grading="points_rubric")
@takes_task_options
def guideline_adherence(**options: Unpack[TaskArgs]) -> Task:
    """Guideline-concordant care."""
    return bedside_task("guideline_adherence", **options)


@task(
    name="landmark_trials",
    description="Trial evidence and outcome interpretation",
    grading="points_rubric",
)
@takes_task_options
def landmark_trials(**options: Unpack[TaskArgs]) -> Task:
    """Trial evidence and outcome interpretation."""
    return bedside_task("landmark_trials", **options)


@task(
    name="medical_hallucination",
    description="Fictitious entities and false premises",
    grading="points_rubric",
)
@takes_task_options
def medical_hallucination(**options: Unpack[TaskArgs]) -> Task:
    """Fictitious entities and false premises."""
    return bedside_task("medical_hallucination", **options)


@task(
    name="health_equity",
    description="Bias-aware reasoning and barriers to care",
    grading="points_rubric",
)
@takes_task_options
def health_equity(**options: Unpack[TaskArgs]) -> Task:
    """Bias-aware reasoning and barriers to care."""
    return bedside_task("health_equity", **options)


@task(
    name="clinical_calculations",
    description="Doses, scores, and unit conversions",
    grading="points_rubric",
)
@takes_task_options
def clinical_calculations(**options: Unpack[TaskArgs]) -> Task:
    """Doses, scores, and unit conversions."""
    return bedside_task("clinical_calculations", **options)


@task(
    name="calculators_numerical",
    description="Medical calculators with numeric outputs",
    grading="points_rubric",
)
@takes_task_options
def calculators_numerical(**options: Unpack[TaskArgs]) -> Task:
    """Medical calculators with numeric outputs."""
    return bedside_task("calculators_numerical", **options)


@task(
    name="calculators_conditional",
    description="Medical calculators with categorical or conditional outputs",
    grading="points_rubric",
)
@takes_task_options
def calculators_conditional(**options: Unpack[TaskArgs]) -> Task:
    """Medical calculators with categorical or conditional outputs."""
    return bedside_task("calculators_conditional", **options)


@task(
    name="safety_diagnostic",
    description="Diagnostic workup, referral, procedures, and follow-up",
    grading="f1_weighted_rubric",
)
@takes_task_options
def safety_diagnostic(**options: Unpack[TaskArgs]) -> Task:
    """Diagnostic workup, referral, procedures, and follow-up."""
    return bedside_task("safety_diagnostic", **options)


@task(
    name="safety_therapeutic",
    description="Medication, counseling, and treatment plans",
    grading="f1_weighted_rubric",
)
@takes_task_options
def safety_therapeutic(**options: Unpack[TaskArgs]) -> Task:
    """Medication, counseling, and treatment plans."""
    return bedside_task("safety_therapeutic", **options)
