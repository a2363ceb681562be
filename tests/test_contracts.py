"""The metadata contracts name exactly the keys logs have always carried (they are public)."""

from __future__ import annotations

import hashlib
import json

import pytest
from inspect_ai.log import EvalSample
from inspect_ai.model import ModelOutput
from inspect_ai.solver import TaskState
from pydantic import ValidationError

from bedside_bench.core.contracts import (
    ANSWER_TEMPERATURE_KEY,
    APPENDED_SCORE_KEY,
    RUBRIC_ITEMS_KEY,
    SCORE_KEY,
    GoldItem,
    GoldPairMetadata,
    RubricItem,
    SampleMetadata,
    TaskMetadata,
    metadata_keys,
)
from bedside_bench.core.score_metadata import ScoreMetadata
from bedside_bench.release.case_model import Case
from bedside_bench.release.dataset import case_to_sample
from bedside_bench.scoring.metrics import EPOCH_MEAN_KEYS
from bedside_bench.task.judge_check.data import pair_to_sample

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
    "answer_stop_reason",
    "answer_condition",
    "answer_empty",
    "answer_complete",
    "judge_attempts",
    "judge_message_format",
    "severe_gate",
    "judge_usage",
    "judge_passes",
    "pass_decisions",
    "pass_scores",
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
    "case_sha256",
    "smoke",
    "severe_gate",
    "judge_passes",
    "grading",
    "judge_model",
    "rejudge",
}


def test_score_and_task_metadata_keys_are_the_logged_ones() -> None:
    assert metadata_keys(ScoreMetadata) == SCORE_KEYS
    assert metadata_keys(TaskMetadata) == TASK_KEYS


CASE = {
    "case_id": "c1",
    "benchmark": "drug_safety",
    "grading_method": "points_rubric",
    "split": "public",
    "prompt": "What dose?",
    "rubric_items": [
        {"item_id": "c1_0", "text": "Gives the dose", "points": 2},
        {"item_id": "c1_1", "text": "Says nothing of harm", "points": -1},
    ],
}
# what a sample's metadata has always been, byte for byte in a log
STORED = (
    '{"case_id": "c1", "benchmark": "drug_safety", "grading_method": "points_rubric", '
    '"split": "public", "rubric_items": [{"item_id": "c1_0", "text": "Gives the dose", '
    '"points": 2}, {"item_id": "c1_1", "text": "Says nothing of harm", "points": -1}]}'
)


def state_of(metadata: dict[str, object]) -> TaskState:
    return TaskState(
        model="m/m",  # type: ignore[arg-type]
        sample_id="c1",
        epoch=1,
        input="What dose?",
        messages=[],
        output=ModelOutput(),
        metadata=metadata,
    )


def test_a_sample_stores_exactly_the_metadata_logs_have_always_held() -> None:
    """What logs have always held, then the digest of the case asked (its compact, key-sorted
    JSON, computed here by hand), which a resume checks its reused answers against."""
    sample = case_to_sample(Case.model_validate(CASE))
    assert sample.metadata is not None
    text = json.dumps(CASE, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert json.dumps(sample.metadata) == STORED[:-1] + f', "case_sha256": "{digest}"}}'
    assert ANSWER_TEMPERATURE_KEY not in sample.metadata  # until the solver writes it


def test_the_scorer_reads_the_metadata_typed_as_the_solver_left_it() -> None:
    sample = case_to_sample(Case.model_validate(CASE))
    state = state_of({**(sample.metadata or {}), ANSWER_TEMPERATURE_KEY: 1.0})
    read = state.metadata_as(SampleMetadata)
    assert read.rubric_items == [
        RubricItem("c1_0", "Gives the dose", 2),
        RubricItem("c1_1", "Says nothing of harm", -1),
    ]
    assert (read.case_id, read.grading_method, read.answer_temperature) == (
        "c1",
        "points_rubric",
        1.0,
    )
    assert (
        state_of(dict(sample.metadata or {})).metadata_as(SampleMetadata).answer_temperature is None
    )


def test_a_stored_sample_reads_back_the_same() -> None:
    stored = EvalSample.model_validate_json(
        json.dumps(
            {"id": "c1", "epoch": 1, "input": "q", "target": "", "metadata": json.loads(STORED)}
        )
    )
    assert stored.metadata_as(SampleMetadata) == SampleMetadata.model_validate(CASE)


def test_metadata_that_breaks_the_contract_is_refused_by_name() -> None:
    bad = {**json.loads(STORED), "grading_method": "points"}
    with pytest.raises(ValueError, match="grading_method"):
        state_of(bad).metadata_as(SampleMetadata)
    items = [{"item_id": "c1_0", "text": "t", "points": "two"}]
    with pytest.raises(ValidationError, match=r"rubric_items\.0\.points"):
        SampleMetadata.model_validate({**CASE, "rubric_items": items})


def test_the_names_read_by_key_are_the_models_fields() -> None:
    assert {ANSWER_TEMPERATURE_KEY, RUBRIC_ITEMS_KEY} <= set(SampleMetadata.model_fields)
    assert set(EPOCH_MEAN_KEYS) <= metadata_keys(ScoreMetadata)


def test_a_judge_check_sample_reads_as_its_gold_pair() -> None:
    pair = {
        "pair_id": "p1",
        "grading_method": "f1_weighted_rubric",
        "prompt": "Q?",
        "answer": "A.",
        "attack": None,
        "rubric_items": [
            {
                "item_id": "p1_0",
                "text": "t",
                "points": 3,
                "gold_matched": True,
                "rule": 2,
                "note": "n",
            }
        ],
    }
    read = state_of(dict(pair_to_sample(pair).metadata or {})).metadata_as(GoldPairMetadata)
    assert read.rubric_items == [GoldItem("p1_0", "t", 3, gold_matched=True, rule=2)]
    assert (read.answer, read.attack, read.grading_method) == ("A.", None, "f1_weighted_rubric")


@pytest.mark.parametrize(
    ("key", "judged", "appended"),
    [
        ("rubric_judge", True, False),
        ("bedside_bench/rubric_judge", True, False),
        ("rubric_judge1", True, True),
        ("rubric_judge-2", True, True),
        ("bedside_bench/rubric_judge1", True, True),
        ("rubric_judge_x", False, False),
        ("other", False, False),
    ],
)
def test_score_keys(key: str, judged: bool, appended: bool) -> None:
    assert bool(SCORE_KEY.match(key)) is judged
    assert bool(APPENDED_SCORE_KEY.match(key)) is appended
