"""The options are defined once (`core/options.py`): every task, the scorer's `-S`, the judge check
and `rejudge` take their names, defaults, types and ranges from the models, and the one-line
refusals agree with the models' own validation."""

from __future__ import annotations

import inspect
import json
from types import SimpleNamespace
from typing import Any, get_type_hints

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from bedside_bench.core.options import (
    CASE_OPTIONS,
    OPTION_NAMES,
    SCORER_DEFAULTS,
    SCORER_OPTIONS,
    CaseOptions,
    ScorerOptions,
    TaskArgs,
    TaskOptionError,
    TaskOptions,
    check_option_values,
    default_judge,
)
from bedside_bench.core.protocol import DEFAULT_JUDGE_MODEL
from bedside_bench.core.ranges import JUDGE_PASSES, JUDGE_RETRIES
from bedside_bench.rejudge.run import planned_scorers, scorer_options
from bedside_bench.scoring.joint import MAX_PASSES
from bedside_bench.scoring.scorer import rubric_judge
from bedside_bench.task import tasks as bedside_tasks
from bedside_bench.task.judge_check.task import JudgeCheckOptions, judge_check
from bedside_bench.task.signature import TASK_SIGNATURE, task_options


def test_the_defaults_are_the_protocol_s() -> None:
    # the judge: none named until the run resolves it (the grader role, else the protocol's)
    assert default_judge(ScorerOptions().judge_model) == DEFAULT_JUDGE_MODEL
    assert default_judge("openai/gpt-4.1") == "openai/gpt-4.1"
    assert ScorerOptions().model_dump() == {
        "judge_model": None,
        "judge_retries": 2,
        "severe_gate": False,
        "judge_passes": 1,
        "grading": "binary",
    }
    assert CaseOptions().model_dump() == {"data_dir": None, "revision": None, "smoke": False}


def test_task_options_are_the_case_options_then_the_scorer_options() -> None:
    """In this order: the task signature, `inspect list` and the log's task_args list them so."""
    assert OPTION_NAMES == CASE_OPTIONS + SCORER_OPTIONS
    assert TaskOptions().scorer_options() == SCORER_DEFAULTS
    opts = TaskOptions(smoke=True, judge_passes=3, grading="three_level")
    assert opts.scorer_options() == ScorerOptions(judge_passes=3, grading="three_level")


def test_the_task_signature_mypy_reads_is_the_one_inspect_reads() -> None:
    """`**options: Unpack[TaskArgs]` for mypy and IDEs; `TASK_SIGNATURE` for Inspect: the same
    names, in the same order, with the same types."""
    hints = get_type_hints(TaskArgs, include_extras=True)  # JudgeName keeps its check
    assert list(hints) == list(OPTION_NAMES)
    assert hints == {name: f.annotation for name, f in TaskOptions.model_fields.items()}
    params = list(TASK_SIGNATURE.parameters.values())
    assert [(p.name, p.annotation, p.default) for p in params[:-1]] == [
        (name, f.annotation, f.default) for name, f in TaskOptions.model_fields.items()
    ]
    assert params[-1].kind is inspect.Parameter.VAR_KEYWORD
    for name in ("drug_safety", "safety_therapeutic"):
        fn = getattr(bedside_tasks, name)
        hint = get_type_hints(inspect.unwrap(fn), include_extras=True)["options"]
        assert "TaskArgs" in repr(hint)  # Unpack[TaskArgs]


def test_the_scorer_takes_each_scorer_option_by_name_none_when_not_given() -> None:
    fn = inspect.unwrap(rubric_judge)
    params = inspect.signature(fn).parameters
    named = [p for p in params.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    assert [p.name for p in named] == list(SCORER_OPTIONS)
    assert all(p.default is None for p in named)
    hints = get_type_hints(fn, include_extras=True)
    for name, field in ScorerOptions.model_fields.items():
        assert hints[name] == field.annotation | None


def test_the_judge_check_shares_the_judge_s_judge_retries() -> None:
    shared = ScorerOptions.model_fields["judge_retries"]
    own = JudgeCheckOptions.model_fields["judge_retries"]
    assert (own.annotation, own.default, own.metadata) == (
        shared.annotation,
        shared.default,
        shared.metadata,
    )
    assert inspect.signature(judge_check).parameters["judge_retries"].default == 2


# every kind of value YAML can hand over for `-T name=value`
YAML_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=20),
    st.sampled_from([1_000, 10**9, 10**30]),  # `1_000` and `1000000000` as YAML reads them
    st.floats(allow_nan=False, min_value=-3, max_value=5),
    st.sampled_from(["binary", "three_level", "two", "", "true", DEFAULT_JUDGE_MODEL]),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=1),
)


@given(name=st.sampled_from(OPTION_NAMES), value=YAML_VALUES)
def test_the_t_checks_refuse_exactly_what_the_model_refuses(name: str, value: object) -> None:
    """The refusals are derived from the model: what they let through, the model (strict)
    accepts, and what they refuse, it rejects; the refusal is one line naming the option."""
    try:
        TaskOptions.model_validate({name: value})
        valid = True
    except ValidationError:
        valid = False
    if valid:
        assert getattr(task_options({name: value}), name) == value
        return
    with pytest.raises(TaskOptionError) as refused:
        task_options({name: value})
    message = str(refused.value)
    assert message.startswith("bedside-bench: ") and message.endswith("; no case was run")
    assert name in message and "\n" not in message


@given(name=st.sampled_from(SCORER_OPTIONS), value=YAML_VALUES.filter(lambda v: v is not None))
def test_the_s_checks_refuse_exactly_what_the_model_refuses(name: str, value: object) -> None:
    try:
        ScorerOptions.model_validate({name: value})
        valid = True
    except ValidationError:
        valid = False
    if valid:
        check_option_values({name: value})
        rubric_judge(**{name: value})
        return
    with pytest.raises(TaskOptionError) as refused:
        rubric_judge(**{name: value})
    assert str(refused.value).startswith(f"bedside-bench: {name} must be ")
    assert str(refused.value).endswith(" (-T or -S option); no case was run")


@pytest.mark.parametrize(
    ("given", "problem"),
    [
        ({"judge_passes": 0}, "judge_passes must be >= 1, got 0"),
        ({"judge_retries": -1}, "judge_retries must be >= 0, got -1"),
        ({"judge_passes": 2.5}, "judge_passes must be a whole number, got 2.5"),
        ({"judge_retries": True}, "judge_retries must be a whole number, got True"),
        ({"grading": "x"}, "grading must be one of binary, three_level, got 'x'"),
        ({"grading": 3}, "grading must be one of binary, three_level, got 3"),
        # before the options were one model, -S took these as they came (`maybe` was true)
        ({"severe_gate": "maybe"}, "severe_gate must be true or false, got 'maybe'"),
        ({"judge_model": 3}, "judge_model must be text, got 3"),
        # the ceilings (core/ranges.py): `-T judge_passes=1_000` was 1,001 paid calls a case,
        # `judge_passes=1000000000` ran out of memory after the answer was bought
        (
            {"judge_passes": 10**9},
            "judge_passes must be <= 15 (the report's interval over judge passes is computed "
            "for up to 15; each is a paid call), got 1000000000",
        ),
        (
            {"judge_retries": 11},
            "judge_retries must be <= 10 (each is a paid call; a judge invalid 11 times in a "
            "row is broken), got 11",
        ),
        # YAML reads full-width digits as text: refused as a flag refuses them
        ({"judge_passes": "\uff13"}, "judge_passes must be a whole number, got '\uff13'"),
        # a value is shown as one printable, bounded line
        (
            {"grading": "\x1b[2J" + "x" * 5000},
            "grading must be one of binary, three_level, got '\\x1b[2J"
            + "x" * 92
            + "... (5009 characters in all)",
        ),
    ],
)
def test_a_bad_s_value_is_refused_in_one_line(given: dict[str, Any], problem: str) -> None:
    with pytest.raises(TaskOptionError) as refused:
        rubric_judge(**given)
    assert str(refused.value) == f"bedside-bench: {problem} (-T or -S option); no case was run"


def test_a_t_range_error_reads_as_before() -> None:
    with pytest.raises(TaskOptionError) as refused:
        task_options({"judge_passes": 0})
    assert str(refused.value) == (
        "bedside-bench: judge_passes must be >= 1, got 0 (-T or -S option); no case was run"
    )


def test_the_judge_s_ceilings_are_those_of_core_ranges_and_the_report() -> None:
    """One place states them; the report's interval over passes is computed for as many."""
    fields = ScorerOptions.model_fields
    bounds = {
        name: (
            next(m.ge for m in fields[name].metadata if hasattr(m, "ge")),
            next(m.le for m in fields[name].metadata if hasattr(m, "le")),
        )
        for name in ("judge_passes", "judge_retries")
    }
    assert bounds == {
        "judge_passes": (JUDGE_PASSES.least, JUDGE_PASSES.most),
        "judge_retries": (JUDGE_RETRIES.least, JUDGE_RETRIES.most),
    }
    assert JUDGE_PASSES.most == MAX_PASSES
    assert task_options({"judge_passes": 15, "judge_retries": 10}).judge_passes == 15


def _source(options: dict[str, object] | None, metadata: dict[str, object]) -> Any:
    """What `scorer_options` reads of a source log: its scorer entries and task metadata."""
    scorers = None if options is None else [SimpleNamespace(name="rubric_judge", options=options)]
    return SimpleNamespace(eval=SimpleNamespace(scorers=scorers, metadata=metadata))


def test_rejudge_keeps_the_source_s_options_with_the_new_judge() -> None:
    recorded = {
        "judge_model": "openai/a",
        "judge_retries": 0,
        "severe_gate": True,
        "judge_passes": 3,
        "grading": "three_level",
    }
    opts = scorer_options(_source(recorded, {"judge_passes": 5}), "openai/b", None)
    assert opts == ScorerOptions(**{**recorded, "judge_model": "openai/b"})
    # what the new log records as the scorer's options: the scorer's order, as before
    assert json.dumps(opts.model_dump()) == (
        '{"judge_model": "openai/b", "judge_retries": 0, "severe_gate": true, '
        '"judge_passes": 3, "grading": "three_level"}'
    )
    source = _source(recorded, {})
    source.eval.scorers[0].name = "bedside_bench/rubric_judge"
    (entry,) = planned_scorers(_entries_copyable(source).eval.scorers, opts)
    assert entry.options == opts.model_dump()


def _entries_copyable(source: Any) -> Any:
    for entry in source.eval.scorers:
        entry.model_copy = lambda update, e=entry: SimpleNamespace(**{**vars(e), **update})
    return source


def test_rejudge_falls_back_to_the_task_metadata_then_the_defaults() -> None:
    """An old log whose scorer entry lacks an option (or holds None): its task metadata, else
    the protocol default; `--judge-passes` wins over both."""
    source = _source({"judge_model": "openai/a", "severe_gate": None}, {"severe_gate": True})
    assert scorer_options(source, "openai/b", None) == ScorerOptions(
        judge_model="openai/b", severe_gate=True
    )
    assert scorer_options(_source(None, {}), "openai/b", 2) == ScorerOptions(
        judge_model="openai/b", judge_passes=2
    )


def test_rejudge_refuses_a_source_option_out_of_range_in_one_line() -> None:
    with pytest.raises(TaskOptionError, match=r"judge_passes must be >= 1, got 0 \(-T or -S"):
        scorer_options(_source({"judge_passes": 0}, {}), "openai/b", None)
