"""The report checks each sample against its log (fast: logs built with Inspect's classes,
written and read back through `read_records`): the sample's case digest against the digest
the log's release lists for that case and against the question and rubric the sample holds,
and its score against the score its stored decisions give (recomputed here on an independent
path, `tests/independent.py`). What does not agree fails that case, naming the log, the case
and the field; a log written before digests were recorded is checked for its scores only.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.scorer import Score

from bedside_bench.core.contracts import SCORER_NAME
from bedside_bench.logs.read import ReadResult, read_records
from bedside_bench.release.case_model import Case
from bedside_bench.release.dataset import case_to_sample
from tests.independent import case_score
from tests.log_factory import JUDGE_A, eval_log, write
from tests.release_factory import make_case

BENCHMARK = "drug_safety"


def digest(case: dict[str, Any]) -> str:
    """The case's digest written out by hand: SHA-256 of its compact, key-sorted JSON."""
    text = json.dumps(case, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


CASES = [make_case(BENCHMARK, "points_rubric", n) for n in range(2)]
# item n of each case matched when n is even
MATCHED = [{i["item_id"]: k % 2 == 0 for k, i in enumerate(c["rubric_items"])} for c in CASES]
SCORES = [case_score(c, m) for c, m in zip(CASES, MATCHED, strict=True)]


def scored(n: int, value: float | None = None, **changes: Any) -> EvalSample:
    """Case n as the task makes its sample, scored from its decisions (`value`: another)."""
    made = case_to_sample(Case.model_validate(CASES[n]))
    metadata = {**(made.metadata or {}), **changes.pop("metadata", {})}
    return EvalSample(
        id=CASES[n]["case_id"],
        epoch=1,
        input=changes.pop("input", made.input),
        target="",
        metadata=metadata,
        scores={
            SCORER_NAME: Score(
                value=SCORES[n] if value is None else value,
                metadata={"judge_model": JUDGE_A, "decisions": MATCHED[n], "severe_gate": False},
            )
        },
    )


def log_of(samples: list[EvalSample], digests: dict[str, str] | None) -> EvalLog:
    metadata: dict[str, object] = {"grading": "binary"}
    if digests is not None:
        metadata["case_sha256"] = digests
    return eval_log(samples, benchmark=BENCHMARK, metadata=metadata)


RELEASE = {c["case_id"]: digest(c) for c in CASES}


def read(tmp_path: Path, log: EvalLog) -> tuple[ReadResult, str]:
    location = write(log, tmp_path / "run.eval")
    return read_records([location]), location


def refused(result: ReadResult, location: str, n: int, field: str) -> str:
    """The one refusal: case n failed, named with its log and the field."""
    (record,) = result.records
    case = record.cases[CASES[n]["case_id"]]
    assert case.score is None and case.refused and case.error is not None
    assert case.error.startswith(field), case.error
    (line,) = result.refused_values()
    assert line.startswith(f"{location}: case {CASES[n]['case_id']}: {field}"), line
    other = record.cases[CASES[1 - n]["case_id"]]
    assert other.completed and other.score == pytest.approx(SCORES[1 - n], abs=1e-12)
    return line


def test_samples_that_are_their_cases_scored_from_their_decisions_read_as_written(
    tmp_path: Path,
) -> None:
    result, _ = read(tmp_path, log_of([scored(0), scored(1)], RELEASE))
    (record,) = result.records
    assert result.refused_values() == []
    assert {k: c.score for k, c in record.cases.items()} == pytest.approx(
        {c["case_id"]: s for c, s in zip(CASES, SCORES, strict=True)}, abs=1e-12
    )


def test_a_hand_edited_score_in_range_is_refused_by_name(tmp_path: Path) -> None:
    edited = 0.75
    assert abs(edited - SCORES[0]) > 1e-6
    result, location = read(tmp_path, log_of([scored(0, edited), scored(1)], RELEASE))
    line = refused(result, location, 0, "score value:")
    assert f"{edited!r} is not the score its stored decisions give" in line


def test_a_hand_edited_score_is_refused_in_a_log_from_before_digests(tmp_path: Path) -> None:
    result, location = read(tmp_path, log_of([scored(0, 0.75), scored(1)], None))
    refused(result, location, 0, "score value:")


def test_an_answer_to_another_version_of_the_case_is_refused(tmp_path: Path) -> None:
    """A resume that reused a sample across an edit: its digest is the old case's."""
    release = {**RELEASE, CASES[0]["case_id"]: "f" * 64}
    result, location = read(tmp_path, log_of([scored(0), scored(1)], release))
    line = refused(result, location, 0, "sample metadata case_sha256:")
    assert "is not the digest the log's release has for this case" in line


def test_a_sample_whose_question_is_not_its_digest_is_refused(tmp_path: Path) -> None:
    result, location = read(
        tmp_path, log_of([scored(0, input="another question"), scored(1)], RELEASE)
    )
    line = refused(result, location, 0, "sample metadata case_sha256:")
    assert "question and rubric" in line


def test_a_sample_without_a_digest_or_outside_the_release_is_refused(tmp_path: Path) -> None:
    result, location = read(
        tmp_path, log_of([scored(0, metadata={"case_sha256": None}), scored(1)], RELEASE)
    )
    refused(result, location, 0, "sample metadata case_sha256:")
    release = {CASES[1]["case_id"]: RELEASE[CASES[1]["case_id"]]}
    result, location = read(tmp_path, log_of([scored(0), scored(1)], release))
    line = refused(result, location, 0, "sample metadata case_sha256:")
    assert f"has no case {CASES[0]['case_id']}" in line


@settings(max_examples=30, deadline=None)
@given(value=st.floats(0, 1))
def test_any_score_other_than_its_decisions_give_is_refused(value: float) -> None:
    # a new folder each example: Inspect may answer a read of a rewritten file from its cache
    with tempfile.TemporaryDirectory() as folder:
        result, location = read(Path(folder), log_of([scored(0, value), scored(1)], RELEASE))
    if abs(value - SCORES[0]) <= 1e-9:
        assert result.refused_values() == []
    else:
        refused(result, location, 0, "score value:")
