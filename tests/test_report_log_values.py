"""What the report makes of odd values in a log it reads (fast: logs built in memory with
Inspect's own classes, `tests/log_factory.py`, written and read back through `read_records`).

The property: any value of any field the report reads (score metadata, task metadata, task
arguments, the sample id), or its absence, gives either the honest result (the value read as
it is, or "not recorded" where absence is honest) or a failure of that case (that log) naming
the field; never a number pooled from a malformed value, never a traceback. Validity is
decided here by hand (`valid`), independently of the package's models.
"""

from __future__ import annotations

import atexit
import dataclasses
import itertools
import json
import math
import shutil
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.model import ModelUsage
from inspect_ai.scorer import Score

from bedside_bench.core.answer_condition import ANSWER_CONDITIONS, AnswerState, condition_of
from bedside_bench.core.contracts import (
    NOT_RECORDED,
    RubricItem,
    SampleMetadata,
    TaskMetadata,
    metadata_keys,
)
from bedside_bench.core.options import ScorerOptions
from bedside_bench.core.score_metadata import ScoreMetadata, TokenCounts
from bedside_bench.judging.grading import grading_strategy
from bedside_bench.judging.judge import JudgeOutcome
from bedside_bench.judging.three_level import LEVELS, ItemJudgement
from bedside_bench.logs.read import ReadResult, case_record, header_record, read_records
from bedside_bench.logs.records import CaseRecord, LogRecord, TokenUsage
from bedside_bench.logs.values import (
    REPORT_KEYS,
    TaskArgValues,
    TaskValues,
    required_score_fields,
    score_values,
)
from bedside_bench.scoring.scorer import judged_score, states_nothing
from tests.log_factory import JUDGE_A, eval_log, sample, write

F1_BENCHMARK = "safety_therapeutic"
ABSENT = object()  # the key is not in the log at all


@pytest.mark.parametrize(
    ("provenance", "source"),
    [
        (
            {
                "source_log": "/logs/answers.eval",
                "source_eval_id": "e-1",
                "source_task_id": "answers-run",
                "judge": JUDGE_A,
                "failed_only": False,
            },
            "answers-run",
        ),
        (None, "task-1"),
    ],
)
def test_the_report_reads_a_rejudge_provenance(provenance: object, source: str) -> None:
    """A log's `rejudge` key names the run whose answers it judged (none: its own)."""
    log = eval_log([sample("c1")], metadata={"rejudge": provenance})
    assert header_record("/logs/a.eval", log).answer_source == source


@pytest.mark.parametrize(
    ("value", "error"),
    [
        (0.0, None),
        (1.0, None),
        (7.0, "score value 7.0 is outside [0, 1]"),
        (-0.5, "score value -0.5 is outside [0, 1]"),
        (float("nan"), "score value nan is not a number"),
    ],
)
def test_a_score_outside_zero_to_one_fails_its_case(value: float, error: str | None) -> None:
    """A case score is in [0, 1]; a log holding another (tampered, or another scorer's) fails
    that case by name instead of bending the benchmark's mean."""
    scored = sample("c1", value=value)
    record = case_record("c1", None, scored.scores)
    assert record.error == error
    assert record.score == (value if error is None else None)


def test_the_models_read_keys_the_writers_write() -> None:
    """Every key the report validates is one the scorer / the tasks write (`contracts`)."""
    assert set(REPORT_KEYS) <= metadata_keys(ScoreMetadata)
    assert set(TaskValues.model_fields) <= metadata_keys(TaskMetadata)
    assert set(TaskArgValues.model_fields) == {"judge_model"}


# --------------------------------------------------------------------------------------------
# what the scorer writes is what the report reads

JUDGE = "openai/gpt-4.1"
RATIONALES = ("Stated.", "Stated, but the dose is missing.", "It fails to stop the drug.")
STOP_REASONS = ("stop", "max_tokens", "model_length", "content_filter", "tool_calls", "unknown")
SHARE = st.floats(0, 1)


@st.composite
def _rubric(draw: st.DrawFn) -> list[RubricItem]:
    points = draw(st.lists(st.integers(-3, 3), min_size=1, max_size=6))
    points[draw(st.integers(0, len(points) - 1))] = draw(st.integers(1, 3))
    return [RubricItem(f"i{n}", f"Item {n}.", p) for n, p in enumerate(points)]


@st.composite
def _attempts(draw: st.DrawFn) -> list[dict[str, object]]:
    """A pass's attempts: invalid replies asked again, then the valid one."""
    invalid = draw(st.integers(0, 2))
    raws = draw(st.lists(st.text(max_size=30), min_size=invalid + 1, max_size=invalid + 1))
    return [
        {
            "attempt": n,
            "raw": raw,
            "raw_chars": len(raw) + draw(st.integers(0, 5)),
            "error": None if n == invalid + 1 else f"not JSON ({n})",
        }
        for n, raw in enumerate(raws, start=1)
    ]


@st.composite
def _outcome(draw: st.DrawFn, grading: str, items: list[RubricItem]) -> JudgeOutcome[Any]:
    """One pass's judge outcome as `ask_judge` gives it to the grading variant."""
    decisions: object
    if grading == "binary":
        decisions = {item.item_id: draw(st.booleans()) for item in items}
    else:
        decisions = []
        for item in items:
            level = draw(st.sampled_from(LEVELS))
            quote = "" if level == "NOT_MET" else "the answer"
            rationale = draw(st.sampled_from(RATIONALES))
            decisions.append(ItemJudgement(item.item_id, level, rationale, quote))
    temperature = draw(st.none() | st.just(0.0) | st.floats(0, 2) | st.just(NOT_RECORDED))
    return JudgeOutcome(decisions, temperature, draw(_attempts()))


@st.composite
def _scored(draw: st.DrawFn) -> tuple[Score, SampleMetadata, ScorerOptions, bool]:
    """A score as the scorer writes it, from inputs the scorer may get: grading method and
    variant, rubric, judge passes and their outcomes, the answer's condition (or no text),
    temperatures and judge tokens. Also the case, its options and whether no judge was asked."""
    method = draw(st.sampled_from(["points_rubric", "f1_weighted_rubric"]))
    items = draw(_rubric())
    sample = SampleMetadata(
        case_id="c1",
        benchmark="drug_safety" if method == "points_rubric" else "safety_therapeutic",
        grading_method=method,  # type: ignore[arg-type]
        split="public",
        rubric_items=items,
        answer_temperature=draw(st.none() | st.floats(0, 2) | st.just(NOT_RECORDED)),
    )
    opts = ScorerOptions(
        grading=draw(st.sampled_from(["binary", "three_level"])),
        judge_passes=draw(st.integers(1, 3)),
        severe_gate=draw(st.booleans()),
    )
    strategy = grading_strategy(opts.grading)
    stop = draw(st.sampled_from(STOP_REASONS))
    empty = draw(st.booleans())
    answered = AnswerState(stop, condition_of(stop, refusal=False), empty=empty)
    if empty:
        return states_nothing(answered, strategy, sample, opts, JUDGE), sample, opts, True
    passes = opts.judge_passes
    outcomes = draw(st.lists(_outcome(opts.grading, items), min_size=passes, max_size=passes))
    results = [strategy.to_pass(outcome, items) for outcome in outcomes]
    counts = st.builds(
        TokenCounts,
        input_tokens=st.integers(0, 10**6),
        output_tokens=st.integers(0, 10**5),
        total_tokens=st.integers(0, 10**6),
    )
    usage = draw(st.dictionaries(st.sampled_from([JUDGE, "anthropic/claude"]), counts, max_size=2))
    answer = "Here is the answer."
    score = judged_score(answered, strategy, sample, opts, JUDGE, answer, results, usage)
    return score, sample, opts, False


def _written_keys(sample: SampleMetadata, opts: ScorerOptions, unasked: bool) -> list[str]:
    """The keys a score holds, in the order logs hold them (by hand, from how it was scored)."""
    f1 = sample.grading_method == "f1_weighted_rubric"
    method = ["recall", "precision", "severe_rate"] if f1 else ["matched_signed_points"]
    keys = ["decisions", "grading_method", *method]
    if not f1:
        keys.append("available_positive_points")
    keys += ["judge_model", "judge_temperature", "answer_temperature", "answer_stop_reason"]
    keys += ["answer_condition", "answer_complete", "answer_empty", "judge_attempts"]
    keys += ["judge_message_format", "severe_gate", "judge_usage"]
    if opts.judge_passes > 1 and unasked:  # each pass alone scores the same; none was asked
        keys += ["pass_scores"]
    elif opts.judge_passes > 1:
        keys += ["judge_passes", "pass_decisions", "pass_scores", "judge_agreement"]
    if opts.grading == "three_level":
        keys += ["match_values"] if unasked else ["judgements", "overrides", "match_values"]
    return keys


@settings(max_examples=150, deadline=None)
@given(scored=_scored())
def test_what_the_scorer_writes_validates_and_round_trips(
    scored: tuple[Score, SampleMetadata, ScorerOptions, bool],
) -> None:
    """The scorer's metadata holds the keys its way of scoring writes, in their order; stored
    as JSON it reads back through the one model as the same keys and values, and the report
    reads it as a case that counts (every key it requires there)."""
    score, sample, opts, unasked = scored
    written = score.metadata or {}
    assert list(written) == _written_keys(sample, opts, unasked)
    text = json.dumps(written)
    read = ScoreMetadata.model_validate_json(text)
    assert read.logged() == written
    assert json.dumps(read.logged()) == text
    f1 = sample.grading_method == "f1_weighted_rubric"
    values = score_values(json.loads(text), required_score_fields(f1))
    assert isinstance(values, ScoreMetadata), values
    assert values.answer_empty is unasked


# --------------------------------------------------------------------------------------------
# the property


def _number(v: object) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _share(v: object) -> bool:
    return _number(v) and 0 <= v <= 1  # type: ignore[operator]


def _text(v: object) -> bool:
    # a stored string comes back without its surrounding blanks: blanks alone are no text
    return isinstance(v, str) and v.strip() != ""


def _stripped(v: object) -> object:
    return v.strip() if isinstance(v, str) else v


def _decisions(v: object) -> bool:
    return isinstance(v, dict) and all(
        isinstance(k, str) and isinstance(d, bool | str) for k, d in v.items()
    )


def _usage(v: object) -> bool:
    return isinstance(v, dict) and all(
        isinstance(counts, dict)
        and all(
            isinstance(n, int) and not isinstance(n, bool) and n >= 0
            for k, n in counts.items()
            if k in TokenUsage.__dataclass_fields__
        )
        for counts in v.values()
    )


def _usage_total(v: dict[str, dict[str, int]]) -> TokenUsage | None:
    if not v:
        return None
    total = TokenUsage()
    for counts in v.values():
        known = {k: n for k, n in counts.items() if k in TokenUsage.__dataclass_fields__}
        total = total + TokenUsage(**known)
    return total


def _as_float(v: object) -> float | None:
    return None if v is None else float(v)  # type: ignore[arg-type]


def _temperature(v: object) -> bool:
    return v is None or v == NOT_RECORDED or (_number(v) and v >= 0)  # type: ignore[operator]


def _as_temperature(v: object) -> object:
    return v if v == NOT_RECORDED else _as_float(v)


# keys whose absence reads as something else than None: a temperature an earlier version did
# not write is not known, which is not "not sent"
ABSENT_READS_AS: dict[str, object] = {
    "judge_temperature": NOT_RECORDED,
    "answer_temperature": NOT_RECORDED,
}


# score metadata key -> (is this value valid, the CaseRecord field it sets, what it reads as);
# absent keys read as None unless required (below)
Check = tuple[Callable[[object], bool], str | None, Callable[[Any], object]]
SCORE_KEYS: dict[str, Check] = {
    "recall": (_share, "recall", _as_float),
    "precision": (lambda v: v is None or _share(v), "precision", _as_float),
    "severe_rate": (_share, "severe_rate", _as_float),
    "judge_model": (_text, "judge_model", _stripped),
    "judge_temperature": (_temperature, "judge_temperature", _as_temperature),
    "answer_temperature": (_temperature, "answer_temperature", _as_temperature),
    "judge_agreement": (_share, "judge_agreement", _as_float),
    "decisions": (
        _decisions,
        "decisions",
        lambda v: v if all(isinstance(d, bool) for d in v.values()) else None,
    ),
    "pass_decisions": (
        lambda v: isinstance(v, list) and len(v) > 0 and all(_decisions(p) for p in v),
        "pass_decisions",
        tuple,
    ),
    # optional (earlier logs lack it); as many as the passes or not is the report's to say
    "pass_scores": (
        lambda v: isinstance(v, list) and len(v) > 0 and all(_share(x) for x in v),
        "pass_scores",
        lambda v: tuple(float(x) for x in v),
    ),
    "judge_usage": (_usage, "judge_usage", _usage_total),
    "answer_stop_reason": (_text, "answer_stop_reason", _stripped),
    "answer_condition": (lambda v: v in ANSWER_CONDITIONS, "answer_condition", lambda v: v),
    # written by the scorer, not read by the report: any value leaves the result as it was
    "grading_method": (lambda v: True, None, lambda v: v),
    "answer_complete": (lambda v: True, None, lambda v: v),
    "judge_attempts": (lambda v: True, None, lambda v: v),
    "judge_message_format": (lambda v: True, None, lambda v: v),
    "severe_gate": (lambda v: True, None, lambda v: v),
    # read: with more than one pass, the per-pass keys are required (they are in HONEST_SCORE)
    "judge_passes": (
        lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 1,
        None,
        lambda v: v,
    ),
}
# an F1 case judged twice must say its recall, precision, severe flag, judge and agreement
REQUIRED = {
    "recall",
    "precision",
    "severe_rate",
    "judge_model",
    "judge_agreement",
    "pass_decisions",
}

PASS = {"i1": True, "i2": False, "i3": True}
HONEST_SCORE: dict[str, object] = {
    "decisions": PASS,
    "grading_method": "f1_weighted_rubric",
    "recall": 0.5,
    "precision": 1.0,
    "severe_rate": 0,
    "judge_model": JUDGE_A,
    "judge_temperature": 0.0,
    "answer_temperature": None,
    "answer_stop_reason": "stop",
    "answer_condition": "complete",
    "answer_complete": True,
    "judge_attempts": [{"attempt": 1, "raw": "{}", "raw_chars": 2, "error": None}],
    "judge_message_format": "v1",
    "severe_gate": False,
    "judge_usage": {JUDGE_A: {"input_tokens": 30, "output_tokens": 5, "total_tokens": 35}},
    "judge_passes": 2,
    "pass_decisions": [PASS, PASS],
    "pass_scores": [0.5, 0.25],
    "judge_agreement": 1.0,
}


# task metadata key -> (is this value valid, the LogRecord field, what it reads as); absent:
# the default the report assumes (protocol_version and dataset_sha256 are required)
TASK_KEYS: dict[str, Check] = {
    "benchmark": (
        lambda v: v is None or (_text(v) and v.replace("-", "_") == F1_BENCHMARK),  # type: ignore[union-attr]
        "benchmark",
        lambda v: F1_BENCHMARK,
    ),
    "protocol_version": (_text, "protocol_version", lambda v: v),
    "dataset_sha256": (_text, "dataset_sha256", lambda v: v),
    "data_source": (
        lambda v: v is None or isinstance(v, str),
        "data_source",
        lambda v: v or None,
    ),
    "release": (lambda v: v is None or isinstance(v, str), "release", lambda v: v),
    "release_case_counts": (
        lambda v: (
            v is None
            or (
                isinstance(v, dict)
                and all(
                    isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in v.values()
                )
            )
        ),
        "release_case_counts",
        lambda v: v,
    ),
    "smoke": (lambda v: isinstance(v, bool), "smoke", lambda v: v),
    "severe_gate": (lambda v: isinstance(v, bool), "severe_gate", lambda v: v),
    "judge_passes": (
        lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 1,
        "judge_passes",
        lambda v: v,
    ),
    "grading": (lambda v: v in ("binary", "three_level"), "grading", lambda v: v),
    "rejudge": (lambda v: v is None, "answer_source", lambda v: "task-1"),
    # written by the tasks, not read by the report
    "grading_method": (lambda v: True, None, lambda v: v),
}
TASK_ABSENT: dict[str, object] = {
    "benchmark": F1_BENCHMARK,
    "data_source": None,
    "release": None,
    "release_case_counts": None,
    "smoke": False,
    "severe_gate": False,
    "judge_passes": 1,
    "grading": "binary",
    "rejudge": "task-1",
    "grading_method": None,
}
HONEST_TASK: dict[str, object] = {
    "benchmark": F1_BENCHMARK,
    "grading_method": "f1_weighted_rubric",
    "protocol_version": "bedside-bench-grading-v1",
    "dataset_sha256": "0" * 64,
    "data_source": "/data/release",
    "release": "v1",
    "release_case_counts": {F1_BENCHMARK: 2},
    "smoke": False,
    "severe_gate": False,
    "judge_passes": 2,
    "grading": "binary",
}

JSONISH = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(-2, 2)
    | st.sampled_from([math.nan, math.inf, "", "yes", "three", "stop", "complete", "three_level"])
    | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=2), inner, max_size=2)
    ),
    max_leaves=4,
)
VALUES = st.one_of(st.just(ABSENT), JSONISH)


def _scored_sample(case: str, metadata: Mapping[str, object], case_id: object = None) -> EvalSample:
    s = sample(case, value=0.5)
    s.scores = {"rubric_judge": Score(value=0.5, metadata=dict(metadata))}
    if case_id is not None:
        s.id = case_id  # type: ignore[assignment]
    return s


def _mutated(base: Mapping[str, object], key: str, value: object) -> dict[str, object]:
    out = dict(base)
    if value is ABSENT:
        out.pop(key, None)
    else:
        out[key] = value
    return out


# one folder for every example's log (hypothesis examples cannot take pytest's tmp_path); a
# new file each time: Inspect may answer a read of a rewritten file from its cache
LOG_DIR = Path(tempfile.mkdtemp(prefix="report-log-values-"))
atexit.register(shutil.rmtree, LOG_DIR, True)
_written = itertools.count()


def _read(log: EvalLog) -> tuple[ReadResult, str]:
    location = write(log, LOG_DIR / f"run-{next(_written)}.eval")
    return read_records([location]), location


def _log(
    score: Mapping[str, object] = HONEST_SCORE,
    task: Mapping[str, object] = HONEST_TASK,
    args: Mapping[str, object] | None = None,
    case_id: object = None,
) -> EvalLog:
    log = eval_log(
        [_scored_sample("c1", score, case_id), _scored_sample("c2", HONEST_SCORE)],
        benchmark=F1_BENCHMARK,
    )
    log.eval.metadata = dict(task)
    log.eval.task_args = {"smoke": False, "judge_model": JUDGE_A} if args is None else dict(args)
    return log


HONEST, _ = _read(_log())
(HONEST_RECORD,) = HONEST.records


def _honest_case(case: str) -> CaseRecord:
    return HONEST_RECORD.cases[case]


def test_the_honest_log_reads_as_written() -> None:
    c1 = _honest_case("c1")
    assert c1.completed and c1.score == 0.5 and c1.recall == 0.5 and c1.precision == 1.0
    assert c1.pass_decisions == (PASS, PASS) and c1.judge_agreement == 1.0
    assert c1.pass_scores == (0.5, 0.25)
    assert HONEST_RECORD.judge_passes == 2 and HONEST.skipped == []


def _assert_case_refused(read: ReadResult, location: str, case: str, field: str) -> None:
    (record,) = read.records
    failed = record.cases[case]
    assert failed.score is None and failed.refused, failed
    assert failed.error is not None and failed.error.startswith(field), failed.error
    assert "\n" not in failed.error
    (line,) = read.refused_values()
    assert line.startswith(f"{location}: case {case}: {field}")
    # the other case is untouched
    assert record.cases["c2"] == _honest_case("c2")


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=st.sampled_from(sorted(SCORE_KEYS)), value=VALUES)
def test_any_score_metadata_value_is_read_honestly_or_fails_its_case(
    key: str, value: object
) -> None:
    read, location = _read(_log(score=_mutated(HONEST_SCORE, key, value)))
    valid, attribute, reads_as = SCORE_KEYS[key]
    if value is ABSENT:
        accepted = key not in REQUIRED
        expected: object = ABSENT_READS_AS.get(key)
    else:
        accepted = valid(value)
        expected = reads_as(value) if accepted else None
    if not accepted:
        _assert_case_refused(read, location, "c1", f"score metadata {key}:")
        return
    (record,) = read.records
    assert read.refused_values() == []
    honest = _honest_case("c1")
    if attribute is not None:
        honest = dataclasses.replace(honest, **{attribute: expected})
    assert record.cases == {"c1": honest, "c2": _honest_case("c2")}


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=st.sampled_from(sorted(TASK_KEYS)), value=VALUES)
def test_any_task_metadata_value_is_read_honestly_or_skips_its_log(key: str, value: object) -> None:
    read, location = _read(_log(task=_mutated(HONEST_TASK, key, value)))
    valid, attribute, reads_as = TASK_KEYS[key]
    if value is ABSENT:
        accepted = key in TASK_ABSENT
        expected = TASK_ABSENT.get(key)
    else:
        accepted = valid(value)
        expected = reads_as(value) if accepted else None
    if not accepted:
        assert read.records == []
        ((skipped, reason),) = read.skipped
        assert skipped == location
        names = (f"task metadata {key}:", f"task metadata has no {key!r}", "is not a BedsideBench")
        assert reason.startswith(names) or names[2] in reason, reason
        assert "\n" not in reason
        return
    (record,) = read.records
    assert read.skipped == []
    # the cases as they were (one pass or several: the per-pass keys are there either way)
    assert record.cases == HONEST_RECORD.cases
    if attribute is not None:
        assert getattr(record, attribute) == expected
    assert record.location == location
    for name in {f.name for f in dataclasses.fields(LogRecord)} - {attribute, "location"}:
        assert getattr(record, name) == getattr(HONEST_RECORD, name), name


# every key absent, always (besides what hypothesis draws)
for _key in SCORE_KEYS:
    test_any_score_metadata_value_is_read_honestly_or_fails_its_case = example(
        key=_key, value=ABSENT
    )(test_any_score_metadata_value_is_read_honestly_or_fails_its_case)
for _key in TASK_KEYS:
    test_any_task_metadata_value_is_read_honestly_or_skips_its_log = example(
        key=_key, value=ABSENT
    )(test_any_task_metadata_value_is_read_honestly_or_skips_its_log)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=VALUES)
def test_a_judge_model_task_argument_is_text_or_skips_its_log(value: object) -> None:
    args = _mutated({"smoke": False, "judge_model": JUDGE_A}, "judge_model", value)
    read, location = _read(_log(args=args))
    if value is ABSENT or value is None or _text(value):
        (record,) = read.records
        assert record.cases == HONEST_RECORD.cases
        return
    assert read.records == []
    assert read.skipped == [(location, read.skipped[0][1])]
    assert read.skipped[0][1].startswith("task argument judge_model:")


@settings(max_examples=10, deadline=None)
@given(case_id=st.integers(-5, 99))
def test_a_sample_id_that_is_not_text_fails_its_case(case_id: int) -> None:
    read, location = _read(_log(case_id=case_id))
    (record,) = read.records
    failed = record.cases[str(case_id)]
    assert failed.score is None and failed.refused
    assert failed.error == f"sample id {case_id} is not text (case ids are)"
    assert read.refused_values() == [f"{location}: case {case_id}: {failed.error}"]
    assert record.cases["c2"] == _honest_case("c2")


def test_a_score_judged_once_in_a_log_run_with_two_passes_counts() -> None:
    """`inspect score LOG -S judge_passes=1` over a two-pass run: its scores hold no per-pass
    keys (the header still says two passes); they are the scorer's own, not malformed."""
    once = {
        k: v
        for k, v in HONEST_SCORE.items()
        if k not in ("judge_passes", "pass_decisions", "pass_scores", "judge_agreement")
    }
    read, _ = _read(_log(score=once))
    (record,) = read.records
    c1 = record.cases["c1"]
    assert c1.completed and c1.pass_decisions is None and c1.judge_agreement is None
    assert c1.pass_scores is None
    assert read.refused_values() == []


@settings(max_examples=20, deadline=None)
@given(
    where=st.sampled_from(["model", "role", "sample model", "sample role"]),
    field=st.sampled_from(["input_tokens", "output_tokens", "total_tokens", "reasoning_tokens"]),
    count=st.integers(-3, 3),
)
def test_token_usage_that_is_negative_skips_its_log(where: str, field: str, count: int) -> None:
    """Token counts are Inspect's own typed fields, but a negative one would pass its check
    and lower a cost: the log is skipped, naming where."""
    log = _log()
    usage = {JUDGE_A: ModelUsage(input_tokens=10, output_tokens=2, total_tokens=12)}
    setattr(usage[JUDGE_A], field, count)
    samples = log.samples or []
    if where == "model":
        log.stats.model_usage = usage
    elif where == "role":
        log.stats.role_usage = {"grader": usage[JUDGE_A]}
    elif where == "sample model":
        samples[0].model_usage = usage
    else:
        samples[0].role_usage = {"grader": usage[JUDGE_A]}
    read, location = _read(log)
    if count >= 0:
        assert len(read.records) == 1 and read.skipped == []
        return
    assert read.records == []
    ((skipped, reason),) = read.skipped
    name = JUDGE_A if where.endswith("model") else "grader"
    prefix = "sample c1 epoch 1 " if where.startswith("sample") else ""
    kind = where.split()[-1]
    assert (skipped, reason) == (
        location,
        f"{prefix}{kind} usage of {name}: {field} must be >= 0, got {count}",
    )
