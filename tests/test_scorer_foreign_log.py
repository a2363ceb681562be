"""`rubric_judge` is also registered under its short name so that `inspect score LOG` can
rebuild it from a log; asked to score a sample of another suite, it says so in one line before
anything is bought, instead of a validation error about fields the sample never had."""

from __future__ import annotations

import pytest
from inspect_ai.model import ModelName
from inspect_ai.solver import TaskState

from bedside_bench.scoring.scorer import bedside_case


def state(metadata: dict[str, object]) -> TaskState:
    return TaskState(
        model=ModelName("test/model"),
        sample_id="other\x1b[31m-7",
        epoch=1,
        input="question",
        messages=[],
        metadata=metadata,
    )


def test_a_sample_of_another_suite_is_named_not_scored() -> None:
    with pytest.raises(ValueError) as refused:
        bedside_case(state({"difficulty": "hard", "rubric": "their own"}))
    assert str(refused.value) == (
        "sample other\\x1b[31m-7 holds no BedsideBench case (its metadata has no rubric items): "
        "`rubric_judge` here is bedside_bench's scorer, which scores only logs of "
        "bedside_bench tasks"
    )
