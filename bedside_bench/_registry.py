"""Entry point for Inspect: importing it registers the tasks as `bedside_bench/<name>`."""

from bedside_bench.task.judge_check import judge_check  # noqa: F401
from bedside_bench.task.tasks import (  # noqa: F401
    calculators_conditional,
    calculators_numerical,
    clinical_calculations,
    drug_safety,
    guideline_adherence,
    health_equity,
    landmark_trials,
    medical_hallucination,
    safety_diagnostic,
    safety_therapeutic,
)
