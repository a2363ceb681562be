"""Every task takes every option and does what it says: the ten tasks share one option set,
and a run of all ten through Inspect's `eval()` with non-default options shows each one
applied."""

from __future__ import annotations

import inspect
import re
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.util import registry_info

from bedside_bench.core.benchmarks import BENCHMARK_NAMES, BENCHMARKS_BY_NAME
from bedside_bench.core.protocol import THREE_LEVEL_PROTOCOL_VERSION
from bedside_bench.doubles import ProviderDouble, scripted_answer, scripted_three_level
from bedside_bench.scoring.scorer import TaskOptionError, rubric_judge
from bedside_bench.task import tasks as bedside_tasks
from bedside_bench.task.judge_check.task import judge_check
from bedside_bench.task.signature import TaskOptions, task_options
from tests.e2e_helpers import ANSWER_MODEL, JUDGE_MODEL, logs_by_task
from tests.independent import f1_parts, points_score, read_cases, three_level_matches
from tests.release_factory import write_release

OPTION_NAMES = [
    "data_dir",
    "revision",
    "smoke",
    "judge_model",
    "judge_retries",
    "severe_gate",
    "judge_passes",
    "grading",
]


@pytest.mark.parametrize("bench_name", BENCHMARK_NAMES)
def test_every_task_declares_every_option(bench_name: str) -> None:
    fn = getattr(bedside_tasks, bench_name)
    params = dict(inspect.signature(fn).parameters)
    # the trailing **options makes Inspect pass every -T argument, a misspelt one included
    assert params.pop("options").kind is inspect.Parameter.VAR_KEYWORD
    assert list(params) == OPTION_NAMES
    defaults = {n: f.default for n, f in bedside_tasks.TaskOptions.model_fields.items()}
    assert {name: p.default for name, p in params.items()} == defaults
    # what Inspect registered: the -T names it accepts, and the attributes `inspect list` shows
    info = registry_info(fn)
    assert info.name.split("/")[-1] == bench_name
    assert info.metadata["params"] == [*OPTION_NAMES, "options"]
    spec = BENCHMARKS_BY_NAME[bench_name]
    assert info.metadata["attribs"] == {
        "description": spec.scope,
        "grading": spec.grading_method,
    }


def test_options_split_into_scorer_and_case_options() -> None:
    scorer_params = list(inspect.signature(rubric_judge).parameters)
    assert scorer_params[-1] == "unknown"  # **unknown: a misspelt -S name, refused
    assert list(bedside_tasks.SCORER_OPTIONS) == scorer_params[:-1]
    assert sorted(bedside_tasks.SCORER_OPTIONS + bedside_tasks.CASE_OPTIONS) == sorted(OPTION_NAMES)


def test_unknown_option_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(TaskOptionError) as refused:
        bedside_tasks.bedside_task("drug_safety", judge_pases=3)
    assert str(refused.value) == (
        "bedside-bench: -T judge_pases is not an option (did you mean judge_passes?); "
        "no case was run"
    )


def test_every_unknown_option_is_named_with_its_closest_or_the_list() -> None:
    with pytest.raises(TaskOptionError) as refused:
        bedside_tasks.drug_safety(smoek=True, colour="red")
    assert str(refused.value) == (
        "bedside-bench: -T smoek is not an option (did you mean smoke?); -T colour is not an "
        f"option (the options are {', '.join(OPTION_NAMES)}); no case was run"
    )


def test_what_inspect_passes_itself_is_not_an_option_error() -> None:
    assert task_options({"model": "openai/x", "smoke": True}) == TaskOptions(smoke=True)


def test_the_scorer_refuses_an_unknown_s_option() -> None:
    with pytest.raises(
        TaskOptionError, match=r"-S judge_model_ is not an option \(did you mean judge_model\?\)"
    ):
        rubric_judge(judge_model_="openai/x")


def test_the_judge_check_refuses_an_unknown_t_option() -> None:
    with pytest.raises(TaskOptionError) as refused:
        judge_check(data_fille="pairs.jsonl")
    assert "-T data_fille is not an option (did you mean data_file?)" in str(refused.value)


def expected_gated_three_level(case: dict[str, Any], answer: str) -> tuple[Fraction, bool]:
    """Three-level score of the scripted judge's levels, with the severe gate; and whether the
    gate zeroed it (computed from the protocol text, not through the package)."""
    items = case["rubric_items"]
    levels = {i["item_id"]: scripted_three_level(answer, i["item_id"]) for i in items}
    m = three_level_matches(items, levels)
    if case["grading_method"] == "points_rubric":
        return points_score(items, m), False
    _, _, f1, severe = f1_parts(items, m)
    return (Fraction(0) if severe else f1), bool(severe and f1 > 0)


@pytest.mark.slow
def test_all_ten_tasks_apply_judge_passes_severe_gate_and_grading(
    tmp_path: Path, provider_env: ProviderDouble
) -> None:
    """`-T judge_passes=3 -T severe_gate=true -T grading=three_level -T judge_retries=0` as
    Inspect hands them to a task whose signature ends in `**options` (every name, typed by
    its YAML reading of -T: other files type -T values on `inspect eval` command lines), in
    this process."""
    provider_double = provider_env
    release = tmp_path / "release"
    write_release(release, per_benchmark=2)
    logs = tmp_path / "logs"
    options = {"judge_passes": 3, "severe_gate": True, "grading": "three_level"}
    tasks = [
        getattr(bedside_tasks, b)(data_dir=str(release), judge_retries=0, **options)
        for b in BENCHMARK_NAMES
    ]
    inspect_eval(
        tasks,
        model=ANSWER_MODEL,
        model_roles={"grader": JUDGE_MODEL},
        log_dir=str(logs),
        display="none",
    )
    by_task = logs_by_task(logs)
    assert sorted(by_task) == sorted(BENCHMARK_NAMES)
    # what the provider saw: per case one answer and exactly three three-level judge calls
    judge_calls = Counter(r.request.judge.prompt for r in provider_double.requests(kind="judge"))
    assert all(r.request.is_three_level for r in provider_double.requests(kind="judge"))
    assert len(judge_calls) == 20 and set(judge_calls.values()) == {3}
    assert provider_double.count(kind="answer") == 20
    gated = 0
    for benchmark, log in by_task.items():
        assert log.status == "success", log.error
        meta = log.eval.metadata or {}
        assert meta["grading"] == "three_level"
        assert meta["protocol_version"] == THREE_LEVEL_PROTOCOL_VERSION
        assert meta["judge_passes"] == 3 and meta["severe_gate"] is True
        assert log.eval.task_args["judge_passes"] == 3  # what `inspect view` shows
        assert log.eval.task_args["grading"] == "three_level"
        cases = {c["case_id"]: c for c in read_cases(release, benchmark)}
        assert len(log.samples or []) == 2
        for sample in log.samples or []:
            case = cases[str(sample.id)]
            score = sample.scores["rubric_judge"]  # type: ignore[index]
            smeta = score.metadata or {}
            answer = scripted_answer("gpt-4.1-mini", case["prompt"])
            assert smeta["judge_passes"] == 3 and len(smeta["pass_decisions"]) == 3
            assert smeta["severe_gate"] is True
            assert len(smeta["judge_attempts"]) == 3
            assert {a["pass"] for a in smeta["judge_attempts"]} == {1, 2, 3}
            levels = {
                i["item_id"]: scripted_three_level(answer, i["item_id"])
                for i in case["rubric_items"]
            }
            assert smeta["decisions"] == levels
            assert "match_values" in smeta  # the three-level scorer ran
            expected, was_gated = expected_gated_three_level(case, answer)
            gated += was_gated
            assert score.value == pytest.approx(float(expected), abs=1e-12)
    # the gate changed at least one score, so the check above could have failed
    assert gated >= 1


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"judge_passes": 2.5}, "-T judge_passes must be a whole number, got 2.5"),
        ({"judge_passes": "two"}, "-T judge_passes must be a whole number, got 'two'"),
        ({"judge_passes": True}, "-T judge_passes must be a whole number, got True"),
        ({"judge_retries": [2]}, "-T judge_retries must be a whole number, got [2]"),
        ({"smoke": "maybe"}, "-T smoke must be true or false, got 'maybe'"),
        ({"severe_gate": 1}, "-T severe_gate must be true or false, got 1"),
        ({"data_dir": 3}, "-T data_dir must be text, got 3"),
    ],
)
def test_a_value_of_the_wrong_type_stops_the_run_in_one_line(
    given: dict[str, object], message: str
) -> None:
    """Before any answer is bought: `-T judge_passes=2.5` used to buy every answer and fail
    every case, `-T judge_passes=two` to end in a traceback."""
    from bedside_bench.scoring.scorer import TaskOptionError
    from bedside_bench.task.signature import task_options

    with pytest.raises(TaskOptionError) as caught:
        task_options(given)
    assert str(caught.value) == f"bedside-bench: {message}; no case was run"


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"judge_retries": -1}, "judge_retries must be >= 0, got -1 (-T or -S option)"),
        ({"judge_retries": 1.5}, "-T judge_retries must be a whole number, got 1.5"),
        ({"data_file": "/no/such.jsonl"}, "-T data_file '/no/such.jsonl' is not a file"),
    ],
)
def test_the_judge_check_task_refuses_bad_values_like_the_benchmarks(
    given: dict[str, object], message: str
) -> None:
    """It used to run every sample into the same error (or a traceback for a missing file)."""
    from bedside_bench.scoring.scorer import TaskOptionError
    from bedside_bench.task.judge_check.task import judge_check

    with pytest.raises(TaskOptionError, match=re.escape(message)):
        judge_check(**given)
