"""The one model of a score's metadata (`core/score_metadata.py`): what a writer gets back as a
log's metadata, the nulls it refuses, and how a reader takes keys it does not name and the
placeholder Inspect puts in a sample summary for a large value (`logs/values.py`)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from bedside_bench.core.score_metadata import NULLABLE, ScoreMetadata
from bedside_bench.logs.values import LARGE_KEYS, REPORT_KEYS, THINNED_VALUE, score_values


def test_a_log_gets_the_keys_given_in_field_order_and_no_other() -> None:
    written = ScoreMetadata(judge_model="openai/j", precision=None, recall=0.5, decisions={})
    assert list(written.logged().items()) == [
        ("decisions", {}),
        ("recall", 0.5),
        ("precision", None),  # given as null: written as null
        ("judge_model", "openai/j"),
    ]
    assert ScoreMetadata().logged() == {}


@pytest.mark.parametrize("name", sorted(ScoreMetadata.model_fields))
def test_null_is_written_only_where_the_scorer_writes_it(name: str) -> None:
    if name in NULLABLE:
        assert ScoreMetadata.model_validate({name: None}).logged() == {name: None}
        return
    with pytest.raises(ValidationError) as refused:
        ScoreMetadata.model_validate({name: None})
    ((error,),) = [refused.value.errors()]
    assert (error["loc"], error["msg"]) == (
        (name,),
        "Value error, the scorer never writes null here",
    )
    read = score_values({name: None}, keys=(name,))
    assert read == f"score metadata {name}: the scorer never writes null here, got None"


def test_a_key_the_model_does_not_name_is_left_alone() -> None:
    """Keys another tool or an earlier version wrote: ignored, never a failed case."""
    stored = {"judge_model": "openai/j", "reviewer_note": [1, "x"], "recall": 1.0}
    assert ScoreMetadata.model_validate(stored).logged() == {
        "recall": 1.0,
        "judge_model": "openai/j",
    }
    read = score_values(stored)
    assert isinstance(read, ScoreMetadata) and read.judge_model == "openai/j"


@pytest.mark.parametrize("key", REPORT_KEYS)
def test_the_summary_placeholder_is_read_only_where_a_value_can_be_that_large(key: str) -> None:
    """Inspect writes the placeholder for a value over 1 kB: a key whose value can be that
    large (a large rubric's decisions) reads as not there (the sample is then read in full);
    anywhere else it is a malformed value, failing the case, or, for a key that holds any text,
    its text."""
    read = score_values({"judge_model": "openai/j", key: THINNED_VALUE})
    if key in LARGE_KEYS:
        assert isinstance(read, ScoreMetadata) and getattr(read, key) is None
    elif key in ("judge_model", "answer_stop_reason"):
        assert isinstance(read, ScoreMetadata) and getattr(read, key) == THINNED_VALUE
    else:
        assert isinstance(read, str) and read.startswith(f"score metadata {key}: "), read
