"""The metadata contracts name exactly the keys logs have always carried (they are public)."""

from __future__ import annotations

from bedside_bench.contracts import (
    RubricItem,
    SampleMetadata,
    ScoreMetadata,
    TaskMetadata,
    metadata_keys,
    rubric_items,
)
from bedside_bench.dataset import case_to_sample

SCORE_KEYS = {
    "decisions",
    "grading_method",
    "matched_signed_points",
    "available_positive_points",
    "recall",
    "precision",
    "severe_rate",
    "judge_model",
    "judge_temperature",
    "answer_temperature",
    "judge_attempts",
    "judge_message_format",
    "severe_gate",
    "judge_usage",
    "judge_passes",
    "pass_decisions",
    "judge_agreement",
    "judgements",
    "overrides",
    "match_values",
    "epochs",
}
TASK_KEYS = {
    "benchmark",
    "grading_method",
    "protocol_version",
    "dataset_sha256",
    "data_source",
    "release",
    "release_case_counts",
    "smoke",
    "severe_gate",
    "judge_passes",
    "grading",
    "rejudge",
}


def test_score_and_task_metadata_keys_are_the_logged_ones() -> None:
    assert metadata_keys(ScoreMetadata) == SCORE_KEYS
    assert metadata_keys(TaskMetadata) == TASK_KEYS


def test_a_sample_carries_the_sample_metadata_keys_and_its_rubric_items() -> None:
    case = {
        "case_id": "c1",
        "benchmark": "drug_safety",
        "grading_method": "points_rubric",
        "split": "public",
        "prompt": "What dose?",
        "rubric_items": [{"item_id": "c1_0", "text": "Gives the dose", "points": 2}],
    }
    sample = case_to_sample(case)
    assert sample.metadata is not None
    assert set(sample.metadata) == SampleMetadata.__required_keys__
    assert SampleMetadata.__optional_keys__ == {"answer_temperature"}
    assert rubric_items(sample.metadata) == [RubricItem("c1_0", "Gives the dose", 2)]
